/* A whole small file into memory: the one bounded read loop of the /proc
 * and cgroup probes, summarize and the command. */
#ifndef SPACRBENCH_READ_FD_H
#define SPACRBENCH_READ_FD_H

#include <stddef.h>

/* Up to n bytes of fd into buf, EINTR retried, short only at end of file:
 * how many, or -1 with errno set. */
long long sb_read_all(int fd, void *buf, size_t n);

/* fd to its end into a fresh NUL-terminated buffer of at most limit bytes
 * (limit >= 1; a longer file sets *truncated, the rest is not read), EINTR
 * retried: /proc files report size 0, so the size is never trusted. 0 with
 * *text (the caller frees it) and *len, or -1 with errno set (ENOMEM when
 * memory ran out). The caller closes fd. */
int sb_read_fd(int fd, size_t limit, char **text, size_t *len, int *truncated);

#endif
