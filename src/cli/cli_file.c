/* The --report file and the other outputs (see cli.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "util.h"

/* What differs on Windows: no links to follow there, _fullpath for
 * realpath; the temporary file's calls are util/atomic_file.c's. */
#if defined(_WIN32)
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include <io.h>
#include <stdint.h>

#define CLI_O_BINARY O_BINARY /* the report's bytes as written, no CRLF */

static int dangling_link(const char *path)
{
    (void)path; /* symbolic links need a privilege there; not followed */
    return 0;
}
static char *full_path(const char *path) { return _fullpath(NULL, path, 0); }
static int is_separator(char c) { return c == '/' || c == '\\' || c == ':'; }
#else
#define CLI_O_BINARY 0

static int dangling_link(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}
static char *full_path(const char *path) { return realpath(path, NULL); }
static int is_separator(char c) { return c == '/'; }
#endif
#ifndef O_NOCTTY
#define O_NOCTTY 0
#endif
#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

/* Open path as it is and write: FIFOs, devices, a dangling link (which
 * creates its target). */
static int write_in_place(const char *path, const char *text, size_t len, int flags)
{
    int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | CLI_O_BINARY | flags, 0666);
    if (fd < 0)
        return -1;
    int rc = sb_write_all(fd, text, len);
    int e = errno;
    if (close(fd) != 0 && rc == 0) {
        rc = -1;
        e = errno;
    }
    errno = e;
    return rc;
}

/* How far replace() got when it failed. */
typedef enum replace_stage {
    REPLACE_DONE = 0,
    REPLACE_NO_TEMP,   /* the temporary file could not be created */
    REPLACE_WRITE,     /* writing, syncing or closing it failed */
    REPLACE_NO_RENAME, /* it could not be renamed over the target */
} replace_stage;

/* "DIR" of path, for messages ("." for a bare name). Static storage. */
static const char *dir_of(const char *path)
{
    static char dir[4096];
    size_t n = strlen(path);
    while (n > 0 && !is_separator(path[n - 1]))
        n--;
    if (n == 0)
        return ".";
    if (n > 1)
        n--; /* the separator, unless it is the root */
    snprintf(dir, sizeof dir, "%.*s", (int)n, path);
    return dir;
}

/* Replace the regular file real (no symlink in its last part) through a
 * temporary file beside it (util.h). exact: the mode is the
 * existing file's, else mode less the umask. *stage says where a failure
 * happened. */
static int replace(const char *real, const char *text, size_t len, unsigned mode, int exact,
                   replace_stage *stage)
{
    sb_atomic_file a;
    *stage = REPLACE_NO_TEMP;
    if (sb_atomic_open(&a, real, mode, exact) != 0)
        return -1;
    *stage = REPLACE_WRITE;
    int rc = sb_atomic_write(&a, text, len);
    if (sb_atomic_close(&a) != 0)
        rc = -1;
    if (rc == 0 && sb_atomic_commit(&a) != 0) {
        *stage = REPLACE_NO_RENAME;
        rc = -1;
    }
    if (rc == 0)
        *stage = REPLACE_DONE;
    sb_atomic_discard(&a); /* the temporary goes unless renamed; errno kept */
    return rc;
}

/* Files of the kernel's own file systems (/proc, /sys, cgroups, ...) are
 * regular to stat() but no place for a report: no file can be created
 * beside them, and writing one in place would feed the kernel a report
 * (/proc/sys/kernel/hostname, /proc/PID/mem). The file system's name, or
 * NULL for an ordinary one. */
#define KERNEL_FILE_WORDS                                                                          \
    "%s is a file of the kernel's %s file system, not one a report can be written to"
#if defined(__linux__)
#include <sys/vfs.h>

static const char *kernel_fs(const char *path)
{
    static const struct {
        unsigned long magic;
        const char *name;
    } k_kinds[] = {
        {0x9fa0, "proc"},           {0x62656572, "sysfs"},      {0x27e0eb, "cgroup"},
        {0x63677270, "cgroup2"},    {0x64626720, "debugfs"},    {0x74726163, "tracefs"},
        {0x73636673, "securityfs"}, {0xde5e81e4, "efivarfs"},   {0x62656570, "configfs"},
        {0xcafe4a11, "bpf"},        {0x6e736673, "nsfs"},       {0x42494e4d, "binfmt_misc"},
        {0x1cd1, "devpts"},         {0x67596969, "rpc_pipefs"}, {0x50495045, "pipefs"},
    };
    struct statfs fs;
    if (statfs(path, &fs) != 0)
        return NULL;
    for (size_t i = 0; i < sizeof k_kinds / sizeof k_kinds[0]; i++)
        if ((unsigned long)fs.f_type == k_kinds[i].magic)
            return k_kinds[i].name;
    return NULL;
}
#else
#define kernel_fs(path) ((const char *)NULL)
#endif

/* An existing regular file that cannot be replaced through a temporary
 * (a directory the user may not write, a file bind-mounted on its own, a
 * sticky directory and another user's file) is still written when the
 * file itself is writable: truncated and written in place. Only the
 * temporary's and the rename's failures fall back; a failed write (a full
 * disk) never truncates the file it would have replaced. */
static int replace_existing(const char *option, const char *real, const char *text, size_t len,
                            mode_t mode)
{
    replace_stage stage;
    if (replace(real, text, len, (unsigned)mode, 1, &stage) == 0)
        return 0;
    int e = errno;
    if (stage == REPLACE_WRITE || e == ENOMEM) {
        errno = e;
        return -1;
    }
    if (write_in_place(real, text, len, O_TRUNC) == 0)
        return 0;
    int in_place = errno;
    cli_error(CLI_EXIT_ERROR,
              "%s: %s %s (%s), and opening the file itself to write it in place "
              "failed too",
              option,
              stage == REPLACE_NO_TEMP ? "no temporary file could be created in"
                                       : "the temporary file could not be renamed over it in",
              dir_of(real), strerror(e));
    errno = in_place;
    return -1;
}

/* The descriptor (1 or 2) whose file path names (st: its stat), -1 if
 * neither. */
#if defined(_WIN32)
/* A file's identity: volume and file id. FileIdInfo (Windows 8 and later;
 * 128-bit ids for ReFS) first, the older by-handle information else. */
static int file_id(HANDLE h, FILE_ID_INFO *id)
{
    memset(id, 0, sizeof *id);
    if (GetFileInformationByHandleEx(h, FileIdInfo, id, sizeof *id))
        return 0;
    BY_HANDLE_FILE_INFORMATION info;
    if (!GetFileInformationByHandle(h, &info))
        return -1;
    id->VolumeSerialNumber = info.dwVolumeSerialNumber;
    uint64_t index = (uint64_t)info.nFileIndexHigh << 32 | info.nFileIndexLow;
    memcpy(id->FileId.Identifier, &index, sizeof index);
    return 0;
}

/* Wine gives a handle made from an inherited Unix descriptor volume 0:
 * an unknown volume, where the file id alone decides. */
static int same_file(const FILE_ID_INFO *a, const FILE_ID_INFO *b)
{
    return (a->VolumeSerialNumber == b->VolumeSerialNumber || a->VolumeSerialNumber == 0 ||
            b->VolumeSerialNumber == 0) &&
           memcmp(&a->FileId, &b->FileId, sizeof a->FileId) == 0;
}

/* st_ino is always 0 there: compare the files' identities instead. */
static int own_stream(const char *path, const struct stat *st)
{
    (void)st;
    HANDLE h = CreateFileA(path, FILE_READ_ATTRIBUTES,
                           FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                           OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
    if (h == INVALID_HANDLE_VALUE)
        return -1;
    FILE_ID_INFO a, b;
    int found = -1;
    if (file_id(h, &a) == 0) {
        for (int fd = STDOUT_FILENO; fd <= STDERR_FILENO && found < 0; fd++) {
            intptr_t o = _get_osfhandle(fd);
            if (o != -1 && o != -2 && file_id((HANDLE)o, &b) == 0 && same_file(&a, &b))
                found = fd;
        }
    }
    CloseHandle(h);
    return found;
}
#else
static int own_stream(const char *path, const struct stat *st)
{
    (void)path;
    for (int fd = STDOUT_FILENO; fd <= STDERR_FILENO; fd++) {
        struct stat s;
        if (fstat(fd, &s) == 0 && s.st_dev == st->st_dev && s.st_ino == st->st_ino)
            return fd;
    }
    return -1;
}
#endif

int cli_write_file_atomic(const char *option, const char *path, const char *text, size_t len)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno != ENOENT)
            return -1;
        /* A link to a name that does not exist yet: create the target. */
        if (dangling_link(path))
            return write_in_place(path, text, len, O_CREAT | O_TRUNC);
        replace_stage stage;
        if (replace(path, text, len, 0666, 0, &stage) == 0)
            return 0;
        /* A new file: the directory decides; say which one. */
        int e = errno;
        if (stage == REPLACE_NO_TEMP && e != ENOMEM)
            cli_error(CLI_EXIT_ERROR, "%s: cannot create a file in %s: %s", option, dir_of(path),
                      strerror(e));
        errno = e;
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        errno = EISDIR;
        return -1;
    }
    int fd = own_stream(path, &st);
    if (fd >= 0) {
        /* Renaming over our own stdout would drop what it holds; opening
         * it anew would overwrite it: append through the descriptor. */
        fflush(fd == STDOUT_FILENO ? stdout : stderr);
        return sb_write_all(fd, text, len);
    }
    if (!S_ISREG(st.st_mode))
        return write_in_place(path, text, len, 0);
    char *real = full_path(path);
    if (!real)
        return -1;
    const char *kernel = kernel_fs(real);
    if (kernel) {
        cli_error(CLI_EXIT_ERROR, "%s: " KERNEL_FILE_WORDS, option, real, kernel);
        free(real);
        errno = EPERM;
        return -1;
    }
    int rc = replace_existing(option, real, text, len, st.st_mode & 07777);
    int e = errno;
    free(real);
    errno = e;
    return rc;
}

/* Whether a file can be made beside path, as the write after the run will
 * make its temporary: one made and removed. 0, or an errno. */
static int temporary_fits(const char *path)
{
    sb_atomic_file a;
    int e = sb_atomic_open(&a, path, 0600, 1) == 0 ? 0 : errno;
    sb_atomic_discard(&a);
    return e;
}

/* An existing file is written in place where no temporary fits beside
 * it (replace_existing): one of the two must work. */
static int existing_writable(const char *option, const char *path, const struct stat *st)
{
    if (!S_ISREG(st->st_mode) || own_stream(path, st) >= 0)
        return CLI_EXIT_OK; /* a FIFO or a device: opening it now could block */
    char *real = full_path(path);
    if (!real)
        return CLI_EXIT_OK; /* the write after the run says what is wrong */
    const char *kernel = kernel_fs(real);
    if (kernel) {
        int rc = cli_usage_error(option, KERNEL_FILE_WORDS, real, kernel);
        free(real);
        return rc;
    }
    int e = temporary_fits(real), in_place = 0;
    if (e && e != ENOMEM) {
        int fd = open(real, O_WRONLY | O_NOCTTY | O_CLOEXEC);
        in_place = fd < 0 ? errno : 0;
        if (fd >= 0)
            close(fd);
    }
    int rc = e && in_place ? cli_usage_error(option,
                                             "cannot write %s: %s, and no file can be created in "
                                             "%s to replace it: %s",
                                             path, strerror(in_place), dir_of(real), strerror(e))
                           : CLI_EXIT_OK;
    free(real);
    return rc;
}

int cli_output_path_check(const char *option, const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return cli_usage_error(option, "cannot write %s: %s", path, strerror(EISDIR));
        return existing_writable(option, path, &st);
    }
    /* A path through a file (report.txt/x), a directory the user may not
     * search (another user's home), a loop of links: no open gets further. */
    if (errno == ENOTDIR || errno == EACCES || errno == ELOOP || errno == ENAMETOOLONG)
        return cli_usage_error(option, "cannot write %s: %s", path, strerror(errno));
    if (errno != ENOENT || dangling_link(path))
        return CLI_EXIT_OK; /* the write after the run says what is wrong */
    /* A new name: its directory must exist and take a new file, or hours
     * of measuring are lost. */
    const char *dir = dir_of(path);
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        int e = errno;
        return cli_usage_error(option, "cannot write %s: %s", path,
                               strerror(stat(dir, &st) != 0 ? e : ENOTDIR));
    }
    int e = temporary_fits(path);
    if (e && e != ENOMEM)
        return cli_usage_error(option, "cannot write %s: no file can be created in %s: %s", path,
                               dir_of(path), strerror(e));
    return CLI_EXIT_OK;
}

/* Who path is, for cli_files_apart: an existing regular file by its
 * device and inode (st set, *key NULL), a new name by its directory's
 * real path and its last part (*key malloc'd). 0, or -1: never compared
 * (a device, a FIFO, a path whose directory does not resolve: the path
 * checks say what is wrong with it). */
static int identify(const char *path, struct stat *st, char **key)
{
    *key = NULL;
    if (!path || cli_is_stdout_name(path))
        return -1;
    if (stat(path, st) == 0) {
#if defined(_WIN32) /* no inodes there: the full path */
        if (S_ISREG(st->st_mode) && (*key = full_path(path)) != NULL)
            return 0;
        return -1;
#else
        return S_ISREG(st->st_mode) ? 0 : -1;
#endif
    }
    if (errno != ENOENT || dangling_link(path))
        return -1;
    size_t n = strlen(path);
    while (n > 0 && !is_separator(path[n - 1]))
        n--;
    char *dir = full_path(dir_of(path));
    if (!dir)
        return -1;
    size_t len = strlen(dir) + 1 + strlen(path + n) + 1;
    if ((*key = malloc(len)) != NULL)
        snprintf(*key, len, "%s/%s", dir, path + n);
    free(dir);
    return *key ? 0 : -1;
}

static int same_name(const char *a, const char *b)
{
#if defined(_WIN32)
    return _stricmp(a, b) == 0;
#else
    return strcmp(a, b) == 0;
#endif
}

int cli_files_apart(const cli_named_file *files, size_t n)
{
    struct stat st[16];
    char *key[16];
    int known[16], rc = CLI_EXIT_OK;
    if (n > 16)
        n = 16;
    for (size_t i = 0; i < n; i++)
        known[i] = identify(files[i].path, &st[i], &key[i]) == 0;
    for (size_t j = 1; j < n && rc == CLI_EXIT_OK; j++)
        for (size_t i = 0; i < j && rc == CLI_EXIT_OK; i++) {
            if (!known[i] || !known[j] || !key[i] != !key[j])
                continue;
            int same = key[i] ? same_name(key[i], key[j])
                              : st[i].st_dev == st[j].st_dev && st[i].st_ino == st[j].st_ino;
            if (same)
                rc = cli_usage_error(files[j].option, "%s is %s's file too (%s): %s", files[j].path,
                                     files[i].option, files[i].path,
                                     strcmp(files[i].option, "--items") == 0
                                         ? "writing it would replace the items"
                                         : "each output needs a file of its own");
        }
    for (size_t i = 0; i < n; i++)
        free(key[i]);
    return rc;
}

int cli_is_stdout_name(const char *path) { return strcmp(path, "-") == 0; }
