/* The plate section of the exports (export.h): in Markdown, a short table
 * of the measured items (each by its place in the plate, as the item
 * table's # is) and the prediction; in the CSV, three columns more on each
 * item row (the item's place in the plate, its key, why it was measured),
 * 0-based as the JSON's indices are. The CSV holds the measured rows only:
 * the plate's prediction is the JSON's and the Markdown's. */
#include <math.h>
#include <stdio.h>

#include "plate.h"
#include "report.h"

int64_t sb_export_plate_number(const sb_export_input *in, size_t i)
{
    const sb_measured_plate *p = in->m->plate;
    return p && i < p->pick_count ? p->picks[i].index + 1 : (int64_t)i + 1;
}

void sb_export_csv_plate_header(sb_text *t, const sb_export_input *in)
{
    if (in->m->plate)
        sb_text_printf(t, ",plate_index,plate_key,plate_why,plate_items,plate_largest_bytes,"
                          "plate_largest_index,plate_eta_seconds,plate_workers");
}

/* The plate's own figures, the same on every row (a CSV has no section of
 * its own: each row stays whole when the rows are filtered or joined). */
static void plate_wide_cells(sb_text *t, const spacrbench_plate_section *s)
{
    sb_text_printf(t, ",%lld,", (long long)s->items);
    if (s->largest_bytes >= 0)
        sb_text_printf(t, "%lld,%lld", (long long)s->largest_bytes, (long long)s->largest_index);
    else
        sb_text_printf(t, ",");
    sb_text_printf(t, ",");
    if (s->workers >= 1 && isfinite(s->eta_seconds))
        sb_text_printf(t, "%.6f,%lld", s->eta_seconds, (long long)s->workers);
    else
        sb_text_printf(t, ",");
}

void sb_export_csv_plate_cells(sb_text *t, const sb_export_input *in, size_t i)
{
    const sb_measured_plate *p = in->m->plate;
    if (!p)
        return;
    if (i >= p->pick_count)
        sb_text_printf(t, ",,,");
    else {
        const spacrbench_plate_pick *k = &p->picks[i];
        sb_text_printf(t, ",%lld,", (long long)k->index);
        if (!isnan(k->key))
            sb_text_printf(t, "%.17g", k->key);
        sb_text_printf(t, ",%s", spacrbench_plate_why_name(k->why));
    }
    plate_wide_cells(t, &p->info);
}

static void bytes_cell(sb_text *t, int64_t bytes)
{
    char b[32] = "-";
    if (bytes >= 0)
        sb_format_bytes(b, sizeof b, bytes);
    sb_text_printf(t, "%s", b);
}

void sb_export_markdown_plate(sb_text *t, const sb_export_input *in,
                              void (*inline_text)(sb_text *, const char *))
{
    const spacrbench_measurement *m = in->m;
    const sb_measured_plate *p = m->plate;
    if (!p)
        return;
    const spacrbench_plate_section *s = &p->info;
    int keyed = s->key_kind != SPACRBENCH_PLATE_KEY_NONE;
    sb_text_printf(t, "\n### Plate: %lld items, %zu measured", (long long)s->items, p->pick_count);
    if (keyed) {
        sb_text_printf(t, " across the ");
        inline_text(t, s->key_name);
    } else
        sb_text_printf(t, ", evenly spaced");
    sb_text_printf(t, "\n\n| item | why | ");
    inline_text(t, keyed ? s->key_name : "key");
    sb_text_printf(t, " | footprint |\n| ---: | --- | ---: | ---: |\n");
    for (size_t i = 0; i < p->pick_count; i++) {
        spacrbench_plate_pick k = {.size = sizeof k};
        spacrbench_measurement_plate_pick(m, i, &k);
        char key[64] = "-";
        if (!isnan(k.key))
            sb_plate_key_text(s->key_kind, s->key_name, k.key, 0, key, sizeof key);
        sb_text_printf(t, "| %lld | %s | ", (long long)k.index + 1, sb_plate_why_words(k.why));
        inline_text(t, key);
        sb_text_printf(t, " | ");
        bytes_cell(t, k.footprint_bytes);
        sb_text_printf(t, " |\n");
    }
    if (s->largest_bytes >= 0) {
        sb_text_printf(t, "\nPredicted largest: **%.2f GiB** (",
                       (double)s->largest_bytes / (1024.0 * 1024.0 * 1024.0));
        bytes_cell(t, s->largest_bytes);
        const char *untold = sb_plate_untold_words(s, p->pick_count);
        if (untold)
            sb_text_printf(t, "), any item not measured (%s)", untold);
        else
            sb_text_printf(t, "), item %lld", (long long)s->largest_index + 1);
        if (!untold && !isnan(s->largest_key)) {
            char key[64];
            sb_plate_key_text(s->key_kind, s->key_name, s->largest_key, 0, key, sizeof key);
            sb_text_printf(t, " (");
            inline_text(t, s->key_name);
            sb_text_printf(t, " ");
            inline_text(t, key);
            if (s->median_key > 0)
                sb_text_printf(t, ", %.1fx the plate's median", s->largest_key / s->median_key);
            sb_text_printf(t, ")");
        }
        sb_text_printf(t, "; fit: %s.", spacrbench_plate_fit_name(s->fit));
    }
    if (isfinite(s->total_seconds)) {
        char serial[64], eta[64];
        sb_plate_duration_words(s->total_seconds, serial, sizeof serial);
        sb_text_printf(t, " Plate time: %s serial", serial);
        if (s->workers >= 1 && isfinite(s->eta_seconds)) {
            sb_plate_duration_words(s->eta_seconds, eta, sizeof eta);
            sb_text_printf(t, ", **ETA %s** with %lld worker(s)", eta, (long long)s->workers);
        }
        sb_text_printf(t, ".");
    }
    sb_text_printf(t, "\n");
    for (size_t i = 0; i < p->note_count; i++) {
        sb_text_printf(t, "%s- ", i ? "" : "\n");
        inline_text(t, p->notes[i]);
        sb_text_printf(t, "\n");
    }
}
