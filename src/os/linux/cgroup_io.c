/* Reading /proc and cgroup files: whole small texts into bounded buffers,
 * with every descriptor closed on every path. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"
#include "read_fd.h"

int sb_cg_read_small(const char *path, char *buf, size_t cap, size_t *len)
{
    if (path == NULL || buf == NULL || cap < 2 || len == NULL)
        return -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    long long got = sb_read_all(fd, buf, cap);
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
    int rc = sb_read_fd(fd, limit, text, len, truncated);
    int saved = errno;
    close(fd);
    errno = saved;
    return rc;
}
