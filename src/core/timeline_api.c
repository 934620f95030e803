/* The public face of a measurement's timeline (timeline.h) and of its
 * per-item CPU seconds: size-versioned structs in and out. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "grow.h"

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

static int point_in(const spacrbench_measurement *m, const spacrbench_timeline_point *p,
                    sb_timeline_sample *out)
{
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
    *out = (sb_timeline_sample){in.seconds, in.rss_bytes, in.cgroup_bytes, NAN};
    return SPACRBENCH_OK;
}

/* A CPU figure of a point: NaN (not sampled) or finite >= 0. */
static int cpu_in(double cpu_seconds, double *out)
{
    if (!isnan(cpu_seconds) && (!isfinite(cpu_seconds) || cpu_seconds < 0))
        return sb_fail(SPACRBENCH_EINVAL, "cpu_seconds must be NaN (not sampled) or finite >= 0");
    *out = cpu_seconds;
    return SPACRBENCH_OK;
}

int spacrbench_measurement_timeline_add_sample_cpu(spacrbench_measurement *m,
                                                   const spacrbench_timeline_point *sample,
                                                   double cpu_seconds)
{
    sb_clear_error();
    sb_timeline_sample s = {0, 0, 0, NAN};
    int rc = point_in(m, sample, &s);
    if (rc || (rc = cpu_in(cpu_seconds, &s.cpu_seconds)))
        return rc;
    sb_timeline_sample_push(m->timeline, &s);
    return SPACRBENCH_OK;
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
    sb_clear_error();
    sb_timeline_sample s = {0, 0, 0, NAN};
    int rc = point_in(m, point, &s);
    if (rc || (rc = cpu_in(cpu_seconds, &s.cpu_seconds)))
        return rc;
    return sb_timeline_point_add(m->timeline, &s);
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
