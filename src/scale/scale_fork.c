/* The fork executor of spacrbench_scale_timed: the Linux primitive that
 * runs the driver's rounds (scale_driver.c decides everything) on k forked
 * workers of this process. open forks them (supervisor/child.c: signals
 * blocked across the fork, the caller's handlers reset, PR_SET_PDEATHSIG,
 * oom_score_adj 1000); they wait on a "go" pipe; each round the parent
 * writes the round's items and each worker's first item into a shared page
 * and releases all k at once; a worker runs its items through the caller's
 * work and reports each one (a message smaller than PIPE_BUF, so writes
 * never interleave) and the round's end. The parent sleeps on the report
 * pipe and the workers' pidfds (no polling), so a worker killed by the OOM
 * killer or a crash ends the round at once. close lets them leave (EOF on
 * the go pipe), or kills them after a failure, and reaps every one. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scale.h"
#include "supervisor.h"

enum { CHILD_NO_GO = 3, CHILD_WRITE_FAILED = 4 };

/* Every worker of the check: the caller's handlers reset, dying with it,
 * the OOM killer's first choice (so a job-wide kill never takes the
 * caller where no group limit holds). */
#define SB_SCALE_WORKER_FLAGS                                                                      \
    (SB_CHILD_DEFAULT_HANDLERS | SB_CHILD_DIE_WITH_PARENT | SB_CHILD_OOM_FIRST)
enum { MSG_ITEM = 0, MSG_ROUND_DONE = 1 };

typedef struct scale_msg {
    int32_t worker;
    int32_t kind;   /* MSG_ITEM or MSG_ROUND_DONE */
    int32_t result; /* what the work returned */
    int32_t round;  /* the count's rounds, from 0 */
    double seconds; /* that item's wall time */
} scale_msg;

/* The round the parent asks for, in a page shared with the workers
 * (written before the go bytes, read after them). */
typedef struct round_plan {
    int64_t items;
    int64_t first[]; /* per worker */
} round_plan;

typedef struct fork_state {
    sb_scale_work w;
    int64_t k, forked;
    pid_t *pids; /* 0 once reaped */
    int *status; /* wait status once reaped */
    int go[2][2], rep[2];
    round_plan *plan;
    size_t plan_size;
    sb_waiter waiter;
    int32_t round;
    unsigned char buf[64 * sizeof(scale_msg)];
    size_t have;
} fork_state;

/* What a worker forked from the state needs. */
typedef struct worker_arg {
    const fork_state *fs;
    int32_t index;
} worker_arg;

/* One byte from a go pipe: 'g' runs a round, EOF ends. Rounds alternate
 * between two pipes: a worker done with round r waits on the other pipe,
 * so it cannot take a round-r byte meant for a slower one (the parent
 * writes round r+1's bytes only when all k are done with r). */
static int wait_go(int go_fd)
{
    char go;
    ssize_t r;
    while ((r = read(go_fd, &go, 1)) < 0 && errno == EINTR) {
    }
    return r == 1 && go == 'g';
}

/* The worker: never returns. Each round, plan->items items from its first. */
static void worker_main(void *arg)
{
    const worker_arg *wa = arg;
    const fork_state *fs = wa->fs;
    int32_t me = wa->index;
    const sb_scale_work *w = &fs->w;
    /* The parent's ends: else no worker could ever read EOF. */
    close(fs->go[0][1]);
    close(fs->go[1][1]);
    close(fs->rep[0]);
    for (int32_t round = 0;; round++) {
        if (!wait_go(fs->go[round % 2][0]))
            _exit(round == 0 ? CHILD_NO_GO : 0);
        int64_t items = fs->plan->items;
        size_t next = (size_t)fs->plan->first[me];
        for (int64_t j = 0; j < items; j++) {
            size_t index = (next + (size_t)j) % w->n_items;
            double t0 = sb_now();
            int rc = w->work(w->items[index], w->payload);
            scale_msg m = {me, MSG_ITEM, rc, round, sb_now() - t0};
            if (sb_write_all(fs->rep[1], &m, sizeof m) != 0)
                _exit(CHILD_WRITE_FAILED);
            if (rc != 0)
                _exit(1);
        }
        scale_msg done = {me, MSG_ROUND_DONE, 0, round, 0};
        if (sb_write_all(fs->rep[1], &done, sizeof done) != 0)
            _exit(CHILD_WRITE_FAILED);
    }
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* Everything of a count: live workers are killed before their go pipes
 * close, then reaped; then the fds, the page and the arrays. */
static void state_end(fork_state *fs, int kill_them)
{
    for (int64_t i = 0; kill_them && i < fs->forked; i++)
        if (fs->pids[i] > 0)
            kill(fs->pids[i], SIGKILL);
    for (int j = 0; j < 2; j++)
        close_fd(&fs->go[j][1]);
    for (int64_t i = 0; i < fs->forked; i++)
        if (fs->pids[i] > 0 && sb_child_wait(fs->pids[i], 0, &fs->status[i], NULL) > 0)
            fs->pids[i] = 0;
    for (int j = 0; j < 2; j++)
        close_fd(&fs->go[j][0]);
    close_fd(&fs->rep[0]);
    close_fd(&fs->rep[1]);
    sb_waiter_close(&fs->waiter);
    if (fs->plan)
        munmap(fs->plan, fs->plan_size);
    fs->plan = NULL;
    free(fs->pids);
    free(fs->status);
    fs->pids = NULL;
    fs->status = NULL;
    fs->forked = fs->k = 0;
}

/* The arrays, the shared page and the pipes, before the first fork. */
static int state_prepare(fork_state *fs, int64_t k)
{
    fs->k = k;
    fs->round = 0;
    fs->have = 0;
    fs->pids = calloc((size_t)k, sizeof *fs->pids);
    fs->status = calloc((size_t)k, sizeof *fs->status);
    fs->plan_size = sizeof *fs->plan + (size_t)k * sizeof fs->plan->first[0];
    void *page =
        mmap(NULL, fs->plan_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    fs->plan = page == MAP_FAILED ? NULL : page;
    if (!fs->pids || !fs->status || !fs->plan)
        return sb_fail(SPACRBENCH_ENOMEM, "no memory for %lld workers", (long long)k);
    if (pipe2(fs->go[0], O_CLOEXEC) != 0 || pipe2(fs->go[1], O_CLOEXEC) != 0 ||
        pipe2(fs->rep, O_CLOEXEC) != 0)
        return sb_fail(SPACRBENCH_ESYSTEM, "pipe: %s", strerror(errno));
    return fcntl(fs->rep[0], F_SETFL, O_NONBLOCK) == 0
               ? 0
               : sb_fail(SPACRBENCH_ESYSTEM, "fcntl: %s", strerror(errno));
}

static int fork_open(spacrbench_scale_driver *d, int64_t k, int64_t budget, int64_t *pids,
                     spacrbench_scale_outcome *out, void *payload)
{
    (void)d, (void)budget;
    fork_state *fs = payload;
    int rc = state_prepare(fs, k);
    for (; rc == 0 && fs->forked < k; fs->forked++) {
        worker_arg wa = {fs, (int32_t)fs->forked};
        pid_t pid = sb_child_start(SB_SCALE_WORKER_FLAGS, worker_main, &wa);
        if (pid < 0) {
            /* pids.max, RLIMIT_NPROC, memory: this count cannot run. */
            snprintf(out->why, sizeof out->why, "fork of worker %lld failed (%s)",
                     (long long)fs->forked + 1, strerror(errno));
            rc = 1;
            break;
        }
        fs->pids[fs->forked] = pid;
        pids[fs->forked] = pid;
    }
    if (rc) {
        state_end(fs, 1);
        return rc;
    }
    /* The parent keeps only its ends: the report pipe reads EOF once every
     * worker has gone. */
    close_fd(&fs->rep[1]);
    close_fd(&fs->go[0][0]);
    close_fd(&fs->go[1][0]);
    sb_waiter_open(&fs->waiter, fs->pids, (size_t)k);
    return 0;
}

/* Take the whole messages read so far. */
static void take_messages(fork_state *fs, spacrbench_scale_worker *w, int64_t *finished,
                          int *work_failed)
{
    size_t used = 0;
    for (; fs->have - used >= sizeof(scale_msg); used += sizeof(scale_msg)) {
        scale_msg m;
        memcpy(&m, fs->buf + used, sizeof m);
        if (m.worker < 0 || m.worker >= fs->k || m.round != fs->round)
            continue;
        spacrbench_scale_worker *x = &w[m.worker];
        if (m.kind == MSG_ROUND_DONE) {
            x->end = SPACRBENCH_SCALE_WORKER_DONE;
            ++*finished;
        } else if (m.result != 0) {
            x->end = SPACRBENCH_SCALE_WORKER_FAILED;
            *work_failed = 1;
        } else {
            x->items++;
            x->item_seconds += m.seconds;
        }
    }
    memmove(fs->buf, fs->buf + used, fs->have - used);
    fs->have -= used;
}

/* Read what the pipe holds now; 0 on EOF (every worker is gone). */
static int drain(fork_state *fs)
{
    for (;;) {
        ssize_t n = read(fs->rep[0], fs->buf + fs->have, sizeof fs->buf - fs->have);
        if (n > 0) {
            fs->have += (size_t)n;
            if (fs->have == sizeof fs->buf)
                return 1; /* taken by the caller, then read on */
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        return n < 0 ? 1 : 0;
    }
}

/* Reap the workers that exited: 1 when one did before its round was done. */
static int reap_exited(fork_state *fs, const spacrbench_scale_worker *w, int *live)
{
    int died = 0;
    for (int64_t i = 0; i < fs->k; i++) {
        if (fs->pids[i] <= 0)
            continue;
        if (sb_child_wait(fs->pids[i], WNOHANG, &fs->status[i], NULL) == fs->pids[i]) {
            fs->pids[i] = 0;
            live[i] = 0;
            died |= w[i].end != SPACRBENCH_SCALE_WORKER_DONE;
        }
    }
    return died;
}

static int fork_round(spacrbench_scale_driver *d, const spacrbench_scale_round *r,
                      spacrbench_scale_worker *w, spacrbench_scale_outcome *out, void *payload)
{
    (void)d;
    fork_state *fs = payload;
    char start[SPACRBENCH_SCALE_MAX_WORKERS];
    memset(start, 'g', sizeof start);
    int *live = calloc((size_t)fs->k, sizeof *live);
    if (!live)
        return sb_fail(SPACRBENCH_ENOMEM, "no memory for %lld workers", (long long)fs->k);
    for (int64_t i = 0; i < fs->k; i++)
        live[i] = fs->pids[i] > 0;
    fs->plan->items = r->items;
    memcpy(fs->plan->first, r->first, (size_t)fs->k * sizeof *r->first);
    double t0 = sb_now();
    int rc = sb_write_all(fs->go[fs->round % 2][1], start, (size_t)fs->k) == 0
                 ? 0
                 : sb_fail(SPACRBENCH_ESYSTEM, "cannot start the workers: %s", strerror(errno));
    int64_t finished = 0;
    int work_failed = 0, died = 0;
    /* Without pidfds a death is seen at the next report or fallback. */
    double wait = sb_waiter_by_pidfd(&fs->waiter) ? -1 : SB_WAITER_FALLBACK_S;
    while (rc == 0 && finished < fs->k && !work_failed && !died) {
        int open = drain(fs);
        take_messages(fs, w, &finished, &work_failed);
        if (finished == fs->k || work_failed)
            break;
        /* A worker that exits after its last report is read first. */
        died = reap_exited(fs, w, live) || !open;
        if (!died)
            sb_waiter_sleep(&fs->waiter, live, fs->rep[0], wait, NULL);
    }
    if (rc == 0 && died) {
        drain(fs);
        take_messages(fs, w, &finished, &work_failed);
    }
    out->seconds = sb_now() - t0;
    if (work_failed)
        snprintf(out->why, sizeof out->why, "the work returned non-zero in a worker");
    fs->round++;
    free(live);
    return rc;
}

static int fork_close(spacrbench_scale_driver *d, int32_t failed, spacrbench_scale_count *count,
                      void *payload)
{
    (void)d, (void)count;
    fork_state *fs = payload;
    for (int j = 0; j < 2; j++)
        close_fd(&fs->go[j][1]); /* EOF: the workers leave */
    int bad = 0;
    for (int64_t i = 0; i < fs->forked; i++) {
        if (fs->pids[i] > 0 && failed)
            kill(fs->pids[i], SIGKILL); /* they may be mid-item */
        if (fs->pids[i] > 0 && sb_child_wait(fs->pids[i], 0, &fs->status[i], NULL) > 0)
            fs->pids[i] = 0;
        bad |= !WIFEXITED(fs->status[i]) || WEXITSTATUS(fs->status[i]) != 0;
    }
    state_end(fs, 1);
    /* A worker that did not exit 0 after a good count marks it failed. */
    return !failed && bad;
}

int sb_scale_fork_executor(const sb_scale_work *w, spacrbench_scale_executor *ex, void **state)
{
    fork_state *fs = calloc(1, sizeof *fs);
    *state = fs;
    if (!fs)
        return sb_fail(SPACRBENCH_ENOMEM, "no memory for the scaling check");
    fs->w = *w;
    for (int j = 0; j < 2; j++)
        fs->go[j][0] = fs->go[j][1] = fs->rep[j] = -1;
    fs->waiter.sfd = -1;
    spacrbench_scale_executor_init(ex, sizeof *ex);
    ex->flags = SPACRBENCH_SCALE_EXECUTOR_GROUP;
    ex->payload = fs;
    ex->open = fork_open;
    ex->round = fork_round;
    ex->close = fork_close;
    return SPACRBENCH_OK;
}

void sb_scale_fork_executor_free(void *state)
{
    fork_state *fs = state;
    if (fs)
        sb_waiter_close(&fs->waiter);
    free(fs);
}

int spacrbench_scale_worker_begin(int64_t parent_pid)
{
    sb_clear_error();
    if (parent_pid <= 0 || parent_pid != (int64_t)(pid_t)parent_pid)
        return sb_fail(SPACRBENCH_EINVAL, "parent_pid %lld is not a process id",
                       (long long)parent_pid);
    sb_child_begin(SB_CHILD_DIE_WITH_PARENT | SB_CHILD_OOM_FIRST, (pid_t)parent_pid);
    return SPACRBENCH_OK;
}
