/* Text every front end prints: byte sizes, the progress line after an
 * item, one report line per item (with what only the measurement holds:
 * the spread of its runs, its two memory figures), and the one-line answer
 * for the user who asked GNU time's question (`spacrbench run --brief`).
 * One wording, so the command, Python and C callers never disagree. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "util.h"

int spacrbench_format_bytes(int64_t bytes, char *buf, size_t cap)
{
    sb_clear_error();
    char text[64];
    sb_format_bytes(text, sizeof text, bytes);
    sb_text t = {0};
    sb_text_printf(&t, "%s", text);
    return sb_text_deliver(&t, buf, cap);
}

/* Byte sizes both ways: the parsing rule is util.h's. */
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

int spacrbench_measurement_format_item(const spacrbench_measurement *m, size_t index,
                                       const char *label, char *buf, size_t cap)
{
    SB_REFUSE(!m, "measurement must not be NULL");
    if (index >= m->record_count)
        return sb_fail(SPACRBENCH_ERANGE, "record %zu of %zu", index, m->record_count);
    const spacrbench_item_record *r = &m->records[index];
    spacrbench_memory_figures mem = {sizeof mem, -1, -1};
    spacrbench_measurement_item_memory(m, index, &mem);
    spacrbench_run_stats st = {.size = sizeof st};
    int runs = spacrbench_measurement_item_run_count(m, index) > 0 &&
               spacrbench_measurement_item_run_stats(m, index, &st) == 0;
    /* A plate's item is named by its place in the plate, here as in the
     * plate's section and the notes. */
    int64_t number = r->index;
    spacrbench_plate_pick k = {.size = sizeof k};
    if (spacrbench_measurement_plate_pick(m, index, &k) == 0)
        number = k.index;
    char a[32], b[32];
    sb_text line = {0};
    sb_text_printf(&line, "  item %-14lld %.3f s", (long long)number + 1, r->seconds);
    if (mem.cgroup_charge_bytes >= 0 && mem.tree_rss_peak_bytes >= 0) {
        sb_format_bytes(a, sizeof a, mem.cgroup_charge_bytes);
        sb_format_bytes(b, sizeof b, mem.tree_rss_peak_bytes);
        sb_text_printf(&line, ", charged %s, RSS %s", a, b);
    } else {
        sb_format_bytes(a, sizeof a, r->peak_rss_bytes);
        sb_text_printf(&line, ", peak %s", a);
    }
    if (r->is_warmup)
        sb_text_printf(&line, " (warm-up)");
    if (r->peak_vram_bytes >= 0) {
        sb_format_bytes(a, sizeof a, r->peak_vram_bytes);
        sb_text_printf(&line, ", VRAM %s", a);
    }
    if (label) {
        sb_text_printf(&line, ": ");
        sb_text_label(&line, label);
    }
    sb_text t = {0};
    if (line.failed)
        t.failed = 1;
    else
        sb_text_wrapped(&t, line.data, SB_WRAP_INDENT, SB_WRAP_WIDTH, SB_WRAP_INDENT);
    sb_text_free(&line);
    /* Its time is the runs' mean: their spread on a line of its own. */
    if (runs && !isnan(st.stddev))
        sb_text_printf(&t, "\n%*smean of %lld runs \xc2\xb1 %.3f s, min %.3f s, max %.3f s",
                       SB_WRAP_INDENT, "", (long long)st.runs, st.stddev, st.min, st.max);
    return sb_text_deliver(&t, buf, cap);
}

int spacrbench_format_brief(const spacrbench_measurement *m, const spacrbench_recommendation *rec,
                            char *buf, size_t cap)
{
    SB_REFUSE(!m, "measurement must not be NULL");
    spacrbench_recommendation r;
    int rc = rec ? sb_recommendation_in(&r, rec) : 0;
    if (rc)
        return rc;
    spacrbench_memory_figures mem = {sizeof mem, -1, -1};
    spacrbench_measurement_memory(m, &mem);
    int64_t rss = mem.tree_rss_peak_bytes >= 0 ? mem.tree_rss_peak_bytes : m->fig.peak_rss_bytes;
    char a[32];
    sb_text t = {0};
    /* A stopped run's figures are those of the items before the stop. */
    if (m->fig.stopped)
        sb_text_printf(&t, "stopped: ");
    sb_format_bytes(a, sizeof a, rss);
    sb_text_printf(&t, "peak RSS %s", a);
    if (mem.cgroup_charge_bytes >= 0) {
        sb_format_bytes(a, sizeof a, mem.cgroup_charge_bytes);
        sb_text_printf(&t, " (%s charged)", a);
    }
    double each = spacrbench_measurement_per_item_seconds(m);
    spacrbench_run_stats st = {.size = sizeof st};
    if (isnan(each))
        sb_text_printf(&t, ", no item timed");
    else if (sb_measurement_has_runs(m) && spacrbench_measurement_run_stats(m, &st) == 0 &&
             !isnan(st.stddev))
        /* The runs of different items: a range, not a "±" that reads as
         * run-to-run noise. */
        sb_text_printf(&t, ", %.3f-%.3f s per item", st.min, st.max);
    else
        sb_text_printf(&t, ", %.3f s per item", each);
    /* No usable memory measurement: the full report's core-count
     * fallback, named as such rather than passed off as an answer. */
    if (rec)
        sb_text_printf(&t, ", %lld worker%s%s", (long long)r.workers, r.workers == 1 ? "" : "s",
                       r.bound == SPACRBENCH_BOUND_FALLBACK ? " (core-count fallback)" : "");
    else
        sb_text_printf(&t, ", no recommendation");
    return sb_text_deliver(&t, buf, cap);
}
