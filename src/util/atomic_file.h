/* The one way the project replaces a file whole, so that no reader ever
 * sees half of one: the text goes to a temporary file beside the target,
 * is synced, and is renamed over it. The command's --report and exports
 * (cli/cli_file.c) and a job array's files (cluster/slurm_array.c) go
 * through it.
 *
 * The temporary is ".sbXXXXXX" in the target's directory (short and fixed
 * in length, so any name that fits the directory fits), created with
 * O_CREAT | O_EXCL | O_NOFOLLOW: never a file, link, FIFO or device that
 * is already there. Errors are errno's, for the caller to word. */
#ifndef SPACRBENCH_UTIL_ATOMIC_FILE_H
#define SPACRBENCH_UTIL_ATOMIC_FILE_H

#include <stddef.h>
#include <stdio.h>

typedef struct sb_atomic_file {
    char *path;  /* the target */
    char *tmp;   /* the temporary beside it */
    int fd;      /* the temporary, open until sb_atomic_close; -1 after */
    FILE *f;     /* a stream on fd (sb_atomic_stream), or NULL */
    int pending; /* the temporary exists and is not renamed yet */
} sb_atomic_file;

/* Create the temporary beside path. mode: its permissions, less the
 * umask, or exactly mode with exact (an existing file keeps its own).
 * 0, or -1 with errno (ENOMEM, or the directory's refusal). */
int sb_atomic_open(sb_atomic_file *a, const char *path, unsigned mode, int exact);
/* All of text (len bytes) to the temporary: 0 or -1 with errno. */
int sb_atomic_write(sb_atomic_file *a, const char *text, size_t len);
/* A stdio stream on the temporary, for writers that print and seek
 * (closed by sb_atomic_close); NULL with errno. */
FILE *sb_atomic_stream(sb_atomic_file *a);
/* Flushed, synced and closed: 0, or -1 with errno when anything written
 * did not reach the disk (a full disk is said here). */
int sb_atomic_close(sb_atomic_file *a);
/* Rename the closed temporary over the target: 0 or -1 with errno. */
int sb_atomic_commit(sb_atomic_file *a);
/* Close what is open and remove the temporary unless it was committed;
 * errno is kept. A zeroed sb_atomic_file (never opened) is left alone. */
void sb_atomic_discard(sb_atomic_file *a);

#endif
