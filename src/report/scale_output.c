/* The scaling check as text (a table and the verdict) and as JSON (the
 * "scaling" list and "scaling_workers", by the field tables of
 * src/records/), snprintf-style. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "scale.h"

static const char *method_words(int method)
{
    switch (method) {
    case SPACRBENCH_PEAK_CGROUP:
        return "a memory cgroup of the workers: exact, page cache included";
    case SPACRBENCH_PEAK_PSS_SUM:
        return "sum of the workers' PSS, sampled at least 20 ms apart (within 0.5 % of a "
               "core; the notes say how often): may miss short spikes";
    case SPACRBENCH_PEAK_CHILD_RUSAGE:
        return "the copies' processes (VmHWM of those alive together, sampled; ru_maxrss): "
               "an upper bound, page cache not included";
    case SPACRBENCH_PEAK_NONE:
        return "not measured (or mixed)";
    default:
        return spacrbench_peak_method_name(method);
    }
}

/* A failed point's row: what ended it (spacrbench_scale_spread.oom_killed). */
static const char *failed_words(int32_t oom_killed)
{
    static const char *const words[] = {
        "failed", "OOM-killed in the group (over budget)", "OOM-killed (a limit outside the group)",
        "ended by spacrbench at the memory budget (no cgroup could hold the limit)"};
    return words[oom_killed >= 1 && oom_killed <= 3 ? oom_killed : 0];
}

static int check_out(const spacrbench_scale_result *r, const char *buf, size_t cap)
{
    SB_REFUSE(!r, "result must not be NULL");
    if (!buf && cap)
        return sb_fail(SPACRBENCH_EINVAL, "buf is NULL but cap is %zu", cap);
    return SPACRBENCH_OK;
}

int spacrbench_format_scaling(const spacrbench_scale_result *r, char *buf, size_t cap)
{
    int rc = check_out(r, buf, cap);
    if (rc)
        return rc;
    const spacrbench_scale_summary *s = &r->summary;
    sb_text t = {NULL, 0, 0, 0};
    char peak[32];
    /* The VRAM column only where some point measured it. */
    int vram = 0, spread = 0;
    for (size_t i = 0; i < r->n_points; i++) {
        vram |= r->points[i].vram_peak_bytes >= 0;
        spread |= isfinite(r->spreads[i].spread);
    }
    sb_text_printf(&t,
                   "Scaling check\n  workers     items/s  speed-up  efficiency    group peak"
                   "  per item%s%s\n",
                   vram ? "    group VRAM" : "", spread ? "    spread" : "");
    for (size_t i = 0; i < r->n_points; i++) {
        const spacrbench_scale_point *p = &r->points[i];
        sb_format_bytes(peak, sizeof peak, p->peak_bytes);
        if (p->failed) {
            sb_text_printf(&t, "  %7lld      %s\n", (long long)p->workers,
                           failed_words(r->spreads[i].oom_killed));
            continue;
        }
        sb_text_printf(&t, "  %7lld  %10.3f", (long long)p->workers, p->items_per_second);
        if (isfinite(p->speedup))
            sb_text_printf(&t, "  %7.2fx  %8.0f %%", p->speedup, 100.0 * p->efficiency);
        else
            sb_text_printf(&t, "  %8s  %10s", "-", "-");
        sb_text_printf(&t, "  %12s", peak);
        if (isfinite(p->mean_item_seconds))
            sb_text_printf(&t, "  %7.3f s", p->mean_item_seconds);
        else
            sb_text_printf(&t, "  %9s", "-");
        if (vram) {
            sb_format_bytes(peak, sizeof peak, p->vram_peak_bytes);
            sb_text_printf(&t, "  %12s", p->vram_peak_bytes >= 0 ? peak : "-");
        }
        if (spread && isfinite(r->spreads[i].spread))
            sb_text_printf(&t, "  \xc2\xb1%5.1f %% (%lldx)", 100.0 * r->spreads[i].spread,
                           (long long)r->spreads[i].repeats);
        else if (spread)
            sb_text_printf(&t, "  %10s", "-");
        sb_text_printf(&t, "%s%s\n", p->fits == 0 ? "  over budget" : "",
                       p->workers == s->chosen_workers ? "  <- knee" : "");
    }
    if (s->chosen_workers > 0)
        sb_text_printf(&t, "  verdict             %lld worker%s: %s\n",
                       (long long)s->chosen_workers, s->chosen_workers == 1 ? "" : "s", s->reason);
    else
        sb_text_printf(&t, "  verdict             none: %s\n", s->reason);
    sb_text_printf(&t,
                   "  knee rule           smallest count within 10 %% of the best "
                   "throughput that fits the memory budget%s\n",
                   spread ? " (or within the two counts' spreads added, where larger)" : "");
    if (r->n_points && r->spreads[0].warmup_items >= 0 && r->spreads[0].repeats > 0)
        sb_text_printf(&t,
                       "  timing              %lld warm-up item(s) per worker untimed, then "
                       "%lld+ timed repeat(s)\n",
                       (long long)r->spreads[0].warmup_items, (long long)r->spreads[0].repeats);
    sb_format_bytes(peak, sizeof peak, s->memory_budget_bytes);
    sb_text_printf(&t, "  memory budget       %s\n", s->memory_budget_bytes < 0 ? "unknown" : peak);
    sb_text_printf(&t, "  group peak          %s\n", method_words(s->peak_method));
    for (size_t i = 0; i < r->n_notes; i++)
        sb_text_printf(&t, "  note: %s\n", r->notes[i]);
    return sb_text_deliver(&t, buf, cap);
}

static void write_lists(void *ctx, json_writer *w, const sb_field *f)
{
    const spacrbench_scale_result *r = ctx;
    json_begin_array(w, f->key);
    if (f->extra == &sb_scale_point_record)
        for (size_t i = 0; i < r->n_points; i++) {
            const void *parts[] = {&r->points[i], &r->spreads[i]};
            sb_record_write(w, NULL, &sb_scale_point_record, parts, NULL);
        }
    else /* the notes */
        for (size_t i = 0; i < r->n_notes; i++)
            json_string(w, NULL, r->notes[i]);
    json_end_array(w);
}

int spacrbench_scale_to_json(const spacrbench_scale_result *r, char *buf, size_t cap)
{
    int rc = check_out(r, buf, cap);
    if (rc)
        return rc;
    const sb_record_io io = {(void *)r, write_lists, NULL};
    const void *parts[] = {&r->summary};
    return sb_json_deliver_record(&sb_scale_record, parts, &io, buf, cap);
}
