/* How many items a job array's items file holds (spacrbench_slurm_count_items):
 * `run --items`'s rule and bounds (util.h), so Python's to_slurm
 * refuses the lists the command refuses. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#if !defined(_WIN32)
#include <unistd.h>
#endif

#include "cluster.h"

#if defined(_WIN32)
#define SB_READ_MODE "rb"
#else
#define SB_READ_MODE "rbe" /* close-on-exec: no fd leaks into a forked child */
#endif

static int count_item(const char *item, size_t len, void *payload)
{
    (void)item;
    (void)len;
    ++*(int64_t *)payload;
    return 0;
}

/* The items file, if it is a regular file; NULL with errno (EINVAL: not a
 * regular file). Opened without blocking, so a FIFO with no writer is
 * refused at once rather than waited on. */
static FILE *open_regular(const char *path)
{
#if defined(_WIN32)
    struct stat st;
    if (stat(path, &st) != 0)
        return NULL;
    if (!S_ISREG(st.st_mode)) {
        errno = EINVAL;
        return NULL;
    }
    return fopen(path, SB_READ_MODE);
#else
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    int e = 0;
    if (fstat(fd, &st) != 0)
        e = errno;
    else if (!S_ISREG(st.st_mode))
        e = EINVAL;
    else if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0)
        e = errno;
    if (e) {
        close(fd);
        errno = e;
        return NULL;
    }
    FILE *f = fdopen(fd, SB_READ_MODE);
    if (!f) {
        e = errno;
        close(fd);
        errno = e;
    }
    return f;
#endif
}

int spacrbench_slurm_count_items(const char *items_file, int64_t *n_items)
{
    SB_REFUSE(!items_file || !n_items, "items_file and n_items must not be NULL");
    FILE *f = open_regular(items_file);
    if (!f)
        return errno == EINVAL
                   ? sb_fail(SPACRBENCH_EINVAL,
                             "%s is not a regular file: each task of the array reads it again",
                             items_file)
                   : sb_fail(SPACRBENCH_ESYSTEM, "cannot open %s: %s", items_file, strerror(errno));
    int64_t count = 0;
    size_t line = 0;
    sb_items_fault fault = sb_items_read(f, count_item, &count, &line);
    int e = errno;
    fclose(f);
    if (fault == SB_ITEMS_OK) {
        *n_items = count;
        return SPACRBENCH_OK;
    }
    if (fault == SB_ITEMS_ERRNO)
        return e == ENOMEM ? sb_fail(SPACRBENCH_ENOMEM, "out of memory reading %s", items_file)
                           : sb_fail(SPACRBENCH_ESYSTEM, "cannot read %s: %s", items_file,
                                     strerror(e ? e : EIO));
    char *why = sb_items_refusal(fault, line, items_file);
    int rc =
        why ? sb_fail(SPACRBENCH_EINVAL, "%s", why) : sb_fail(SPACRBENCH_ENOMEM, "out of memory");
    free(why);
    return rc;
}
