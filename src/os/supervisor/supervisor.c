/* The supervisor: start, release, measure and clean up a group; its stop
 * signals and VRAM. The wait and the killing: supervisor_wait.c. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
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

void sb_stop_signals_set_child(pid_t pid) { g_child = pid; }

void sb_stop_signals_caught_set(sigset_t *set)
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
    sb_stop_signals_caught_set(&set);
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

void sb_vram_sample(sb_vram *v, const pid_t *pids, size_t n)
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
    if (!s->launcher) {
        snprintf(why, why_cap, "cannot start the commands' launcher: %s",
                 strerror(s->launcher_errno));
        return -1;
    }
    char ***lines = calloc((size_t)l->lines, sizeof *lines);
    if (!lines) {
        snprintf(why, why_cap, "out of memory");
        return -1;
    }
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
        if (pid == -3) {
            snprintf(why, why_cap, "out of memory");
            rc = -1;
        } else if (pid == -2) {
            snprintf(why, why_cap, "the commands' launcher is gone: %s", strerror(e));
            rc = -1;
        } else if (pid < 0) {
            o->start_errno = e;
            break;
        } else
            copies[o->started++].pid = pid;
    }
    free(lines);
    return rc;
}

/* Never released: the copies read EOF on go and exit. */
static void abandon(sb_copy *copies, int64_t started, int go_write)
{
    close(go_write);
    for (int64_t i = 0; i < started; i++) {
        int st = 0;
        sb_child_wait(copies[i].pid, 0, &st, NULL);
        copies[i].done = 1;
        copies[i].status = st;
    }
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
    if (sb_sv_leftovers(s, left, sizeof left) > 0 && !o->leftovers[0])
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
        if (sb_group_remove(&s->cg, &o->left_behind) != 0) {
            snprintf(why, why_cap, "cannot remove %s: %s", s->cg.dir, strerror(errno));
            return -1;
        }
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

static int fail(char *why, size_t why_cap, const char *what)
{
    snprintf(why, why_cap, "%s: %s", what, strerror(errno));
    return -1;
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
    return fail(why, why_cap, "pipe");
}

/* Stop signals held until every pid is known and each copy dropped our
 * handler, so none is lost. 0 ready, 1 abandoned, -1 with why (the group
 * gone in both). */
static int start_copies(sb_supervisor *s, const sb_launch *l, sb_copy *copies, const int go[2],
                        const int err[2], sb_outcome *o, char *why, size_t why_cap)
{
    fflush(stdout);
    fflush(stderr);
    sb_stop_signals_set_child(0);
    sigset_t before;
    stop_signals_block(&before);
    int rc = fork_copies(s, l, copies, go, err, &before, o, why, why_cap);
    close(go[0]);
    close(err[1]);
    int lone = l->copies == 1 && o->started == 1;
    if (lone)
        sb_stop_signals_set_child(copies[0].pid);
    sigprocmask(SIG_SETMASK, &before, NULL); /* a pending one runs the handler now */
    /* A lone command stopped before it started reads as interrupted too. */
    if (rc == 0 && lone && sb_stop_signal())
        kill(copies[0].pid, sb_stop_signal());
    for (int64_t i = 0; rc == 0 && !o->start_errno && s->use_cgroup && i < o->started; i++)
        if (sb_group_attach(&s->cg, copies[i].pid) != 0) {
            snprintf(why, why_cap, "cannot move %s into %s: %s",
                     l->copies == 1 ? "the command" : "a copy", s->cg.dir, strerror(errno));
            rc = -1;
        }
    if (rc == 0 && !o->start_errno && (lone || !sb_stop_signal()))
        return 0;
    o->interrupted = rc == 0 && !o->start_errno;
    abandon(copies, o->started, go[1]);
    close(err[0]);
    sb_stop_signals_set_child(0);
    if (sb_group_remove(&s->cg, NULL) != 0 && rc == 0)
        rc = fail(why, why_cap, "cannot remove the group's cgroup");
    return rc < 0 ? -1 : 1;
}

int sb_supervisor_run(sb_supervisor *s, const sb_launch *l, sb_copy *copies, sb_outcome *o,
                      char *why, size_t why_cap)
{
    memset(o, 0, sizeof *o);
    o->peak = o->rss_peak = o->vram_peak = o->oom_kills = o->limit = -1;
    if (l->copies < 1 || l->copies > SB_SUPERVISOR_MAX_COPIES || l->lines < 1 || !l->argv_for) {
        snprintf(why, why_cap, "%lld copies of %lld line(s) (a bug)", (long long)l->copies,
                 (long long)l->lines);
        return -1;
    }
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
    sb_sv_wait(s, l, copies, t0, o);
    sb_stop_signals_set_child(0);
    read_exec_failures(err[0], copies, l->copies);
    close(err[0]);
    sb_sv_sample(s, copies, o->started, 0, 1, NULL);
    o->vram_peak = vram_end(&s->vram);
    sb_sv_reap(s, copies, o->started, t0, o);
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
