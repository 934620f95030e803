/* `run --sample`: the plate's items, their key, the chosen ones; see
 * run_plate.h. */
#include "run_plate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_error.h"
#include "text_escape.h"

/* The item's file size, when it names a regular file (stat only: nothing
 * is opened, so a FIFO or a device cannot block). */
static int file_size(const char *item, double *size)
{
    struct stat st;
    if (stat(item, &st) != 0 || !S_ISREG(st.st_mode))
        return -1;
    *size = (double)st.st_size;
    return 0;
}

/* The keys: every item's file size, or none when an item names no regular
 * file (the note says which). 0, or -1 out of memory. */
static int file_keys(run_plate *rp, double **keys)
{
    *keys = malloc((rp->all.n ? rp->all.n : 1) * sizeof **keys);
    if (!*keys)
        return -1;
    for (size_t i = 0; i < rp->all.n; i++) {
        if (file_size(rp->all.items[i], &(*keys)[i]) == 0)
            continue;
        char *shown = sb_escape_short(rp->all.items[i], 80);
        size_t cap = 256 + (shown ? strlen(shown) : 1);
        rp->keyless_note = malloc(cap);
        if (rp->keyless_note)
            snprintf(rp->keyless_note, cap,
                     "--sample: item %zu (%s) names no regular file, so the items have no file "
                     "size to choose by: evenly spaced",
                     i + 1, shown ? shown : "?");
        free(shown);
        free(*keys);
        *keys = NULL;
        return rp->keyless_note ? 0 : -1;
    }
    return 0;
}

int run_plate_choose(const cli_args *a, item_list *items, run_plate *rp)
{
    memset(rp, 0, sizeof *rp);
    if (a->sample <= 0)
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

int run_plate_predict(run_plate *rp, spacrbench_measurement *m)
{
    if (rp->keyless_note)
        spacrbench_measurement_add_note(m, rp->keyless_note);
    if (spacrbench_plate_predict(rp->plate, m) == 0)
        return 0;
    char note[700];
    snprintf(note, sizeof note,
             "--sample: the plate was not predicted (%s); the advice is for "
             "the measured items only",
             spacrbench_last_error_message());
    spacrbench_measurement_add_note(m, note);
    spacrbench_plate_free(rp->plate);
    rp->plate = NULL;
    return -1;
}

void run_plate_free(run_plate *rp)
{
    item_list_free(&rp->all);
    spacrbench_plate_free(rp->plate);
    free(rp->keyless_note);
    memset(rp, 0, sizeof *rp);
}
