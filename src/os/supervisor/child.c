/* The children's OS primitives; see child.h. */
#include "child.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"

void sb_child_begin(unsigned flags, pid_t parent)
{
    if (flags & SB_CHILD_DEFAULT_HANDLERS)
        for (int sig = 1; sig < NSIG; sig++) {
            struct sigaction sa;
            if (sigaction(sig, NULL, &sa) == 0 && sa.sa_handler != SIG_IGN &&
                sa.sa_handler != SIG_DFL) {
                memset(&sa, 0, sizeof sa);
                sa.sa_handler = SIG_DFL;
                sigaction(sig, &sa, NULL);
            }
        }
    if (flags & SB_CHILD_DIE_WITH_PARENT) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) /* the parent died before prctl */
            _exit(SB_CHILD_ORPHANED);
    }
    if (flags & SB_CHILD_OOM_FIRST) {
        /* Raising one's own score needs no privilege. */
        int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
        if (fd >= 0) {
            (void)!write(fd, "1000", 4);
            close(fd);
        }
    }
}

pid_t sb_child_start(unsigned flags, sb_child_main main, void *arg)
{
    pid_t parent = getpid();
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pid_t pid = fork();
    if (pid == 0) {
        sb_child_begin(flags, parent);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        main(arg);
        _exit(127); /* main must not return */
    }
    int e = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = e;
    return pid;
}

pid_t sb_child_wait(pid_t pid, int options, int *status, struct rusage *ru)
{
    int st = 0;
    pid_t w;
    while ((w = wait4(pid, &st, options, ru)) < 0 && errno == EINTR)
        ;
    if (w > 0 && status)
        *status = st;
    return w;
}

/* sb_child_run's child: exec, or tell the parent why not. */
typedef struct run_job {
    char *const *argv;
    int stdout_to_stderr;
    int err; /* the CLOEXEC pipe's write end */
} run_job;

static void run_main(void *arg)
{
    const run_job *j = arg;
    if (!j->stdout_to_stderr || dup2(STDERR_FILENO, STDOUT_FILENO) >= 0)
        execvp(j->argv[0], j->argv);
    int e = errno;
    (void)!write(j->err, &e, sizeof e);
    _exit(127);
}

int sb_child_run(char *const argv[], int stdout_to_stderr)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0)
        return -1;
    run_job j = {argv, stdout_to_stderr, p[1]};
    pid_t pid = sb_child_start(SB_CHILD_DEFAULT_HANDLERS, run_main, &j);
    int e = errno;
    close(p[1]);
    int exec_errno = 0;
    ssize_t got = pid > 0 ? read(p[0], &exec_errno, sizeof exec_errno) : 0;
    close(p[0]);
    int st = 0;
    if (pid > 0 && sb_child_wait(pid, 0, &st, NULL) < 0)
        e = errno, pid = -1;
    if (pid < 0 || got == (ssize_t)sizeof exec_errno) {
        errno = pid < 0 ? e : exec_errno;
        return -1;
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int sb_pidfd_open(pid_t pid)
{
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    (void)pid;
    errno = ENOSYS;
    return -1;
#endif
}

void sb_waiter_open(sb_waiter *w, const pid_t *pids, size_t n)
{
    memset(w, 0, sizeof *w);
    w->sfd = -1;
    w->n = n;
    w->pidfd = malloc((n ? n : 1) * sizeof *w->pidfd);
    w->fds = malloc((n + 1) * sizeof *w->fds);
    size_t opened = 0;
    if (w->pidfd && w->fds)
        while (opened < n && (w->pidfd[opened] = sb_pidfd_open(pids[opened])) >= 0)
            opened++;
    if (opened < n || !w->pidfd || n == 0) { /* all or none: one way to wake */
        for (size_t i = 0; i < opened; i++)
            close(w->pidfd[i]);
        free(w->pidfd);
        w->pidfd = NULL;
        sigset_t chld;
        sigemptyset(&chld);
        sigaddset(&chld, SIGCHLD);
        w->sfd = signalfd(-1, &chld, SFD_NONBLOCK | SFD_CLOEXEC);
    }
}

void sb_waiter_close(sb_waiter *w)
{
    for (size_t i = 0; w->pidfd && i < w->n; i++)
        close(w->pidfd[i]);
    free(w->pidfd);
    free(w->fds);
    if (w->sfd >= 0)
        close(w->sfd);
    memset(w, 0, sizeof *w);
    w->sfd = -1;
}

int sb_waiter_by_pidfd(const sb_waiter *w) { return w->pidfd != NULL; }

static double shorter(double a, double b) { return a < 0 ? b : b < a ? b : a; }

void sb_waiter_sleep(sb_waiter *w, const int *live, int fd, double wait, const sigset_t *mask)
{
    nfds_t n = 0;
    if (w->fds && w->pidfd) {
        for (size_t i = 0; i < w->n; i++)
            if (!live || live[i])
                w->fds[n++] = (struct pollfd){w->pidfd[i], POLLIN, 0};
    } else if (w->fds && w->sfd >= 0)
        w->fds[n++] = (struct pollfd){w->sfd, POLLIN, 0};
    else
        wait = shorter(wait, SB_WAITER_FALLBACK_S);
    struct pollfd one;
    struct pollfd *fds = w->fds;
    if (fd >= 0 && fds)
        fds[n++] = (struct pollfd){fd, POLLIN, 0};
    else if (fd >= 0) {
        one = (struct pollfd){fd, POLLIN, 0};
        fds = &one;
        n = 1;
    }
    struct timespec ts = {(time_t)wait, (long)((wait - floor(wait)) * 1e9)};
    ppoll(n ? fds : NULL, n, wait < 0 ? NULL : &ts, mask);
    struct signalfd_siginfo info;
    while (w->sfd >= 0 && read(w->sfd, &info, sizeof info) == (ssize_t)sizeof info)
        ;
}

size_t sb_wait_exited(const pid_t *pids, size_t n, double deadline)
{
    struct pollfd *p = n ? malloc(n * sizeof *p) : NULL;
    if (!p)
        return n;
    size_t m = 0;
    int no_pidfd = 0;
    for (size_t i = 0; i < n; i++) {
        int fd = sb_pidfd_open(pids[i]);
        if (fd >= 0)
            p[m++] = (struct pollfd){fd, POLLIN, 0};
        else if (errno != ESRCH) /* ESRCH: gone already */
            no_pidfd = 1;
    }
    size_t left = m;
    while (left > 0 && !no_pidfd) {
        double wait = deadline - sb_now();
        if (wait <= 0)
            break;
        struct timespec ts = {(time_t)wait, (long)((wait - floor(wait)) * 1e9)};
        if (ppoll(p, m, &ts, NULL) < 0 && errno != EINTR)
            break;
        left = 0;
        for (size_t j = 0; j < m; j++) {
            if (p[j].fd >= 0 && p[j].revents) { /* exited: poll ignores it from now on */
                close(p[j].fd);
                p[j].fd = -1;
            }
            left += p[j].fd >= 0;
        }
    }
    if (no_pidfd) { /* Linux < 5.3: one short pause, then a count */
        double wait = deadline - sb_now();
        wait = wait > 0.02 ? 0.02 : wait > 0 ? wait : 0;
        struct timespec ts = {0, (long)(wait * 1e9)};
        nanosleep(&ts, NULL);
        left = 0;
        for (size_t i = 0; i < n; i++)
            left += kill(pids[i], 0) == 0;
    }
    for (size_t j = 0; j < m; j++)
        if (p[j].fd >= 0)
            close(p[j].fd);
    free(p);
    return left;
}
