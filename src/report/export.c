/* spacrbench_format_export: checks the arguments, then writes the Markdown
 * (export_markdown.c) or the CSV: a header line and one row per item
 * record, a column per scalar field of the item record's table (and, for a
 * plate's measurement, its place, key and why, 0-based as the JSON's
 * indices), by RFC 4180 (CRLF line ends, fields with a separator, quote or
 * line break quoted, quotes doubled). Sizes in bytes, times in seconds,
 * "not measured" an empty field, so a spreadsheet reads numbers as numbers.
 * Text we did not write (a label) is defused against formula injection by
 * OWASP's rule (sb_export_defuse): shown as text, never evaluated. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plate.h"
#include "report.h"

/* Text we did not write: defused, then quoted where it holds a
 * separator (',', or ';' and a tab for the locales that split there), a
 * quote or a line break, or was defused. */
static void text_field(sb_text *t, const char *text)
{
    sb_text safe = {0};
    int defused = sb_export_defuse(&safe, text);
    const char *s = safe.data ? safe.data : "";
    if (!defused && !strpbrk(s, ",;\t\"\r\n")) {
        sb_text_printf(t, "%s", s);
    } else {
        sb_text_printf(t, "\"");
        for (const char *p = s; *p; p++)
            sb_text_printf(t, *p == '"' ? "\"\"" : "%c", *p);
        sb_text_printf(t, "\"");
    }
    t->failed |= safe.failed;
    sb_text_free(&safe);
}

static void cell(sb_text *t, const sb_field *f, const void *const *parts)
{
    if (sb_field_is_null(f, parts))
        return; /* "not measured": empty */
    switch (f->type) {
    case SB_FT_INT:
        sb_text_printf(t, "%lld", (long long)sb_field_int(f, parts));
        break;
    case SB_FT_BOOL:
        sb_text_printf(t, "%d", sb_field_int(f, parts) ? 1 : 0);
        break;
    case SB_FT_NUMBER:
        sb_text_printf(t, "%.6f", sb_field_number(f, parts));
        break;
    default:
        text_field(t, sb_field_text(f, parts));
    }
}

/* The fields that are columns: every scalar one (a record's runs are the
 * JSON's; the CSV has their count and spread). */
static int is_column(const sb_field *f) { return f->type != SB_FT_LIST && f->type != SB_FT_NESTED; }

static void csv_plate_header(sb_text *t, const sb_export_input *in)
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

static void csv_plate_cells(sb_text *t, const sb_export_input *in, size_t i)
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

static void sb_export_csv(sb_text *t, const sb_export_input *in)
{
    const spacrbench_measurement *m = in->m;
    const sb_record *rec = &sb_item_record;
    const char *sep = "";
    for (size_t k = 0; k < rec->count; k++)
        if (is_column(&rec->fields[k])) {
            sb_text_printf(t, "%s%s", sep, rec->fields[k].key);
            sep = ",";
        }
    csv_plate_header(t, in);
    sb_text_printf(t, "\r\n");
    for (size_t i = 0; i < m->record_count; i++) {
        const char *label = sb_export_label(in, i);
        sb_item_more more; /* the label: a column of every row */
        sb_measurement_item_more(m, i, label ? label : "", &more);
        /* The column says RSS: where the item's tree RSS was measured
         * beside its charge, it holds the RSS (GNU time's figure), and
         * cgroup_charge_bytes the charge the advice divides by. */
        spacrbench_item_record r = m->records[i];
        if (more.tree_rss_peak_bytes >= 0)
            r.peak_rss_bytes = more.tree_rss_peak_bytes;
        const void *parts[] = {&r, &more};
        sep = "";
        for (size_t k = 0; k < rec->count; k++)
            if (is_column(&rec->fields[k])) {
                sb_text_printf(t, "%s", sep);
                cell(t, &rec->fields[k], parts);
                sep = ",";
            }
        csv_plate_cells(t, in, i);
        sb_text_printf(t, "\r\n");
    }
}

/* The separators a spreadsheet may split a line at (its locale's list
 * separator among them), and the characters that start a formula. */
#define SEPARATORS    ",;\t\r\n"
#define FORMULA_START "=+-@\t\r"

/* [+-]digits[.digits][(e|E)[+-]digits], the n bytes at t: what a
 * spreadsheet reads as a number. */
static int plain_number(const char *t, size_t n)
{
    const char *p = t, *end = t + n;
    size_t digits = 0, exp = 0;
    p += p < end && (*p == '+' || *p == '-');
    for (; p < end && *p >= '0' && *p <= '9'; p++)
        digits++;
    if (p < end && *p == '.')
        for (p++; p < end && *p >= '0' && *p <= '9'; p++)
            digits++;
    if (digits && p < end && (*p == 'e' || *p == 'E')) {
        p++;
        p += p < end && (*p == '+' || *p == '-');
        for (; p < end && *p >= '0' && *p <= '9'; p++)
            exp++;
        if (!exp)
            return 0;
    }
    return digits > 0 && p == end;
}

int sb_export_defuse(sb_text *out, const char *text)
{
    int defused = 0;
    for (const char *p = text;; p++) { /* p: a cell's start, then after each separator */
        size_t n = strcspn(p, SEPARATORS);
        /* Spreadsheets that trim a cell read " =x" as a formula too. */
        size_t blanks = strspn(p, " ");
        const char *q = blanks < n ? p + blanks : p;
        if (*q && strchr(FORMULA_START, *q) && !plain_number(q, n - (size_t)(q - p))) {
            sb_text_printf(out, "'");
            defused = 1;
        }
        sb_text_printf(out, "%.*s", (int)n, p);
        p += n;
        if (!*p)
            return defused;
        sb_text_printf(out, "%c", *p);
    }
}

const char *sb_export_label(const sb_export_input *in, size_t i)
{
    return in->labels && i < in->n_labels ? in->labels[i] : NULL;
}

int spacrbench_format_export(const spacrbench_measurement *m, const spacrbench_recommendation *rec,
                             int format, const char *const *item_labels, size_t n_labels, char *buf,
                             size_t cap)
{
    SB_REFUSE(!m, "measurement must not be NULL");
    if (!buf && cap)
        return sb_fail(SPACRBENCH_EINVAL, "buf is NULL but cap is %zu", cap);
    if (!item_labels && n_labels)
        return sb_fail(SPACRBENCH_EINVAL, "item_labels is NULL but n_labels is %zu", n_labels);
    void (*write)(sb_text *, const sb_export_input *) =
        format == SPACRBENCH_FORMAT_MARKDOWN ? sb_export_markdown
        : format == SPACRBENCH_FORMAT_CSV    ? sb_export_csv
                                             : NULL;
    if (!write)
        return sb_fail(SPACRBENCH_EINVAL,
                       "format %d is not a spacrbench_export_format (MARKDOWN %d, CSV %d)", format,
                       SPACRBENCH_FORMAT_MARKDOWN, SPACRBENCH_FORMAT_CSV);
    spacrbench_recommendation r;
    int rc = rec ? sb_recommendation_in(&r, rec) : 0;
    if (rc)
        return rc;
    sb_export_input in = {m, rec ? &r : NULL, item_labels, n_labels};
    sb_text t = {0};
    write(&t, &in);
    return sb_text_deliver(&t, buf, cap);
}
