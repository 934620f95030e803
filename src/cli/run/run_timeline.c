/* The memory timeline of `spacrbench run`; see run_timeline.h. */
#include "run_timeline.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void on_sample(void *arg, double now, int64_t rss_bytes, int64_t cgroup_bytes)
{
    run_timeline *t = arg;
    if (t->broken)
        return;
    spacrbench_timeline_point p = {sizeof p, now - t->origin, rss_bytes, cgroup_bytes};
    if (spacrbench_measurement_timeline_add_sample(t->m, &p) != 0) {
        t->broken = 1;
        return;
    }
    int64_t figure = t->peak_is_charge ? cgroup_bytes : rss_bytes;
    if (figure > t->best) {
        t->best = figure;
        t->best_at = p.seconds;
    }
}

void run_timeline_begin(run_timeline *t, spacrbench_measurement *m, sb_supervisor *sup)
{
    memset(t, 0, sizeof *t);
    t->best = -1;
    spacrbench_timeline_info info = {.size = sizeof info, .stride = 1};
    info.interval_us = (int64_t)llround(sb_supervisor_interval(sup) * 1e6);
    if (spacrbench_measurement_timeline_begin(m, &info) != 0) {
        spacrbench_measurement_add_note(m, "no memory timeline: out of memory");
        return;
    }
    t->m = m;
    t->sup = sup;
    t->origin = sb_now();
    t->peak_is_charge = sup->use_cgroup;
    sup->cfg.on_sample = on_sample;
    sup->cfg.sample_arg = t;
}

void run_timeline_mark(run_timeline *t, size_t record, const run_outcome *o)
{
    if (!t->m || t->broken)
        return;
    spacrbench_item_record rec = {.size = sizeof rec};
    if (spacrbench_measurement_record(t->m, record, &rec) == 0) {
        double start = o->group.started_at - t->origin;
        /* No sample of the peak's figure inside the item (shorter than one
         * period): NaN lets the library mark it at the item's end. */
        spacrbench_timeline_item it = {.size = sizeof it,
                                       .index = (int64_t)record,
                                       .is_warmup = rec.is_warmup,
                                       .start_seconds = start,
                                       .end_seconds = start + o->group.seconds,
                                       .peak_rss_bytes = rec.peak_rss_bytes,
                                       .peak_seconds = t->best >= 0 ? t->best_at : NAN};
        if (spacrbench_measurement_timeline_add_item(t->m, &it) != 0)
            t->broken = 1;
    }
    t->best = -1;
}

void run_timeline_end(run_timeline *t)
{
    if (!t->m)
        return;
    t->sup->cfg.on_sample = NULL;
    t->sup->cfg.sample_arg = NULL;
    if (t->broken)
        spacrbench_measurement_add_note(t->m, "the memory timeline stops early: a sample or "
                                              "an item mark could not be added");
    spacrbench_timeline_info info = {.size = sizeof info};
    if (spacrbench_measurement_timeline_info(t->m, &info) != 0 || !info.downsampled)
        return;
    char note[400];
    snprintf(note, sizeof note,
             "timeline downsampled: %lld RSS samples taken every %.1f ms are shown as %lld "
             "points, each the highest of %lld consecutive samples (at most %lld points are "
             "kept)",
             (long long)info.samples, (double)info.interval_us / 1000.0,
             (long long)info.point_count, (long long)info.stride, (long long)info.max_points);
    spacrbench_measurement_add_note(t->m, note);
}
