/* The sentence of the worker-count rule (recommend_rule.h): the reason
 * of each bound, spaCR's words and number format first ("core-bound: 16
 * core(s), and memory would allow 11"), spacrbench's after them. Its
 * first words are stable (docs/advice.md). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "recommend_rule.h"

/* Append to the reason; a reason never overflows its field. */
static void reason_add(spacrbench_recommendation *r, const char *fmt, ...) SB_PRINTF(2, 3);
static void reason_add(spacrbench_recommendation *r, const char *fmt, ...)
{
    size_t len = strnlen(r->reason, sizeof r->reason);
    if (len + 1 >= sizeof r->reason)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->reason + len, sizeof r->reason - len, fmt, ap);
    va_end(ap);
}

/* Ours after upstream's words: how many cores one worker keeps busy. */
static void reason_cores_per_worker(spacrbench_recommendation *r)
{
    if (r->cores_per_worker > 1)
        reason_add(r, "; each worker keeps %.1f cores busy, so %lld worker(s)", r->cpu_parallelism,
                   (long long)r->core_workers);
}

static void reason_start_method(spacrbench_recommendation *r)
{
    char base[32];
    if (r->baseline_bytes <= 0)
        return;
    sb_format_bytes(base, sizeof base, r->baseline_bytes);
    reason_add(r, "; %s workers each also load the %s baseline",
               spacrbench_start_method_name(r->start_method), base);
}

void sb_recommend_explain(spacrbench_recommendation *r, const sb_decision *d)
{
    char need[32], budget_text[32], where_note[320] = "", where_tail[320] = "";
    int64_t budget = d->budget;
    if (r->memory_source != SPACRBENCH_SOURCE_HOST &&
        r->memory_source != SPACRBENCH_SOURCE_CALLER) {
        snprintf(where_note, sizeof where_note, " (%.300s)", r->memory_where);
        snprintf(where_tail, sizeof where_tail, "; memory from %.300s", r->memory_where);
    }
    /* Upstream's branches print sizes as "%.2f GiB": their sentence comes
     * first, unchanged, and what spacrbench adds follows after "; ". */
    const double gib = 1024.0 * 1024.0 * 1024.0;
    r->reason[0] = '\0';
    switch (d->one) {
    case SB_ONE_OOM:
        sb_format_bytes(need, sizeof need, r->oom_limit_bytes);
        sb_format_bytes(budget_text, sizeof budget_text, budget);
        reason_add(r,
                   "one worker needs more than %s (an item was OOM-killed at that limit) and %s "
                   "is free after the reserve%s; one worker at a time is what fits, if any does",
                   need, budget_text, where_note);
        return;
    case SB_ONE_MEMORY:
        snprintf(r->reason, sizeof r->reason,
                 "one worker needs %.2f GiB and only %.2f GiB is free after the reserve; one "
                 "worker at a time is what fits%s",
                 (double)r->per_worker_bytes / gib, (double)budget / gib, where_tail);
        reason_start_method(r);
        return;
    case SB_ONE_VRAM:
        sb_format_bytes(need, sizeof need, r->per_worker_vram_bytes);
        sb_format_bytes(budget_text, sizeof budget_text,
                        r->free_vram_bytes > r->vram_reserve_bytes
                            ? r->free_vram_bytes - r->vram_reserve_bytes
                            : 0);
        snprintf(r->reason, sizeof r->reason,
                 "one worker needs %s of VRAM and only %s of VRAM is free after the VRAM "
                 "reserve; one worker at a time is what fits",
                 need, budget_text);
        return;
    case SB_ONE_NONE:
        break;
    }
    switch (r->bound) {
    case SPACRBENCH_BOUND_MEMORY:
        snprintf(r->reason, sizeof r->reason,
                 "memory-bound: %.2f GiB free after the reserve, %.2f GiB per worker, %lld "
                 "cores available%s",
                 (double)budget / gib, (double)r->per_worker_bytes / gib, (long long)r->cores,
                 where_tail);
        reason_start_method(r);
        break;
    case SPACRBENCH_BOUND_VRAM:
        sb_format_bytes(need, sizeof need, r->per_worker_vram_bytes);
        sb_format_bytes(budget_text, sizeof budget_text,
                        r->free_vram_bytes - r->vram_reserve_bytes);
        snprintf(r->reason, sizeof r->reason,
                 "VRAM-bound: %s of VRAM free after the VRAM reserve, %s per worker, %lld "
                 "cores available",
                 budget_text, need, (long long)r->cores);
        break;
    case SPACRBENCH_BOUND_FALLBACK: {
        const char *why = "";
        if (r->per_worker_bytes == 0)
            why = "; the work measured 0 B above its baseline";
        else if (r->per_worker_bytes > 0)
            why = "; available memory could not be read";
        char cap[64] = "";
        if (r->workers < r->core_workers)
            snprintf(cap, sizeof cap, "; capped at the %lld-worker maximum", (long long)r->maximum);
        snprintf(r->reason, sizeof r->reason,
                 "%lld core(s); no usable memory measurement, so the core count is the only "
                 "bound%s%s",
                 (long long)r->cores, why, cap);
        reason_cores_per_worker(r);
        break;
    }
    case SPACRBENCH_BOUND_CORES:
        snprintf(r->reason, sizeof r->reason,
                 "core-bound: %lld core(s), and memory would allow %lld", (long long)r->cores,
                 (long long)r->memory_workers);
        reason_cores_per_worker(r);
        break;
    default:
        snprintf(r->reason, sizeof r->reason, "capped at the %lld-worker maximum",
                 (long long)r->maximum);
        break;
    }
}
