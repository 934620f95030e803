/* One item of `spacrbench run`; see run_item.h. */
#include "run_item.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cli_error.h"
#include "cli_stdio.h"
#include "spacrbench.h"

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

void run_supervisor_init(sb_supervisor *sup, int no_cgroup, int stdout_is_output,
                         int64_t machine_limit, double timeout_s, char **stale_note)
{
    char *found = NULL;
    sb_supervisor_config cfg = {.no_cgroup = no_cgroup,
                                .stdout_to_stderr = stdout_is_output,
                                .machine_limit = machine_limit,
                                .timeout_s = timeout_s,
                                .prefix = "spacrbench-run",
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
    if (what == 0)
        cli_notice("the command was still running %.0f s after signal %d: killing it and its "
                   "processes (SIGKILL)",
                   SB_SUPERVISOR_GRACE_S, sig);
    else
        cli_notice("processes the command started were still running %.0f s after signal %d: "
                   "killing them (SIGKILL)",
                   SB_SUPERVISOR_GRACE_S, sig);
}

/* Was it the kernel's OOM killer? With a cgroup of its own, its oom_kill
 * count says so; kernels before 4.13 have none: a SIGKILL with the peak at
 * the limit (within 1/16, at least 8 MiB) is the OOM killer too. Without
 * one, a SIGKILL while the counter of spacrbench's own cgroup rose. Our
 * own SIGKILL (--timeout, the grace after a stop signal) is never one. */
static int oom_killed(const sb_supervisor *sup, const sb_outcome *so, const run_outcome *o)
{
    int ours = o->timed_out || o->killed_after_grace;
    int sigkill = WIFSIGNALED(o->status) && WTERMSIG(o->status) == SIGKILL;
    if (!sup->use_cgroup)
        return so->oom_kills > 0 && !ours && sigkill;
    int64_t slack = so->limit / 16 > (8 << 20) ? so->limit / 16 : (8 << 20);
    int at_limit = so->limit > 0 && so->peak >= 0 && so->peak + slack >= so->limit;
    return so->oom_kills > 0 || (so->oom_kills < 0 && !ours && sigkill && at_limit);
}

int run_item(sb_supervisor *sup, char **argv, size_t index, run_outcome *o)
{
    memset(o, 0, sizeof *o);
    o->peak = o->rss_peak = o->vram_peak = o->limit = -1;
    o->timeout_s = sup->cfg.timeout_s;
    char name[32], why[SB_GROUP_PATH_MAX + 200];
    snprintf(name, sizeof name, "%zu", index);
    sb_launch l = {.copies = 1,
                   .lines = 1,
                   .argv_for = given_argv,
                   .arg = argv,
                   .name = name,
                   .on_grace_kill = on_grace_kill};
    sb_copy c;
    sb_outcome so;
    if (sb_supervisor_run(sup, &l, &c, &so, why, sizeof why) != 0) {
        cli_error(CLI_EXIT_ERROR, "item %zu: %s", index + 1, why);
        return -1;
    }
    if (so.earlier_unlisted)
        cli_notice("cannot list the processes left by earlier items; they may be counted in "
                   "this item's peak");
    if (so.start_errno) {
        cli_error(CLI_EXIT_ERROR, "fork: %s", strerror(so.start_errno));
        return -1;
    }
    o->exec_errno = c.exec_errno;
    o->status = c.status;
    o->started_at = so.started_at;
    o->seconds = so.seconds;
    o->cpu_seconds = c.cpu_seconds;
    o->peak = so.peak;
    o->rss_peak = so.rss_peak;
    o->hugetlb_peak = so.hugetlb_peak;
    o->vram_peak = so.vram_peak;
    o->left_behind = so.left_behind;
    o->timed_out = so.timed_out;
    o->killed_after_grace = so.killed_after_grace;
    o->oom_killed = oom_killed(sup, &so, o);
    if (sup->use_cgroup || o->oom_killed)
        o->limit = so.limit;
    return 0;
}

int run_outcome_ok(const run_outcome *o)
{
    return !o->exec_errno && WIFEXITED(o->status) && WEXITSTATUS(o->status) == 0;
}

int run_outcome_result(const run_outcome *o)
{
    return o->exec_errno            ? 127
           : WIFSIGNALED(o->status) ? -WTERMSIG(o->status)
                                    : WEXITSTATUS(o->status);
}

int run_outcome_start_failure(const run_outcome *o)
{
    if (!o->exec_errno)
        return 0;
    return o->exec_errno == ENOENT || o->exec_errno == ENOTDIR ? 127 : 126;
}

void run_outcome_describe(const run_outcome *o, char *buf, size_t cap)
{
    if (o->exec_errno)
        snprintf(buf, cap, "cannot be started: %s", strerror(o->exec_errno));
    else if (o->timed_out)
        snprintf(buf, cap, "timed out after %g s (killed with all its processes)", o->timeout_s);
    else if (o->oom_killed) {
        char limit[32] = "unknown";
        if (o->limit > 0)
            spacrbench_format_bytes(o->limit, limit, sizeof limit);
        snprintf(buf, cap, "OOM-killed (the kernel's out-of-memory killer; memory limit %s)",
                 limit);
    } else if (WIFSIGNALED(o->status))
        snprintf(buf, cap, "killed by signal %d (%s)", WTERMSIG(o->status),
                 strsignal(WTERMSIG(o->status)));
    else
        snprintf(buf, cap, "exited with status %d", WEXITSTATUS(o->status));
}
