/* A list of items, one per line, as `spacrbench run --items` reads it and
 * spacrbench_slurm_count_items counts it: lines end at \n, a trailing CR
 * is not part of the item, empty items are skipped. Read with bounds,
 * checked as the bytes arrive: a NUL byte, a line longer than
 * sb_items_line_limit(), more than SB_ITEMS_MAX_BYTES or more than
 * SB_ITEMS_MAX_COUNT items stops the reading at once, so a file without
 * newlines (/dev/zero, a binary) or an endless stream cannot make a
 * reader grow without end. */
#ifndef SPACRBENCH_ITEM_LINES_H
#define SPACRBENCH_ITEM_LINES_H

#include <stddef.h>
#include <stdio.h>

/* The most bytes a list may hold (1 GiB: ten million 100-byte paths),
 * and the most items (2^24, four times the largest array SLURM allows):
 * together they bound the memory the list takes. */
#define SB_ITEMS_MAX_BYTES ((size_t)1 << 30)
#define SB_ITEMS_MAX_COUNT ((size_t)1 << 24)
/* The line limit never exceeds this (an unlimited stack gives ARG_MAX none). */
#define SB_ITEMS_LINE_MAX_CAP ((size_t)64 << 20)

/* The longest line a list may hold: ARG_MAX (sysconf), within
 * 128 KiB..64 MiB. No longer line can be passed to a command. */
size_t sb_items_line_limit(void);

/* Why a list was refused. */
typedef enum sb_items_fault {
    SB_ITEMS_OK = 0,
    SB_ITEMS_ERRNO,     /* a read failed, or keep did: errno */
    SB_ITEMS_NUL,       /* a NUL byte */
    SB_ITEMS_LONG_LINE, /* a line longer than the line limit */
    SB_ITEMS_TOO_LARGE, /* more than SB_ITEMS_MAX_BYTES */
    SB_ITEMS_TOO_MANY,  /* more than SB_ITEMS_MAX_COUNT items */
} sb_items_fault;

/* Each item of f in turn to keep (len bytes, NUL-terminated; non-zero
 * stops the reading, errno saying why): the fault, *line the line it
 * stopped at (from 1). */
sb_items_fault sb_items_read(FILE *f, int (*keep)(const char *item, size_t len, void *payload),
                             void *payload, size_t *line);

/* The sentence that refuses a list for fault (not OK or ERRNO) at line,
 * naming file (NULL: standard input): malloc'd, NULL out of memory. */
char *sb_items_refusal(sb_items_fault fault, size_t line, const char *file);

#endif
