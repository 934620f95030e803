/* The items of `spacrbench run`: those given as arguments, else one per
 * line from --items FILE ('-' = standard input) or from standard input.
 * A list is read with bounds, checked as the bytes arrive: a NUL byte, a
 * line longer than item_list_line_limit(), more than ITEM_LIST_MAX_BYTES
 * or more than ITEM_LIST_MAX_COUNT items is refused (exit 2, naming the
 * line), so a file without newlines (/dev/zero, a binary) or an endless
 * stream cannot make spacrbench grow without end; so is an item that
 * would make one argument of the command longer than ITEM_LIST_ARG_MAX. */
#ifndef SPACRBENCH_CLI_ITEM_LIST_H
#define SPACRBENCH_CLI_ITEM_LIST_H

#include <stddef.h>

#include "cli_args.h"

/* The most bytes a list may hold (1 GiB: ten million 100-byte paths),
 * and the most items (2^24, four times the largest array SLURM allows):
 * together they bound the memory the list takes. */
#define ITEM_LIST_MAX_BYTES ((size_t)1 << 30)
#define ITEM_LIST_MAX_COUNT ((size_t)1 << 24)
/* The longest argument Linux passes to a command: MAX_ARG_STRLEN (32
 * pages, 128 KiB) less its NUL. An item that makes an argument longer is
 * refused before anything runs (it could only fail to start, 126). */
#define ITEM_LIST_ARG_MAX ((size_t)131071)
/* The line limit never exceeds this (an unlimited stack gives ARG_MAX none). */
#define ITEM_LIST_LINE_MAX_CAP ((size_t)64 << 20)

/* The longest line a list may hold: ARG_MAX (sysconf), within
 * 128 KiB..64 MiB. No longer line can be passed to the command. */
size_t item_list_line_limit(void);

typedef struct item_list {
    char **items; /* owned copies */
    size_t n;
} item_list;

/* CLI_EXIT_OK, or an exit code after printing why (an empty list is a
 * usage error). Free with item_list_free whatever it returned. */
int item_list_load(const cli_args *a, item_list *out);
void item_list_free(item_list *items);

#endif
