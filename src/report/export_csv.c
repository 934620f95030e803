/* The CSV export: a header line and one row per item record, a column per
 * scalar field of the item record's table (src/records/): time, CPU, the
 * peak, the two memory figures, the runs' count and spread (and, for a
 * plate's measurement, its place in the plate: export_plate.c) (RFC 4180:
 * CRLF line ends, fields with a separator, quote or line break quoted,
 * quotes doubled). Sizes in bytes and times in seconds, "not
 * measured" as an empty field, so a spreadsheet or pandas reads the
 * numbers as numbers.
 *
 * Text we did not write (an item's label) is defused against spreadsheet
 * formula injection by OWASP's rule (sb_export_defuse): a formula start at
 * the cell's start or after a separator gets a ' and the cell is quoted,
 * so it is shown as text, never evaluated, also where a spreadsheet splits
 * at ';'; a plain number ("-5", "+1.5e3") stays as it is, numeric, as
 * every figure's column does. */
#include <string.h>

#include "report.h"

/* Text we did not write: defused (export.c), then quoted where it holds a
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

void sb_export_csv(sb_text *t, const sb_export_input *in)
{
    const spacrbench_measurement *m = in->m;
    const sb_record *rec = &sb_item_record;
    const char *sep = "";
    for (size_t k = 0; k < rec->count; k++)
        if (is_column(&rec->fields[k])) {
            sb_text_printf(t, "%s%s", sep, rec->fields[k].key);
            sep = ",";
        }
    sb_export_csv_plate_header(t, in);
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
        sb_export_csv_plate_cells(t, in, i);
        sb_text_printf(t, "\r\n");
    }
}
