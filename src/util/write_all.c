/* See write_all.h. */
#include "util.h"

#include <errno.h>

#if defined(_WIN32)
#include <io.h> /* write (MSVC and MinGW), which counts in unsigned int */
#define IO_COUNT(n) ((unsigned)(n))
#else
#include <unistd.h>
#define IO_COUNT(n) (n)
#endif

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
