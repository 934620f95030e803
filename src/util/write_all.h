/* Every byte of a buffer to a file descriptor: the one loop the library,
 * the supervisor (pipes to and from children) and the command's files
 * share. */
#ifndef SPACRBENCH_WRITE_ALL_H
#define SPACRBENCH_WRITE_ALL_H

#include <stddef.h>

/* All n bytes of buf on fd, EINTR retried, in chunks a 32-bit count holds:
 * 0, or -1 with errno set (EIO for a write that wrote nothing).
 * Async-signal-safe. */
int sb_write_all(int fd, const void *buf, size_t n);

#endif
