/* spacrbench_scale: fork k workers for each worker count, let them run
 * items through the caller's work all at once, and measure throughput,
 * per-item time and the group's aggregate peak memory. The rule that turns
 * the points into a verdict is scale_rule.c.
 *
 * Forking from a library: the parent blocks every signal around fork(), so
 * no handler of the caller runs in a child before the child has reset the
 * handlers to their defaults; workers report through one pipe (messages
 * smaller than PIPE_BUF, so writes never interleave), wait on a "go" pipe
 * until the parent has put them all into the group, and leave with _exit()
 * (no atexit handlers, no stdio flush of the caller's buffers). The parent
 * reaps every child on every path and kills them when something fails. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "scale.h"

enum { MAX_WORKERS = 1024, CHILD_NO_GO = 3, CHILD_WRITE_FAILED = 4 };

/* One guard for scaling checks in this process; independent of the serial
 * runner's (a scaling check does not touch this process's own peaks). */
static pthread_mutex_t scale_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct scale_msg {
    int32_t worker;
    int32_t result; /* what the work returned */
    double seconds; /* that item's wall time */
} scale_msg;

typedef struct scale_args {
    spacrbench_work_fn work;
    void *const *items;
    size_t n_items;
    void *payload;
    int64_t per_worker;
    uint32_t flags;
} scale_args;

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

/* The worker: never returns. */
static void child_main(const scale_args *a, int worker, int64_t k, int go_fd, int report_fd,
                       const sigset_t *old_mask)
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
    pthread_sigmask(SIG_SETMASK, old_mask, NULL);
    char go;
    ssize_t r;
    while ((r = read(go_fd, &go, 1)) < 0 && errno == EINTR) {
    }
    if (r != 1)
        _exit(CHILD_NO_GO); /* the parent gave up before the start */
    close(go_fd);
    size_t start = (size_t)((int64_t)worker * (int64_t)a->n_items / k);
    for (int64_t j = 0; j < a->per_worker; j++) {
        size_t index = (start + (size_t)j) % a->n_items;
        double t0 = now_seconds();
        int rc = a->work(a->items[index], a->payload);
        scale_msg m = {worker, rc, now_seconds() - t0};
        if (write_all(report_fd, &m, sizeof m) != 0)
            _exit(CHILD_WRITE_FAILED);
        if (rc != 0)
            _exit(1);
    }
    _exit(0);
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

/* Measure one worker count into *p. Errors are library codes; a worker
 * that failed only marks the point. */
static int run_point(const scale_args *a, int64_t k, spacrbench_scale_point *p,
                     spacrbench_scale_result *r)
{
    spacrbench_scale_point_init(p, sizeof *p);
    p->workers = k;
    spacrbench_group *g = NULL;
    int rc = spacrbench_group_open(a->flags, &g);
    if (rc)
        return rc;
    if (r->n_notes == 0)
        sb_scale_notef(r, "%s", spacrbench_group_note(g));
    pid_t *pids = calloc((size_t)k, sizeof *pids);
    int go[2] = {-1, -1}, rep[2] = {-1, -1};
    int64_t forked = 0;
    sigset_t all, old;
    sigfillset(&all);
    if (!pids) {
        spacrbench_group_close(g);
        return sb_fail(SPACRBENCH_ENOMEM, "no memory for %lld workers", (long long)k);
    }
    if (pipe2(go, O_CLOEXEC) != 0 || pipe2(rep, O_CLOEXEC) != 0) {
        rc = sb_fail(SPACRBENCH_ESYSTEM, "pipe: %s", strerror(errno));
        goto out;
    }
    for (; forked < k; forked++) {
        pthread_sigmask(SIG_SETMASK, &all, &old);
        pid_t pid = fork();
        if (pid == 0) {
            free(pids); /* the parent's; unreferenced here (leak checkers) */
            close(go[1]);
            close(rep[0]);
            child_main(a, (int)forked, k, go[0], rep[1], &old);
        }
        int e = errno;
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (pid < 0) {
            rc = sb_fail(SPACRBENCH_ESYSTEM, "fork of worker %lld of %lld: %s",
                         (long long)forked + 1, (long long)k, strerror(e));
            goto out;
        }
        pids[forked] = pid;
        rc = spacrbench_group_add_process(g, pid);
        if (rc) {
            forked++;
            goto out;
        }
    }
    close_fd(&rep[1]);
    close_fd(&go[0]);
    char start[MAX_WORKERS];
    memset(start, 'g', sizeof start);
    double t0 = now_seconds();
    if (write_all(go[1], start, (size_t)k) != 0) {
        rc = sb_fail(SPACRBENCH_ESYSTEM, "cannot start the workers: %s", strerror(errno));
        goto out;
    }
    close_fd(&go[1]);

    /* Read reports until every worker has closed its end (exited). */
    double item_seconds = 0;
    int64_t done = 0;
    int work_failed = 0;
    unsigned char buf[64 * sizeof(scale_msg)];
    size_t have = 0;
    for (;;) {
        ssize_t n = read(rep[0], buf + have, sizeof buf - have);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        have += (size_t)n;
        size_t used = 0;
        for (; have - used >= sizeof(scale_msg); used += sizeof(scale_msg)) {
            scale_msg m;
            memcpy(&m, buf + used, sizeof m);
            if (m.result != 0)
                work_failed = 1;
            else {
                item_seconds += m.seconds;
                done++;
            }
        }
        memmove(buf, buf + used, have - used);
        have -= used;
    }
    double t1 = now_seconds();
    int died = 0;
    for (int64_t i = 0; i < forked; i++) {
        int status = reap(pids[i]);
        if (status < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
            died = 1;
    }
    forked = 0;
    p->items = done;
    p->seconds = t1 - t0;
    p->mean_item_seconds = done ? item_seconds / (double)done : NAN;
    p->failed = work_failed || died || done != k * a->per_worker;
    spacrbench_group_peak(g, &p->peak_bytes, &p->peak_method);
    if (p->failed)
        sb_scale_notef(r, "%lld workers: %s", (long long)k,
                       work_failed ? "the work returned non-zero in a worker"
                                   : "a worker died or did not finish its items");
out:
    /* Failure after some forks: stop them, then reap every one. */
    for (int64_t i = 0; i < forked; i++)
        kill(pids[i], SIGKILL);
    close_fd(&go[1]);
    for (int64_t i = 0; i < forked; i++)
        reap(pids[i]);
    close_fd(&go[0]);
    close_fd(&rep[0]);
    close_fd(&rep[1]);
    free(pids);
    int closed = spacrbench_group_close(g);
    return rc ? rc : closed;
}

int spacrbench_scale_options_init(spacrbench_scale_options *opts, size_t size)
{
    sb_clear_error();
    if (!opts)
        return sb_fail(SPACRBENCH_EINVAL, "opts must not be NULL");
    if (size < sizeof(size_t))
        return sb_fail(SPACRBENCH_EINVAL, "size %zu is too small for spacrbench_scale_options",
                       size);
    spacrbench_scale_options d;
    memset(&d, 0, sizeof d);
    d.max_workers = d.items_per_worker = d.memory_budget_bytes = SPACRBENCH_AUTO;
    memset(opts, 0, size);
    memcpy(opts, &d, size < sizeof d ? size : sizeof d);
    opts->size = size;
    return SPACRBENCH_OK;
}

static int check_options(const spacrbench_scale_options *o)
{
    if (o->worker_counts == NULL && o->n_worker_counts)
        return sb_fail(SPACRBENCH_EINVAL, "worker_counts is NULL but n_worker_counts is %zu",
                       o->n_worker_counts);
    if (o->n_worker_counts > 64)
        return sb_fail(SPACRBENCH_EINVAL, "n_worker_counts is %zu; at most 64", o->n_worker_counts);
    for (size_t i = 0; i < o->n_worker_counts; i++)
        if (o->worker_counts[i] < 1 || o->worker_counts[i] > MAX_WORKERS)
            return sb_fail(SPACRBENCH_EINVAL, "worker_counts[%zu] is %lld; use 1 to %d", i,
                           (long long)o->worker_counts[i], MAX_WORKERS);
    if (o->max_workers != SPACRBENCH_AUTO && (o->max_workers < 1 || o->max_workers > MAX_WORKERS))
        return sb_fail(SPACRBENCH_EINVAL, "max_workers is %lld; use 1 to %d (or AUTO)",
                       (long long)o->max_workers, MAX_WORKERS);
    if (o->items_per_worker != SPACRBENCH_AUTO && o->items_per_worker < 1)
        return sb_fail(SPACRBENCH_EINVAL, "items_per_worker is %lld; it must be >= 1 (or AUTO)",
                       (long long)o->items_per_worker);
    if (o->memory_budget_bytes < SPACRBENCH_AUTO)
        return sb_fail(SPACRBENCH_EINVAL, "memory_budget_bytes is %lld; it must be >= 0 (or AUTO)",
                       (long long)o->memory_budget_bytes);
    if (o->flags & ~(uint32_t)SPACRBENCH_SCALE_NO_CGROUP)
        return sb_fail(SPACRBENCH_EINVAL, "flags has unknown bits 0x%x",
                       o->flags & ~(uint32_t)SPACRBENCH_SCALE_NO_CGROUP);
    if (o->reserved)
        return sb_fail(SPACRBENCH_EINVAL, "reserved must be 0");
    return SPACRBENCH_OK;
}

/* available - reserve, as spacrbench_recommend computes them; -1 unknown. */
static int64_t auto_budget(char *note, size_t cap)
{
    spacrbench_recommendation rec;
    memset(&rec, 0, sizeof rec);
    rec.size = sizeof rec;
    note[0] = '\0';
    if (spacrbench_recommend(NULL, NULL, &rec) != 0) {
        snprintf(note, cap, "memory budget unknown: %s", spacrbench_last_error_message());
        return -1;
    }
    snprintf(note, cap, "memory budget: available memory less the %s reserve (%s rule)",
             "recommendation's", spacrbench_reserve_rule_name(rec.reserve_rule));
    if (rec.available_bytes <= 0)
        return -1;
    int64_t budget = rec.available_bytes - rec.reserve_bytes;
    return budget > 0 ? budget : 0;
}

int64_t spacrbench_scale_memory_budget(void)
{
    char note[600];
    return auto_budget(note, sizeof note);
}

/* The default counts after k = 1: powers of two below max, then max. */
static size_t default_counts(int64_t max, int64_t *counts, size_t cap)
{
    size_t n = 0;
    for (int64_t k = 2; k < max && n + 1 < cap; k *= 2)
        counts[n++] = k;
    if (max > 1)
        counts[n++] = max;
    return n;
}

static int scale_locked(const scale_args *a, const spacrbench_scale_options *o,
                        spacrbench_scale_result **out)
{
    char budget_note[600] = "";
    int64_t budget = o->memory_budget_bytes == SPACRBENCH_AUTO
                         ? auto_budget(budget_note, sizeof budget_note)
                         : o->memory_budget_bytes;
    size_t cap = o->n_worker_counts ? o->n_worker_counts : 64;
    spacrbench_scale_point *pts = calloc(cap, sizeof *pts);
    spacrbench_scale_result *notes = calloc(1, sizeof *notes); /* holds notes while running */
    int rc = SPACRBENCH_OK;
    size_t n = 0;
    if (!pts || !notes) {
        rc = sb_fail(SPACRBENCH_ENOMEM, "no memory for the scaling check");
        goto done;
    }
    if (o->n_worker_counts) {
        for (; n < o->n_worker_counts && rc == 0; n++)
            rc = run_point(a, o->worker_counts[n], &pts[n], notes);
    } else {
        rc = run_point(a, 1, &pts[n++], notes);
        int64_t max = o->max_workers;
        if (rc == 0 && max == SPACRBENCH_AUTO) {
            /* The recommendation's rule on the measured 1-worker peak, + 1
             * to show what lies beyond it, capped by the cores. */
            int64_t cores = spacrbench_usable_cores();
            max = cores;
            if (budget >= 0 && pts[0].peak_bytes > 0 && budget / pts[0].peak_bytes + 1 < max)
                max = budget / pts[0].peak_bytes + 1;
            if (max > MAX_WORKERS)
                max = MAX_WORKERS;
            sb_scale_notef(notes,
                           "worker counts up to %lld: %lld usable cores, memory for "
                           "%lld workers of the 1-worker peak (+ 1)",
                           (long long)max, (long long)cores,
                           budget >= 0 && pts[0].peak_bytes > 0
                               ? (long long)(budget / pts[0].peak_bytes)
                               : -1LL);
        }
        int64_t more[64];
        size_t m = rc == 0 ? default_counts(max, more, 63) : 0;
        for (size_t i = 0; i < m && rc == 0; i++)
            rc = run_point(a, more[i], &pts[n++], notes);
    }
    if (rc)
        goto done;
    rc = sb_scale_result_make(pts, n, sizeof *pts, budget, out);
    if (rc)
        goto done;
    if (budget_note[0])
        sb_scale_notef(*out, "%s", budget_note);
    for (size_t i = 0; i < notes->n_notes; i++)
        sb_scale_notef(*out, "%s", notes->notes[i]);
done:
    free(pts);
    spacrbench_scale_free(notes);
    return rc;
}

int spacrbench_scale(spacrbench_work_fn work, void *const *items, size_t n_items, void *payload,
                     const spacrbench_scale_options *opts, spacrbench_scale_result **out)
{
    sb_clear_error();
    if (!out)
        return sb_fail(SPACRBENCH_EINVAL, "out must not be NULL");
    *out = NULL;
    if (!work)
        return sb_fail(SPACRBENCH_EINVAL, "work must not be NULL");
    if (n_items == 0)
        return sb_fail(SPACRBENCH_ENOITEMS, "the scaling check needs at least one item");
    if (!items)
        return sb_fail(SPACRBENCH_EINVAL, "items must not be NULL when n_items is %zu", n_items);
    spacrbench_scale_options o;
    spacrbench_scale_options_init(&o, sizeof o);
    int rc = opts ? sb_struct_in(&o, sizeof o, opts, "spacrbench_scale_options") : 0;
    if (rc || (rc = check_options(&o)))
        return rc;
    scale_args a = {work,
                    items,
                    n_items,
                    payload,
                    o.items_per_worker == SPACRBENCH_AUTO ? (int64_t)n_items : o.items_per_worker,
                    o.flags};
    if (pthread_mutex_trylock(&scale_lock) != 0)
        return sb_fail(SPACRBENCH_EBUSY, "another scaling check is running in this process");
    rc = scale_locked(&a, &o, out);
    pthread_mutex_unlock(&scale_lock);
    return rc;
}
