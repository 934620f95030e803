/* See cli_stdio.h. */
#include "cli_stdio.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli_error.h"

#if defined(_WIN32)
#include <io.h>
#include <stdint.h>
#define CLI_NULL_DEVICE "NUL"
/* No handle behind the descriptor: closed, or a parent without consoles
 * (-2). The report would be lost either way. */
static int fd_closed(int fd)
{
    intptr_t h = _get_osfhandle(fd);
    return h == -1 || h == -2;
}
#else
#define CLI_NULL_DEVICE "/dev/null"
static int fd_closed(int fd) { return fcntl(fd, F_GETFD) < 0 && errno == EBADF; }
#endif

/* Windows has no SIGPIPE: a write to a closed pipe fails with EPIPE,
 * which cli_stdout_check reports like any other failed write. */
#if defined(SIGPIPE)
static struct sigaction g_old_pipe;
static int g_pipe_saved;
#endif
static int g_reported;

int cli_stdio_init(void)
{
    int stdout_closed = 0;
    for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++) {
        if (!fd_closed(fd))
            continue;
        stdout_closed |= fd == STDOUT_FILENO;
        /* open() returns the lowest free descriptor: this one. */
        int null = open(CLI_NULL_DEVICE, fd == STDIN_FILENO ? O_RDONLY : O_WRONLY);
        if (null >= 0 && null != fd)
            close(null); /* cannot happen; never keep a stray descriptor */
    }
#if defined(SIGPIPE)
    if (sigaction(SIGPIPE, NULL, &g_old_pipe) == 0)
        g_pipe_saved = 1;
    signal(SIGPIPE, SIG_IGN);
#endif
    if (stdout_closed) {
        /* The choice documented in docs/failure-modes.md: refuse before
         * measuring for nothing; `>/dev/null` says "discard" explicitly. */
        cli_error(CLI_EXIT_ERROR, "standard output is closed: the report (or the JSON, "
                                  "--emit's settings, an export to '-') would be lost "
                                  "(redirect it, e.g. >/dev/null, to discard it)");
        return -1;
    }
    return 0;
}

void cli_stdio_reset_in_child(void)
{
#if defined(SIGPIPE)
    if (g_pipe_saved)
        sigaction(SIGPIPE, &g_old_pipe, NULL);
#endif
}

int cli_stdout_check(void)
{
    int failed = fflush(stdout) != 0;
    int e = errno;
    if (!failed && ferror(stdout)) {
        failed = 1;
        e = EIO; /* an earlier write failed; its errno is gone */
    }
    if (!failed)
        return 0;
    if (!g_reported)
        cli_error(CLI_EXIT_ERROR, "cannot write to standard output: %s", strerror(e));
    g_reported = 1;
    return -1;
}
