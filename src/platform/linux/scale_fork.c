/* The Linux measurement of one worker count: fork k workers, let them run
 * items through the caller's work all at once, and measure throughput,
 * per-item time and the group's aggregate peak memory.
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

enum { MAX_WORKERS = SB_SCALE_MAX_WORKERS, CHILD_NO_GO = 3, CHILD_WRITE_FAILED = 4 };

typedef struct scale_msg {
    int32_t worker;
    int32_t result; /* what the work returned */
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

/* The worker: never returns. */
static void child_main(const sb_scale_args *a, int worker, int64_t k, int go_fd, int report_fd,
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
int sb_scale_run_point(const sb_scale_args *a, int64_t k, spacrbench_scale_point *p,
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
