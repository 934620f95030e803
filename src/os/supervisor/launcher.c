/* The copies' launcher; see launcher.h. A request is a head (sent with
 * the copy's two pipe ends as SCM_RIGHTS), then each line's argument
 * count and every argument NUL-terminated; the answer is the copy's pid
 * or the fork's errno. The launcher reads a request into a mapping of its
 * own and unmaps it once the copy is forked: it stays as small as it
 * started, whatever the commands. */
#include "launcher.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "read_fd.h"

#define MAX_LINES (1ull << 24)
#define MAX_BYTES (1ull << 30) /* far above what one copy's lines hold */

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

/* ---- the copy (async-signal-safe calls only) ---- */

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

/* ---- the launcher ---- */

static int read_full(int fd, void *buf, size_t n)
{
    return sb_read_all(fd, buf, n) == (long long)n ? 0 : -1;
}

/* A fork whose parent is the launcher's parent (the supervisor). The raw
 * system call: glibc's clone() wants a stack of its own. */
static pid_t fork_sibling(void)
{
#if defined(__s390__) || defined(__CRIS__)
    return (pid_t)syscall(SYS_clone, 0, CLONE_PARENT | SIGCHLD);
#else
    return (pid_t)syscall(SYS_clone, CLONE_PARENT | SIGCHLD, 0, 0, 0, 0);
#endif
}

/* A request's head and its two descriptors: 1, 0 at the end of requests. */
static int read_head(int sock, request_head *h, int fds[2])
{
    union {
        char buf[CMSG_SPACE(2 * sizeof(int))];
        struct cmsghdr align;
    } control;
    struct iovec iov = {h, sizeof *h};
    struct msghdr msg = {0};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.buf;
    msg.msg_controllen = sizeof control.buf;
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

/* The request's lines, read into a mapping of size *size: NULL when it
 * cannot be (the launcher then ends). */
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
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pid_t pid = fork();
    if (pid == 0) {
        /* Every signal stays blocked here (a terminal's ^C is for the
         * commands and spacrbench); it dies with spacrbench. */
        close(sv[0]);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(0);
        serve(sv[1], in_child, parent);
    }
    int e = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
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

/* Send the whole of buf (no SIGPIPE: a launcher gone is an answer). */
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

/* The request's counts and arguments, in one buffer (malloc'd; NULL: out
 * of memory). */
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
    struct msghdr msg = {0};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.buf;
    msg.msg_controllen = sizeof control.buf;
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
