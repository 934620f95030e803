/* The CSV export: a header line and one row per item record (RFC 4180:
 * CRLF line ends, fields with a comma, quote or line break quoted, quotes
 * doubled). Sizes in bytes and times in seconds, "not measured" as an
 * empty field, so a spreadsheet or pandas reads the numbers as numbers. */
#include <math.h>
#include <string.h>

#include "export.h"

static void field(sb_text *t, const char *text)
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

static void bytes_field(sb_text *t, int64_t bytes)
{
    if (bytes >= 0)
        sb_text_printf(t, ",%lld", (long long)bytes);
    else
        sb_text_printf(t, ",");
}

void sb_export_csv(sb_text *t, const sb_export_input *in)
{
    const spacrbench_measurement *m = in->m;
    sb_text_printf(t,
                   "index,item,is_warmup,seconds,peak_rss_bytes,peak_vram_bytes,cpu_seconds\r\n");
    for (size_t i = 0; i < m->record_count; i++) {
        const spacrbench_item_record *r = &m->records[i];
        sb_text_printf(t, "%lld,", (long long)r->index);
        const char *label = sb_export_label(in, i);
        field(t, label ? label : "");
        sb_text_printf(t, ",%d,%.6f", r->is_warmup ? 1 : 0, r->seconds);
        bytes_field(t, r->peak_rss_bytes);
        bytes_field(t, r->peak_vram_bytes);
        double cpu = spacrbench_measurement_item_cpu_seconds(m, i);
        if (isnan(cpu))
            sb_text_printf(t, ",\r\n");
        else
            sb_text_printf(t, ",%.6f\r\n", cpu);
    }
}
