/* Bounded reads and whole writes on a file descriptor, EINTR retried. */
#include "util.h"

#include <errno.h>
#include <stdlib.h>

#if defined(_WIN32)
#include <io.h> /* read, write (MSVC and MinGW), which count in unsigned int */
#define IO_COUNT(n) ((unsigned)(n))
#else
#include <unistd.h>
#define IO_COUNT(n) (n)
#endif

long long sb_read_all(int fd, void *to, size_t n)
{
    char *buf = to;
    size_t got = 0;
    while (got < n) {
        size_t chunk = n - got < ((size_t)1 << 30) ? n - got : (size_t)1 << 30;
        long long r = (long long)read(fd, buf + got, IO_COUNT(chunk));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return (long long)got;
}

int sb_read_fd(int fd, size_t limit, char **text, size_t *len, int *truncated)
{
    char *buf = NULL;
    size_t cap = 0, got = 0;
    *truncated = 0;
    for (;;) {
        size_t want = got < limit / 2 ? 2 * got + 4096 : limit;
        if (want > limit)
            want = limit;
        if (sb_grow(&buf, &cap, want + 1, 1) != 0) {
            free(buf);
            errno = ENOMEM;
            return -1;
        }
        long long r = sb_read_all(fd, buf + got, want - got);
        if (r < 0) {
            free(buf);
            return -1;
        }
        got += (size_t)r;
        if (got < want)
            break; /* end of file */
        if (got == limit) {
            char probe;
            *truncated = sb_read_all(fd, &probe, 1) > 0;
            break;
        }
    }
    buf[got] = '\0';
    *text = buf;
    *len = got;
    return 0;
}

int sb_write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n) {
        size_t chunk = n < ((size_t)1 << 30) ? n : (size_t)1 << 30;
        long long w = (long long)write(fd, p, IO_COUNT(chunk));
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = EIO;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}
