/* The items of `spacrbench run`: those given as arguments, else one per
 * line from --items FILE ('-' = standard input) or from standard input. */
#ifndef SPACRBENCH_CLI_RUN_ITEMS_H
#define SPACRBENCH_CLI_RUN_ITEMS_H

#include <stddef.h>

#include "cli_args.h"

typedef struct run_items {
    char **items; /* owned copies */
    size_t n;
} run_items;

/* CLI_EXIT_OK, or an exit code after printing why (an empty list is a
 * usage error). Free with run_items_free whatever it returned. */
int run_items_load(const cli_args *a, run_items *out);
void run_items_free(run_items *items);

#endif
