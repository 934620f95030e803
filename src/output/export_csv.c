/* The CSV export: a header line and one row per item record, a column per
 * scalar field of the item record's table (src/records/): time, CPU, the
 * peak, the two memory figures, the runs' count and spread (and, for a
 * plate's measurement, its place in the plate: export_plate.c) (RFC 4180:
 * CRLF line ends, fields with a comma, quote or line break quoted, quotes
 * doubled). Sizes in bytes and times in seconds, "not
 * measured" as an empty field, so a spreadsheet or pandas reads the
 * numbers as numbers.
 *
 * Text we did not write (an item's label) is defused against spreadsheet
 * formula injection by OWASP's rule: a cell that starts with =, +, -, @,
 * a tab or a carriage return gets a leading ' and is quoted, so it is shown
 * as text, never evaluated; a cell that is a plain number ("-5", "+1.5e3")
 * is no formula and stays as it is, numeric. */
#include <string.h>

#include "export.h"
#include "records.h"

/* [+-]digits[.digits][(e|E)[+-]digits]: what a spreadsheet reads as a number. */
static int plain_number(const char *t)
{
    const char *p = t + (*t == '+' || *t == '-');
    size_t digits = strspn(p, "0123456789");
    p += digits;
    if (*p == '.') {
        size_t more = strspn(p + 1, "0123456789");
        digits += more;
        p += 1 + more;
    }
    if (digits && (*p == 'e' || *p == 'E')) {
        p += 1 + (p[1] == '+' || p[1] == '-');
        size_t exp = strspn(p, "0123456789");
        if (!exp)
            return 0;
        p += exp;
    }
    return digits > 0 && *p == '\0';
}

static void text_field(sb_text *t, const char *text)
{
    int formula = strchr("=+-@\t\r", text[0]) && text[0] && !plain_number(text);
    if (!formula && !strpbrk(text, ",\"\r\n")) {
        sb_text_printf(t, "%s", text);
        return;
    }
    sb_text_printf(t, formula ? "\"'" : "\"");
    for (const char *p = text; *p; p++)
        sb_text_printf(t, *p == '"' ? "\"\"" : "%c", *p);
    sb_text_printf(t, "\"");
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
