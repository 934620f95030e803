/* Standard streams the command can trust. A closed fd 0, 1 or 2 would be
 * reused by the next open() or pipe() (the start pipe of an item landed on
 * fd 1 and the child's dup2 closed it); a report written to a full disk or
 * a closed pipe must say so, not exit 0 or die of SIGPIPE with an item's
 * cgroup left behind. */
#ifndef SPACRBENCH_CLI_STDIO_H
#define SPACRBENCH_CLI_STDIO_H

#include <stddef.h>

/* At start: open /dev/null on any closed fd 0..2 so no descriptor lands
 * there, and ignore SIGPIPE (writes then fail with EPIPE, which is
 * checked). Returns 0, or -1 after a message on stderr when standard output
 * was closed: the report would go nowhere, so nothing is run (exit 1). */
int cli_stdio_init(void);

/* In a forked child before exec: SIGPIPE back to what spacrbench was
 * started with (the command expects the default). Async-signal-safe. */
void cli_stdio_reset_in_child(void);

/* Write len bytes of text to standard output; 0, or -1 with why it failed
 * kept for cli_stdout_check (a full disk is ENOSPC, never "I/O error"). */
int cli_stdout_put(const char *text, size_t len);

/* Flush standard output and check that everything written to it arrived.
 * 0, or -1 after one message on stderr (printed once per run). */
int cli_stdout_check(void);

#endif
