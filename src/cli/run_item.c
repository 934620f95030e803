/* One item of `spacrbench run` (see cli.h). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cli.h"
#include "os.h"
#include "supervisor.h"

/* Append "; NAME (WHAT)" to the note of stale cgroups, and say it on
 * stderr as it is found. */
static void on_stale(void *arg, const sb_stale_group *g)
{
    char **note = arg;
    cli_notice("cgroup %s/%s was left by spacrbench process %ld, which no longer runs: %s",
               g->parent, g->name, g->owner, g->what);
    char *grown = NULL;
    if (asprintf(&grown, "%s%s%s (%s)", *note ? *note : "", *note ? "; " : "", g->name, g->what) <
        0)
        return;
    free(*note);
    *note = grown;
}

void run_supervisor_init(sb_supervisor *sup, sb_launcher *launcher, int no_cgroup,
                         int stdout_is_output, int64_t machine_limit, double timeout_s,
                         char **stale_note)
{
    char *found = NULL;
    sb_supervisor_config cfg = {.no_cgroup = no_cgroup,
                                .stdout_to_stderr = stdout_is_output,
                                .machine_limit = machine_limit,
                                .timeout_s = timeout_s,
                                .prefix = "spacrbench-run",
                                .launcher = launcher,
                                .in_child = cli_stdio_reset_in_child,
                                .on_stale = on_stale,
                                .stale_arg = &found};
    sb_supervisor_init(sup, &cfg);
    *stale_note = NULL;
    if (found && asprintf(stale_note,
                          "cgroups left by earlier spacrbench runs that did not end cleanly "
                          "(killed?) were found beside this run's: %s",
                          found) < 0)
        *stale_note = NULL;
    free(found);
}

static char **given_argv(void *arg, int64_t copy, int64_t line)
{
    (void)copy;
    (void)line;
    return arg;
}

static void on_grace_kill(void *arg, int what, int sig)
{
    (void)arg;
    cli_notice("%s still running %.0f s after signal %d: killing %s (SIGKILL)",
               what == 0 ? "the command was" : "processes the command started were",
               SB_SUPERVISOR_GRACE_S, sig, what == 0 ? "it and its processes" : "them");
}

static void on_leftovers(void *arg, const char *names)
{
    (void)arg;
    cli_notice("the command exited %.0f s ago; its item lasts until what it left running has "
               "ended too (--timeout bounds the wait): %s",
               SB_SUPERVISOR_LEFTOVER_SAY_S, names);
}

int run_item(sb_supervisor *sup, char **argv, size_t index, run_outcome *o)
{
    memset(o, 0, sizeof *o);
    o->timeout_s = sup->cfg.timeout_s;
    char name[32], why[SB_GROUP_PATH_MAX + 200];
    snprintf(name, sizeof name, "%zu", index);
    sb_launch l = {.copies = 1,
                   .lines = 1,
                   .argv_for = given_argv,
                   .arg = argv,
                   .name = name,
                   /* A SIGKILLed spacrbench cannot end it: the kernel does. */
                   .child_flags = SB_CHILD_DIE_WITH_PARENT,
                   .on_grace_kill = on_grace_kill,
                   .on_leftovers = on_leftovers};
    if (sb_supervisor_run(sup, &l, &o->copy, &o->group, why, sizeof why) != 0) {
        cli_error(CLI_EXIT_ERROR, "item %zu: %s", index + 1, why);
        return -1;
    }
    if (o->group.earlier_unlisted)
        cli_notice("cannot list the processes left by earlier items; they may be counted in "
                   "this item's peak");
    if (o->group.leftovers_killed > 0)
        cli_notice("item %zu: still running at --timeout (%g s) after the command had exited, "
                   "killed: %s",
                   index + 1, o->timeout_s, o->group.leftovers);
    if (o->group.start_errno) {
        cli_error(CLI_EXIT_ERROR, "fork: %s", strerror(o->group.start_errno));
        return -1;
    }
    /* Was it the kernel's OOM killer? The one decision (os.h): the
     * oom_kill counter of its own cgroup, else of spacrbench's own, and how
     * it died; our own SIGKILL (--timeout, the grace after a stop signal)
     * is never one. */
    sb_oom_facts f = {o->group.oom_kills,
                      o->group.oom_outside,
                      WIFSIGNALED(o->copy.status) && WTERMSIG(o->copy.status) == SIGKILL,
                      o->group.timed_out || o->group.killed_after_grace,
                      o->group.peak,
                      o->group.limit};
    o->oom_killed = sb_oom_verdict(&f) != SB_OOM_NO;
    /* The limit above a command without a cgroup of its own is news only
     * when it was OOM-killed there. */
    if (!sup->use_cgroup && !o->oom_killed)
        o->group.limit = -1;
    return 0;
}

/* A stop signal that came while the item's tree ran cut its time short,
 * whether the command died of it or had exited and what it left still ran. */
int run_outcome_ok(const run_outcome *o)
{
    return !o->copy.exec_errno && !o->group.stopped_by && WIFEXITED(o->copy.status) &&
           WEXITSTATUS(o->copy.status) == 0;
}

int run_outcome_result(const run_outcome *o)
{
    int status = WEXITSTATUS(o->copy.status);
    return o->copy.exec_errno                   ? 127
           : WIFSIGNALED(o->copy.status)        ? -WTERMSIG(o->copy.status)
           : status == 0 && o->group.stopped_by ? -o->group.stopped_by
                                                : status;
}

void run_describe_end(char *buf, size_t cap, int exec_errno, int status, const char *oom,
                      int64_t limit)
{
    char shown[32] = "unknown";
    if (exec_errno)
        snprintf(buf, cap, "cannot be started: %s", strerror(exec_errno));
    else if (oom) {
        if (limit > 0)
            spacrbench_format_bytes(limit, shown, sizeof shown);
        snprintf(buf, cap, "%sOOM-killed (the kernel's out-of-memory killer; memory limit %s)", oom,
                 shown);
    } else if (WIFSIGNALED(status))
        snprintf(buf, cap, "killed by signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else
        snprintf(buf, cap, "exited with status %d", WEXITSTATUS(status));
}

void run_outcome_describe(const run_outcome *o, char *buf, size_t cap)
{
    int status = o->copy.status, plain = !o->copy.exec_errno && !o->oom_killed;
    if (!o->copy.exec_errno && o->group.timed_out)
        snprintf(buf, cap, "timed out after %g s (killed with all its processes)", o->timeout_s);
    else if (plain && !WIFSIGNALED(status) && o->group.stopped_by && WEXITSTATUS(status) == 0)
        snprintf(buf, cap, "interrupted by signal %d (%s)", o->group.stopped_by,
                 strsignal(o->group.stopped_by));
    else
        run_describe_end(buf, cap, o->copy.exec_errno, status, o->oom_killed ? "" : NULL,
                         o->group.limit);
}
