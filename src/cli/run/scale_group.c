/* k copies at once in one group; see scale_group.h. */
#include "scale_group.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli_stdio.h"
#include "run_item.h"
#include "run_kill.h"
#include "run_signals.h"
#include "run_wait.h"

/* Copy side (async-signal-safe calls only: the parent may have threads in
 * a sanitizer runtime). Wait for the go byte, run all but the last item as
 * children, then become the last one, so a one-item copy IS the command
 * and the group holds nothing but the commands. A failing item ends the
 * copy with its status (a signal as 128 + its number). */
static void copy_main(char **const *argvs, int64_t m, int go, int stdout_is_output,
                      const sigset_t *mask)
{
    run_signals_reset_in_child();
    cli_stdio_reset_in_child();
    sigprocmask(SIG_SETMASK, mask, NULL);
    if (stdout_is_output && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
        _exit(127);
    char b;
    ssize_t n;
    while ((n = read(go, &b, 1)) < 0 && errno == EINTR)
        ;
    if (n != 1)
        _exit(127); /* never released: spacrbench gave up on this point */
    for (int64_t j = 0; j + 1 < m; j++) {
        pid_t pid = fork();
        if (pid < 0)
            _exit(127);
        if (pid == 0) {
            execvp(argvs[j][0], argvs[j]);
            _exit(127);
        }
        int st;
        while (waitpid(pid, &st, 0) < 0)
            if (errno != EINTR)
                _exit(127);
        if (WIFSIGNALED(st))
            _exit(128 + WTERMSIG(st));
        if (WEXITSTATUS(st) != 0)
            _exit(WEXITSTATUS(st));
    }
    execvp(argvs[m - 1][0], argvs[m - 1]);
    _exit(127);
}

static int find_copy(const scale_copy *copies, int64_t k, pid_t pid)
{
    for (int64_t i = 0; i < k; i++)
        if (copies[i].pid == pid && !copies[i].done)
            return (int)i;
    return -1;
}

/* One VRAM sample of the copies: every PID of the group's cgroup, or the
 * copies and the descendants the tree sampler has seen. */
static void sample_vram(const scale_setup *setup, const sb_group *g, const scale_copy *copies)
{
    if (setup->vram && run_vram_active(setup->vram))
        run_vram_sample(setup->vram, setup->use_cgroup ? g : NULL, setup->tree, copies[0].pid);
}

/* Reap what has exited (orphaned grandchildren too, without a cgroup: we
 * are their subreaper); how many copies were among them, -1 when there is
 * no child left to wait for (cannot happen while copies are unreaped). */
static int64_t reap(scale_copy *copies, int64_t k, double t0)
{
    int64_t reaped = 0;
    for (;;) {
        int st;
        struct rusage ru;
        pid_t w = wait4(-1, &st, WNOHANG, &ru);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno == ECHILD && !reaped)
            return -1;
        if (w <= 0)
            return reaped;
        int i = find_copy(copies, k, w);
        if (i < 0)
            continue;
        copies[i].done = 1;
        copies[i].status = st;
        copies[i].seconds = run_now() - t0;
        copies[i].maxrss = (int64_t)ru.ru_maxrss * 1024;
        reaped++;
    }
}

static double shorter(double a, double b) { return a < 0 ? b : b < a ? b : a; }

/* Sleep until a child may have exited (SIGCHLD through sfd), a stop
 * signal came, or `wait` seconds passed (< 0: no limit). The stop signals
 * are unblocked only inside ppoll, so one arriving just before it still
 * wakes it. Without sfd, SIGCHLD cannot wake it: at most
 * SCALE_FALLBACK_WAIT_S then. */
#define SCALE_FALLBACK_WAIT_S 0.1
static void sleep_once(int sfd, double wait, const sigset_t *open_mask)
{
    if (sfd < 0)
        wait = shorter(wait, SCALE_FALLBACK_WAIT_S);
    struct pollfd p = {sfd, POLLIN, 0};
    struct timespec ts = {(time_t)wait, (long)((wait - (double)(time_t)wait) * 1e9)};
    ppoll(sfd >= 0 ? &p : NULL, sfd >= 0 ? 1 : 0, wait < 0 ? NULL : &ts, open_mask);
    struct signalfd_siginfo info;
    while (sfd >= 0 && read(sfd, &info, sizeof info) == (ssize_t)sizeof info)
        ;
}

/* Reap every copy. With a cgroup and no GPU to sample, it sleeps until a
 * child exits (no polling); otherwise the tree (no cgroup) and the GPU
 * memory are sampled every RUN_SAMPLE_INTERVAL_NS or RUN_VRAM_INTERVAL_NS
 * meanwhile. A stop signal is passed on to the copies still running (the
 * handler knows one pid only); RUN_KILL_GRACE_S later, whatever of the
 * group still runs is killed (SIGKILL), as a serial item would be. Once
 * every copy has exited after a stop signal, the processes they left get
 * the signal too, then SIGKILL at the same deadline. */
static void wait_copies(const scale_setup *setup, const sb_group *g, scale_copy *copies, int64_t k,
                        double t0, scale_outcome *o)
{
    int64_t left = 0;
    for (int64_t i = 0; i < k; i++)
        left += copies[i].pid > 0 && !copies[i].done;
    int vram = setup->vram && run_vram_active(setup->vram);
    double interval = -1;
    if (!setup->use_cgroup || vram)
        interval = (setup->use_cgroup ? RUN_VRAM_INTERVAL_NS : RUN_SAMPLE_INTERVAL_NS) * 1e-9;
    run_procs procs = {setup->use_cgroup ? g : NULL, setup->tree};
    /* Stop signals and SIGCHLD stay blocked but while sleeping: no signal
     * can slip between checking for it and going to sleep. */
    sigset_t block, orig, open_mask, chld;
    run_signals_caught_set(&block);
    sigaddset(&block, SIGCHLD);
    sigprocmask(SIG_BLOCK, &block, &orig);
    open_mask = orig; /* the stop signals open, SIGCHLD still blocked (for sfd) */
    sigaddset(&open_mask, SIGCHLD);
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    int sfd = signalfd(-1, &chld, SFD_NONBLOCK | SFD_CLOEXEC);
    double kill_at = -1;
    for (;;) {
        int64_t reaped = reap(copies, k, t0);
        if (reaped < 0)
            break; /* do not sleep for a child that is not there */
        if ((left -= reaped) <= 0)
            break;
        double now = run_now();
        int sig = run_signals_pending();
        if (sig && !o->stopped_by) {
            o->stopped_by = sig;
            kill_at = now + RUN_KILL_GRACE_S;
            for (int64_t i = 0; i < k; i++)
                if (copies[i].pid > 0 && !copies[i].done)
                    kill(copies[i].pid, sig);
        }
        if (kill_at >= 0 && now >= kill_at && !o->killed_after_grace) {
            o->killed_after_grace = 1;
            fprintf(stderr,
                    "spacrbench: --scale: %lld workers: still running %.0f s after signal %d: "
                    "killing the copies and all their processes (SIGKILL)\n",
                    (long long)k, RUN_KILL_GRACE_S, sig);
            for (int64_t i = 0; i < k; i++)
                if (copies[i].pid > 0 && !copies[i].done)
                    kill(copies[i].pid, SIGKILL);
            run_kill_procs(&procs, SIGKILL);
            continue; /* reap them */
        }
        double wait = interval;
        if (kill_at >= 0 && !o->killed_after_grace)
            wait = shorter(wait, kill_at - now);
        if (!setup->use_cgroup)
            tree_sample(setup->tree);
        sample_vram(setup, g, copies);
        sleep_once(sfd, wait, &open_mask);
    }
    int sig = run_signals_pending();
    if (sig) {
        double now = run_now();
        if (!o->stopped_by) { /* it came as the last copy exited */
            o->stopped_by = sig;
            kill_at = now + RUN_KILL_GRACE_S;
        }
        if (!setup->use_cgroup)
            tree_sample(setup->tree); /* the leftovers' peaks count */
        if (run_kill_leftovers(&procs, sig, o->killed_after_grace ? now : kill_at) > 0 &&
            !o->killed_after_grace) {
            o->killed_after_grace = 1;
            fprintf(stderr,
                    "spacrbench: --scale: %lld workers: processes the copies started were still "
                    "running %.0f s after signal %d: killing them (SIGKILL)\n",
                    (long long)k, RUN_KILL_GRACE_S, sig);
        }
    }
    if (sfd >= 0)
        close(sfd);
    /* A SIGCHLD still pending is discarded when unblocked (default action). */
    sigprocmask(SIG_SETMASK, &orig, NULL);
}

/* Never released (setup failed or a signal came): close the go pipe, so
 * the copies read EOF and exit, and reap them. */
static void abandon(scale_copy *copies, int64_t started, int go_write)
{
    close(go_write);
    for (int64_t i = 0; i < started; i++)
        while (waitpid(copies[i].pid, NULL, 0) < 0 && errno == EINTR)
            ;
}

/* The count's own cgroup: its peak, its OOM kills, and the limit its
 * copies ran under (the nearest above them, as for a serial item). */
static void measure_group(const scale_setup *setup, sb_group *g, scale_outcome *o)
{
    o->peak = sb_group_peak(g);
    o->oom_kills = sb_group_oom_kills(g);
    o->limit = run_limit_above(g, setup->machine_limit);
}

/* Did a copy die of SIGKILL (or, running several items, end as one of its
 * items did: 128 + 9) that spacrbench did not send? */
static int copy_sigkilled(const scale_copy *c, int64_t m)
{
    if (!c->done)
        return 0;
    if (WIFSIGNALED(c->status))
        return WTERMSIG(c->status) == SIGKILL;
    return m > 1 && WEXITSTATUS(c->status) == 128 + SIGKILL;
}

/* Without a cgroup of the count's own: an OOM kill still shows in the
 * oom_kill counter of the cgroup spacrbench runs in (the serial
 * fallback's rule: the counter rose and a copy died of a SIGKILL that was
 * not ours). */
static void fallback_oom(const scale_setup *setup, const scale_copy *copies, int64_t k, int64_t m,
                         int64_t kills_before, scale_outcome *o)
{
    int64_t kills_after = run_own_oom_kills(setup->cg);
    if (kills_before < 0 || kills_after <= kills_before || o->killed_after_grace)
        return;
    int sigkilled = 0;
    for (int64_t i = 0; i < k; i++)
        sigkilled |= copy_sigkilled(&copies[i], m);
    if (!sigkilled)
        return;
    o->oom_kills = kills_after - kills_before;
    o->oom_outside = 1;
    sb_group own = *setup->cg;
    own.dir[0] = '\0';
    o->limit = run_limit_above(&own, setup->machine_limit);
}

int scale_group_run(const scale_setup *setup, char **const *argvs, int64_t k, int64_t m,
                    const char *name, scale_copy *copies, scale_outcome *o)
{
    memset(o, 0, sizeof *o);
    memset(copies, 0, (size_t)k * sizeof *copies);
    o->peak = o->oom_kills = o->limit = o->vram_peak = -1;
    if (k < 1 || k > 1024 || m < 1) {
        fprintf(stderr, "spacrbench: --scale: %lld copies of %lld item(s) (a bug)\n", (long long)k,
                (long long)m);
        return -1;
    }
    sb_group g = *setup->cg;
    g.dir[0] = '\0';
    char why[600];
    if (setup->use_cgroup && sb_group_create(&g, name, why, sizeof why) != 0) {
        fprintf(stderr, "spacrbench: --scale: %s\n", why);
        return -1;
    }
    int go[2];
    if (pipe2(go, O_CLOEXEC) != 0) {
        fprintf(stderr, "spacrbench: pipe: %s\n", strerror(errno));
        sb_group_remove(&g, NULL);
        return -1;
    }
    if (!setup->use_cgroup && tree_sampler_exclude_current(setup->tree) < 0)
        fprintf(stderr, "spacrbench: cannot list the processes left by earlier items; "
                        "they may be counted in the group's peak\n");
    fflush(stdout);
    fflush(stderr);
    /* As for one item: hold the stop signals until every copy has dropped
     * spacrbench's handler, so none is lost in between. */
    sigset_t before;
    run_signals_block(&before);
    int64_t started = 0;
    int rc = 0;
    for (; started < k; started++) {
        pid_t pid = fork();
        if (pid == 0) {
            close(go[1]); /* else no copy could ever see EOF */
            copy_main(argvs + started * m, m, go[0], setup->stdout_is_output, &before);
        }
        if (pid < 0) {
            fprintf(stderr, "spacrbench: fork: %s\n", strerror(errno));
            rc = -1;
            break;
        }
        copies[started].pid = pid;
    }
    close(go[0]);
    sigprocmask(SIG_SETMASK, &before, NULL); /* a pending one runs the handler now */
    for (int64_t i = 0; rc == 0 && setup->use_cgroup && i < k; i++)
        if (sb_group_attach(&g, copies[i].pid) != 0) {
            fprintf(stderr, "spacrbench: cannot move a copy into %s: %s\n", g.dir, strerror(errno));
            rc = -1;
        }
    if (rc != 0 || run_signals_pending()) {
        o->interrupted = rc == 0;
        abandon(copies, started, go[1]);
        sb_group_remove(&g, NULL);
        return rc;
    }
    tree_sampler_reset(setup->tree);
    if (setup->vram)
        run_vram_begin(setup->vram);
    int64_t kills_before = setup->use_cgroup ? -1 : run_own_oom_kills(setup->cg);
    /* One byte per copy, in one write (k <= 1024 < PIPE_BUF, so it is
     * atomic): they start together. A short write leaves some copies to
     * read EOF and fail, which marks the point failed. */
    char release[1024];
    memset(release, 'x', sizeof release);
    double t0 = run_now();
    ssize_t sent;
    while ((sent = write(go[1], release, (size_t)k)) < 0 && errno == EINTR)
        ;
    close(go[1]);
    sample_vram(setup, &g, copies);
    wait_copies(setup, &g, copies, k, t0, o);
    o->seconds = run_now() - t0;
    sample_vram(setup, &g, copies); /* what is left in the group at the end */
    if (setup->vram)
        o->vram_peak = run_vram_end(setup->vram);
    /* Orphaned grandchildren come back to us without a cgroup (subreaper). */
    while (waitpid(-1, NULL, WNOHANG) > 0)
        ;
    if (setup->use_cgroup) {
        measure_group(setup, &g, o);
        if (sb_group_remove(&g, &o->left_behind) != 0) {
            fprintf(stderr, "spacrbench: cannot remove %s: %s\n", g.dir, strerror(errno));
            return -1;
        }
    } else {
        int64_t largest = 0;
        for (int64_t i = 0; i < k; i++)
            largest = copies[i].maxrss > largest ? copies[i].maxrss : largest;
        o->peak = tree_peak(setup->tree, 0, largest);
        int alive = tree_sample(setup->tree);
        o->left_behind = alive > 0 ? alive : 0;
        fallback_oom(setup, copies, k, m, kills_before, o);
    }
    return 0;
}
