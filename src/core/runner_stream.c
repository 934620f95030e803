/* spacrbench_benchmark_stream's part of the serial run: items of unknown
 * count. Records grow between items (written at once, so their pages are
 * never an item's), and when the items end inside the warm-up the last one
 * becomes the measured item after the fact, as the clamp of a counted run
 * would have made it. */
#include <math.h>

#include "core.h"

void sb_stream_begin(sb_run *st) { st->m->clamped = st->m->warmup; }

int sb_stream_item_start(sb_run *st, sb_stream_marks *marks, size_t i)
{
    spacrbench_measurement *m = st->m;
    if (st->opt.item_records && m->record_count == m->record_cap) {
        size_t cap = m->record_cap ? m->record_cap * 2 : 16;
        int64_t rss_before = sb_proc_rss(&st->proc);
        int rc = sb_measurement_commit_records(m, cap); /* written: resident now */
        if (!rc && m->record_cap > 0)
            rc = spacrbench_measurement_set_item_cpu_seconds(m, m->record_cap - 1, NAN);
        sb_stream_grown(st, rss_before);
        if (rc)
            return rc;
    }
    marks->t_call = sb_now();
    marks->cpu_call = sb_proc_cpu_seconds();
    if (i < m->clamped) {
        marks->t_last = marks->t_call;
        marks->cpu_last = marks->cpu_call;
        marks->sampler_cpu_last = st->sampler ? sb_sampler_cpu_seconds(st->sampler) : 0.0;
        marks->progress_seconds = marks->progress_cpu = 0.0;
    }
    return SPACRBENCH_OK;
}

void sb_stream_grown(sb_run *st, int64_t rss_before)
{
    int64_t after = sb_proc_rss(&st->proc);
    if (rss_before >= 0 && after > rss_before)
        st->m->fig.baseline_rss_bytes += after - rss_before;
}

void sb_stream_clamp_late(sb_run *st, size_t n)
{
    spacrbench_measurement *m = st->m;
    size_t last = n - 1; /* n >= 1: the caller checked */
    m->clamped = last;
    if (m->record_count > last)
        m->records[last].is_warmup = 0;
    struct sb_timeline *tl = m->timeline;
    if (tl && tl->item_count > 0 && tl->items[tl->item_count - 1].index == (int64_t)last)
        tl->items[tl->item_count - 1].is_warmup = 0;
}
