/* The items of `spacrbench run` and the command line each one runs ("{}"
 * replaced by the item, no shell involved); see cli.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "util.h"

static char *substitute(const char *arg, const char *item)
{
    size_t count = 0, n = strlen(arg), k = strlen(item);
    for (const char *p = arg; (p = strstr(p, "{}")) != NULL; p += 2)
        count++;
    char *out = malloc(n + count * k + 1);
    if (!out)
        return NULL;
    char *o = out;
    for (const char *p = arg; *p;) {
        if (p[0] == '{' && p[1] == '}') {
            memcpy(o, item, k);
            o += k;
            p += 2;
        } else
            *o++ = *p++;
    }
    *o = '\0';
    return out;
}

char **command_for_item(char *const *cmd, size_t n, const char *item)
{
    int placeholder = 0;
    for (size_t i = 0; i < n; i++)
        placeholder |= strstr(cmd[i], "{}") != NULL;
    size_t total = n + (placeholder ? 0 : 1);
    char **argv = calloc(total + 1, sizeof *argv);
    if (!argv)
        return NULL;
    for (size_t i = 0; i < total; i++) {
        argv[i] = i < n ? substitute(cmd[i], item) : strdup(item);
        if (!argv[i]) {
            command_free(argv);
            return NULL;
        }
    }
    return argv;
}

void command_free(char **argv)
{
    for (size_t i = 0; argv && argv[i]; i++)
        free(argv[i]);
    free(argv);
}

static int plain(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=./,:@%", *s))
            return 0;
    return 1;
}

char *command_display(char *const *argv)
{
    size_t cap = 1;
    for (size_t i = 0; argv[i]; i++)
        cap += 4 * sb_escaped_length(argv[i]) + 3; /* every ' becomes '\'' */
    char *out = malloc(cap), *o = out;
    if (!out)
        return NULL;
    for (size_t i = 0; argv[i]; i++) {
        if (i)
            *o++ = ' ';
        if (plain(argv[i])) {
            size_t k = strlen(argv[i]);
            memcpy(o, argv[i], k);
            o += k;
            continue;
        }
        /* Control characters are shown escaped (a message, not a script):
         * an item must not forge lines or drive the terminal. */
        char *shown = sb_escape_text(argv[i]);
        if (!shown) {
            free(out);
            return NULL;
        }
        *o++ = '\'';
        for (const char *p = shown; *p; p++) {
            if (*p == '\'') {
                memcpy(o, "'\\''", 4);
                o += 4;
            } else
                *o++ = *p;
        }
        *o++ = '\'';
        free(shown);
    }
    *o = '\0';
    return out;
}

/* Each item read into the list (sb_items_read's keep). */
typedef struct list_growth {
    item_list *list;
    size_t cap;
} list_growth;

static int keep_item(const char *item, size_t len, void *payload)
{
    list_growth *g = payload;
    if (sb_grow(&g->list->items, &g->cap, g->list->n + 1, sizeof *g->list->items))
        return -1;
    char *copy = malloc(len + 1);
    if (!copy)
        return -1;
    memcpy(copy, item, len + 1);
    g->list->items[g->list->n++] = copy;
    return 0;
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
    list_growth g = {out, 0};
    size_t line = 0;
    sb_items_fault fault = sb_items_read(f, keep_item, &g, &line);
    int e = errno;
    if (!from_stdin)
        fclose(f);
    if (fault == SB_ITEMS_OK)
        return CLI_EXIT_OK;
    item_list_free(out);
    if (fault == SB_ITEMS_ERRNO && e == ENOMEM)
        return cli_error(CLI_EXIT_ERROR, "%s: out of memory reading the items at line %zu", option,
                         line);
    if (fault == SB_ITEMS_ERRNO) {
        char *shown = from_stdin ? NULL : sb_escape_text(file);
        const char *where = from_stdin ? "standard input" : shown ? shown : file;
        int rc = cli_usage_error(option, "cannot read items from %s%s%s: %s", from_stdin ? "" : "'",
                                 where, from_stdin ? "" : "'", strerror(e ? e : EIO));
        free(shown);
        return rc;
    }
    char *why = sb_items_refusal(fault, line, from_stdin ? NULL : file);
    if (!why)
        return cli_error(CLI_EXIT_ERROR, "out of memory");
    int rc = cli_usage_error(option, "%s", why);
    free(why);
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
        list_growth g = {out, 0};
        for (size_t i = 0; i < a->n_items; i++)
            if (a->items[i][0] == '\0')
                return cli_usage_error("run", "item %zu (argument) is empty", i + 1);
            else if (keep_item(a->items[i], strlen(a->items[i]), &g) != 0)
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
    for (size_t i = 0; i < items->n; i++)
        free(items->items[i]);
    free(items->items);
    memset(items, 0, sizeof *items);
}
