/* See run_wait.h. */
#include "run_wait.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run_kill.h"
#include "run_signals.h"

/* The fallback's longest sleep: a stop signal landing between the check
 * and sigtimedwait is seen this late at most. */
#define FALLBACK_MAX_WAIT_S 0.1

double run_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    (void)pid;
    errno = ENOSYS;
    return -1;
#endif
}

static struct timespec to_timespec(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - floor(s)) * 1e9)};
    return ts;
}

/* Sleep until the command may have exited or `wait` seconds passed (< 0:
 * no limit), with the stop signals unblocked only inside the wait (ppoll),
 * so one arriving just before it still wakes it. */
static void wait_once(int pidfd, double wait, const sigset_t *open_mask)
{
    if (pidfd >= 0) {
        struct pollfd p = {pidfd, POLLIN, 0};
        struct timespec ts = to_timespec(wait > 0 ? wait : 0);
        ppoll(&p, 1, wait < 0 ? NULL : &ts, open_mask);
        return;
    }
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigset_t blocked;
    sigprocmask(SIG_SETMASK, open_mask, &blocked); /* let a stop signal's handler run */
    sigprocmask(SIG_BLOCK, &chld, NULL);
    if (wait < 0 || wait > FALLBACK_MAX_WAIT_S)
        wait = FALLBACK_MAX_WAIT_S;
    struct timespec ts = to_timespec(wait);
    sigtimedwait(&chld, NULL, &ts);
    sigprocmask(SIG_SETMASK, &blocked, NULL);
}

static double shorter(double a, double b) { return a < 0 ? b : b < a ? b : a; }

int run_wait(runner *r, pid_t pid, double t0, run_outcome *o, struct rusage *ru)
{
    int pidfd = open_pidfd(pid);
    r->exit_by_pidfd = pidfd >= 0;
    /* Stop signals and SIGCHLD stay blocked but while waiting: no signal
     * can slip between checking for it and going to sleep. */
    sigset_t block, orig, open_mask;
    run_signals_caught_set(&block);
    sigaddset(&block, SIGCHLD);
    sigprocmask(SIG_BLOCK, &block, &orig);
    open_mask = orig;
    sigdelset(&open_mask, SIGCHLD);
    double deadline = r->timeout_s > 0 ? t0 + r->timeout_s : -1, kill_at = -1;
    int rc = 0, woke = 0;
    for (;;) {
        pid_t w = wait4(pid, &o->status, WNOHANG, ru);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR) {
            fprintf(stderr, "spacrbench: wait4: %s\n", strerror(errno));
            rc = -1;
            break;
        }
        double now = run_now();
        if (deadline >= 0 && now >= deadline && !o->timed_out) {
            o->timed_out = 1;
            run_kill_tree(r, pid, SIGKILL);
        }
        if (run_signals_pending() && kill_at < 0)
            kill_at = now + RUN_KILL_GRACE_S;
        if (kill_at >= 0 && now >= kill_at && !o->killed_after_grace) {
            o->killed_after_grace = 1;
            fprintf(stderr,
                    "spacrbench: the command was still running %.0f s after signal %d: "
                    "killing it and its processes (SIGKILL)\n",
                    RUN_KILL_GRACE_S, run_signals_pending());
            run_kill_tree(r, pid, SIGKILL);
        }
        double wait = r->use_cgroup ? -1 : RUN_SAMPLE_INTERVAL_NS * 1e-9;
        if (run_vram_active(&r->vram))
            wait = shorter(wait, RUN_VRAM_INTERVAL_NS * 1e-9);
        if (deadline >= 0 && !o->timed_out)
            wait = shorter(wait, deadline - now);
        if (kill_at >= 0 && !o->killed_after_grace)
            wait = shorter(wait, kill_at - now);
        /* Not before the first wait: a /proc scan costs about a millisecond,
         * which a command that exits at once would be charged. */
        if (!r->use_cgroup && woke)
            tree_sample(&r->tree);
        if (woke) /* after the tree scan, which finds the new descendants */
            run_vram_sample(&r->vram, r->use_cgroup ? &r->cg : NULL, &r->tree, pid);
        wait_once(pidfd, wait, &open_mask);
        woke = 1;
    }
    /* Stopped by a signal: what the command started may still run (a
     * shell that died of the signal leaves its children). They get the
     * signal too, then SIGKILL when the grace period is over, as the
     * command itself would have. */
    int sig = run_signals_pending();
    if (rc == 0 && sig && !o->timed_out) {
        double now = run_now();
        if (kill_at < 0)
            kill_at = now + RUN_KILL_GRACE_S;
        if (!r->use_cgroup)
            tree_sample(&r->tree); /* the leftovers' peaks count, as they would have */
        run_procs procs = {r->use_cgroup ? &r->cg : NULL, &r->tree};
        if (run_kill_leftovers(&procs, sig, o->killed_after_grace ? now : kill_at) > 0 &&
            !o->killed_after_grace) {
            o->killed_after_grace = 1;
            fprintf(stderr,
                    "spacrbench: processes the command started were still running %.0f s after "
                    "signal %d: killing them (SIGKILL)\n",
                    RUN_KILL_GRACE_S, sig);
        }
    }
    /* A SIGCHLD still pending is discarded when unblocked (default action). */
    sigprocmask(SIG_SETMASK, &orig, NULL);
    if (pidfd >= 0)
        close(pidfd);
    return rc;
}
