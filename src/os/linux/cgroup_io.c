/* Reading /proc and cgroup files: whole small texts into bounded buffers,
 * with every descriptor closed on every path. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"

/* Read at most cap bytes from fd; /proc files report size 0, so read until
 * end of file rather than trusting fstat. */
static ssize_t read_all(int fd, char *buf, size_t cap)
{
    size_t got = 0;
    while (got < cap) {
        ssize_t r = read(fd, buf + got, cap - got);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

int sb_cg_read_small(const char *path, char *buf, size_t cap, size_t *len)
{
    if (path == NULL || buf == NULL || cap < 2 || len == NULL)
        return -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t got = read_all(fd, buf, cap);
    int saved = errno;
    close(fd);
    if (got < 0 || (size_t)got >= cap) { /* a full buffer may be cut short */
        errno = got < 0 ? saved : EFBIG;
        return -1;
    }
    buf[got] = '\0';
    *len = (size_t)got;
    return 0;
}

int sb_cg_read_file(const char *path, size_t limit, char **text, size_t *len, int *truncated)
{
    if (path == NULL || text == NULL || len == NULL || truncated == NULL || limit == 0) {
        errno = EINVAL;
        return -1;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t cap = limit < 4096 ? limit : 4096;
    size_t got = 0;
    char *buf = malloc(cap + 1);
    int failed = buf == NULL;
    *truncated = 0;
    while (!failed) {
        ssize_t r = read_all(fd, buf + got, cap - got);
        if (r < 0) {
            failed = 1;
            break;
        }
        got += (size_t)r;
        if (got < cap)
            break; /* end of file */
        if (cap == limit) {
            char probe;
            ssize_t more = read_all(fd, &probe, 1);
            *truncated = more > 0;
            break;
        }
        size_t bigger = cap * 2 < limit ? cap * 2 : limit;
        char *grown = realloc(buf, bigger + 1);
        if (grown == NULL) {
            failed = 1;
            break;
        }
        buf = grown;
        cap = bigger;
    }
    int saved = errno;
    close(fd);
    if (failed) {
        free(buf);
        errno = saved != 0 ? saved : ENOMEM;
        return -1;
    }
    buf[got] = '\0';
    *text = buf;
    *len = got;
    return 0;
}
