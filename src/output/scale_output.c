/* The scaling check as text (a table and the verdict) and as JSON (the
 * "scaling" list and "scaling_workers"), snprintf-style. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "json_writer.h"
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

static int check_out(const spacrbench_scale_result *r, const char *buf, size_t cap)
{
    sb_clear_error();
    if (!r)
        return sb_fail(SPACRBENCH_EINVAL, "result must not be NULL");
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
                           r->spreads[i].oom_killed == 2 ? "OOM-killed (a limit outside the group)"
                           : r->spreads[i].oom_killed    ? "OOM-killed in the group (over budget)"
                                                         : "failed");
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

static void nullable_int(json_writer *w, const char *key, int64_t v)
{
    if (v < 0)
        json_null(w, key);
    else
        json_int(w, key, v);
}

int spacrbench_scale_to_json(const spacrbench_scale_result *r, char *buf, size_t cap)
{
    int rc = check_out(r, buf, cap);
    if (rc)
        return rc;
    const spacrbench_scale_summary *s = &r->summary;
    json_writer w;
    json_init(&w, 0);
    json_begin_object(&w, NULL);
    json_begin_array(&w, "scaling");
    for (size_t i = 0; i < r->n_points; i++) {
        const spacrbench_scale_point *p = &r->points[i];
        json_begin_object(&w, NULL);
        json_int(&w, "workers", p->workers);
        json_int(&w, "items", p->items);
        json_double(&w, "seconds", p->seconds);
        json_double(&w, "items_per_second", p->items_per_second);
        json_double(&w, "speedup", p->speedup);
        json_double(&w, "efficiency", p->efficiency);
        json_double(&w, "mean_item_seconds", p->mean_item_seconds);
        nullable_int(&w, "peak_bytes", p->peak_bytes);
        json_string(&w, "peak_method", spacrbench_peak_method_name(p->peak_method));
        nullable_int(&w, "vram_peak_bytes", p->vram_peak_bytes);
        if (p->fits < 0)
            json_null(&w, "fits");
        else
            json_bool(&w, "fits", p->fits);
        json_bool(&w, "failed", p->failed);
        const spacrbench_scale_spread *sp = &r->spreads[i];
        json_int(&w, "repeats", sp->repeats);
        json_double(&w, "spread", sp->spread);
        json_double(&w, "items_per_second_min", sp->items_per_second_min);
        json_double(&w, "items_per_second_max", sp->items_per_second_max);
        nullable_int(&w, "warmup_items", sp->warmup_items);
        json_bool(&w, "oom_killed", sp->oom_killed);
        nullable_int(&w, "group_limit_bytes", sp->limit_bytes);
        json_end_object(&w);
    }
    json_end_array(&w);
    nullable_int(&w, "scaling_workers", s->chosen_workers);
    nullable_int(&w, "scaling_best_workers", s->best_workers);
    json_string(&w, "scaling_reason", s->reason);
    json_string(&w, "scaling_verdict", spacrbench_scale_verdict_name(s->verdict));
    nullable_int(&w, "scaling_budget_bytes", s->memory_budget_bytes);
    json_string(&w, "scaling_peak_method", spacrbench_peak_method_name(s->peak_method));
    json_begin_array(&w, "scaling_notes");
    for (size_t i = 0; i < r->n_notes; i++)
        json_string(&w, NULL, r->notes[i]);
    json_end_array(&w);
    json_end_object(&w);
    const char *doc = json_result(&w);
    sb_text t = {NULL, 0, 0, 0};
    if (doc)
        sb_text_printf(&t, "%s", doc);
    else
        t.failed = 1;
    json_free(&w);
    return sb_text_deliver(&t, buf, cap);
}
