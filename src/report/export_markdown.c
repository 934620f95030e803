/* The Markdown export: what a user pastes into a GitHub issue. A summary
 * table, one row per item (time, peak, CPU), the recommendation with its
 * evidence, the plate's section, and the notes. Text we did not write (labels, reasons, notes)
 * is made safe for one table cell or list line, and a label against
 * formula injection as the CSV's is. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plate.h"
#include "report.h"
#include "util.h"

/* text as Markdown inline text: '|' and '\' and the characters that start
 * emphasis or code escaped, control characters and line breaks as spaces,
 * bytes that are not UTF-8 as U+FFFD. */
static void inline_text(sb_text *t, const char *text)
{
    const unsigned char *p = (const unsigned char *)(text ? text : "");
    while (*p) {
        size_t n = sb_utf8_length(p);
        if (n == 0) {
            sb_text_printf(t, "\xEF\xBF\xBD");
            p++;
        } else if (n == 1 && (*p < 0x20 || *p == 0x7f)) {
            sb_text_printf(t, " ");
            p++;
        } else if (n == 1 && strchr("|\\`*_<>[]#", *p)) {
            sb_text_printf(t, "\\%c", *p);
            p++;
        } else if (sb_utf8_is_c1(p, n)) {
            sb_text_printf(t, " ");
            p += n;
        } else {
            sb_text_printf(t, "%.*s", (int)n, (const char *)p);
            p += n;
        }
    }
}

#define NOT_MEASURED "not measured"

/* A size, or none (a word) when negative. */
static void bytes_cell(sb_text *t, int64_t bytes, const char *none)
{
    char b[32];
    if (bytes >= 0)
        sb_format_bytes(b, sizeof b, bytes);
    sb_text_printf(t, "%s", bytes >= 0 ? b : none);
}

/* "| what | 1.5 GiB (note) |", the note (NULL: none) as inline text. */
static void bytes_row(sb_text *t, const char *what, int64_t bytes, const char *note)
{
    sb_text_printf(t, "| %s | ", what);
    bytes_cell(t, bytes, NOT_MEASURED);
    if (note) {
        sb_text_printf(t, " (");
        inline_text(t, note);
        sb_text_printf(t, ")");
    }
    sb_text_printf(t, " |\n");
}

static void summary(sb_text *t, const spacrbench_measurement *m)
{
    const spacrbench_figures *f = &m->fig;
    sb_text_printf(t, "| figure | value |\n| --- | --- |\n");
    sb_text_printf(t, "| items measured | %lld", (long long)f->items);
    if (f->warmup_items)
        sb_text_printf(t, " (after %lld warm-up)", (long long)f->warmup_items);
    sb_text_printf(t, " |\n| wall time | %.3f s", f->seconds);
    if (f->items > 0)
        sb_text_printf(t, " (%.3f s per item, %.3f items/s)",
                       spacrbench_measurement_per_item_seconds(m),
                       spacrbench_measurement_items_per_second(m));
    sb_text_printf(t, " |\n| CPU time | ");
    if (isnan(f->cpu_seconds))
        sb_text_printf(t, "not measured");
    else
        sb_text_printf(t, "%.3f s (%.2f cores busy)", f->cpu_seconds,
                       f->seconds > 0 ? f->cpu_seconds / f->seconds : 0.0);
    spacrbench_run_stats st = {.size = sizeof st};
    if (sb_measurement_has_runs(m) && spacrbench_measurement_run_stats(m, &st) == 0 && st.runs)
        sb_text_printf(t, " |\n| runs | %lld timed, %.3f-%.3f s (mean %.3f s)", (long long)st.runs,
                       st.min, st.max, st.mean); /* as the report: no "±" across items */
    /* The report's figures: the peak RSS (the tree's where measured), the
     * charge, the footprint the advice divides by. */
    spacrbench_memory_figures mem = {sizeof mem, -1, -1};
    spacrbench_measurement_memory(m, &mem);
    int tree = mem.tree_rss_peak_bytes >= 0;
    sb_text_printf(t, " |\n| peak RSS | ");
    if (!tree && (f->peak_method == SPACRBENCH_PEAK_NONE || f->peak_rss_bytes < 0))
        sb_text_printf(t, "not measured |\n"); /* as the report says it */
    else {
        bytes_cell(t, tree ? mem.tree_rss_peak_bytes : f->peak_rss_bytes, NOT_MEASURED);
        sb_text_printf(t, " (%s) |\n",
                       tree ? sb_tree_rss_words(m->hugetlb_uncovered)
                            : sb_peak_method_words(f->peak_method, m->hugetlb_uncovered));
    }
    if (mem.cgroup_charge_bytes >= 0)
        bytes_row(t, "memory charged", mem.cgroup_charge_bytes,
                  sb_charge_words(m->hugetlb_uncovered));
    bytes_row(t, "baseline RSS", f->baseline_rss_bytes, NULL);
    sb_text_printf(t, "| footprint (peak - baseline) | ");
    bytes_cell(t, spacrbench_measurement_work_rss_bytes(m), NOT_MEASURED);
    if (mem.cgroup_charge_bytes >= 0 && tree)
        sb_text_printf(t, " (the advice divides by the %s)",
                       f->peak_method == SPACRBENCH_PEAK_CGROUP ? "charge" : "peak RSS");
    sb_text_printf(t, " |\n| peak VRAM | ");
    bytes_cell(t, f->peak_vram_bytes, NOT_MEASURED);
    if (f->peak_vram_bytes < 0 && m->vram_reason && m->vram_reason[0]) {
        /* The report's words: "(no CUDA device); <why>" where the runner
         * found no device, "(<why>)" otherwise. */
        size_t words = strlen(SB_WORDS_NO_CUDA);
        int no_device = strncmp(m->vram_reason, SB_WORDS_NO_CUDA ": ", words + 2) == 0;
        sb_text_printf(t, no_device ? " (" SB_WORDS_NO_CUDA "); " : " (");
        inline_text(t, no_device ? m->vram_reason + words + 2 : m->vram_reason);
        if (!no_device)
            sb_text_printf(t, ")");
    }
    sb_text_printf(t, " |\n");
}

/* Text we did not write in a cell (a spreadsheet may get it pasted):
 * defused as the CSV's is, then inline text. */
static void text_cell(sb_text *t, const char *text)
{
    sb_text safe = {0};
    sb_export_defuse(&safe, text ? text : "");
    inline_text(t, safe.data ? safe.data : "");
    t->failed |= safe.failed;
    sb_text_free(&safe);
}

/* One cell of an item's row, by its field's type. */
static void item_cell(sb_text *t, const sb_field *f, const void *const *parts)
{
    if (f->type == SB_FT_TEXT)
        text_cell(t, sb_field_text(f, parts));
    else if (f->type == SB_FT_BOOL)
        sb_text_printf(t, "%s", sb_field_int(f, parts) ? "yes" : "");
    else if (f->type == SB_FT_NUMBER && sb_field_is_null(f, parts))
        sb_text_printf(t, "%s", f->flags & SB_FIELD_DERIVED ? "-" : "not measured"); /* one run */
    else if (f->type == SB_FT_NUMBER)
        sb_text_printf(t, "%.4f", sb_field_number(f, parts));
    else if (f->flags & SB_FIELD_BYTES)
        bytes_cell(t, sb_field_is_null(f, parts) ? -1 : sb_field_int(f, parts), NOT_MEASURED);
    else
        sb_text_printf(t, "%lld",
                       (long long)sb_field_int(f, parts) + (f->flags & SB_FIELD_ORDINAL ? 1 : 0));
}

/* Whether field k is a column: up to the VRAM peak always, the later ones
 * (CPU, memory figures, the runs' spread) where a record has a value, the
 * label where labels are given. */
static int is_column(const sb_export_input *in, const sb_field *f, size_t k)
{
    const sb_record *rec = &sb_item_record;
    if (!f->words || (f->type == SB_FT_TEXT && !in->labels))
        return 0;
    /* With both memory figures the peak is one of them (the charge): its
     * columns name each, and a "peak RSS" column would misname it. */
    if (f == sb_record_field(rec, "peak_rss_bytes") && sb_measurement_has_memory_figures(in->m))
        return 0;
    const sb_field *last_always = sb_record_field(rec, "peak_vram_bytes");
    if (&rec->fields[k] <= last_always)
        return 1;
    for (size_t i = 0; i < in->m->record_count; i++) {
        sb_item_more more;
        sb_measurement_item_more(in->m, i, NULL, &more);
        const void *parts[] = {&in->m->records[i], &more};
        if (!sb_field_is_null(f, parts))
            return 1;
    }
    return 0;
}

static int64_t plate_number(const sb_export_input *in, size_t i)
{
    const sb_measured_plate *p = in->m->plate;
    return p && i < p->pick_count ? p->picks[i].index + 1 : (int64_t)i + 1;
}

/* The item table: a column per field of the item record's table that has
 * words (src/records/) and is a column (above). */
static void items(sb_text *t, const sb_export_input *in)
{
    const spacrbench_measurement *m = in->m;
    if (m->record_count == 0)
        return;
    const sb_record *rec = &sb_item_record;
    unsigned char shown[64] = {0};
    for (size_t k = 0; k < rec->count && k < sizeof shown; k++)
        shown[k] = (unsigned char)is_column(in, &rec->fields[k], k);
    sb_text_printf(t, "\n### Items\n\n");
    if (m->plate) /* say which number # is */
        sb_text_printf(t, "In the order they ran; # is the item's place in the plate.\n\n");
    sb_text_printf(t, "|");
    for (size_t k = 0; k < rec->count && k < sizeof shown; k++)
        if (shown[k])
            sb_text_printf(t, " %s |", rec->fields[k].words);
    sb_text_printf(t, "\n|");
    for (size_t k = 0; k < rec->count && k < sizeof shown; k++) {
        const sb_field *f = &rec->fields[k];
        if (shown[k])
            sb_text_printf(t, " %s |",
                           f->type == SB_FT_TEXT   ? "---"
                           : f->type == SB_FT_BOOL ? ":---:"
                                                   : "---:");
    }
    sb_text_printf(t, "\n");
    for (size_t i = 0; i < m->record_count; i++) {
        const char *label = sb_export_label(in, i);
        sb_item_more more;
        sb_measurement_item_more(m, i, label ? label : "", &more);
        const void *parts[] = {&m->records[i], &more};
        sb_text_printf(t, "|");
        for (size_t k = 0; k < rec->count && k < sizeof shown; k++) {
            if (!shown[k])
                continue;
            sb_text_printf(t, " ");
            const sb_field *f = &rec->fields[k];
            if (f->flags & SB_FIELD_ORDINAL) /* its place in the plate, where there is one */
                sb_text_printf(t, "%lld", (long long)plate_number(in, i));
            else
                item_cell(t, f, parts);
            sb_text_printf(t, " |");
        }
        sb_text_printf(t, "\n");
    }
}

static void evidence_row(sb_text *t, const char *what, int64_t value, const char *unit)
{
    if (value >= 0)
        sb_text_printf(t, "| %s | %lld%s |\n", what, (long long)value, unit);
}

static void recommendation(sb_text *t, const spacrbench_recommendation *r)
{
    sb_text_printf(t, "\n### Recommendation: %lld worker(s)\n\n", (long long)r->workers);
    inline_text(t, r->reason);
    sb_text_printf(t, "\n\n| evidence | value |\n| --- | --- |\n");
    sb_text_printf(t, "| bound | %s |\n| usable cores | %lld (", spacrbench_bound_name(r->bound),
                   (long long)r->cores);
    inline_text(t, r->cores_where[0] ? r->cores_where : "not given");
    sb_text_printf(t, ") |\n");
    if (r->cpu_parallelism >= 0)
        sb_text_printf(t, "| cores the work keeps busy | %.2f |\n", r->cpu_parallelism);
    evidence_row(t, "cores per worker", r->cores_per_worker, "");
    evidence_row(t, "workers the cores allow", r->core_workers, "");
    bytes_row(t, "memory available", r->available_bytes,
              r->memory_where[0] ? r->memory_where : "not given");
    bytes_row(t, "reserve", r->reserve_bytes, spacrbench_reserve_rule_name(r->reserve_rule));
    if (r->per_worker_bytes >= 0)
        bytes_row(t, "memory per worker", r->per_worker_bytes, NULL);
    evidence_row(t, "workers the memory allows", r->memory_workers, "");
    if (r->vram_workers >= 0) {
        bytes_row(t, "VRAM free", r->free_vram_bytes, NULL);
        evidence_row(t, "workers the VRAM allows", r->vram_workers, "");
    }
    evidence_row(t, "threads per worker", r->threads_per_worker, "");
    sb_text_printf(t, "| start method | %s |\n| maximum | %lld |\n",
                   spacrbench_start_method_name(r->start_method), (long long)r->maximum);
}

/* A short table of the measured items (each by its place in the plate, as
 * the item table's # is) and the prediction. */
static void markdown_plate(sb_text *t, const sb_export_input *in)
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
        bytes_cell(t, k.footprint_bytes, "-");
        sb_text_printf(t, " |\n");
    }
    if (s->largest_bytes >= 0) {
        sb_text_printf(t, "\nPredicted largest: **%.2f GiB** (",
                       (double)s->largest_bytes / (1024.0 * 1024.0 * 1024.0));
        bytes_cell(t, s->largest_bytes, "-");
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

void sb_export_markdown(sb_text *t, const sb_export_input *in)
{
    const spacrbench_measurement *m = in->m;
    sb_text_printf(t, "## spaCR benchmark\n\n");
    summary(t, m);
    items(t, in);
    if (in->rec)
        recommendation(t, in->rec);
    markdown_plate(t, in);
    if (m->note_count) {
        sb_text_printf(t, "\n### Notes\n\n");
        for (size_t i = 0; i < m->note_count; i++) {
            sb_text_printf(t, "- ");
            inline_text(t, m->notes[i]);
            sb_text_printf(t, "\n");
        }
    }
}
