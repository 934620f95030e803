/* Collecting the items of `spacrbench run`; see item_list.h. */
#include "item_list.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_error.h"
#include "command_line.h"
#include "text_escape.h"

size_t item_list_line_limit(void)
{
    /* ARG_MAX bounds the arguments and environment of an exec together:
     * a longer line can never reach the command as an argument. glibc
     * derives it from the stack limit (a quarter of it), so an unlimited
     * stack would give no bound at all: it is kept within these. */
    long arg_max = sysconf(_SC_ARG_MAX);
    size_t lo = (size_t)128 << 10, hi = ITEM_LIST_LINE_MAX_CAP;
    if (arg_max <= 0)
        return (size_t)2 << 20;
    return (size_t)arg_max < lo ? lo : (size_t)arg_max > hi ? hi : (size_t)arg_max;
}

static int copy_arguments(const cli_args *a, item_list *out)
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

/* Why a list was refused: which line, and what about it. */
typedef enum list_fault {
    LIST_OK = 0,
    LIST_ERRNO,     /* a read or an allocation failed: errno */
    LIST_NUL,       /* a NUL byte */
    LIST_LONG_LINE, /* a line longer than the line limit */
    LIST_TOO_LARGE, /* more than ITEM_LIST_MAX_BYTES read */
    LIST_TOO_MANY,  /* more than ITEM_LIST_MAX_COUNT items */
} list_fault;

typedef struct list_reader {
    char **items;
    size_t n, cap;
    char *line;
    size_t len, line_cap;
    size_t number; /* of the line being read, from 1 */
    size_t total;  /* bytes read so far */
} list_reader;

/* Keep the line read as the next item (a trailing CR dropped; an empty
 * line skipped). 0, 1 when the list already holds ITEM_LIST_MAX_COUNT
 * items, -1 when out of memory. */
static int keep_line(list_reader *r)
{
    size_t len = r->len;
    if (len > 0 && r->line[len - 1] == '\r')
        len--;
    r->len = 0;
    if (len == 0)
        return 0;
    if (r->n == ITEM_LIST_MAX_COUNT) {
        errno = 0;
        return 1;
    }
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        char **grown = realloc(r->items, cap * sizeof *grown);
        if (!grown)
            return -1;
        r->items = grown;
        r->cap = cap;
    }
    char *item = malloc(len + 1);
    if (!item)
        return -1;
    memcpy(item, r->line, len);
    item[len] = '\0';
    r->items[r->n++] = item;
    return 0;
}

/* One item per line, as getline would give them, but bounded as the bytes
 * arrive: a NUL, a line longer than line_max or a list larger than
 * ITEM_LIST_MAX_BYTES stops the reading at once, so /dev/zero or an
 * endless stream without newlines cannot grow the memory without end. */
static list_fault read_bounded(FILE *f, list_reader *r, size_t line_max)
{
    errno = 0;
    r->number = 1;
    int c;
    while ((c = getc_unlocked(f)) != EOF) {
        if (++r->total > ITEM_LIST_MAX_BYTES)
            return LIST_TOO_LARGE;
        if (c == '\n') {
            int kept = keep_line(r);
            if (kept != 0)
                return kept > 0 ? LIST_TOO_MANY : LIST_ERRNO;
            r->number++;
            continue;
        }
        if (c == '\0')
            return LIST_NUL;
        if (r->len >= line_max)
            return LIST_LONG_LINE;
        if (r->len + 1 >= r->line_cap) {
            size_t cap = r->line_cap ? 2 * r->line_cap : 256;
            char *grown = realloc(r->line, cap);
            if (!grown)
                return LIST_ERRNO;
            r->line = grown;
            r->line_cap = cap;
        }
        r->line[r->len++] = (char)c;
    }
    if (ferror(f)) {
        if (!errno)
            errno = EIO;
        return LIST_ERRNO;
    }
    /* The last line may lack its newline. */
    int kept = keep_line(r);
    return kept == 0 ? LIST_OK : kept > 0 ? LIST_TOO_MANY : LIST_ERRNO;
}

static int read_list(const cli_args *a, item_list *out)
{
    FILE *f = stdin;
    const char *file = a->items_file;
    int from_stdin = !file || strcmp(file, "-") == 0;
    const char *option = file ? "--items" : "stdin";
    if (!from_stdin && !(f = fopen(file, "re")))
        return cli_usage_error("--items", "cannot open '%s': %s", file, strerror(errno));
    if (from_stdin && isatty(STDIN_FILENO))
        cli_notice("reading items from standard input, one per line (end with Ctrl-D)");
    list_reader r = {0};
    size_t line_max = item_list_line_limit();
    list_fault fault = read_bounded(f, &r, line_max);
    int e = errno;
    if (!from_stdin)
        fclose(f);
    free(r.line);
    if (fault == LIST_OK) {
        out->items = r.items;
        out->n = r.n;
        return CLI_EXIT_OK;
    }
    items_free(r.items, r.n);
    char *shown = from_stdin ? NULL : sb_escape_text(file);
    const char *where = from_stdin ? "standard input" : shown ? shown : file;
    int rc;
    switch (fault) {
    case LIST_NUL:
        rc =
            cli_usage_error(option, "line %zu holds a NUL byte, which no item can contain (%s%s%s)",
                            r.number, from_stdin ? "" : "'", where, from_stdin ? "" : "'");
        break;
    case LIST_LONG_LINE:
        rc = cli_usage_error(option,
                             "line %zu of %s%s%s is longer than %zu bytes (ARG_MAX, the most an "
                             "exec can pass), so no item can be that long: is it a list of "
                             "items, one per line?",
                             r.number, from_stdin ? "" : "'", where, from_stdin ? "" : "'",
                             line_max);
        break;
    case LIST_TOO_LARGE:
        rc = cli_usage_error(option,
                             "%s%s%s holds more than %zu bytes (1 GiB) by line %zu: far more than "
                             "any item list; is it a list of items, one per line?",
                             from_stdin ? "" : "'", where, from_stdin ? "" : "'",
                             (size_t)ITEM_LIST_MAX_BYTES, r.number);
        break;
    case LIST_TOO_MANY:
        rc = cli_usage_error(option,
                             "%s%s%s holds more than %zu items (at line %zu): far more than any "
                             "item list; is it a list of items, one per line?",
                             from_stdin ? "" : "'", where, from_stdin ? "" : "'",
                             (size_t)ITEM_LIST_MAX_COUNT, r.number);
        break;
    default:
        if (e == ENOMEM) {
            rc = cli_error(CLI_EXIT_ERROR, "%s: out of memory reading the items at line %zu",
                           option, r.number);
        } else
            rc = cli_usage_error(option, "cannot read items from %s%s%s: %s", from_stdin ? "" : "'",
                                 where, from_stdin ? "" : "'", strerror(e ? e : EIO));
        break;
    }
    free(shown);
    return rc;
}

/* Each argument the command gets for an item must fit MAX_ARG_STRLEN:
 * Linux refuses a longer one ("Argument list too long"), however much of
 * ARG_MAX is free, so the item could only fail to start (126). Refused
 * before anything runs, naming the item and the argument. */
static int arguments_fit(const cli_args *a, const item_list *items)
{
    /* Argument i is base[i] + uses[i] * strlen(item) bytes long; without
     * a {} anywhere the item is appended as an argument of its own. */
    size_t n = a->cmd_len + 1, *base = calloc(n, sizeof *base), *uses = calloc(n, sizeof *uses);
    if (!base || !uses) {
        free(base);
        free(uses);
        return cli_error(CLI_EXIT_ERROR, "out of memory");
    }
    int placeholder = 0;
    for (size_t i = 0; i < a->cmd_len; i++) {
        for (const char *p = a->cmd[i]; (p = strstr(p, "{}")) != NULL; p += 2)
            uses[i]++;
        base[i] = strlen(a->cmd[i]) - 2 * uses[i];
        placeholder |= uses[i] > 0;
    }
    uses[a->cmd_len] = placeholder ? 0 : 1;
    int rc = CLI_EXIT_OK;
    for (size_t k = 0; k < items->n && rc == CLI_EXIT_OK; k++) {
        size_t item = strlen(items->items[k]), longest = 0;
        for (size_t i = 0; i < n; i++)
            if (base[i] + uses[i] * item > longest)
                longest = base[i] + uses[i] * item;
        if (longest <= ITEM_LIST_ARG_MAX)
            continue;
        char *shown = sb_escape_short(items->items[k], 60);
        rc = cli_usage_error(a->items_file ? "--items" : "run",
                             "item %zu (%s) makes an argument of the command %zu bytes long, more "
                             "than the %zu that Linux passes in one argument (MAX_ARG_STRLEN, 128 "
                             "KiB): no command can start with it; pass a file that holds it "
                             "instead",
                             k + 1, shown ? shown : "?", longest, ITEM_LIST_ARG_MAX);
        free(shown);
    }
    free(base);
    free(uses);
    return rc;
}

int item_list_load(const cli_args *a, item_list *out)
{
    memset(out, 0, sizeof *out);
    if (a->n_items) {
        /* An empty argument would run the command with an empty item
         * (or none where {} stood alone): almost surely a shell slip. */
        for (size_t i = 0; i < a->n_items; i++)
            if (a->items[i][0] == '\0')
                return cli_usage_error("run", "item %zu (argument) is empty", i + 1);
        if (copy_arguments(a, out) != 0)
            return cli_error(CLI_EXIT_ERROR, "out of memory");
        return arguments_fit(a, out);
    }
    int rc = read_list(a, out);
    if (rc == CLI_EXIT_OK && out->n == 0)
        return cli_usage_error(a->items_file ? "--items" : "run",
                               "no items to run (give ITEM arguments, --items FILE, or lines "
                               "on standard input)");
    return rc == CLI_EXIT_OK ? arguments_fit(a, out) : rc;
}

void item_list_free(item_list *items)
{
    items_free(items->items, items->n);
    memset(items, 0, sizeof *items);
}
