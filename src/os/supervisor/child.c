/* The children's primitives and the copies' launcher. */
#include "supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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
        int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
        if (fd >= 0) {
            (void)!write(fd, "1000", 4);
            close(fd);
        }
    }
}

/* Blocked in the child (old: the mask before), restored in the parent. */
static pid_t fork_blocked(sigset_t *old)
{
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, old);
    pid_t pid = fork();
    int e = errno;
    if (pid != 0)
        pthread_sigmask(SIG_SETMASK, old, NULL);
    errno = e;
    return pid;
}

pid_t sb_child_start(unsigned flags, sb_child_main main, void *arg)
{
    pid_t parent = getpid();
    sigset_t old;
    pid_t pid = fork_blocked(&old);
    if (pid == 0) {
        sb_child_begin(flags, parent);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        main(arg);
        _exit(127); /* main must not return */
    }
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

typedef struct run_job {
    char *const *argv;
    int stdout_to_stderr;
    int err; /* a CLOEXEC pipe: the exec's errno */
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

static int sb_pidfd_open(pid_t pid)
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

/* ---- the launcher. A request: a head with the two pipe ends
 * (SCM_RIGHTS), each line's argument count, the arguments; the answer:
 * the pid or errno. It reads into a mapping unmapped once the copy is
 * forked: it stays as small as it started ---- */

#define MAX_LINES (1ull << 24)
#define MAX_BYTES (1ull << 30)

typedef struct request_head {
    uint32_t flags;
    int32_t stdout_to_stderr;
    int64_t index;
    uint64_t lines; /* m */
    uint64_t words; /* arguments over all lines */
    uint64_t bytes; /* their bytes, NULs included */
    sigset_t mask;
} request_head;

typedef struct answer {
    int32_t pid;
    int32_t err;
} answer;

typedef struct copy_job {
    const request_head *h;
    char ***lines;
    int go, err;
    void (*in_child)(void);
} copy_job;

static void exec_line(void *argv)
{
    char **a = argv;
    execvp(a[0], a);
    _exit(127);
}

static void copy_main(const copy_job *j)
{
    if (j->in_child)
        j->in_child();
    sigprocmask(SIG_SETMASK, &j->h->mask, NULL);
    if (j->h->stdout_to_stderr && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
        _exit(127);
    char b;
    ssize_t n;
    while ((n = read(j->go, &b, 1)) < 0 && errno == EINTR)
        ;
    if (n != 1)
        _exit(127); /* never released: spacrbench gave up on this group */
    int64_t m = (int64_t)j->h->lines;
    for (int64_t i = 0; i + 1 < m; i++) {
        int st;
        pid_t pid = sb_child_start(0, exec_line, j->lines[i]);
        if (pid < 0 || sb_child_wait(pid, 0, &st, NULL) < 0)
            _exit(127);
        if (WIFSIGNALED(st))
            _exit(128 + WTERMSIG(st));
        if (WEXITSTATUS(st) != 0)
            _exit(WEXITSTATUS(st));
    }
    execvp(j->lines[m - 1][0], j->lines[m - 1]);
    sb_exec_failure f;
    memset(&f, 0, sizeof f); /* no uninitialised padding in the write */
    f.copy = j->h->index;
    f.err = errno;
    if (write(j->err, &f, sizeof f) < 0)
        _exit(126);
    _exit(127);
}

static int read_full(int fd, void *buf, size_t n)
{
    return sb_read_all(fd, buf, n) == (long long)n ? 0 : -1;
}

/* CLONE_PARENT: the supervisor's child. glibc's clone() wants a stack. */
static pid_t fork_sibling(void)
{
#if defined(__s390__) || defined(__CRIS__)
    return (pid_t)syscall(SYS_clone, 0, CLONE_PARENT | SIGCHLD);
#else
    return (pid_t)syscall(SYS_clone, CLONE_PARENT | SIGCHLD, 0, 0, 0, 0);
#endif
}

/* 1, 0 at the end of requests. */
static int read_head(int sock, request_head *h, int fds[2])
{
    union {
        char buf[CMSG_SPACE(2 * sizeof(int))];
        struct cmsghdr align;
    } control;
    struct iovec iov = {h, sizeof *h};
    struct msghdr msg = {.msg_iov = &iov,
                         .msg_iovlen = 1,
                         .msg_control = control.buf,
                         .msg_controllen = sizeof control.buf};
    ssize_t got;
    while ((got = recvmsg(sock, &msg, MSG_WAITALL | MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
        ;
    if (got == 0)
        return 0;
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    if (got != (ssize_t)sizeof *h || !c || c->cmsg_level != SOL_SOCKET ||
        c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(2 * sizeof(int)))
        _exit(1); /* not our supervisor's request */
    memcpy(fds, CMSG_DATA(c), 2 * sizeof(int));
    return 1;
}

/* NULL: the launcher ends. */
static char ***read_lines(int sock, const request_head *h, size_t *size)
{
    if (h->lines < 1 || h->lines > MAX_LINES || h->bytes > MAX_BYTES || h->words > h->bytes)
        return NULL;
    size_t m = (size_t)h->lines, w = (size_t)h->words;
    size_t counts = m * sizeof(uint64_t), table = m * sizeof(char **),
           ptrs = (w + m) * sizeof(char *);
    *size = counts + table + ptrs + (size_t)h->bytes;
    char *map = mmap(NULL, *size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED)
        return NULL;
    uint64_t *argc = (uint64_t *)map;
    char ***lines = (char ***)(map + counts);
    char **argv = (char **)(map + counts + table);
    char *text = map + counts + table + ptrs, *end = text + h->bytes;
    if (read_full(sock, argc, counts) != 0 || read_full(sock, text, (size_t)h->bytes) != 0)
        goto bad;
    uint64_t seen = 0;
    for (size_t i = 0; i < m; i++) {
        if (argc[i] < 1 || argc[i] > w - seen)
            goto bad;
        lines[i] = argv;
        for (uint64_t a = 0; a < argc[i]; a++) {
            char *nul = text < end ? memchr(text, '\0', (size_t)(end - text)) : NULL;
            if (!nul)
                goto bad;
            *argv++ = text;
            text = nul + 1;
        }
        *argv++ = NULL;
        seen += argc[i];
    }
    if (seen == w && text == end)
        return lines;
bad:
    munmap(map, *size);
    return NULL;
}

static _Noreturn void serve(int sock, void (*in_child)(void), pid_t parent)
{
    for (;;) {
        request_head h;
        int fds[2];
        if (read_head(sock, &h, fds) == 0) {
            close(sock); /* spacrbench is done: leave no descriptor open (valgrind's --track-fds) */
            _exit(0);
        }
        size_t size = 0;
        char ***lines = read_lines(sock, &h, &size);
        if (!lines)
            _exit(1);
        pid_t pid = fork_sibling();
        if (pid == 0) {
            close(sock);
            sb_child_begin(h.flags, parent);
            copy_job j = {&h, lines, fds[0], fds[1], in_child};
            copy_main(&j);
        }
        answer a = {(int32_t)pid, pid < 0 ? errno : 0};
        close(fds[0]);
        close(fds[1]);
        munmap(lines, size);
        if (sb_write_all(sock, &a, sizeof a) != 0)
            _exit(1);
    }
}

int sb_launcher_start(sb_launcher *l, void (*in_child)(void))
{
    l->pid = -1;
    l->sock = -1;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return -1;
    pid_t parent = getpid();
    sigset_t old;
    pid_t pid = fork_blocked(&old);
    if (pid == 0) {
        /* Every signal stays blocked: a ^C is for the commands. */
        close(sv[0]);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(0);
        serve(sv[1], in_child, parent);
    }
    int e = errno;
    close(sv[1]);
    if (pid < 0) {
        close(sv[0]);
        errno = e;
        return -1;
    }
    l->pid = pid;
    l->sock = sv[0];
    return 0;
}

/* No SIGPIPE: a launcher gone is an answer. */
static int send_all(int sock, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t put = send(sock, p, n, MSG_NOSIGNAL);
        if (put < 0 && errno == EINTR)
            continue;
        if (put <= 0)
            return -1;
        p += put;
        n -= (size_t)put;
    }
    return 0;
}

/* The counts and arguments (malloc'd; NULL: out of memory). */
static char *encode(const sb_copy_spec *c, request_head *h, size_t *len)
{
    uint64_t words = 0, bytes = 0;
    for (int64_t i = 0; i < c->m; i++)
        for (char **a = c->lines[i]; *a; a++, words++)
            bytes += strlen(*a) + 1;
    size_t counts = (size_t)c->m * sizeof(uint64_t);
    *len = counts + (size_t)bytes;
    char *buf = malloc(*len ? *len : 1);
    if (!buf)
        return NULL;
    char *text = buf + counts;
    for (int64_t i = 0; i < c->m; i++) {
        uint64_t n = 0;
        for (char **a = c->lines[i]; *a; a++, n++) {
            size_t k = strlen(*a) + 1;
            memcpy(text, *a, k);
            text += k;
        }
        memcpy(buf + (size_t)i * sizeof n, &n, sizeof n);
    }
    memset(h, 0, sizeof *h);
    h->flags = c->flags;
    h->stdout_to_stderr = c->stdout_to_stderr;
    h->index = c->index;
    h->lines = (uint64_t)c->m;
    h->words = words;
    h->bytes = bytes;
    sigemptyset(&h->mask); /* only real signals: the rest of a sigset_t is never set */
    for (int sig = 1; sig < NSIG; sig++)
        if (sigismember(&c->mask, sig) == 1)
            sigaddset(&h->mask, sig);
    return buf;
}

pid_t sb_launcher_fork(sb_launcher *l, const sb_copy_spec *c)
{
    if (l->pid < 0) {
        errno = ESRCH;
        return -2;
    }
    request_head h;
    size_t len = 0;
    char *buf = encode(c, &h, &len);
    if (!buf)
        return -1; /* ENOMEM: as a fork that failed */
    union {
        char buf[CMSG_SPACE(2 * sizeof(int))];
        struct cmsghdr align;
    } control;
    memset(&control, 0, sizeof control);
    struct iovec iov = {&h, sizeof h};
    struct msghdr msg = {.msg_iov = &iov,
                         .msg_iovlen = 1,
                         .msg_control = control.buf,
                         .msg_controllen = sizeof control.buf};
    struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(2 * sizeof(int));
    int fds[2] = {c->go, c->err};
    memcpy(CMSG_DATA(cm), fds, sizeof fds);
    ssize_t sent;
    errno = 0;
    while ((sent = sendmsg(l->sock, &msg, MSG_NOSIGNAL)) < 0 && errno == EINTR)
        ;
    answer a = {-1, 0};
    int ok = sent == (ssize_t)sizeof h && send_all(l->sock, buf, len) == 0 &&
             read_full(l->sock, &a, sizeof a) == 0;
    free(buf);
    if (!ok) {
        if (!errno)
            errno = EPIPE;
        return -2;
    }
    if (a.pid < 0) {
        errno = a.err;
        return -1;
    }
    return (pid_t)a.pid;
}

void sb_launcher_stop(sb_launcher *l)
{
    if (l->sock >= 0)
        close(l->sock); /* the launcher reads the end of requests and exits */
    if (l->pid > 0)
        sb_child_wait(l->pid, 0, NULL, NULL);
    l->sock = -1;
    l->pid = -1;
}
