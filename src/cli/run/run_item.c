/* One item of `spacrbench run`; see run_item.h. */
#include "run_item.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli_stdio.h"
#include "run_signals.h"
#include "run_stale.h"
#include "run_wait.h"
#include "spacrbench.h"

void runner_init(runner *r, int no_cgroup, int stdout_is_output, int64_t machine_limit,
                 double timeout_s)
{
    memset(r, 0, sizeof *r);
    r->timeout_s = timeout_s;
    r->stdout_is_output = stdout_is_output;
    r->machine_limit = machine_limit;
    char why[600] = "--no-cgroup was given";
    tree_sampler_init(&r->tree, getpid());
    run_vram_open(&r->vram);
    if (!no_cgroup && sb_group_locate(&r->cg, NULL, why, sizeof why) == 0) {
        char probe[64];
        snprintf(probe, sizeof probe, "spacrbench-run-%ld-probe", (long)getpid());
        if (sb_group_create(&r->cg, probe, why, sizeof why) == 0 &&
            sb_group_remove(&r->cg, NULL) == 0) {
            r->use_cgroup = 1;
            r->stale_note = run_stale_cleanup(&r->cg);
            return;
        }
    }
    snprintf(r->why_no_cgroup, sizeof r->why_no_cgroup, "%s", why);
    /* Still know the cgroup we run in (with --no-cgroup too): its oom_kill
     * counter names an OOM kill of an item that had no cgroup of its own. */
    if (!r->cg.version) {
        char ignored[600];
        sb_group_locate(&r->cg, NULL, ignored, sizeof ignored);
    }
    /* Keep orphaned grandchildren in view of the tree sampler. */
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

void runner_free(runner *r)
{
    tree_sampler_free(&r->tree);
    run_vram_close(&r->vram);
    free(r->stale_note);
    r->stale_note = NULL;
}

static double cpu_of(const struct rusage *ru)
{
    return (double)ru->ru_utime.tv_sec + (double)ru->ru_utime.tv_usec * 1e-6 +
           (double)ru->ru_stime.tv_sec + (double)ru->ru_stime.tv_usec * 1e-6;
}

int64_t run_limit_above(const sb_group *g, int64_t machine_limit)
{
    int64_t own = g->dir[0] ? sb_group_limit(g) : -1;
    if (own > 0)
        return own;
    if (!g->version)
        return machine_limit;
    sb_group parent = *g;
    snprintf(parent.dir, sizeof parent.dir, "%s", g->parent);
    int64_t up = sb_group_limit(&parent);
    return up > 0 ? up : machine_limit;
}

static int64_t limit_above(const runner *r) { return run_limit_above(&r->cg, r->machine_limit); }

/* Read the group's figures and remove it (on every path). */
static int finish_cgroup(runner *r, run_outcome *o)
{
    o->peak = sb_group_peak(&r->cg);
    o->limit = limit_above(r);
    int64_t kills = sb_group_oom_kills(&r->cg);
    /* Kernels before 4.13 have no oom_kill count: a SIGKILL with the peak
     * at the limit (within 1/16, at least 8 MiB) is the OOM killer too. */
    int64_t slack = o->limit / 16 > (8 << 20) ? o->limit / 16 : (8 << 20);
    int at_limit = o->limit > 0 && o->peak >= 0 && o->peak + slack >= o->limit;
    /* Our own SIGKILL (--timeout, the grace after a stop signal) is not one. */
    int ours = o->timed_out || o->killed_after_grace;
    o->oom_killed = kills > 0 || (kills < 0 && !ours && WIFSIGNALED(o->status) &&
                                  WTERMSIG(o->status) == SIGKILL && at_limit);
    if (sb_group_remove(&r->cg, &o->left_behind) != 0) {
        fprintf(stderr, "spacrbench: cannot remove %s: %s\n", r->cg.dir, strerror(errno));
        return -1;
    }
    return 0;
}

int64_t run_own_oom_kills(const sb_group *cg)
{
    if (!cg->version)
        return -1;
    sb_group own = *cg;
    snprintf(own.dir, sizeof own.dir, "%s", cg->parent);
    return sb_group_oom_kills(&own);
}

static int64_t own_oom_kills(const runner *r) { return run_own_oom_kills(&r->cg); }

/* The fallback's verdict: a SIGKILL while the counter rose, not ours. */
static void finish_fallback_oom(const runner *r, run_outcome *o, int64_t kills_before)
{
    int64_t kills_after = own_oom_kills(r);
    int ours = o->timed_out || o->killed_after_grace;
    if (kills_before < 0 || kills_after <= kills_before || ours || !WIFSIGNALED(o->status) ||
        WTERMSIG(o->status) != SIGKILL)
        return;
    o->oom_killed = 1;
    o->limit = limit_above(r);
}

/* Child side: default actions for the caught signals (an ignored one stays
 * ignored), wait for the go byte (sent once we are in the cgroup) and
 * exec; an exec failure goes back through the CLOEXEC pipe. */
static void child(const runner *r, char **argv, int go, int err, const sigset_t *mask)
{
    run_signals_reset_in_child();
    cli_stdio_reset_in_child();
    sigprocmask(SIG_SETMASK, mask, NULL);
    if (r->stdout_is_output && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
        _exit(127);
    char b;
    ssize_t n;
    while ((n = read(go, &b, 1)) < 0 && errno == EINTR)
        ;
    if (n != 1)
        _exit(127);
    execvp(argv[0], argv);
    int e = errno;
    if (write(err, &e, sizeof e) < 0)
        _exit(126);
    _exit(127);
}

int run_item(runner *r, char **argv, size_t index, run_outcome *o)
{
    memset(o, 0, sizeof *o);
    o->peak = -1;
    o->vram_peak = -1;
    o->limit = -1;
    o->timeout_s = r->timeout_s;
    if (r->use_cgroup) {
        char name[64], why[600];
        snprintf(name, sizeof name, "spacrbench-run-%ld-%zu", (long)getpid(), index);
        if (sb_group_create(&r->cg, name, why, sizeof why) != 0) {
            fprintf(stderr, "spacrbench: item %zu: %s\n", index + 1, why);
            return -1;
        }
    }
    int go[2], err[2];
    if (pipe2(go, O_CLOEXEC) != 0) {
        fprintf(stderr, "spacrbench: pipe: %s\n", strerror(errno));
        sb_group_remove(&r->cg, NULL);
        return -1;
    }
    if (pipe2(err, O_CLOEXEC) != 0) {
        fprintf(stderr, "spacrbench: pipe: %s\n", strerror(errno));
        close(go[0]), close(go[1]);
        sb_group_remove(&r->cg, NULL);
        return -1;
    }
    /* Without a cgroup, leftovers of earlier items are our descendants too
     * (we are their subreaper): they belong to no later item. */
    if (!r->use_cgroup && tree_sampler_exclude_current(&r->tree) < 0)
        fprintf(stderr, "spacrbench: cannot list the processes left by earlier items; "
                        "they may be counted in this item's peak\n");
    fflush(stdout);
    fflush(stderr);
    run_signals_set_child(0);
    /* Hold the stop signals until the child's pid is known here and the
     * child has dropped spacrbench's handler: one arriving in between is
     * then passed on (or kills the child) instead of being lost. */
    sigset_t before;
    run_signals_block(&before);
    pid_t pid = fork();
    if (pid == 0) {
        close(go[1]);
        close(err[0]);
        child(r, argv, go[0], err[1], &before);
    }
    close(go[0]);
    close(err[1]);
    if (pid < 0) {
        fprintf(stderr, "spacrbench: fork: %s\n", strerror(errno));
        sigprocmask(SIG_SETMASK, &before, NULL);
        close(go[1]), close(err[0]);
        sb_group_remove(&r->cg, NULL);
        return -1;
    }
    run_signals_set_child(pid);
    sigprocmask(SIG_SETMASK, &before, NULL); /* a pending one runs the handler now */
    int rc = 0;
    /* Stopped before the command started (a terminal signal is not passed
     * on by the handler): end the child the same way, so the item reads as
     * interrupted like one stopped while running. */
    if (run_signals_pending())
        kill(pid, run_signals_pending());
    if (r->use_cgroup && sb_group_attach(&r->cg, pid) != 0) {
        fprintf(stderr, "spacrbench: cannot move the command into %s: %s\n", r->cg.dir,
                strerror(errno));
        rc = -1;
    }
    double t0 = run_now();
    if (rc == 0 && write(go[1], "x", 1) != 1) {
        fprintf(stderr, "spacrbench: cannot start the command: %s\n", strerror(errno));
        rc = -1;
    }
    close(go[1]); /* on failure the child reads EOF and exits 127 */
    int e = 0;
    ssize_t got;
    while ((got = read(err[0], &e, sizeof e)) < 0 && errno == EINTR)
        ;
    close(err[0]);
    if (got == (ssize_t)sizeof e)
        o->exec_errno = e ? e : ENOEXEC;

    tree_sampler_reset(&r->tree);
    run_vram_begin(&r->vram);
    int64_t kills_before = r->use_cgroup ? -1 : own_oom_kills(r);
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    if (run_wait(r, pid, t0, o, &ru) != 0)
        rc = -1;
    o->seconds = run_now() - t0;
    run_signals_set_child(0);
    o->cpu_seconds = cpu_of(&ru);
    /* Orphaned grandchildren were reparented to us (child subreaper). */
    while (waitpid(-1, NULL, WNOHANG) > 0)
        ;
    if (r->use_cgroup) {
        /* Once more at the end: leftovers still in the group are the item's. */
        run_vram_sample(&r->vram, &r->cg, &r->tree, pid);
        o->vram_peak = run_vram_end(&r->vram);
        if (finish_cgroup(r, o) != 0)
            rc = -1;
    } else {
        o->peak = tree_peak(&r->tree, pid, (int64_t)ru.ru_maxrss * 1024);
        int alive = tree_sample(&r->tree);
        o->left_behind = alive > 0 ? alive : 0;
        run_vram_sample(&r->vram, NULL, &r->tree, pid);
        o->vram_peak = run_vram_end(&r->vram);
        finish_fallback_oom(r, o, kills_before);
    }
    return rc;
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
