/* Atomic report file; see cli_file.h. */
#include "cli_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int cli_write_file_atomic(const char *path, const char *text, size_t len)
{
    size_t n = strlen(path);
    char *tmp = malloc(n + 16);
    if (!tmp)
        return -1;
    memcpy(tmp, path, n);
    memcpy(tmp + n, ".tmp.XXXXXX", 12);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        free(tmp);
        return -1;
    }
    int rc = 0;
    for (size_t done = 0; done < len && rc == 0;) {
        ssize_t w = write(fd, text + done, len - done);
        if (w < 0 && errno != EINTR)
            rc = -1;
        else if (w > 0)
            done += (size_t)w;
    }
    /* mkstemp makes the file 0600; a report is an ordinary file. */
    if (rc == 0 && fchmod(fd, 0644) != 0)
        rc = -1;
    if (rc == 0 && fsync(fd) != 0)
        rc = -1;
    int e = errno;
    if (close(fd) != 0 && rc == 0) {
        rc = -1;
        e = errno;
    }
    if (rc == 0 && rename(tmp, path) != 0) {
        rc = -1;
        e = errno;
    }
    if (rc != 0)
        unlink(tmp);
    free(tmp);
    errno = e;
    return rc;
}
