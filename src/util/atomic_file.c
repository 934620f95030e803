/* See util.h. */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* The few calls that differ on Windows, each behind one name: _commit for
 * fsync, no mode bits to set, and a rename that replaces an existing file
 * only through MoveFileEx. */
#if defined(_WIN32)
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include <io.h> /* open, write, close, unlink (MSVC and MinGW) */

#define OPEN_FLAGS (O_RDWR | O_CREAT | O_EXCL | O_BINARY) /* the bytes as written, no CRLF */

static int sync_fd(int fd) { return _commit(fd); }
static int set_mode(int fd, unsigned mode)
{
    (void)fd, (void)mode; /* access is the directory's inherited ACL */
    return 0;
}
static int rename_over(const char *from, const char *to)
{
    /* rename() fails when the target exists on Windows. */
    if (MoveFileExA(from, to, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH))
        return 0;
    DWORD err = GetLastError();
    errno = err == ERROR_ACCESS_DENIED || err == ERROR_SHARING_VIOLATION ? EACCES
            : err == ERROR_FILE_NOT_FOUND || err == ERROR_PATH_NOT_FOUND ? ENOENT
                                                                         : EIO;
    return -1;
}
static int is_separator(char c) { return c == '/' || c == '\\' || c == ':'; }
static unsigned long process_id(void) { return (unsigned long)GetCurrentProcessId(); }
#else
#include <unistd.h>

#define OPEN_FLAGS (O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC)

static int sync_fd(int fd) { return fsync(fd); }
static int set_mode(int fd, unsigned mode) { return fchmod(fd, (mode_t)mode); }
static int rename_over(const char *from, const char *to) { return rename(from, to); }
static int is_separator(char c) { return c == '/'; }
static unsigned long process_id(void) { return (unsigned long)getpid(); }
#endif

/* Six letters for a temporary name: a name another process (or this one,
 * an instant before) holds is just tried again. */
static void random_letters(char out[6], uint64_t *state)
{
    static const char k_letters[] =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    for (int i = 0; i < 6; i++) {
        *state ^= *state << 13; /* xorshift64 */
        *state ^= *state >> 7;
        *state ^= *state << 17;
        out[i] = k_letters[*state % (sizeof k_letters - 1)];
    }
}

int sb_atomic_open(sb_atomic_file *a, const char *path, unsigned mode, int exact)
{
    memset(a, 0, sizeof *a);
    a->fd = -1;
    size_t n = strlen(path), dir = n;
    while (dir > 0 && !is_separator(path[dir - 1]))
        dir--;
    a->path = malloc(n + 1);
    a->tmp = malloc(dir + sizeof ".sbXXXXXX");
    if (!a->path || !a->tmp) {
        sb_atomic_discard(a);
        errno = ENOMEM;
        return -1;
    }
    memcpy(a->path, path, n + 1);
    memcpy(a->tmp, path, dir);
    memcpy(a->tmp + dir, ".sbXXXXXX", sizeof ".sbXXXXXX");
    static uint64_t counter;
    uint64_t state = (uint64_t)time(NULL) * UINT64_C(0x9E3779B97F4A7C15) ^
                     (uint64_t)process_id() << 32 ^ (uint64_t)(uintptr_t)a ^ ++counter;
    state |= 1;
    for (int attempt = 0; attempt < 100 && a->fd < 0; attempt++) {
        random_letters(a->tmp + dir + 3, &state);
        a->fd = open(a->tmp, OPEN_FLAGS, (int)(mode & 0777));
        if (a->fd < 0 && errno != EEXIST) {
            sb_atomic_discard(a);
            return -1;
        }
    }
    if (a->fd < 0) {
        sb_atomic_discard(a);
        errno = EEXIST;
        return -1;
    }
    a->pending = 1;
    if (exact && set_mode(a->fd, mode) != 0) {
        sb_atomic_discard(a);
        return -1;
    }
    return 0;
}

int sb_atomic_write(sb_atomic_file *a, const char *text, size_t len)
{
    return sb_write_all(a->fd, text, len);
}

FILE *sb_atomic_stream(sb_atomic_file *a)
{
    if (!a->f)
        a->f = fdopen(a->fd, "w+");
    return a->f;
}

int sb_atomic_close(sb_atomic_file *a)
{
    int failed = 0, e = 0;
    if (a->f) {
        errno = 0;
        failed = fflush(a->f) != 0 || ferror(a->f);
        e = errno ? errno : EIO; /* an earlier write failed: its errno is gone */
    }
    if (!failed && sync_fd(a->fd) != 0) {
        failed = 1;
        e = errno;
    }
    int closed = a->f ? fclose(a->f) : close(a->fd);
    if (closed != 0 && !failed) {
        failed = 1;
        e = errno;
    }
    a->f = NULL;
    a->fd = -1;
    errno = e;
    return failed ? -1 : 0;
}

int sb_atomic_commit(sb_atomic_file *a)
{
    if (rename_over(a->tmp, a->path) != 0)
        return -1;
    a->pending = 0;
    return 0;
}

void sb_atomic_discard(sb_atomic_file *a)
{
    int e = errno;
    if (a->f)
        fclose(a->f);
    else if (a->path && a->fd >= 0) /* a zeroed one was never opened */
        close(a->fd);
    if (a->pending)
        unlink(a->tmp);
    free(a->path);
    free(a->tmp);
    memset(a, 0, sizeof *a);
    a->fd = -1;
    errno = e;
}
