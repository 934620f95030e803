/* The items of `spacrbench run`, the command line each one runs ("{}"
 * replaced by the item, no shell involved) and --sample's chosen ones
 * (see cli.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* ---- run --sample: the plate, its keys, the chosen items. */
/* Why an item has no file size, in words, for the warning (the key itself
 * is the library's: spacrbench_plate_file_key). stat only: nothing is
 * opened, so a FIFO cannot block. */
static const char *no_size_words(const char *item)
{
    struct stat st;
    if (stat(item, &st) != 0)
        return strerror(errno);
    return S_ISDIR(st.st_mode) ? strerror(EISDIR) : "not a regular file";
}

/* The keys: every item's file size (spacrbench_plate_file_key), NaN for an
 * item that names no regular file (the library takes it to be as large as
 * the largest, and its note says so; the others keep theirs). 0, or -1
 * out of memory. */
static int file_keys(run_plate *rp, double **keys)
{
    *keys = malloc((rp->all.n ? rp->all.n : 1) * sizeof **keys);
    if (!*keys)
        return -1;
    size_t stray = 0, first = 0;
    char why[128] = "";
    for (size_t i = 0; i < rp->all.n; i++) {
        if (!isnan((*keys)[i] = spacrbench_plate_file_key(rp->all.items[i])))
            continue;
        if (stray++ == 0) {
            first = i;
            snprintf(why, sizeof why, "%s", no_size_words(rp->all.items[i]));
        }
    }
    if (!stray)
        return 0;
    /* Said now too: the user should not find a stray line (a directory, a
     * missing file) in the report's notes alone. */
    char *shown = sb_escape_short(rp->all.items[first], 80);
    cli_notice("warning: --sample: %zu of %zu items have no file size (the first: item %zu, %s: "
               "%s): %s",
               stray, rp->all.n, first + 1, shown ? shown : "?", why,
               stray < rp->all.n ? "each is taken to be as large as the largest file, the "
                                   "others keep theirs"
                                 : "the measured items are evenly spaced through the plate, "
                                   "and its largest cannot be predicted");
    free(shown);
    return 0;
}

int run_plate_choose(const cli_args *a, item_list *items, run_plate *rp)
{
    memset(rp, 0, sizeof *rp);
    if (a->sample < 0)
        return CLI_EXIT_OK;
    rp->all = *items;
    items->items = NULL;
    items->n = 0;
    double *keys = NULL;
    if (file_keys(rp, &keys) != 0)
        return cli_error(CLI_EXIT_ERROR, "out of memory");
    spacrbench_plate_options o;
    spacrbench_plate_options_init(&o, sizeof o);
    o.sample = a->sample;
    o.warmup = a->warmup;
    o.key_name = "file size";
    if (a->sample_cost >= 0)
        o.sample_cost = a->sample_cost;
    int rc = spacrbench_plate_select_keys(rp->all.n, keys, &o, &rp->plate);
    free(keys);
    if (rc != 0)
        return cli_library_error(CLI_EXIT_ERROR, "--sample");
    size_t t = spacrbench_plate_pick_count(rp->plate);
    items->items = calloc(t, sizeof *items->items);
    if (!items->items)
        return cli_error(CLI_EXIT_ERROR, "out of memory");
    for (size_t i = 0; i < t; i++) {
        spacrbench_plate_pick k = {.size = sizeof k};
        spacrbench_plate_pick_get(rp->plate, i, &k);
        if (!(items->items[i] = strdup(rp->all.items[k.index])))
            return cli_error(CLI_EXIT_ERROR, "out of memory");
        items->n++;
    }
    return CLI_EXIT_OK;
}

static void attach_chosen(const run_plate *rp, spacrbench_measurement *m)
{
    spacrbench_plate_prediction pr = {.size = sizeof pr};
    spacrbench_plate_section s;
    spacrbench_plate_section_init(&s, sizeof s);
    if (spacrbench_plate_prediction_get(rp->plate, &pr) != 0)
        return;
    s.items = pr.items;
    s.key_kind = pr.key_kind;
    s.median_key = pr.median_key;
    snprintf(s.key_name, sizeof s.key_name, "%s",
             pr.key_kind == SPACRBENCH_PLATE_KEY_NONE ? "key" : "file size");
    spacrbench_figures f = {.size = sizeof f};
    if (spacrbench_measurement_figures(m, &f) != 0 || spacrbench_measurement_plate_begin(m, &s))
        return;
    for (int64_t i = 0; i < f.record_count; i++) {
        spacrbench_plate_pick k = {.size = sizeof k};
        if (spacrbench_plate_pick_get(rp->plate, (size_t)i, &k) != 0 ||
            spacrbench_measurement_plate_add_pick(m, &k) != 0)
            return;
    }
}

int run_plate_predict(run_plate *rp, spacrbench_measurement *m, int stopped)
{
    if (!stopped && spacrbench_plate_predict(rp->plate, m) == 0)
        return 0;
    if (stopped) /* the items before the stop are the smaller ones: not the plate */
        spacrbench_measurement_add_note(
            m, "no recommendation for the plate: the run stopped before its chosen items were all "
               "measured (the largest runs first, after the warm-up), and the items measured "
               "before the stop say nothing of the plate's largest");
    else
        cli_note(m, "no recommendation for the plate: it could not be predicted (%s)",
                 spacrbench_last_error_message());
    attach_chosen(rp, m);
    return -1;
}

int run_plate_more(const run_plate *rp, const spacrbench_measurement *m, item_list *items,
                   size_t added)
{
    if (!rp->plate)
        return 1;
    int64_t *peaks = malloc((added ? added : 1) * sizeof *peaks);
    double *seconds = malloc((added ? added : 1) * sizeof *seconds);
    int more = 0;
    for (size_t i = 0; peaks && seconds && i < added; i++) {
        spacrbench_item_record rec = {.size = sizeof rec};
        spacrbench_measurement_record(m, i, &rec);
        peaks[i] = rec.peak_rss_bytes;
        seconds[i] = rec.seconds;
    }
    if (peaks && seconds)
        spacrbench_plate_more(rp->plate, added, peaks, seconds, &more);
    free(peaks);
    free(seconds);
    /* The run is the items measured: the scaling check and the run's
     * record run those alone. */
    while (!more && items->n > added)
        free(items->items[--items->n]);
    return more;
}

int64_t run_plate_warmup(const run_plate *rp, int64_t asked)
{
    if (!rp->plate)
        return asked;
    int64_t warm = 0;
    for (size_t i = 0; i < spacrbench_plate_pick_count(rp->plate); i++) {
        spacrbench_plate_pick k = {.size = sizeof k};
        spacrbench_plate_pick_get(rp->plate, i, &k);
        warm += k.is_warmup != 0;
    }
    return warm;
}

size_t run_plate_number(const run_plate *rp, size_t i)
{
    spacrbench_plate_pick k = {.size = sizeof k};
    if (rp->plate && spacrbench_plate_pick_get(rp->plate, i, &k) == 0)
        return (size_t)k.index + 1;
    return i + 1;
}

void run_plate_free(run_plate *rp)
{
    item_list_free(&rp->all);
    spacrbench_plate_free(rp->plate);
    memset(rp, 0, sizeof *rp);
}
