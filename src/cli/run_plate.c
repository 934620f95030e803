/* `run --sample`: the plate's items, their key, the chosen ones (cli.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "util.h"

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

int run_plate_predict(run_plate *rp, spacrbench_measurement *m, int stopped)
{
    if (!stopped && spacrbench_plate_predict(rp->plate, m) == 0)
        return 0;
    char note[800];
    if (stopped) /* the items before the stop are the smaller ones: not the plate */
        snprintf(note, sizeof note,
                 "no recommendation for the plate: the run stopped before its chosen items "
                 "were all measured (the largest runs first, after the warm-up), and the "
                 "items measured before the stop say nothing of the plate's largest");
    else
        snprintf(note, sizeof note,
                 "no recommendation for the plate: it could not be predicted "
                 "(%s)",
                 spacrbench_last_error_message());
    spacrbench_measurement_add_note(m, note);
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

void run_plate_attach_chosen(const run_plate *rp, spacrbench_measurement *m)
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
