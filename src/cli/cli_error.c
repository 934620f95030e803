/* The command's one error channel, and the standard streams it can trust
 * (see cli.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const char *g_command;

void cli_error_set_command(const char *command) { g_command = command; }

static void say(const char *prefix, const char *fmt, va_list ap) CLI_PRINTF(2, 0);
static void say(const char *prefix, const char *fmt, va_list ap)
{
    fputs("spacrbench: ", stderr);
    if (prefix)
        fprintf(stderr, "%s: ", prefix);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

int cli_error(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(NULL, fmt, ap);
    va_end(ap);
    return code;
}

void cli_progress(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int cli_library_error(int code, const char *what)
{
    const char *why = spacrbench_last_error_message();
    return what ? cli_error(code, "%s: %s", what, why) : cli_error(code, "%s", why);
}

int cli_usage_error(const char *option, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(option, fmt, ap);
    va_end(ap);
    fprintf(stderr, "(see spacrbench%s%s --help)\n", g_command ? " " : "",
            g_command ? g_command : "");
    return CLI_EXIT_USAGE;
}

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

/* Why the first write to stdout failed (0: none did), kept because stdio
 * forgets it: a document larger than stdout's buffer is written during
 * fputs, and the flush after it has nothing left to fail with. */
static int g_write_errno;

int cli_stdout_put(const char *text, size_t len)
{
    if (fwrite(text, 1, len, stdout) == len)
        return 0;
    if (!g_write_errno)
        g_write_errno = errno ? errno : EIO;
    return -1;
}

int cli_stdout_check(void)
{
    errno = 0;
    int failed = fflush(stdout) != 0;
    int e = errno;
    if (g_write_errno) /* the first failure says why */
        failed = 1, e = g_write_errno;
    else if (!failed && ferror(stdout)) /* failed outside cli_stdout_put: its errno is gone */
        failed = 1, e = EIO;
    if (!failed)
        return 0;
    if (!g_reported) {
        char name[540] = ""; /* " (PATH)" of the file stdout is, where the system says */
#if defined(__linux__)
        char path[512];
        ssize_t n = readlink("/proc/self/fd/1", path, sizeof path - 1);
        if (n > 0 && path[0] == '/')
            snprintf(name, sizeof name, " (%.*s)", (int)n, path);
#endif
        cli_error(CLI_EXIT_ERROR, "cannot write to standard output%s: %s", name,
                  strerror(e ? e : EIO));
    }
    g_reported = 1;
    return -1;
}
