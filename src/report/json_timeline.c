/* The measurement's "timeline" member (docs/spacrbench.schema.json): the
 * bounded points, the item marks and how many samples each point holds,
 * by the timeline's field tables (src/records/). */
#include "report.h"

static void write_lists(void *ctx, json_writer *w, const sb_field *f)
{
    const sb_timeline *tl = ctx;
    json_begin_array(w, f->key);
    if (f->extra == &sb_timeline_point_record)
        for (size_t i = 0, n = sb_timeline_count(tl); i < n; i++) {
            sb_timeline_sample s = sb_timeline_point(tl, i);
            spacrbench_timeline_point p = {sizeof p, s.seconds, s.rss_bytes, s.cgroup_bytes};
            sb_point_more more = {s.cpu_seconds};
            const void *parts[] = {&p, &more};
            sb_record_write(w, NULL, &sb_timeline_point_record, parts, NULL);
        }
    else
        for (size_t i = 0; i < tl->item_count; i++) {
            spacrbench_timeline_item it = sb_timeline_item(tl, i);
            const void *parts[] = {&it};
            sb_record_write(w, NULL, &sb_timeline_item_record, parts, NULL);
        }
    json_end_array(w);
}

void sb_json_timeline(json_writer *w, const char *key, const spacrbench_measurement *m)
{
    const sb_timeline *tl = m->timeline;
    if (!tl) {
        json_null(w, key);
        return;
    }
    spacrbench_timeline_info info = {.size = sizeof info,
                                     .interval_us = tl->interval_us,
                                     .samples = tl->samples,
                                     .stride = tl->stride,
                                     .max_points = SPACRBENCH_TIMELINE_MAX_POINTS,
                                     .downsampled = tl->stride > 1};
    const sb_record_io io = {(void *)tl, write_lists, NULL};
    const void *parts[] = {&info};
    sb_record_write(w, key, &sb_timeline_record, parts, &io);
}
