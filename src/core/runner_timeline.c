/* The serial run's memory timeline: the sampler thread puts RSS samples on
 * it (sampler.h), the loop marks each item's boundaries and exact peak. */
#include <math.h>
#include <string.h>

#include "core.h"

int sb_run_start_timeline(sb_run *st, struct sb_timeline **out)
{
    spacrbench_measurement *m = st->m;
    /* Room for every item now: the loop never allocates. */
    size_t items = st->opt.item_records ? m->plan_items : 0;
    if (!(m->timeline = sb_timeline_new(st->opt.sample_interval_us, items)))
        return sb_fail(SPACRBENCH_ENOMEM, "cannot allocate the memory timeline");
    *out = m->timeline;
    return SPACRBENCH_OK;
}

int sb_run_mark_item(sb_run *st, int64_t index, int warm, double t0, double t1, int64_t peak)
{
    struct sb_timeline *tl = st->m->timeline;
    spacrbench_timeline_item it = {sizeof it,       index,           warm, 0,
                                   t0 - tl->origin, t1 - tl->origin, peak, NAN};
    if (st->stream && tl->item_count == tl->item_cap) {
        /* No count to reserve for: grows between items, the new room
         * written now so that its pages join the baseline, not an item. */
        int64_t rss_before = sb_proc_rss(&st->proc);
        int rc = sb_timeline_item_add(tl, &it);
        if (!rc)
            memset(tl->items + tl->item_count, 0,
                   (tl->item_cap - tl->item_count) * sizeof *tl->items);
        sb_stream_grown(st, rss_before);
        return rc;
    }
    if (tl->item_count == tl->item_cap)
        return SPACRBENCH_OK;
    tl->items[tl->item_count++] = it;
    return SPACRBENCH_OK;
}

int sb_run_finish_timeline(sb_run *st)
{
    const struct sb_timeline *tl = st->m->timeline;
    if (!tl || tl->stride == 1)
        return SPACRBENCH_OK;
    return sb_measurement_notef(st->m,
                                "timeline downsampled: %lld RSS samples taken every %.1f ms "
                                "are shown as %zu points, each the highest of %lld "
                                "consecutive samples (at most %d points are kept)",
                                (long long)tl->samples, (double)tl->interval_us / 1000.0,
                                sb_timeline_count(tl), (long long)tl->stride,
                                (int)SPACRBENCH_TIMELINE_MAX_POINTS);
}
