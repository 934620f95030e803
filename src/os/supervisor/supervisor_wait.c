/* Waiting for a group without polling, so its time ends when its last
 * copy does, not a sampling period later; sampling meanwhile. A kill ends
 * ALL the group's processes (the copies alone would leave their children
 * running and the cgroup busy); each pass waits for what it signalled. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "supervisor.h"

#define KILL_PASSES 50   /* forks racing the kill: each pass catches the new ones */
#define KILL_WAIT_S 0.8  /* how long the killed may take to exit, in all */
#define PASS_PIDS   1024 /* processes a pass waits for */

typedef struct pass_pids {
    int sig;
    pid_t pid[PASS_PIDS];
    size_t n;
} pass_pids;

/* sig 0: only list it. */
static int signal_one(pid_t pid, void *arg)
{
    pass_pids *p = arg;
    if (p->sig && kill(pid, p->sig) != 0)
        return -1;
    if (p->n < PASS_PIDS)
        p->pid[p->n++] = pid;
    return 0;
}

static int signal_listed(pid_t pid, void *arg)
{
    signal_one(pid, arg);
    return 0; /* go on listing */
}

static int pass(const sb_supervisor *s, pass_pids *p, int sig)
{
    p->n = 0;
    p->sig = sig;
    if (s->use_cgroup)
        return sb_group_procs(&s->cg, signal_listed, p);
    return tree_signal_each(&s->tree, signal_one, p);
}

/* In passes until none is left (a fork can race one pass). How many were
 * signalled (at least), -1 unlisted. */
static int signal_all(const sb_supervisor *s, int sig)
{
    pass_pids *p = malloc(sizeof *p);
    if (!p)
        return -1;
    double deadline = sb_now() + KILL_WAIT_S;
    int total = 0;
    if (s->use_cgroup && sig == SIGKILL && sb_group_kill_all(&s->cg) == 0) {
        if (pass(s, p, 0) > 0)
            sb_wait_exited(p->pid, p->n, deadline);
        free(p);
        return 1;
    }
    for (int i = 0; i < KILL_PASSES; i++) {
        int n = pass(s, p, sig);
        if (n < 0) {
            total = total ? total : -1;
            break;
        }
        total += n;
        if (n == 0 || sig != SIGKILL)
            break;
        sb_wait_exited(p->pid, p->n, deadline);
    }
    free(p);
    return total;
}

int sb_sv_kill_group(const sb_supervisor *s, sb_copy *copies, int64_t k)
{
    /* The copies first (unreaped: their pids are not reused), then wait:
     * a dying copy hands us its children only as it exits, and a walk
     * meanwhile would find them under neither and leave them running. */
    int total = 0;
    pid_t killed[PASS_PIDS];
    size_t n_killed = 0;
    for (int64_t i = 0; i < k; i++)
        if (copies[i].pid > 0 && !copies[i].done && kill(copies[i].pid, SIGKILL) == 0) {
            total++;
            if (n_killed < PASS_PIDS)
                killed[n_killed++] = copies[i].pid;
        }
    if (n_killed && !s->use_cgroup)
        sb_wait_exited(killed, n_killed, sb_now() + KILL_WAIT_S);
    int n = signal_all(s, SIGKILL);
    return n < 0 ? (total ? total : -1) : total + n;
}

/* After stop signal sig: pass it on to what the copies left (their parent
 * is gone), SIGKILL those still there at kill_at. 1 when it had to. */
static int end_leftovers(const sb_supervisor *s, int sig, double kill_at)
{
    pass_pids *p = malloc(sizeof *p);
    if (!p)
        return -1;
    int n = pass(s, p, 0);
    if (n > 0) {
        signal_all(s, sig);
        if (pass(s, p, 0) > 0)
            sb_wait_exited(p->pid, p->n, kill_at);
        n = pass(s, p, 0);
        if (n > 0)
            signal_all(s, SIGKILL);
    }
    free(p);
    return n < 0 ? -1 : n > 0;
}

/* Unprintable bytes as '?': a process names itself. */
static void name_one(pid_t pid, char *out, size_t cap)
{
    char path[64], comm[64] = "?";
    snprintf(path, sizeof path, "/proc/%ld/comm", (long)pid);
    if (sb_cg_read_small(path, comm, sizeof comm, NULL) != 0)
        snprintf(comm, sizeof comm, "?");
    comm[strcspn(comm, "\n")] = '\0';
    for (char *c = comm; *c; c++)
        if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
            *c = '?';
    snprintf(out, cap, "%s (pid %ld)", comm, (long)pid);
}

int sb_sv_leftovers(const sb_supervisor *s, char *names, size_t cap)
{
    pass_pids *p = malloc(sizeof *p);
    if (!p)
        return -1;
    int n = pass(s, p, 0), alive = 0;
    size_t used = 0;
    if (names && cap)
        names[0] = '\0';
    for (size_t i = 0; n > 0 && i < p->n; i++) {
        char state = sb_proc_state("/proc", p->pid[i]);
        if (!state || state == 'Z') /* a zombie is reaped by the wait loop */
            continue;
        if (names && used < cap) {
            char one[96];
            name_one(p->pid[i], one, sizeof one);
            if (used + strlen(one) + 12 < cap)
                used += (size_t)snprintf(names + used, cap - used, "%s%s", alive ? ", " : "", one);
            else
                used = cap; /* full */
        }
        alive++;
    }
    if (names && used == cap && cap > 4) {
        size_t end = strlen(names);
        snprintf(names + end, cap - end, ", ...");
    }
    free(p);
    return n < 0 ? -1 : alive;
}

static double shorter(double a, double b) { return a < 0 ? b : b < a ? b : a; }

/* Never negative (no limit). */
static double until(double t, double now) { return t > now ? t - now : 0; }

static int keep_pid(sb_supervisor *s, pid_t pid)
{
    if (sb_grow(&s->pids, &s->cap_pids, s->n_pids + 1, sizeof *s->pids))
        return -1;
    s->pids[s->n_pids++] = pid;
    return 0;
}

static int keep_pid_cb(pid_t pid, void *arg) { return keep_pid(arg, pid); }

double sb_sv_sample(sb_supervisor *s, const sb_copy *copies, int64_t k, int scan_tree, int rss,
                    int *listed)
{
    double t0 = sb_thread_cpu_seconds(), spent = 0;
    s->n_pids = 0;
    if (listed)
        *listed = 1;
    if (s->use_cgroup) {
        if (sb_group_procs(&s->cg, keep_pid_cb, s) < 0) {
            s->n_pids = 0;
            if (listed)
                *listed = 0;
        }
        if (rss)
            tree_sample_pids(&s->tree, s->pids, s->n_pids);
        spent = sb_thread_cpu_seconds() - t0;
    } else {
        if (scan_tree && tree_sample(&s->tree) < 0 && listed)
            *listed = 0;
        spent = sb_thread_cpu_seconds() - t0;
        /* Dead ones too: NVML no longer lists them. */
        for (int64_t i = 0; i < k; i++)
            if (copies[i].pid > 0)
                keep_pid(s, copies[i].pid);
        for (size_t i = 0; i < s->tree.count; i++)
            keep_pid(s, s->tree.procs[i].pid);
    }
    sb_vram_sample(&s->vram, s->pids, s->n_pids);
    return spent;
}

static int find_copy(const sb_copy *copies, int64_t k, pid_t pid)
{
    for (int64_t i = 0; i < k; i++)
        if (copies[i].pid == pid && !copies[i].done)
            return (int)i;
    return -1;
}

static double cpu_of(const struct rusage *ru)
{
    return (double)ru->ru_utime.tv_sec + (double)ru->ru_utime.tv_usec * 1e-6 +
           (double)ru->ru_stime.tv_sec + (double)ru->ru_stime.tv_usec * 1e-6;
}

int64_t sb_sv_reap(const sb_supervisor *s, sb_copy *copies, int64_t k, double t0, sb_outcome *o)
{
    int64_t reaped = 0;
    for (;;) {
        int st;
        struct rusage ru;
        pid_t w = sb_child_wait(-1, WNOHANG, &st, &ru);
        if (w < 0 && errno == ECHILD && !reaped)
            return -1;
        if (w <= 0)
            return reaped;
        int i = find_copy(copies, k, w);
        if (i < 0) {
            if (tree_sampler_is_old(&s->tree, w))
                continue;
            int64_t rss = (int64_t)ru.ru_maxrss * 1024;
            if (rss > o->orphan_maxrss)
                o->orphan_maxrss = rss;
            o->orphan_cpu += cpu_of(&ru);
            continue;
        }
        copies[i].done = 1;
        copies[i].status = st;
        copies[i].seconds = sb_now() - t0;
        copies[i].cpu_seconds = cpu_of(&ru);
        copies[i].maxrss = (int64_t)ru.ru_maxrss * 1024;
        reaped++;
    }
}

static void grace_kill(sb_supervisor *s, const sb_launch *l, sb_copy *copies, int sig,
                       sb_outcome *o)
{
    o->killed_after_grace = 1;
    if (l->on_grace_kill)
        l->on_grace_kill(l->arg, 0, sig);
    sb_sv_kill_group(s, copies, o->started);
}

/* A shell that died of the stop signal leaves its children: they get it
 * too, then SIGKILL at kill_at (< 0: a grace from now). */
static void after_stop_signal(sb_supervisor *s, const sb_launch *l, sb_outcome *o, double kill_at)
{
    int sig = sb_stop_signal();
    if (!sig || o->timed_out)
        return;
    double now = sb_now();
    if (!o->stopped_by) { /* it came as the last copy exited */
        o->stopped_by = sig;
        kill_at = now + SB_SUPERVISOR_GRACE_S;
    }
    if (!s->use_cgroup)
        tree_sample(&s->tree); /* the leftovers' peaks count, as they would have */
    if (end_leftovers(s, sig, o->killed_after_grace ? now : kill_at) > 0 &&
        !o->killed_after_grace) {
        o->killed_after_grace = 1;
        if (l->on_grace_kill)
            l->on_grace_kill(l->arg, 1, sig);
    }
}

/* The tree's part when rss_next is due; the budget then charges the whole
 * turn since cpu_before (wake-up, reaping, reads, timeline). The next
 * rss_next. */
static double sample(sb_supervisor *s, const sb_copy *copies, int64_t k, double now,
                     double rss_next, double cpu_before)
{
    int rss = now >= rss_next;
    int listed = 1;
    sb_sv_sample(s, copies, k, rss, rss, &listed);
    if (!rss)
        return rss_next;
    if (s->cfg.on_sample)
        s->cfg.on_sample(s->cfg.sample_arg, now, listed ? s->tree.rss_now : -1,
                         sb_supervisor_group_usage(s));
    return sb_sample_budget_next(&s->budget, now, sb_thread_cpu_seconds() - cpu_before);
}

/* The array the sleeps mark live copies in (NULL: all are watched). */
static int *waiter_open(sb_supervisor *s, const sb_copy *copies, int64_t k, sb_waiter *z)
{
    pid_t *pids = malloc((size_t)k * sizeof *pids);
    int *live = malloc((size_t)k * sizeof *live);
    for (int64_t i = 0; pids && i < k; i++)
        pids[i] = copies[i].pid;
    sb_waiter_open(z, pids, pids && live ? (size_t)k : 0);
    s->exit_by_pidfd = sb_waiter_by_pidfd(z) && live;
    free(pids);
    return live;
}

static int watch_over(const sb_supervisor *s, const sb_launch *l, sb_outcome *o)
{
    if (s->use_cgroup || !sb_budget_watch_over(l->watch_limit, o->watch_ended, s->tree.rss_now))
        return 0;
    o->watch_ended = s->tree.rss_now;
    return 1;
}

/* Every copy has exited: 1 when the tree is over too (a stop signal
 * leaves them to after_stop_signal; the deadline kills them). */
static int leftovers_done(sb_supervisor *s, const sb_launch *l, sb_copy *copies, int64_t k,
                          double deadline, double now, double since, int *said, sb_outcome *o)
{
    if (sb_stop_signal() || o->timed_out)
        return 1;
    int alive = sb_sv_leftovers(s, NULL, 0);
    if (alive <= 0) /* ended, or they cannot be listed: nothing to wait for */
        return 1;
    if (!o->outlived)
        o->outlived = alive;
    if (deadline >= 0 && now >= deadline) {
        o->leftovers_killed = sb_sv_leftovers(s, o->leftovers, sizeof o->leftovers);
        sb_sv_kill_group(s, copies, k);
        return 1;
    }
    if (!*said && now - since >= SB_SUPERVISOR_LEFTOVER_SAY_S && l->on_leftovers) {
        char names[sizeof o->leftovers];
        sb_sv_leftovers(s, names, sizeof names);
        l->on_leftovers(l->arg, names);
        *said = 1;
    }
    return 0;
}

void sb_sv_wait(sb_supervisor *s, const sb_launch *l, sb_copy *copies, double t0, sb_outcome *o)
{
    int64_t k = o->started, left = k;
    double interval = sb_supervisor_interval(s);
    if (s->budget.share <= 0)
        sb_sample_budget_init(&s->budget, interval, SB_SAMPLE_BUDGET_SHARE);
    s->budget.floor_s = interval;
    sb_sample_budget_series(&s->budget);
    double rss_next = t0 + interval, vram = s->vram.gpu ? SB_SUPERVISOR_VRAM_NS * 1e-9 : -1;
    double deadline = s->cfg.timeout_s > 0 ? t0 + s->cfg.timeout_s * (double)l->lines : -1;
    /* Blocked but while sleeping: none slips between check and sleep. */
    sigset_t block, orig, open_mask;
    sb_stop_signals_caught_set(&block);
    sigaddset(&block, SIGCHLD);
    sigprocmask(SIG_BLOCK, &block, &orig);
    open_mask = orig; /* the stop signals open, SIGCHLD still blocked (for the signalfd) */
    sigaddset(&open_mask, SIGCHLD);
    sb_waiter z;
    int *live = waiter_open(s, copies, k, &z);
    /* After the copies, the leftovers' SIGCHLD wakes us: by then the tree's
     * last process is always our child. */
    sigset_t chld_set;
    sigemptyset(&chld_set);
    sigaddset(&chld_set, SIGCHLD);
    int chld = sb_waiter_by_pidfd(&z) ? signalfd(-1, &chld_set, SFD_NONBLOCK | SFD_CLOEXEC) : -1;
    double kill_at = -1, cpu_before = 0, copies_ended = -1;
    int said = 0;
    double now = t0;
    for (int woke = 0;; woke = 1) {
        int64_t reaped = sb_sv_reap(s, copies, k, t0, o);
        now = sb_now();
        if (reaped < 0)
            break; /* never sleep for a child that is not there */
        if ((left -= reaped) <= 0) {
            if (copies_ended < 0) {
                copies_ended = now;
                sb_stop_signals_set_child(0); /* reaped: its pid may be reused */
            }
            if (leftovers_done(s, l, copies, k, deadline, now, copies_ended, &said, o))
                break;
        }
        if (left > 0 && deadline >= 0 && now >= deadline && !o->timed_out) {
            o->timed_out = 1;
            sb_sv_kill_group(s, copies, k);
        }
        int sig = sb_stop_signal();
        if (sig && !o->stopped_by) {
            o->stopped_by = sig;
            kill_at = now + SB_SUPERVISOR_GRACE_S;
            /* A lone command got it from the handler or terminal. */
            for (int64_t i = 0; k > 1 && i < k; i++)
                if (!copies[i].done)
                    kill(copies[i].pid, sig);
        }
        if (kill_at >= 0 && now >= kill_at && !o->killed_after_grace)
            grace_kill(s, l, copies, sig, o);
        /* Not before the first wait: a command that exits at once would be
         * charged the scan's millisecond. */
        if (woke)
            rss_next = sample(s, copies, k, now, rss_next, cpu_before);
        if (woke && watch_over(s, l, o))
            sb_sv_kill_group(s, copies, k);
        double wait = shorter(vram, until(rss_next, now));
        if (deadline >= 0 && !o->timed_out)
            wait = shorter(wait, until(deadline, now));
        if (kill_at >= 0 && !o->killed_after_grace)
            wait = shorter(wait, until(kill_at, now));
        if (copies_ended >= 0 && !said)
            wait = shorter(wait, until(copies_ended + SB_SUPERVISOR_LEFTOVER_SAY_S, now));
        cpu_before = sb_thread_cpu_seconds();
        int fd = left <= 0 ? chld : -1;
        for (int64_t i = 0; live && i < k; i++)
            live[i] = !copies[i].done;
        sb_waiter_sleep(&z, live, fd, wait, &open_mask);
        struct signalfd_siginfo info;
        while (fd >= 0 && read(fd, &info, sizeof info) == (ssize_t)sizeof info)
            ;
    }
    o->seconds = now - t0;
    after_stop_signal(s, l, o, kill_at);
    if (chld >= 0)
        close(chld);
    sb_waiter_close(&z);
    free(live);
    /* A SIGCHLD still pending is discarded when unblocked (default action). */
    sigprocmask(SIG_SETMASK, &orig, NULL);
}
