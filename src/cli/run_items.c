/* Collecting the items of `spacrbench run`; see run_items.h. */
#include "run_items.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "command_line.h"

static int copy_arguments(const cli_args *a, run_items *out)
{
    out->items = calloc(a->n_items, sizeof *out->items);
    if (!out->items)
        return -1;
    for (size_t i = 0; i < a->n_items; i++) {
        if (!(out->items[i] = strdup(a->items[i])))
            return -1;
        out->n++;
    }
    return 0;
}

static int read_list(const cli_args *a, run_items *out)
{
    FILE *f = stdin;
    const char *file = a->items_file;
    if (file && strcmp(file, "-") != 0 && !(f = fopen(file, "re")))
        return cli_usage_error("--items", "cannot open '%s': %s", file, strerror(errno));
    if (f == stdin && isatty(STDIN_FILENO))
        fprintf(stderr, "spacrbench: reading items from standard input, one per line "
                        "(end with Ctrl-D)\n");
    size_t nul_line = 0;
    int r = items_read(f, &out->items, &out->n, &nul_line);
    int e = errno;
    if (f != stdin)
        fclose(f);
    if (r == -2)
        return cli_usage_error(file ? "--items" : "stdin",
                               "line %zu holds a NUL byte, which no item can contain", nul_line);
    if (r != 0)
        return cli_usage_error(file ? "--items" : "stdin", "cannot read items: %s", strerror(e));
    return CLI_EXIT_OK;
}

int run_items_load(const cli_args *a, run_items *out)
{
    memset(out, 0, sizeof *out);
    if (a->n_items) {
        /* An empty argument would run the command with an empty item
         * (or none where {} stood alone): almost surely a shell slip. */
        for (size_t i = 0; i < a->n_items; i++)
            if (a->items[i][0] == '\0')
                return cli_usage_error("run", "item %zu (argument) is empty", i + 1);
        if (copy_arguments(a, out) != 0) {
            fprintf(stderr, "spacrbench: out of memory\n");
            return CLI_EXIT_ERROR;
        }
        return CLI_EXIT_OK;
    }
    int rc = read_list(a, out);
    if (rc == CLI_EXIT_OK && out->n == 0)
        return cli_usage_error(a->items_file ? "--items" : "run",
                               "no items to run (give ITEM arguments, --items FILE, or lines "
                               "on standard input)");
    return rc;
}

void run_items_free(run_items *items)
{
    items_free(items->items, items->n);
    memset(items, 0, sizeof *items);
}
