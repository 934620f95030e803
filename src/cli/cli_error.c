/* See cli_error.h. */
#include "cli_error.h"

#include <stdarg.h>
#include <stdio.h>

#include "spacrbench.h"

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

void cli_notice(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(NULL, fmt, ap);
    va_end(ap);
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
