/* The bounded, downsampling memory timeline (core.h), its public face and
 * a measurement's per-item CPU seconds. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "util.h"

enum { CAP = SPACRBENCH_TIMELINE_MAX_POINTS };

/* Writes a byte of every page (fresh pages are only address space until
 * written), volatile: a compiler may drop a memset of zeros after calloc. */
static void commit_pages(void *p, size_t n)
{
    volatile unsigned char *b = p;
    for (size_t i = 0; i < n; i += 4096)
        b[i] = 0;
}

sb_timeline *sb_timeline_new(int64_t interval_us, size_t n_items)
{
    sb_timeline *tl = calloc(1, sizeof *tl);
    if (!tl)
        return NULL;
    /* Written now: the pages are the run's, never the work's footprint. */
    tl->points = calloc(CAP, sizeof *tl->points);
    tl->items = n_items ? calloc(n_items, sizeof *tl->items) : NULL;
    if (!tl->points || (n_items && !tl->items)) {
        sb_timeline_free(tl);
        return NULL;
    }
    commit_pages(tl->points, CAP * sizeof *tl->points);
    if (tl->items)
        commit_pages(tl->items, n_items * sizeof *tl->items);
    tl->item_cap = n_items;
    tl->origin = sb_now();
    tl->cpu_origin = sb_proc_cpu_seconds();
    tl->interval_us = interval_us;
    tl->stride = 1;
    return tl;
}

void sb_timeline_free(sb_timeline *tl)
{
    if (!tl)
        return;
    free(tl->points);
    free(tl->items);
    free(tl);
}

/* b (the later) merged into a: the higher RSS sample (and its time)
 * stands for both; the CPU used is the later's. */
static void merge(sb_timeline_sample *a, const sb_timeline_sample *b)
{
    if (!isnan(b->cpu_seconds))
        a->cpu_seconds = b->cpu_seconds;
    if (b->rss_bytes > a->rss_bytes) {
        a->seconds = b->seconds;
        a->rss_bytes = b->rss_bytes;
    }
    a->cgroup_bytes = max64(a->cgroup_bytes, b->cgroup_bytes);
}

/* The buffer is full: pairs become one point, later points twice as wide. */
static void halve(sb_timeline *tl)
{
    size_t n = tl->count / 2;
    for (size_t i = 0; i < n; i++) {
        sb_timeline_sample p = tl->points[2 * i];
        merge(&p, &tl->points[2 * i + 1]);
        tl->points[i] = p;
    }
    tl->count = n;
    tl->stride *= 2;
}

static void sb_timeline_sample_push(sb_timeline *tl, const sb_timeline_sample *s)
{
    if (tl->pending_n == 0)
        tl->pending = *s;
    else
        merge(&tl->pending, s);
    tl->samples++;
    if (++tl->pending_n < tl->stride)
        return;
    tl->points[tl->count++] = tl->pending;
    tl->pending_n = 0;
    /* At once, so that the points shown (with a partial one) stay <= CAP. */
    if (tl->count == CAP)
        halve(tl);
}

void sb_timeline_sample_add(sb_timeline *tl, double seconds, int64_t rss, int64_t cgroup)
{
    sb_timeline_sample s = {seconds, rss, cgroup, NAN};
    sb_timeline_sample_push(tl, &s);
}

void sb_timeline_on_rss(void *ctx, double now, int64_t rss)
{
    sb_timeline *tl = ctx;
    /* getrusage: about 1 us, thread-safe; our CPU is the work's (+ <1 %). */
    double cpu = sb_proc_cpu_seconds() - tl->cpu_origin;
    sb_timeline_sample s = {now - tl->origin, rss, -1, cpu >= 0 ? cpu : NAN};
    sb_timeline_sample_push(tl, &s);
}

static int sb_timeline_point_add(sb_timeline *tl, const sb_timeline_sample *p)
{
    if (sb_timeline_count(tl) >= CAP)
        return sb_fail(SPACRBENCH_ERANGE, "a timeline holds at most %d points", (int)CAP);
    if (tl->pending_n) { /* a copy after live samples: close the partial point */
        tl->points[tl->count++] = tl->pending;
        tl->pending_n = 0;
    }
    tl->points[tl->count++] = *p;
    return SPACRBENCH_OK;
}

int sb_timeline_item_add(sb_timeline *tl, const spacrbench_timeline_item *item)
{
    if (sb_grow(&tl->items, &tl->item_cap, tl->item_count + 1, sizeof *tl->items))
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory growing the timeline");
    tl->items[tl->item_count++] = *item;
    return SPACRBENCH_OK;
}

size_t sb_timeline_count(const sb_timeline *tl) { return tl->count + (tl->pending_n > 0); }

sb_timeline_sample sb_timeline_point(const sb_timeline *tl, size_t index)
{
    return index < tl->count ? tl->points[index] : tl->pending;
}

spacrbench_timeline_item sb_timeline_item(const sb_timeline *tl, size_t index)
{
    spacrbench_timeline_item it = tl->items[index];
    it.size = sizeof it;
    if (!isnan(it.peak_seconds))
        return it;
    it.peak_seconds = it.end_seconds;
    /* Points are in time order: find the first inside the item by bisection,
     * so marking every item of a long run stays cheap. */
    size_t lo = 0, hi = sb_timeline_count(tl);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sb_timeline_point(tl, mid).seconds < it.start_seconds)
            lo = mid + 1;
        else
            hi = mid;
    }
    int64_t best = -1;
    for (size_t i = lo, n = sb_timeline_count(tl); i < n; i++) {
        sb_timeline_sample p = sb_timeline_point(tl, i);
        if (p.seconds > it.end_seconds)
            break;
        if (p.rss_bytes > best) {
            best = p.rss_bytes;
            it.peak_seconds = p.seconds;
        }
    }
    return it;
}

int spacrbench_measurement_timeline_info(const spacrbench_measurement *m,
                                         spacrbench_timeline_info *out)
{
    SB_REFUSE(!m || !out, "measurement and out must not be NULL");
    const sb_timeline *tl = m->timeline;
    if (!tl)
        return sb_fail(SPACRBENCH_ERANGE, "the measurement has no timeline (benchmark with "
                                          "SPACRBENCH_FLAG_TIMELINE records one)");
    spacrbench_timeline_info info = {sizeof info,
                                     tl->interval_us,
                                     tl->samples,
                                     tl->stride,
                                     SPACRBENCH_TIMELINE_MAX_POINTS,
                                     (int64_t)sb_timeline_count(tl),
                                     (int64_t)tl->item_count,
                                     tl->stride > 1,
                                     0};
    return sb_struct_out(out, &info, sizeof info, "spacrbench_timeline_info");
}

size_t spacrbench_measurement_timeline_count(const spacrbench_measurement *m)
{
    return m && m->timeline ? sb_timeline_count(m->timeline) : 0;
}

size_t spacrbench_measurement_timeline_item_count(const spacrbench_measurement *m)
{
    return m && m->timeline ? m->timeline->item_count : 0;
}

int spacrbench_measurement_timeline_point(const spacrbench_measurement *m, size_t index,
                                          spacrbench_timeline_point *out)
{
    SB_REFUSE(!m || !out, "measurement and out must not be NULL");
    size_t n = spacrbench_measurement_timeline_count(m);
    if (index >= n)
        return sb_fail(SPACRBENCH_ERANGE, "timeline point %zu of %zu", index, n);
    sb_timeline_sample s = sb_timeline_point(m->timeline, index);
    spacrbench_timeline_point p = {sizeof p, s.seconds, s.rss_bytes, s.cgroup_bytes};
    return sb_struct_out(out, &p, sizeof p, "spacrbench_timeline_point");
}

int spacrbench_measurement_timeline_item(const spacrbench_measurement *m, size_t index,
                                         spacrbench_timeline_item *out)
{
    SB_REFUSE(!m || !out, "measurement and out must not be NULL");
    size_t n = spacrbench_measurement_timeline_item_count(m);
    if (index >= n)
        return sb_fail(SPACRBENCH_ERANGE, "timeline item %zu of %zu", index, n);
    spacrbench_timeline_item it = sb_timeline_item(m->timeline, index);
    return sb_struct_out(out, &it, sizeof it, "spacrbench_timeline_item");
}

int spacrbench_measurement_timeline_begin(spacrbench_measurement *m,
                                          const spacrbench_timeline_info *info)
{
    SB_REFUSE(!m || !info, "measurement and info must not be NULL");
    if (m->timeline)
        return sb_fail(SPACRBENCH_EINVAL, "the measurement already has a timeline");
    spacrbench_timeline_info in = {sizeof in, 0, 0, 1, 0, 0, 0, 0, 0};
    int rc = sb_struct_in(&in, sizeof in, info, "spacrbench_timeline_info");
    if (rc)
        return rc;
    if (in.interval_us < 0 || in.samples < 0 || in.stride < 1 || in.stride > (INT64_C(1) << 40))
        return sb_fail(SPACRBENCH_EINVAL, "spacrbench_timeline_info: interval_us and samples "
                                          "must be >= 0, stride 1 to 2^40");
    if (!(m->timeline = sb_timeline_new(in.interval_us, 0)))
        return sb_fail(SPACRBENCH_ENOMEM, "cannot allocate a timeline");
    m->timeline->samples = in.samples;
    m->timeline->stride = in.stride;
    return SPACRBENCH_OK;
}

/* A point (or sample) in, checked: its struct, its order, its CPU figure
 * (NaN: not sampled, else finite >= 0). */
static int point_in(const spacrbench_measurement *m, const spacrbench_timeline_point *p,
                    double cpu_seconds, sb_timeline_sample *out)
{
    sb_clear_error();
    if (!m || !p)
        return sb_fail(SPACRBENCH_EINVAL, "measurement and point must not be NULL");
    if (!m->timeline)
        return sb_fail(SPACRBENCH_EINVAL,
                       "no timeline: call spacrbench_measurement_timeline_begin");
    spacrbench_timeline_point in = {sizeof in, 0.0, -1, -1};
    int rc = sb_struct_in(&in, sizeof in, p, "spacrbench_timeline_point");
    if (rc)
        return rc;
    if (!isfinite(in.seconds) || in.rss_bytes < -1 || in.cgroup_bytes < -1)
        return sb_fail(SPACRBENCH_EINVAL, "spacrbench_timeline_point: seconds must be finite "
                                          "and the sizes >= 0 or -1 (not measured)");
    size_t n = sb_timeline_count(m->timeline);
    if (n && in.seconds < sb_timeline_point(m->timeline, n - 1).seconds)
        return sb_fail(SPACRBENCH_EINVAL,
                       "spacrbench_timeline_point: seconds %g is before "
                       "the previous point's: points come in time order",
                       in.seconds);
    if (!isnan(cpu_seconds) && (!isfinite(cpu_seconds) || cpu_seconds < 0))
        return sb_fail(SPACRBENCH_EINVAL, "cpu_seconds must be NaN (not sampled) or finite >= 0");
    *out = (sb_timeline_sample){in.seconds, in.rss_bytes, in.cgroup_bytes, cpu_seconds};
    return SPACRBENCH_OK;
}

int spacrbench_measurement_timeline_add_sample_cpu(spacrbench_measurement *m,
                                                   const spacrbench_timeline_point *sample,
                                                   double cpu_seconds)
{
    sb_timeline_sample s = {0, 0, 0, NAN};
    int rc = point_in(m, sample, cpu_seconds, &s);
    if (rc == SPACRBENCH_OK)
        sb_timeline_sample_push(m->timeline, &s);
    return rc;
}

int spacrbench_measurement_timeline_add_sample(spacrbench_measurement *m,
                                               const spacrbench_timeline_point *sample)
{
    return spacrbench_measurement_timeline_add_sample_cpu(m, sample, NAN);
}

int spacrbench_measurement_timeline_add_point_cpu(spacrbench_measurement *m,
                                                  const spacrbench_timeline_point *point,
                                                  double cpu_seconds)
{
    sb_timeline_sample s = {0, 0, 0, NAN};
    int rc = point_in(m, point, cpu_seconds, &s);
    return rc ? rc : sb_timeline_point_add(m->timeline, &s);
}

int spacrbench_measurement_timeline_add_point(spacrbench_measurement *m,
                                              const spacrbench_timeline_point *point)
{
    return spacrbench_measurement_timeline_add_point_cpu(m, point, NAN);
}

double spacrbench_measurement_timeline_point_cpu(const spacrbench_measurement *m, size_t index)
{
    if (index >= spacrbench_measurement_timeline_count(m))
        return NAN;
    return sb_timeline_point(m->timeline, index).cpu_seconds;
}

int spacrbench_measurement_timeline_add_item(spacrbench_measurement *m,
                                             const spacrbench_timeline_item *item)
{
    SB_REFUSE(!m || !item, "measurement and item must not be NULL");
    if (!m->timeline)
        return sb_fail(SPACRBENCH_EINVAL,
                       "no timeline: call spacrbench_measurement_timeline_begin");
    spacrbench_timeline_item in = {sizeof in, 0, 0, 0, 0.0, 0.0, -1, NAN};
    int rc = sb_struct_in(&in, sizeof in, item, "spacrbench_timeline_item");
    if (rc)
        return rc;
    if (in.index < 0 || !isfinite(in.start_seconds) || !(in.end_seconds >= in.start_seconds) ||
        !isfinite(in.end_seconds) || in.peak_rss_bytes < -1 ||
        (!isnan(in.peak_seconds) && !isfinite(in.peak_seconds)))
        return sb_fail(SPACRBENCH_EINVAL, "spacrbench_timeline_item: index >= 0, finite "
                                          "start <= end, peak_rss_bytes >= -1 and "
                                          "peak_seconds finite or NaN");
    in.is_warmup = in.is_warmup != 0;
    return sb_timeline_item_add(m->timeline, &in);
}

double spacrbench_measurement_item_cpu_seconds(const spacrbench_measurement *m, size_t index)
{
    if (!m || !m->item_cpu || index >= m->item_cpu_cap || index >= m->record_count)
        return NAN;
    return m->item_cpu[index];
}

int spacrbench_measurement_set_item_cpu_seconds(spacrbench_measurement *m, size_t index,
                                                double cpu_seconds)
{
    SB_REFUSE(!m, "measurement must not be NULL");
    if (!isnan(cpu_seconds) && (!isfinite(cpu_seconds) || cpu_seconds < 0))
        return sb_fail(SPACRBENCH_EINVAL, "cpu_seconds must be NaN (unknown) or finite >= 0");
    size_t had = m->item_cpu_cap;
    if (index >= SIZE_MAX / 2 / sizeof(double))
        return sb_fail(SPACRBENCH_ERANGE, "item %zu is out of range", index);
    if (sb_grow(&m->item_cpu, &m->item_cpu_cap, index + 1, sizeof(double)))
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory for per-item CPU seconds");
    for (size_t i = had; i < m->item_cpu_cap; i++)
        m->item_cpu[i] = NAN;
    m->item_cpu[index] = cpu_seconds;
    return SPACRBENCH_OK;
}
