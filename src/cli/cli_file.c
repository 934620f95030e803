/* The --report file; see cli_file.h. */
#include "cli_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int write_all(int fd, const char *text, size_t len)
{
    for (size_t done = 0; done < len;) {
        ssize_t w = write(fd, text + done, len - done);
        if (w < 0 && errno != EINTR)
            return -1;
        if (w > 0)
            done += (size_t)w;
    }
    return 0;
}

/* Open path as it is and write: FIFOs, devices, a dangling link (which
 * creates its target). */
static int write_in_place(const char *path, const char *text, size_t len, int flags)
{
    int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | flags, 0666);
    if (fd < 0)
        return -1;
    int rc = write_all(fd, text, len);
    int e = errno;
    if (close(fd) != 0 && rc == 0) {
        rc = -1;
        e = errno;
    }
    errno = e;
    return rc;
}

/* Replace the regular file real (no symlink in its last part) through a
 * temporary file beside it. The temporary name is short and fixed in
 * length so that any name that fits the directory, fits. */
static int replace(const char *real, const char *text, size_t len, mode_t mode)
{
    const char *slash = strrchr(real, '/');
    size_t dir = slash ? (size_t)(slash - real) + 1 : 0;
    char *tmp = malloc(dir + sizeof ".sbXXXXXX");
    if (!tmp)
        return -1;
    memcpy(tmp, real, dir);
    memcpy(tmp + dir, ".sbXXXXXX", sizeof ".sbXXXXXX");
    int fd = mkstemp(tmp);
    if (fd < 0) {
        free(tmp);
        return -1;
    }
    int rc = write_all(fd, text, len);
    /* mkstemp makes the file 0600; a report is an ordinary file. */
    if (rc == 0 && fchmod(fd, mode) != 0)
        rc = -1;
    if (rc == 0 && fsync(fd) != 0)
        rc = -1;
    int e = errno;
    if (close(fd) != 0 && rc == 0) {
        rc = -1;
        e = errno;
    }
    if (rc == 0 && rename(tmp, real) != 0) {
        rc = -1;
        e = errno;
    }
    if (rc != 0)
        unlink(tmp);
    free(tmp);
    errno = e;
    return rc;
}

/* The descriptor (1 or 2) whose file path names, -1 if neither. */
static int own_stream(const struct stat *st)
{
    for (int fd = STDOUT_FILENO; fd <= STDERR_FILENO; fd++) {
        struct stat s;
        if (fstat(fd, &s) == 0 && s.st_dev == st->st_dev && s.st_ino == st->st_ino)
            return fd;
    }
    return -1;
}

int cli_write_file_atomic(const char *path, const char *text, size_t len)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno != ENOENT)
            return -1;
        /* A link to a name that does not exist yet: create the target. */
        if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
            return write_in_place(path, text, len, O_CREAT | O_TRUNC);
        mode_t mask = umask(0);
        umask(mask);
        return replace(path, text, len, 0666 & ~mask);
    }
    if (S_ISDIR(st.st_mode)) {
        errno = EISDIR;
        return -1;
    }
    int fd = own_stream(&st);
    if (fd >= 0) {
        /* Renaming over our own stdout would drop what it holds; opening
         * it anew would overwrite it: append through the descriptor. */
        fflush(fd == STDOUT_FILENO ? stdout : stderr);
        return write_all(fd, text, len);
    }
    if (!S_ISREG(st.st_mode))
        return write_in_place(path, text, len, 0);
    char *real = realpath(path, NULL);
    if (!real)
        return -1;
    int rc = replace(real, text, len, st.st_mode & 07777);
    int e = errno;
    free(real);
    errno = e;
    return rc;
}
