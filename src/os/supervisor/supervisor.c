/* The supervisor: start, release, wait for, measure and clean up a group;
 * its stop signals and VRAM. It waits without polling, so a group's time
 * ends when its last copy does, not a sampling period later; sampling
 * meanwhile. A kill ends ALL the group's processes (the copies alone would
 * leave their children running and the cgroup busy); each pass waits for
 * what it signalled. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "supervisor.h"

static volatile sig_atomic_t g_signal;
static volatile sig_atomic_t g_child;

/* Pass a kill() on to a lone command (the terminal's reach it anyway). */
static void on_signal(int sig, siginfo_t *info, void *context)
{
    (void)context;
    g_signal = sig;
    if (g_child > 0 && info && info->si_code <= 0)
        kill((pid_t)g_child, sig);
}

/* SIGUSR1/2: SLURM's --signal warning, which terminates by default too. */
static const int k_stop_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
#define N_STOP_SIGNALS (sizeof k_stop_signals / sizeof k_stop_signals[0])
static struct sigaction g_old_action[N_STOP_SIGNALS];
static int g_caught[N_STOP_SIGNALS];

void sb_stop_signals_catch(int on)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO; /* no SA_RESTART: wait4 returns EINTR */
    if (on)
        g_signal = 0;
    for (size_t i = 0; i < N_STOP_SIGNALS; i++) {
        if (!on) {
            if (g_caught[i])
                sigaction(k_stop_signals[i], &g_old_action[i], NULL);
            g_caught[i] = 0;
            continue;
        }
        g_caught[i] = 0;
        if (sigaction(k_stop_signals[i], NULL, &g_old_action[i]) != 0 ||
            g_old_action[i].sa_handler == SIG_IGN)
            continue;
        g_caught[i] = sigaction(k_stop_signals[i], &sa, NULL) == 0;
    }
}

int sb_stop_signal(void) { return (int)g_signal; }

static void set_lone_child(pid_t pid) { g_child = pid; }

static void stop_signals_caught(sigset_t *set)
{
    sigemptyset(set);
    for (size_t i = 0; i < N_STOP_SIGNALS; i++)
        if (g_caught[i])
            sigaddset(set, k_stop_signals[i]);
}

static void stop_signals_block(sigset_t *before)
{
    sigemptyset(before); /* the kernel fills only its own part: the rest is sent on */
    sigset_t set;
    stop_signals_caught(&set);
    sigprocmask(SIG_BLOCK, &set, before);
}

/* ---- VRAM: "not measured" (-1, a reason) and 0 (none used) stay apart ---- */

static void vram_open(sb_vram *v)
{
    memset(v, 0, sizeof *v);
    v->peak = -1;
    v->gpu = sb_gpu_open(v->why, sizeof v->why);
    if (v->gpu && !sb_gpu_pids_are_host(v->gpu)) {
        snprintf(v->why, sizeof v->why,
                 "spacrbench runs in a nested PID namespace: the commands' PIDs it sees are "
                 "not the host PIDs NVML reports");
        sb_gpu_close(v->gpu);
        v->gpu = NULL;
    }
}

static int64_t vram_end(sb_vram *v)
{
    if (v->gpu && sb_gpu_pids_unverified(v->gpu, NULL, 0))
        return -1; /* a sum over PIDs NVML does not use */
    if (v->gpu && v->peak < 0)
        v->groups_unmeasured++;
    return v->gpu ? v->peak : -1;
}

static void vram_sample(sb_vram *v, const pid_t *pids, size_t n)
{
    if (!v->gpu)
        return;
    if (sb_grow(&v->pids, &v->cap, n, sizeof *v->pids)) {
        v->failed_samples++;
        return;
    }
    for (size_t i = 0; i < n; i++)
        v->pids[i] = (unsigned int)pids[i];
    int64_t used = sb_gpu_sample_pids(v->gpu, v->pids, n);
    if (used < 0) {
        v->failed_samples++; /* a failed sample is dropped; earlier peaks stand */
        return;
    }
    if (used > v->peak)
        v->peak = used;
}

const char *sb_supervisor_vram_verdict(sb_supervisor *s)
{
    sb_vram *v = &s->vram;
    if (v->gpu && sb_gpu_pids_unverified(v->gpu, v->why, sizeof v->why)) {
        sb_gpu_close(v->gpu);
        v->gpu = NULL;
    }
    return v->gpu ? NULL : v->why;
}

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
    pass_pids p;
    double deadline = sb_now() + KILL_WAIT_S;
    int total = 0;
    if (s->use_cgroup && sig == SIGKILL && sb_group_kill_all(&s->cg) == 0) {
        if (pass(s, &p, 0) > 0)
            sb_wait_exited(p.pid, p.n, deadline);
        return 1;
    }
    for (int i = 0; i < KILL_PASSES; i++) {
        int n = pass(s, &p, sig);
        if (n < 0) {
            total = total ? total : -1;
            break;
        }
        total += n;
        if (n == 0 || sig != SIGKILL)
            break;
        sb_wait_exited(p.pid, p.n, deadline);
    }
    return total;
}

static int kill_group(const sb_supervisor *s, sb_copy *copies, int64_t k)
{
    /* The copies first (unreaped: their pids are not reused), then wait:
     * a dying copy hands us its children only as it exits, and a walk
     * meanwhile would find them under neither and leave them running. */
    int total = 0;
    pass_pids p = {SIGKILL, {0}, 0};
    for (int64_t i = 0; i < k; i++)
        if (copies[i].pid > 0 && !copies[i].done && signal_one(copies[i].pid, &p) == 0)
            total++;
    if (p.n && !s->use_cgroup)
        sb_wait_exited(p.pid, p.n, sb_now() + KILL_WAIT_S);
    int n = signal_all(s, SIGKILL);
    return n < 0 ? (total ? total : -1) : total + n;
}

/* After stop signal sig: pass it on to what the copies left (their parent
 * is gone), SIGKILL those still there at kill_at. 1 when it had to. */
static int end_leftovers(const sb_supervisor *s, int sig, double kill_at)
{
    pass_pids p;
    int n = pass(s, &p, 0);
    if (n > 0) {
        signal_all(s, sig);
        if (pass(s, &p, 0) > 0)
            sb_wait_exited(p.pid, p.n, kill_at);
        n = pass(s, &p, 0);
        if (n > 0)
            signal_all(s, SIGKILL);
    }
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

static int leftovers(const sb_supervisor *s, char *names, size_t cap)
{
    pass_pids p;
    int n = pass(s, &p, 0), alive = 0;
    size_t used = 0;
    if (names && cap)
        names[0] = '\0';
    for (size_t i = 0; n > 0 && i < p.n; i++) {
        char state = sb_proc_state("/proc", p.pid[i]);
        if (!state || state == 'Z') /* a zombie is reaped by the wait loop */
            continue;
        if (names && used < cap) {
            char one[96];
            name_one(p.pid[i], one, sizeof one);
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
    return n < 0 ? -1 : alive;
}

static double shorter(double a, double b) { return a < 0 ? b : b < a ? b : a; }

/* Never negative (no limit). */
static double until(double t, double now) { return t > now ? t - now : 0; }

static int keep_pid(pid_t pid, void *arg)
{
    sb_supervisor *s = arg;
    if (sb_grow(&s->pids, &s->cap_pids, s->n_pids + 1, sizeof *s->pids))
        return -1;
    s->pids[s->n_pids++] = pid;
    return 0;
}

static double sample_group(sb_supervisor *s, const sb_copy *copies, int64_t k, int scan_tree,
                           int rss, int *listed)
{
    double t0 = sb_thread_cpu_seconds(), spent = 0;
    s->n_pids = 0;
    if (listed)
        *listed = 1;
    if (s->use_cgroup) {
        if (sb_group_procs(&s->cg, keep_pid, s) < 0) {
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
                keep_pid(copies[i].pid, s);
        for (size_t i = 0; i < s->tree.count; i++)
            keep_pid(s->tree.procs[i].pid, s);
    }
    vram_sample(&s->vram, s->pids, s->n_pids);
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

static int64_t reap(const sb_supervisor *s, sb_copy *copies, int64_t k, double t0, sb_outcome *o)
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
    sample_group(s, copies, k, rss, rss, &listed);
    if (!rss)
        return rss_next;
    if (s->cfg.on_sample)
        s->cfg.on_sample(s->cfg.sample_arg, now, listed ? s->tree.rss_now : -1,
                         sb_supervisor_group_usage(s));
    return sb_sample_budget_next(&s->budget, now, sb_thread_cpu_seconds() - cpu_before);
}

/* The array the sleeps mark live copies in (NULL: all are watched). */
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
    int alive = leftovers(s, NULL, 0);
    if (alive <= 0) /* ended, or they cannot be listed: nothing to wait for */
        return 1;
    if (!o->outlived)
        o->outlived = alive;
    if (deadline >= 0 && now >= deadline) {
        o->leftovers_killed = leftovers(s, o->leftovers, sizeof o->leftovers);
        kill_group(s, copies, k);
        return 1;
    }
    if (!*said && now - since >= SB_SUPERVISOR_LEFTOVER_SAY_S && l->on_leftovers) {
        char names[sizeof o->leftovers];
        leftovers(s, names, sizeof names);
        l->on_leftovers(l->arg, names);
        *said = 1;
    }
    return 0;
}

static void wait_group(sb_supervisor *s, const sb_launch *l, sb_copy *copies, double t0,
                       sb_outcome *o)
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
    stop_signals_caught(&block);
    sigaddset(&block, SIGCHLD);
    sigprocmask(SIG_BLOCK, &block, &orig);
    open_mask = orig; /* the stop signals open, SIGCHLD still blocked (for the signalfd) */
    sigaddset(&open_mask, SIGCHLD);
    sb_waiter z;
    pid_t *pids = malloc((size_t)k * sizeof *pids);
    int *live = malloc((size_t)k * sizeof *live);
    for (int64_t i = 0; pids && i < k; i++)
        pids[i] = copies[i].pid;
    sb_waiter_open(&z, pids, pids && live ? (size_t)k : 0);
    s->exit_by_pidfd = sb_waiter_by_pidfd(&z) && live;
    free(pids);
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
        int64_t reaped = reap(s, copies, k, t0, o);
        now = sb_now();
        if (reaped < 0)
            break; /* never sleep for a child that is not there */
        if ((left -= reaped) <= 0) {
            if (copies_ended < 0) {
                copies_ended = now;
                set_lone_child(0); /* reaped: its pid may be reused */
            }
            if (leftovers_done(s, l, copies, k, deadline, now, copies_ended, &said, o))
                break;
        }
        if (left > 0 && deadline >= 0 && now >= deadline && !o->timed_out) {
            o->timed_out = 1;
            kill_group(s, copies, k);
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
        if (kill_at >= 0 && now >= kill_at && !o->killed_after_grace) {
            o->killed_after_grace = 1;
            if (l->on_grace_kill)
                l->on_grace_kill(l->arg, 0, sig);
            kill_group(s, copies, k);
        }
        /* Not before the first wait: a command that exits at once would be
         * charged the scan's millisecond. */
        if (woke)
            rss_next = sample(s, copies, k, now, rss_next, cpu_before);
        if (woke && watch_over(s, l, o))
            kill_group(s, copies, k);
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

void sb_supervisor_init(sb_supervisor *s, const sb_supervisor_config *cfg)
{
    memset(s, 0, sizeof *s);
    s->cfg = *cfg;
    char why[600] = "--no-cgroup was given";
    tree_sampler_init(&s->tree, getpid());
    s->launcher = cfg->launcher;
    if (!s->launcher && sb_launcher_start(&s->own_launcher, cfg->in_child) == 0)
        s->launcher = &s->own_launcher;
    s->launcher_errno = s->launcher ? 0 : errno;
    /* Orphans come back here: their ru_maxrss is the tree's. */
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    vram_open(&s->vram);
    if (!cfg->no_cgroup && sb_group_locate(&s->cg, NULL, why, sizeof why) == 0 &&
        sb_group_delegate_acquire(&s->cg, why, sizeof why) == 0) {
        char probe[128], tag[48];
        sb_group_owner_tag(tag, sizeof tag);
        snprintf(probe, sizeof probe, "%s-%s-probe", cfg->prefix, tag);
        if (sb_group_create(&s->cg, probe, why, sizeof why) == 0 &&
            sb_group_remove(&s->cg, NULL) == 0) {
            s->use_cgroup = 1;
            sb_group_clean_stale(&s->cg, cfg->prefix, cfg->on_stale, cfg->stale_arg);
            return;
        }
        sb_group_delegate_release(&s->cg);
    }
    snprintf(s->why_no_cgroup, sizeof s->why_no_cgroup, "%s", why);
    /* Our own cgroup's oom_kill counter still names an OOM kill. */
    if (!s->cg.version) {
        char ignored[600];
        sb_group_locate(&s->cg, NULL, ignored, sizeof ignored);
    }
}

void sb_supervisor_free(sb_supervisor *s)
{
    sb_group_delegate_release(&s->cg); /* this process back where it was started */
    if (s->launcher == &s->own_launcher)
        sb_launcher_stop(&s->own_launcher);
    s->launcher = NULL;
    tree_sampler_free(&s->tree);
    sb_gpu_close(s->vram.gpu);
    free(s->vram.pids);
    memset(&s->vram, 0, sizeof s->vram);
    free(s->pids);
    s->pids = NULL;
    s->n_pids = s->cap_pids = 0;
}

/* The nearest limit: g's own, its parent's, else machine_limit. */
static int64_t limit_above(const sb_group *g, int64_t machine_limit)
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

static int64_t own_oom_kills(const sb_group *cg)
{
    if (!cg->version)
        return -1;
    sb_group own = *cg;
    snprintf(own.dir, sizeof own.dir, "%s", cg->parent);
    return sb_group_oom_kills(&own);
}

/* 0, or -1 with why; a failed fork sets o->start_errno and stops. */
static int fork_copies(sb_supervisor *s, const sb_launch *l, sb_copy *copies, const int go[2],
                       const int err[2], const sigset_t *mask, sb_outcome *o, char *why,
                       size_t why_cap)
{
    if (!s->launcher)
        return sb_why(why, why_cap, "cannot start the commands' launcher: %s",
                      strerror(s->launcher_errno));
    char ***lines = calloc((size_t)l->lines, sizeof *lines);
    if (!lines)
        return sb_why(why, why_cap, "out of memory");
    int rc = 0;
    for (int64_t i = 0; i < l->copies && rc == 0; i++) {
        int64_t built = 0;
        while (built < l->lines && (lines[built] = l->argv_for(l->arg, i, built)) != NULL)
            built++;
        sb_copy_spec spec = {SB_CHILD_DEFAULT_HANDLERS | l->child_flags,
                             s->cfg.stdout_to_stderr,
                             i,
                             go[0],
                             err[1],
                             *mask,
                             lines,
                             l->lines};
        pid_t pid = built == l->lines ? sb_launcher_fork(s->launcher, &spec) : -3;
        int e = errno;
        for (int64_t j = 0; l->argv_free && j < built; j++)
            l->argv_free(lines[j]);
        if (pid == -3)
            rc = sb_why(why, why_cap, "out of memory");
        else if (pid == -2)
            rc = sb_why(why, why_cap, "the commands' launcher is gone: %s", strerror(e));
        else if (pid < 0) {
            o->start_errno = e;
            break;
        } else
            copies[o->started++].pid = pid;
    }
    free(lines);
    return rc;
}

static void read_exec_failures(int fd, sb_copy *copies, int64_t k)
{
    sb_exec_failure f;
    while (read(fd, &f, sizeof f) == (ssize_t)sizeof f)
        if (f.copy >= 0 && f.copy < k)
            copies[f.copy].exec_errno = f.err ? f.err : ENOEXEC;
}

static int measure(sb_supervisor *s, sb_copy *copies, int64_t kills_before, sb_outcome *o,
                   char *why, size_t why_cap)
{
    int64_t k = o->started, largest = o->orphan_maxrss;
    for (int64_t i = 0; i < k; i++)
        largest = copies[i].maxrss > largest ? copies[i].maxrss : largest;
    char left[sizeof o->leftovers];
    if (leftovers(s, left, sizeof left) > 0 && !o->leftovers[0])
        snprintf(o->leftovers, sizeof o->leftovers, "%s", left);
    int64_t huge = s->tree.hugetlb_peak > 0 ? s->tree.hugetlb_peak : 0;
    o->hugetlb_peak = huge;
    if (s->use_cgroup) {
        o->peak = sb_group_peak(&s->cg);
        if (o->peak >= 0)
            o->peak += huge;
        o->rss_peak = tree_peak(&s->tree, 0, largest) + huge;
        o->oom_kills = sb_group_oom_kills(&s->cg);
        o->limit = limit_above(&s->cg, s->cfg.machine_limit);
        if (sb_group_remove(&s->cg, &o->left_behind) != 0)
            return sb_why(why, why_cap, "cannot remove %s: %s", s->cg.dir, strerror(errno));
        return 0;
    }
    o->peak = o->rss_peak = tree_peak(&s->tree, 0, largest) + huge;
    int alive = tree_sample(&s->tree);
    o->left_behind = alive > 0 ? alive : 0;
    o->limit = limit_above(&s->cg, s->cfg.machine_limit);
    int64_t kills_after = own_oom_kills(&s->cg);
    if (kills_before >= 0 && kills_after >= kills_before) {
        o->oom_kills = kills_after - kills_before;
        o->oom_outside = 1;
    }
    return 0;
}

/* The cgroup, go (releases the copies) and err (exec failures). 0, or -1
 * with why and nothing left open. */
static int open_group(sb_supervisor *s, const sb_launch *l, int go[2], int err[2], char *why,
                      size_t why_cap)
{
    s->cg.dir[0] = '\0';
    if (s->use_cgroup) {
        char name[192], tag[48];
        sb_group_owner_tag(tag, sizeof tag);
        snprintf(name, sizeof name, "%s-%s-%s", s->cfg.prefix, tag, l->name);
        if (sb_group_create(&s->cg, name, why, why_cap) != 0)
            return -1;
        if (l->memory_limit > 0 && sb_group_set_limit(&s->cg, l->memory_limit) != 0) {
            snprintf(why, why_cap, "cannot set the memory limit of %s: %s", s->cg.dir,
                     strerror(errno));
            sb_group_remove(&s->cg, NULL);
            return -1;
        }
    }
    if (pipe2(go, O_CLOEXEC) == 0) {
        if (pipe2(err, O_CLOEXEC | O_NONBLOCK) == 0)
            return 0;
        close(go[0]), close(go[1]);
    }
    sb_group_remove(&s->cg, NULL);
    return sb_why(why, why_cap, "pipe: %s", strerror(errno));
}

/* Stop signals held until every pid is known and each copy dropped our
 * handler, so none is lost. 0 ready, 1 abandoned, -1 with why (the group
 * gone in both). */
static int start_copies(sb_supervisor *s, const sb_launch *l, sb_copy *copies, const int go[2],
                        const int err[2], sb_outcome *o, char *why, size_t why_cap)
{
    fflush(stdout);
    fflush(stderr);
    set_lone_child(0);
    sigset_t before;
    stop_signals_block(&before);
    int rc = fork_copies(s, l, copies, go, err, &before, o, why, why_cap);
    close(go[0]);
    close(err[1]);
    int lone = l->copies == 1 && o->started == 1;
    if (lone)
        set_lone_child(copies[0].pid);
    sigprocmask(SIG_SETMASK, &before, NULL); /* a pending one runs the handler now */
    /* A lone command stopped before it started reads as interrupted too. */
    if (rc == 0 && lone && sb_stop_signal())
        kill(copies[0].pid, sb_stop_signal());
    for (int64_t i = 0; rc == 0 && !o->start_errno && s->use_cgroup && i < o->started; i++)
        if (sb_group_attach(&s->cg, copies[i].pid) != 0)
            rc = sb_why(why, why_cap, "cannot move %s into %s: %s",
                        l->copies == 1 ? "the command" : "a copy", s->cg.dir, strerror(errno));
    if (rc == 0 && !o->start_errno && (lone || !sb_stop_signal()))
        return 0;
    o->interrupted = rc == 0 && !o->start_errno;
    close(go[1]); /* never released: the copies read EOF on go and exit */
    for (int64_t i = 0; i < o->started; i++) {
        sb_child_wait(copies[i].pid, 0, &copies[i].status, NULL); /* status 0 if that fails */
        copies[i].done = 1;
    }
    close(err[0]);
    set_lone_child(0);
    if (sb_group_remove(&s->cg, NULL) != 0 && rc == 0)
        rc = sb_why(why, why_cap, "cannot remove the group's cgroup: %s", strerror(errno));
    return rc < 0 ? -1 : 1;
}

int sb_supervisor_run(sb_supervisor *s, const sb_launch *l, sb_copy *copies, sb_outcome *o,
                      char *why, size_t why_cap)
{
    memset(o, 0, sizeof *o);
    o->peak = o->rss_peak = o->vram_peak = o->oom_kills = o->limit = -1;
    if (l->copies < 1 || l->copies > SB_SUPERVISOR_MAX_COPIES || l->lines < 1 || !l->argv_for)
        return sb_why(why, why_cap, "%lld copies of %lld line(s) (a bug)", (long long)l->copies,
                      (long long)l->lines);
    memset(copies, 0, (size_t)l->copies * sizeof *copies);
    int go[2], err[2];
    if (open_group(s, l, go, err, why, why_cap) != 0)
        return -1;
    /* Earlier groups' leftovers and the launcher belong to no group. */
    if (tree_sampler_exclude_current(&s->tree) < 0 && !s->use_cgroup)
        o->earlier_unlisted = 1;
    int started = start_copies(s, l, copies, go, err, o, why, why_cap);
    if (started != 0)
        return started < 0 ? -1 : 0;
    tree_sampler_reset(&s->tree);
    s->vram.peak = -1;
    int64_t kills_before = s->use_cgroup ? -1 : own_oom_kills(&s->cg);
    /* One atomic write (< PIPE_BUF): they start together; a short one
     * leaves some to read EOF and fail the group. */
    char release[SB_SUPERVISOR_MAX_COPIES];
    memset(release, 'x', sizeof release);
    double t0 = o->started_at = sb_now();
    ssize_t sent;
    while ((sent = write(go[1], release, (size_t)l->copies)) < 0 && errno == EINTR)
        ;
    close(go[1]);
    wait_group(s, l, copies, t0, o);
    set_lone_child(0);
    read_exec_failures(err[0], copies, l->copies);
    close(err[0]);
    sample_group(s, copies, o->started, 0, 1, NULL);
    o->vram_peak = vram_end(&s->vram);
    reap(s, copies, o->started, t0, o);
    return measure(s, copies, kills_before, o, why, why_cap);
}

double sb_supervisor_interval(const sb_supervisor *s)
{
    if (s->cfg.interval_us > 0)
        return (double)s->cfg.interval_us * 1e-6;
    return (s->use_cgroup ? SB_SUPERVISOR_RSS_SAMPLE_NS : SB_SUPERVISOR_SAMPLE_NS) * 1e-9;
}

double sb_supervisor_sampling(const sb_supervisor *s, char *how, size_t cap)
{
    sb_sample_budget b = s->budget;
    if (b.share <= 0) /* nothing sampled yet */
        sb_sample_budget_init(&b, 0, SB_SAMPLE_BUDGET_SHARE);
    b.floor_s = sb_supervisor_interval(s);
    sb_sample_budget_describe(&b, how, cap);
    return sb_sample_budget_miss_ms(&b);
}

int64_t sb_supervisor_group_usage(const sb_supervisor *s)
{
    return s->use_cgroup ? sb_group_usage(&s->cg) : -1;
}
