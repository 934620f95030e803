/* The CSV export: a header line and one row per item record, a column per
 * field of the item record's table (src/records/) and its CPU time
 * (RFC 4180: CRLF line ends, fields with a comma, quote or line break
 * quoted, quotes doubled). Sizes in bytes and times in seconds, "not
 * measured" as an empty field, so a spreadsheet or pandas reads the
 * numbers as numbers. */
#include <math.h>
#include <string.h>

#include "export.h"
#include "records.h"

static void text_field(sb_text *t, const char *text)
{
    if (!strpbrk(text, ",\"\r\n")) {
        sb_text_printf(t, "%s", text);
        return;
    }
    sb_text_printf(t, "\"");
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

void sb_export_csv(sb_text *t, const sb_export_input *in)
{
    const spacrbench_measurement *m = in->m;
    const sb_record *rec = &sb_item_record;
    for (size_t k = 0; k < rec->count; k++)
        sb_text_printf(t, "%s,", rec->fields[k].key);
    sb_text_printf(t, "cpu_seconds\r\n");
    for (size_t i = 0; i < m->record_count; i++) {
        const char *label = sb_export_label(in, i);
        sb_item_more more = {label ? label : ""}; /* a column of every row */
        const void *parts[] = {&m->records[i], &more};
        for (size_t k = 0; k < rec->count; k++) {
            cell(t, &rec->fields[k], parts);
            sb_text_printf(t, ",");
        }
        double cpu = spacrbench_measurement_item_cpu_seconds(m, i);
        if (!isnan(cpu))
            sb_text_printf(t, "%.6f", cpu);
        sb_text_printf(t, "\r\n");
    }
}
