/* The items of `spacrbench run`: those given as arguments, else one per
 * line from --items FILE ('-' = standard input) or from standard input,
 * read with util/item_lines.h's rule and bounds (a list it refuses: exit
 * 2, naming the line). An item that would make one argument of the
 * command longer than ITEM_LIST_ARG_MAX is refused too. */
#ifndef SPACRBENCH_CLI_ITEM_LIST_H
#define SPACRBENCH_CLI_ITEM_LIST_H

#include <stddef.h>

#include "cli_args.h"

/* The longest argument Linux passes to a command: MAX_ARG_STRLEN (32
 * pages, 128 KiB) less its NUL. An item that makes an argument longer is
 * refused before anything runs (it could only fail to start, 126). */
#define ITEM_LIST_ARG_MAX ((size_t)131071)

typedef struct item_list {
    char **items; /* owned copies */
    size_t n;
} item_list;

/* CLI_EXIT_OK, or an exit code after printing why (an empty list is a
 * usage error). Free with item_list_free whatever it returned. */
int item_list_load(const cli_args *a, item_list *out);
void item_list_free(item_list *items);

#endif
