/* The Linux measurement of one worker count: fork k workers, let them run
 * items through the caller's work all at once, and measure throughput,
 * per-item time and the group's aggregate peak memory.
 *
 * Steady state, not start-up: each worker first runs its warm-up items
 * untimed, then the parent releases all k at once for a timed repeat in
 * which each worker runs at least min_items items and min_seconds; the
 * workers stay alive between repeats (held on the "go" pipe), so repeats
 * cost no new forks. The parent asks for more repeats while they differ
 * by more than the target spread.
 *
 * Forking from a library: the parent blocks every signal around fork(), so
 * no handler of the caller runs in a child before the child has reset the
 * handlers to their defaults; workers die with the caller
 * (PR_SET_PDEATHSIG); they report through one pipe (messages smaller than
 * PIPE_BUF, so writes never interleave), wait on a "go" pipe until the
 * parent has put them all into the group, and leave with _exit() (no
 * atexit handlers, no stdio flush of the caller's buffers). The parent
 * polls the pipe and the workers, so a worker killed by the group's OOM
 * killer ends the point (the others are killed) instead of hanging it,
 * and reaps every child on every path. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "group.h"
#include "scale.h"

enum {
    MAX_WORKERS = SB_SCALE_MAX_WORKERS,
    MAX_REPEATS = 100,
    CHILD_NO_GO = 3,
    CHILD_WRITE_FAILED = 4,
    CHILD_ORPHANED = 5
};

enum { MSG_ITEM = 0, MSG_ROUND_DONE = 1 };

typedef struct scale_msg {
    int32_t worker;
    int32_t kind;   /* MSG_ITEM or MSG_ROUND_DONE */
    int32_t result; /* what the work returned */
    int32_t round;  /* 0: the warm-up, then 1, 2, ... */
    double seconds; /* that item's wall time */
} scale_msg;

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* One byte from a go pipe: 'g' runs a round, anything else (or EOF) ends.
 * Rounds alternate between two pipes: a worker done with round r waits on
 * the other pipe, so it cannot take a round-r byte meant for a slower one
 * (the parent writes round r+1's bytes only when all k are done with r). */
static int wait_go(int go_fd)
{
    char go;
    ssize_t r;
    while ((r = read(go_fd, &go, 1)) < 0 && errno == EINTR) {
    }
    return r == 1 && go == 'g';
}

/* The worker: never returns. Round 0 is the warm-up (warmup_items items,
 * possibly none); rounds 1.. run until min_items and min_seconds. */
static void child_main(const sb_scale_args *a, int worker, int64_t k, const int go_fd[2],
                       int report_fd, const sigset_t *old_mask, pid_t parent)
{
    for (int sig = 1; sig < NSIG; sig++) {
        struct sigaction sa;
        if (sigaction(sig, NULL, &sa) == 0 && sa.sa_handler != SIG_IGN &&
            sa.sa_handler != SIG_DFL) {
            sa.sa_handler = SIG_DFL;
            sa.sa_flags = 0;
            sigaction(sig, &sa, NULL);
        }
    }
    /* A caller killed (SIGKILL, OOM) takes its workers with it. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(CHILD_ORPHANED);
    /* Where no group limit exists (no cgroup of its own: a v2 leaf that
     * holds processes), a job-wide OOM kill must pick a worker, never the
     * caller: raising one's own score needs no privilege. */
    int adj = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
    if (adj >= 0) {
        (void)!write(adj, "1000", 4);
        close(adj);
    }
    pthread_sigmask(SIG_SETMASK, old_mask, NULL);
    size_t next = (size_t)((int64_t)worker * (int64_t)a->n_items / k);
    const spacrbench_scale_timing *t = &a->timing;
    for (int32_t round = 0;; round++) {
        if (!wait_go(go_fd[round % 2]))
            _exit(round == 0 ? CHILD_NO_GO : 0);
        double start = now_seconds();
        for (int64_t j = 0;; j++) {
            if (round == 0 ? j >= t->warmup_items
                           : j >= t->min_items && now_seconds() - start >= t->min_seconds)
                break;
            size_t index = next++ % a->n_items;
            double t0 = now_seconds();
            int rc = a->work(a->items[index], a->payload);
            scale_msg m = {worker, MSG_ITEM, rc, round, now_seconds() - t0};
            if (write_all(report_fd, &m, sizeof m) != 0)
                _exit(CHILD_WRITE_FAILED);
            if (rc != 0)
                _exit(1);
        }
        scale_msg done = {worker, MSG_ROUND_DONE, 0, round, 0};
        if (write_all(report_fd, &done, sizeof done) != 0)
            _exit(CHILD_WRITE_FAILED);
    }
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

static int reap(pid_t pid)
{
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return status;
}

/* What the parent learns while the workers run. */
typedef struct round_state {
    int64_t items;       /* good items of the current round */
    double item_seconds; /* their summed times */
    int64_t finished;    /* workers done with the current round */
    int work_failed;     /* a work returned non-zero */
    int died;            /* a worker ended before the round did */
} round_state;

static void take(round_state *st, const scale_msg *m, int32_t round)
{
    if (m->kind == MSG_ROUND_DONE) {
        st->finished += m->round == round;
        return;
    }
    if (m->result != 0)
        st->work_failed = 1;
    else if (m->round == round) {
        st->items++;
        st->item_seconds += m->seconds;
    }
}

/* Has a worker exited (reaped into status[i], pids[i] set to 0)? */
static int any_exited(pid_t *pids, int *status, int64_t k)
{
    int gone = 0;
    for (int64_t i = 0; i < k; i++) {
        if (pids[i] <= 0)
            continue;
        pid_t w = waitpid(pids[i], &status[i], WNOHANG);
        if (w == pids[i]) {
            pids[i] = 0;
            gone = 1;
        }
    }
    return gone;
}

/* Read reports until all k workers finished `round`, the work failed, or
 * a worker ended early. 0, or -1 on a pipe error. */
static int run_round(int rep_fd, int32_t round, int64_t k, pid_t *pids, int *status,
                     round_state *st, unsigned char *buf, size_t *have)
{
    memset(st, 0, sizeof *st);
    while (st->finished < k && !st->work_failed && !st->died) {
        struct pollfd pfd = {rep_fd, POLLIN, 0};
        int ready = poll(&pfd, 1, 50);
        if (ready < 0 && errno != EINTR)
            return -1;
        if (ready > 0) {
            ssize_t n = read(rep_fd, buf + *have, 64 * sizeof(scale_msg) - *have);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                st->died = 1; /* every worker closed its end */
                break;
            }
            *have += (size_t)n;
            size_t used = 0;
            for (; *have - used >= sizeof(scale_msg); used += sizeof(scale_msg)) {
                scale_msg m;
                memcpy(&m, buf + used, sizeof m);
                take(st, &m, round);
            }
            memmove(buf, buf + used, *have - used);
            *have -= used;
            continue;
        }
        /* Quiet: has someone died (the OOM killer, a crash) mid-round? A
         * worker that exits after reporting its round is read first. */
        if (any_exited(pids, status, k)) {
            pfd.revents = 0;
            if (poll(&pfd, 1, 0) <= 0)
                st->died = 1;
        }
    }
    return 0;
}

/* The parent's side of one point: the group, the workers and the pipes.
 * One struct so that one function (point_close) stops, reaps and closes
 * everything on every path: a failed fork, a failed attach, a pipe error
 * or the normal end. */
typedef struct point_run {
    spacrbench_group *g;
    pid_t *live;    /* live[i]: worker i's pid until it is reaped (then 0) */
    int *status;    /* status[i]: its wait status once reaped */
    int64_t forked; /* workers forked and not yet reaped by finish_workers */
    int go[2][2];   /* the two go pipes (rounds alternate between them) */
    int rep[2];     /* the report pipe, shared by all workers */
} point_run;

/* What the rounds measured: the timed repeats' sums and throughputs, the
 * warm-up's item count, and the last round's state (why it ended). */
typedef struct point_tally {
    double ips[MAX_REPEATS];
    size_t repeats;
    int64_t done, warm_done;
    double item_seconds, seconds;
    round_state st;
} point_tally;

/* Fork's answer for a count that could not start (the point is marked
 * failed, the points measured before it stand): not a library error. */
enum { POINT_NOT_STARTED = 1 };

/* The group first, its limit before any worker exists: the budget is the
 * group's limit, so over it the kernel kills inside the group, never the
 * caller above it. */
static int open_limited_group(const sb_scale_args *a, spacrbench_scale_spread *sp,
                              spacrbench_scale_result *r, spacrbench_group **g)
{
    int rc = spacrbench_group_open(a->flags, g);
    if (rc)
        return rc;
    if (r->n_notes == 0)
        sb_scale_notef(r, "%s", spacrbench_group_note(*g));
    if (a->budget > 0 && spacrbench_group_set_limit(*g, a->budget) == 0)
        sp->limit_bytes = a->budget;
    return 0;
}

/* The per-worker arrays and the pipes, all before the first fork. */
static int point_prepare(point_run *pr, int64_t k)
{
    pr->live = calloc((size_t)k, sizeof *pr->live);
    pr->status = calloc((size_t)k, sizeof *pr->status);
    if (!pr->live || !pr->status)
        return sb_fail(SPACRBENCH_ENOMEM, "no memory for %lld workers", (long long)k);
    if (pipe2(pr->go[0], O_CLOEXEC) != 0 || pipe2(pr->go[1], O_CLOEXEC) != 0 ||
        pipe2(pr->rep, O_CLOEXEC) != 0)
        return sb_fail(SPACRBENCH_ESYSTEM, "pipe: %s", strerror(errno));
    return 0;
}

/* In the child just forked as worker pr->forked: drop the parent's ends
 * and memory, then run the worker (which never returns). */
static void become_worker(const sb_scale_args *a, int64_t k, point_run *pr,
                          const sigset_t *old_mask, pid_t parent)
{
    free(pr->live); /* the parent's; unreferenced here (leak checkers) */
    free(pr->status);
    close(pr->go[0][1]);
    close(pr->go[1][1]);
    close(pr->rep[0]);
    int go_read[2] = {pr->go[0][0], pr->go[1][0]};
    child_main(a, (int)pr->forked, k, go_read, pr->rep[1], old_mask, parent);
}

/* Fork the k workers, each put into the group as soon as it exists; none
 * runs an item before the parent writes the go bytes, so all of them work
 * inside the group. Signals stay blocked across fork() until the child
 * has reset the caller's handlers. 0, POINT_NOT_STARTED, or an error. */
static int fork_workers(const sb_scale_args *a, int64_t k, point_run *pr, spacrbench_scale_point *p,
                        spacrbench_scale_result *r)
{
    pid_t self = getpid();
    sigset_t all, old;
    sigfillset(&all);
    for (; pr->forked < k; pr->forked++) {
        pthread_sigmask(SIG_SETMASK, &all, &old);
        pid_t pid = fork();
        if (pid == 0)
            become_worker(a, k, pr, &old, self);
        int e = errno;
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (pid < 0) {
            /* pids.max, RLIMIT_NPROC, memory: this count cannot run. */
            p->failed = 1;
            p->seconds = 0;
            sb_scale_notef(r,
                           "%lld worker%s: fork of worker %lld failed (%s); the point is "
                           "marked failed",
                           (long long)k, k == 1 ? "" : "s", (long long)pr->forked + 1, strerror(e));
            return POINT_NOT_STARTED;
        }
        pr->live[pr->forked] = pid;
        int rc = spacrbench_group_add_process(pr->g, pid);
        if (rc) {
            pr->forked++; /* this one too is stopped and reaped */
            return rc;
        }
    }
    /* The parent keeps only its ends: the report pipe reads EOF once
     * every worker has gone. */
    close_fd(&pr->rep[1]);
    close_fd(&pr->go[0][0]);
    close_fd(&pr->go[1][0]);
    return 0;
}

/* Release all k workers round after round (round 0: the warm-up) and
 * tally the timed repeats until they agree (or MAX_REPEATS), a work fails
 * or a worker is gone. Library error codes only for the pipes. */
static int run_rounds(const sb_scale_args *a, int64_t k, point_run *pr, point_tally *t)
{
    char start[MAX_WORKERS];
    memset(start, 'g', sizeof start);
    unsigned char buf[64 * sizeof(scale_msg)];
    size_t have = 0;
    memset(t, 0, sizeof *t);
    for (int32_t round = 0;; round++) {
        double t0 = now_seconds();
        if (write_all(pr->go[round % 2][1], start, (size_t)k) != 0)
            return sb_fail(SPACRBENCH_ESYSTEM, "cannot start the workers: %s", strerror(errno));
        if (run_round(pr->rep[0], round, k, pr->live, pr->status, &t->st, buf, &have) != 0)
            return sb_fail(SPACRBENCH_ESYSTEM, "reading the workers' reports: %s", strerror(errno));
        double t1 = now_seconds();
        if (t->st.work_failed || t->st.died)
            return 0;
        if (round == 0) {
            t->warm_done = t->st.items;
            continue;
        }
        t->done += t->st.items;
        t->item_seconds += t->st.item_seconds;
        t->seconds += t1 - t0;
        t->ips[t->repeats++] = (double)t->st.items / (t1 - t0);
        if (!sb_scale_want_repeat(&a->timing, t->ips, t->repeats) || t->repeats == MAX_REPEATS)
            return 0;
    }
}

/* After the last round: EOF on the go pipes lets the workers leave; after
 * a failed work or a death the others are killed (they may be mid-item).
 * Every worker is reaped here, so the group's OOM count and peak read next
 * are final; one that did not exit 0 now marks the point. Returns whether
 * the rounds had already ended in a failure. */
static int finish_workers(point_run *pr, round_state *st)
{
    close_fd(&pr->go[0][1]);
    close_fd(&pr->go[1][1]);
    int failed_before = st->died || st->work_failed;
    if (failed_before)
        sb_process_group_kill_all(pr->g);
    for (int64_t i = 0; i < pr->forked; i++) {
        if (pr->live[i] > 0)
            pr->status[i] = reap(pr->live[i]);
        pr->live[i] = 0;
        if (pr->status[i] < 0 || !WIFEXITED(pr->status[i]) || WEXITSTATUS(pr->status[i]) != 0)
            st->died |= !failed_before;
    }
    pr->forked = 0;
    return failed_before;
}

/* Fill the point from the tally and the group (read after every worker
 * was reaped), and say why it failed: an OOM kill at the budget is a
 * memory point, anything else a failed work or a lost worker. */
static void record_point(const sb_scale_args *a, int64_t k, spacrbench_group *g,
                         const point_tally *t, int failed_before, spacrbench_scale_point *p,
                         spacrbench_scale_spread *sp, spacrbench_scale_result *r)
{
    int64_t ooms = spacrbench_group_oom_kills(g);
    p->items = t->done;
    p->seconds = t->seconds;
    p->mean_item_seconds = t->done ? t->item_seconds / (double)t->done : NAN;
    p->failed = t->st.work_failed || t->st.died || failed_before || t->repeats == 0 ||
                t->warm_done != k * a->timing.warmup_items;
    sb_scale_spread_of(t->ips, t->repeats, sp);
    spacrbench_group_peak(g, &p->peak_bytes, &p->peak_method);
    const char *sampled = spacrbench_group_sampling_note(g); /* "" with a cgroup */
    if (sampled[0])
        sb_scale_notef(r, "%lld worker%s: %s", (long long)k, k == 1 ? "" : "s", sampled);
    if (ooms > 0 && sp->limit_bytes > 0) {
        sp->oom_killed = 1;
        p->failed = 1;
        char lim[32];
        sb_format_bytes(lim, sizeof lim, sp->limit_bytes);
        sb_scale_notef(r,
                       "%lld worker%s: OOM-killed in %s group at its limit of %s (the budget); "
                       "the caller is above the group and was not touched",
                       (long long)k, k == 1 ? "" : "s", k == 1 ? "its" : "their", lim);
    } else if (p->failed)
        sb_scale_notef(r, "%lld worker%s: %s", (long long)k, k == 1 ? "" : "s",
                       t->st.work_failed ? "the work returned non-zero in a worker"
                                         : "a worker died or did not finish its items");
}

/* Every path ends here: workers still alive (an error after some forks)
 * are killed before their go pipes close, then reaped; then the fds, the
 * arrays and the group go. Returns rc, else the group's close. */
static int point_close(point_run *pr, int rc)
{
    for (int64_t i = 0; i < pr->forked; i++)
        if (pr->live[i] > 0)
            kill(pr->live[i], SIGKILL);
    for (int j = 0; j < 2; j++)
        close_fd(&pr->go[j][1]);
    for (int64_t i = 0; i < pr->forked; i++)
        if (pr->live[i] > 0)
            reap(pr->live[i]);
    for (int j = 0; j < 2; j++)
        close_fd(&pr->go[j][0]);
    close_fd(&pr->rep[0]);
    close_fd(&pr->rep[1]);
    free(pr->live);
    free(pr->status);
    int closed = spacrbench_group_close(pr->g);
    return rc ? rc : closed;
}

/* Measure one worker count into *p and *sp. Errors are library codes; a
 * worker that failed only marks the point. */
int sb_scale_run_point(const sb_scale_args *a, int64_t k, spacrbench_scale_point *p,
                       spacrbench_scale_spread *sp, spacrbench_scale_result *r)
{
    spacrbench_scale_point_init(p, sizeof *p);
    spacrbench_scale_spread_init(sp, sizeof *sp);
    p->workers = k;
    sp->warmup_items = a->timing.warmup_items;
    point_run pr = {NULL, NULL, NULL, 0, {{-1, -1}, {-1, -1}}, {-1, -1}};
    int rc = open_limited_group(a, sp, r, &pr.g);
    if (rc)
        return rc;
    rc = point_prepare(&pr, k);
    if (rc == 0)
        rc = fork_workers(a, k, &pr, p, r);
    if (rc == 0) {
        point_tally t;
        rc = run_rounds(a, k, &pr, &t);
        if (rc == 0) {
            int failed_before = finish_workers(&pr, &t.st);
            record_point(a, k, pr.g, &t, failed_before, p, sp, r);
        }
    }
    return point_close(&pr, rc == POINT_NOT_STARTED ? 0 : rc);
}
