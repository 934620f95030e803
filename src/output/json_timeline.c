/* The measurement's "timeline" member (docs/spacrbench.schema.json): the
 * bounded points, the item marks and how many samples each point holds. */
#include "json_writer.h"
#include "measurement.h"
#include "timeline.h"

static void optional_bytes(json_writer *w, const char *key, int64_t value)
{
    if (value < 0)
        json_null(w, key);
    else
        json_int(w, key, value);
}

void sb_json_timeline(json_writer *w, const spacrbench_measurement *m)
{
    const sb_timeline *tl = m->timeline;
    if (!tl) {
        json_null(w, "timeline");
        return;
    }
    size_t n = sb_timeline_count(tl);
    json_begin_object(w, "timeline");
    json_int(w, "interval_us", tl->interval_us);
    json_int(w, "samples", tl->samples);
    json_int(w, "stride", tl->stride);
    json_bool(w, "downsampled", tl->stride > 1);
    json_int(w, "max_points", SPACRBENCH_TIMELINE_MAX_POINTS);
    json_begin_array(w, "points");
    for (size_t i = 0; i < n; i++) {
        sb_timeline_sample p = sb_timeline_point(tl, i);
        json_begin_object(w, NULL);
        json_double(w, "seconds", p.seconds);
        optional_bytes(w, "rss_bytes", p.rss_bytes);
        optional_bytes(w, "cgroup_bytes", p.cgroup_bytes);
        json_end_object(w);
    }
    json_end_array(w);
    json_begin_array(w, "items");
    for (size_t i = 0; i < tl->item_count; i++) {
        spacrbench_timeline_item it = sb_timeline_item(tl, i);
        json_begin_object(w, NULL);
        json_int(w, "index", it.index);
        json_bool(w, "is_warmup", it.is_warmup);
        json_double(w, "start_seconds", it.start_seconds);
        json_double(w, "end_seconds", it.end_seconds);
        optional_bytes(w, "peak_rss_bytes", it.peak_rss_bytes);
        json_double(w, "peak_seconds", it.peak_seconds);
        json_end_object(w);
    }
    json_end_array(w);
    json_end_object(w);
}
