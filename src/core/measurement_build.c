/* The measurement builder: the one construction of a measurement from
 * per-item figures, used by the runner, `spacrbench run` and the bindings.
 * It owns the warm-up clamp and its notes, the sums and the peak. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core.h"

int spacrbench_run_plan_init(spacrbench_run_plan *plan, size_t size)
{
    SB_REFUSE(!plan || size < sizeof(size_t), "plan must not be NULL and size must hold a size_t");
    const spacrbench_run_plan defaults = {
        sizeof defaults, 1, 1, SPACRBENCH_PEAK_NONE, 1, 0, 0, SPACRBENCH_SOURCE_UNKNOWN, 0};
    size_t n = size < sizeof defaults ? size : sizeof defaults;
    memset(plan, 0, size);
    memcpy(plan, &defaults, n);
    plan->size = size;
    return SPACRBENCH_OK;
}

int spacrbench_item_figures_init(spacrbench_item_figures *item, size_t size)
{
    sb_clear_error();
    const spacrbench_item_figures defaults = {sizeof defaults, 0.0, NAN, -1, -1};
    return sb_struct_init(item, size, &defaults, sizeof defaults, "item",
                          "spacrbench_item_figures");
}

static int check_plan(const spacrbench_run_plan *p)
{
    if (p->items < 1)
        return sb_fail(SPACRBENCH_ENOITEMS, "plan.items is %lld; a run needs at least one item",
                       (long long)p->items);
    if ((uint64_t)p->items > SIZE_MAX / 2 / sizeof(spacrbench_item_record))
        return sb_fail(SPACRBENCH_ENOMEM, "plan.items %lld is more than this machine can hold",
                       (long long)p->items);
    if (p->warmup < 0)
        return sb_fail(SPACRBENCH_EINVAL, "plan.warmup is %lld; it must be >= 0",
                       (long long)p->warmup);
    if (p->peak_method < SPACRBENCH_PEAK_NONE || p->peak_method > SPACRBENCH_PEAK_SUPPLIED)
        return sb_fail(SPACRBENCH_EINVAL, "plan.peak_method %d is not a spacrbench_peak_method",
                       (int)p->peak_method);
    if (p->vram_source < SPACRBENCH_SOURCE_UNKNOWN || p->vram_source > SPACRBENCH_SOURCE_TORCH ||
        p->reserved != 0)
        return sb_fail(SPACRBENCH_EINVAL,
                       "plan.vram_source %d is not a spacrbench_source (or "
                       "plan.reserved is not 0)",
                       (int)p->vram_source);
    if (p->sample_interval_us < 0 || p->baseline_rss_bytes < 0)
        return sb_fail(SPACRBENCH_EINVAL,
                       "plan.sample_interval_us and plan.baseline_rss_bytes must be >= 0");
    return SPACRBENCH_OK;
}

int spacrbench_measurement_begin(const spacrbench_run_plan *plan, spacrbench_measurement **out)
{
    SB_REFUSE(!out, "out must not be NULL");
    *out = NULL;
    if (!plan)
        return sb_fail(SPACRBENCH_EINVAL, "plan must not be NULL");
    spacrbench_run_plan p;
    spacrbench_run_plan_init(&p, sizeof p);
    int rc = sb_struct_in(&p, sizeof p, plan, "spacrbench_run_plan");
    if (rc || (rc = check_plan(&p)))
        return rc;
    spacrbench_measurement *m = sb_measurement_new();
    if (!m)
        return sb_fail(SPACRBENCH_ENOMEM, "cannot allocate a measurement");
    m->building = 1;
    m->plan_items = (size_t)p.items;
    m->warmup = (size_t)p.warmup;
    m->clamped = m->warmup < m->plan_items - 1 ? m->warmup : m->plan_items - 1;
    m->keep_records = p.records != 0;
    m->fig.peak_method = p.peak_method;
    m->fig.sample_interval_us = p.sample_interval_us;
    m->fig.baseline_rss_bytes = p.baseline_rss_bytes;
    m->plan_vram_source = p.vram_source;
    /* Per-item CPU seconds beside the records, reserved (NaN) now too. */
    if (m->keep_records &&
        ((rc = sb_measurement_commit_records(m, m->plan_items)) ||
         (rc = spacrbench_measurement_set_item_cpu_seconds(m, m->plan_items - 1, NAN)))) {
        spacrbench_measurement_free(m);
        return rc;
    }
    *out = m;
    return SPACRBENCH_OK;
}

int spacrbench_measurement_add_item(spacrbench_measurement *m, const spacrbench_item_figures *item)
{
    SB_REFUSE(!m || !item, "measurement and item must not be NULL");
    if (!m->building)
        return sb_fail(SPACRBENCH_EINVAL, "the measurement was not begun with "
                                          "spacrbench_measurement_begin, or has ended");
    if (m->added >= m->plan_items)
        return sb_fail(SPACRBENCH_ERANGE, "item %zu is past the %zu planned", m->added + 1,
                       m->plan_items);
    spacrbench_item_figures f;
    spacrbench_item_figures_init(&f, sizeof f);
    int rc = sb_struct_in(&f, sizeof f, item, "spacrbench_item_figures");
    if (rc)
        return rc;
    if (!isfinite(f.seconds) || f.seconds < 0)
        return sb_fail(SPACRBENCH_EINVAL, "item %zu: seconds must be a finite number >= 0",
                       m->added);
    if (!isnan(f.cpu_seconds) && (!isfinite(f.cpu_seconds) || f.cpu_seconds < 0))
        return sb_fail(SPACRBENCH_EINVAL,
                       "item %zu: cpu_seconds must be NaN (unknown) or a finite number >= 0",
                       m->added);
    if (f.peak_rss_bytes < -1 || f.peak_vram_bytes < -1)
        return sb_fail(SPACRBENCH_EINVAL, "item %zu: peaks must be >= 0 or -1 (not measured)",
                       m->added);
    size_t index = m->added;
    if (m->keep_records && !isnan(f.cpu_seconds) &&
        (rc = spacrbench_measurement_set_item_cpu_seconds(m, m->record_count, f.cpu_seconds)))
        return rc;
    m->added++;
    int warm = index < m->clamped;
    if (m->keep_records)
        m->records[m->record_count++] = (spacrbench_item_record){sizeof(spacrbench_item_record),
                                                                 (int64_t)index,
                                                                 warm,
                                                                 0,
                                                                 f.seconds,
                                                                 f.peak_rss_bytes,
                                                                 f.peak_vram_bytes};
    if (warm) {
        m->fig.warmup_items++;
        m->fig.warmup_seconds += f.seconds;
    } else {
        m->fig.items++;
        m->fig.seconds += f.seconds;
        if (isnan(f.cpu_seconds))
            m->cpu_unknown = 1;
        else
            m->fig.cpu_seconds =
                (isnan(m->fig.cpu_seconds) ? 0.0 : m->fig.cpu_seconds) + f.cpu_seconds;
    }
    m->item_peak = max64(m->item_peak, f.peak_rss_bytes);
    m->item_vram = max64(m->item_vram, f.peak_vram_bytes);
    return SPACRBENCH_OK;
}

void sb_measurement_count_items(spacrbench_measurement *m, size_t done_items)
{
    m->added = done_items;
    m->fig.warmup_items = (int64_t)(done_items < m->clamped ? done_items : m->clamped);
    m->fig.items = (int64_t)(done_items > m->clamped ? done_items - m->clamped : 0);
}

int spacrbench_measurement_mark_stopped(spacrbench_measurement *m, int64_t item_index,
                                        int work_result)
{
    SB_REFUSE(!m, "measurement must not be NULL");
    if (item_index < 0)
        return sb_fail(SPACRBENCH_EINVAL, "item_index is %lld; it must be >= 0",
                       (long long)item_index);
    m->fig.stopped = 1;
    m->fig.stopped_item = item_index;
    m->fig.work_result = work_result;
    return SPACRBENCH_OK;
}

int spacrbench_measurement_end(spacrbench_measurement *m)
{
    SB_REFUSE(!m, "measurement must not be NULL");
    if (!m->building)
        return sb_fail(SPACRBENCH_EINVAL, "the measurement was not begun, or has ended");
    m->building = 0;
    if (m->fig.items == 0 || m->cpu_unknown)
        m->fig.cpu_seconds = NAN;
    if (m->item_peak >= 0)
        m->fig.peak_rss_bytes = max64(m->fig.peak_rss_bytes, m->item_peak);
    if (m->fig.peak_rss_bytes >= 0)
        m->fig.peak_rss_bytes = max64(m->fig.peak_rss_bytes, m->fig.baseline_rss_bytes);
    else if (m->fig.peak_method != SPACRBENCH_PEAK_SUPPLIED)
        m->fig.peak_method = SPACRBENCH_PEAK_NONE;
    if (m->vram_reason) /* said while building: the items' VRAM was not measured */
        sb_measurement_drop_vram(m);
    if (m->item_vram >= 0) {
        m->fig.peak_vram_bytes = max64(m->fig.peak_vram_bytes, m->item_vram);
        if (m->fig.vram_source == SPACRBENCH_SOURCE_UNKNOWN)
            m->fig.vram_source = m->plan_vram_source;
    }
    int rc = SPACRBENCH_OK;
    /* spaCR's exact note first; what spacrbench adds is a note of its own. */
    if (m->clamped)
        rc = sb_measurement_spacr_notef(m, "%zu warm-up item(s) excluded from the timing",
                                        m->clamped);
    if (!rc && m->clamped)
        rc = sb_measurement_notef(m, "the warm-up item(s)' memory counts toward the peak RSS");
    if (!rc && m->clamped < m->warmup)
        rc = sb_measurement_notef(m,
                                  "warm-up of %zu clamped to %zu so the last item is "
                                  "measured",
                                  m->warmup, m->clamped);
    return rc;
}

int spacrbench_measurement_mark_out_of_memory(spacrbench_measurement *m, int64_t limit_bytes)
{
    SB_REFUSE(!m, "measurement must not be NULL");
    if (limit_bytes <= 0)
        return sb_fail(SPACRBENCH_EINVAL, "limit_bytes is %lld; it must be > 0",
                       (long long)limit_bytes);
    m->fig.oom_limit_bytes = limit_bytes;
    m->item_peak = max64(m->item_peak, limit_bytes);
    m->fig.peak_rss_bytes = max64(m->fig.peak_rss_bytes, limit_bytes);
    return SPACRBENCH_OK;
}
