/* Text every front end prints: byte sizes, the progress line after an
 * item, one report line per item. One wording, so the command, Python and
 * C callers never disagree on how a figure reads. */
#include <stdio.h>
#include <string.h>

#include "parse_size.h"
#include "report.h"

int spacrbench_format_bytes(int64_t bytes, char *buf, size_t cap)
{
    sb_clear_error();
    char text[64];
    sb_format_bytes(text, sizeof text, bytes);
    sb_text t = {0};
    sb_text_printf(&t, "%s", text);
    return sb_text_deliver(&t, buf, cap);
}

/* Byte sizes both ways: the parsing rule is parse_size.h's. */
int spacrbench_parse_size(const char *text, int64_t *bytes)
{
    SB_REFUSE(!text, "text must not be NULL");
    if (!bytes)
        return sb_fail(SPACRBENCH_EINVAL, "bytes must not be NULL");
    int64_t v = 0;
    const char *why = sb_parse_size_text(text, &v);
    if (why) {
        size_t n = strnlen(text, SB_SIZE_TEXT_MAX + 1);
        return sb_fail(SPACRBENCH_EINVAL, "size '%.*s%s' %s", (int)(n > 40 ? 40 : n), text,
                       n > 40 ? "..." : "", why);
    }
    *bytes = v;
    return 0;
}

int spacrbench_format_progress(const spacrbench_progress *progress, const char *label, char *buf,
                               size_t cap)
{
    SB_REFUSE(!progress, "progress must not be NULL");
    spacrbench_progress p;
    memset(&p, 0, sizeof p);
    p.size = sizeof p;
    p.item_peak_rss_bytes = SPACRBENCH_NOT_MEASURED;
    int rc = sb_struct_in(&p, sizeof p, progress, "spacrbench_progress");
    if (rc)
        return rc;
    sb_text t = {0};
    if (p.total >= 0)
        sb_text_printf(&t, "item %lld/%lld", (long long)p.index + 1, (long long)p.total);
    else /* a stream of unknown count (spacrbench_benchmark_stream) */
        sb_text_printf(&t, "item %lld/?", (long long)p.index + 1);
    sb_text_printf(&t, "%s done in %.3f s", p.is_warmup ? " (warm-up)" : "", p.item_seconds);
    if (p.item_peak_rss_bytes >= 0) {
        char peak[32];
        sb_format_bytes(peak, sizeof peak, p.item_peak_rss_bytes);
        sb_text_printf(&t, ", peak %s", peak);
    }
    if (label) {
        sb_text_printf(&t, ": ");
        sb_text_label(&t, label);
    }
    return sb_text_deliver(&t, buf, cap);
}

int spacrbench_format_item_line(const spacrbench_item_record *record, const char *label, char *buf,
                                size_t cap)
{
    SB_REFUSE(!record, "record must not be NULL");
    spacrbench_item_record r = {sizeof r, 0, 0, 0, 0.0, -1, -1};
    int rc = sb_struct_in(&r, sizeof r, record, "spacrbench_item_record");
    if (rc)
        return rc;
    char peak[32];
    sb_format_bytes(peak, sizeof peak, r.peak_rss_bytes);
    sb_text t = {0};
    sb_text_printf(&t, "  item %-14lld %.3f s, peak %s%s", (long long)r.index + 1, r.seconds, peak,
                   r.is_warmup ? " (warm-up)" : "");
    if (r.peak_vram_bytes >= 0) {
        sb_format_bytes(peak, sizeof peak, r.peak_vram_bytes);
        sb_text_printf(&t, ", VRAM %s", peak);
    }
    if (label) {
        sb_text_printf(&t, ": ");
        sb_text_label(&t, label);
    }
    return sb_text_deliver(&t, buf, cap);
}
