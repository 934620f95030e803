/* The sentence of the worker-count rule (recommend_rule.h): the reason
 * of each bound, spaCR's words and number format first ("core-bound: 16
 * core(s), and memory would allow 11"), spacrbench's after them. Its
 * first words are stable (docs/advice.md). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core.h"
#include "internal.h"

void sb_reason_add(spacrbench_recommendation *r, const char *fmt, ...)
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
        sb_reason_add(r, "; each worker keeps %.1f cores busy, so %lld worker(s)",
                      r->cpu_parallelism, (long long)r->core_workers);
}

static void reason_start_method(spacrbench_recommendation *r)
{
    char base[32];
    if (r->baseline_bytes <= 0)
        return;
    sb_format_bytes(base, sizeof base, r->baseline_bytes);
    sb_reason_add(r, "; %s workers each also load the %s baseline",
                  spacrbench_start_method_name(r->start_method), base);
}

/* Upstream's branches print sizes as "%.2f GiB": their sentence comes
 * first, unchanged, and what spacrbench adds follows after "; ". */
#define GIB (1024.0 * 1024.0 * 1024.0)

/* Where the memory figure came from, for a source that is neither the
 * host nor the caller: " (...)" inside a sentence, "; memory from ..."
 * after one; both empty otherwise. */
static void memory_where(const spacrbench_recommendation *r, char *note, size_t note_cap,
                         char *tail, size_t tail_cap)
{
    if (r->memory_source == SPACRBENCH_SOURCE_HOST || r->memory_source == SPACRBENCH_SOURCE_CALLER)
        return;
    snprintf(note, note_cap, " (%.300s)", r->memory_where);
    snprintf(tail, tail_cap, "; memory from %.300s", r->memory_where);
}

/* The sentences where one worker at a time is the answer (an item was
 * OOM-killed, or one worker's memory or VRAM exceeds what is free).
 * Returns 0, writing nothing, where the bound decides instead. */
static int explain_one_worker(spacrbench_recommendation *r, const sb_decision *d,
                              const char *where_note, const char *where_tail)
{
    char need[32], budget_text[32];
    switch (d->one) {
    case SB_ONE_OOM:
        sb_format_bytes(need, sizeof need, r->oom_limit_bytes);
        sb_format_bytes(budget_text, sizeof budget_text, d->budget);
        sb_reason_add(r,
                      "one worker needs more than %s (an item was OOM-killed at that limit) and %s "
                      "is free after the reserve%s; one worker at a time is what fits, if any does",
                      need, budget_text, where_note);
        return 1;
    case SB_ONE_MEMORY:
        snprintf(r->reason, sizeof r->reason,
                 "one worker needs %.2f GiB and only %.2f GiB is free after the reserve; one "
                 "worker at a time is what fits%s",
                 (double)r->per_worker_bytes / GIB, (double)d->budget / GIB, where_tail);
        reason_start_method(r);
        return 1;
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
        return 1;
    case SB_ONE_NONE:
        break;
    }
    return 0;
}

static void explain_vram_bound(spacrbench_recommendation *r)
{
    char need[32], budget_text[32];
    sb_format_bytes(need, sizeof need, r->per_worker_vram_bytes);
    sb_format_bytes(budget_text, sizeof budget_text, r->free_vram_bytes - r->vram_reserve_bytes);
    snprintf(r->reason, sizeof r->reason,
             "VRAM-bound: %s of VRAM free after the VRAM reserve, %s per worker, %lld "
             "cores available",
             budget_text, need, (long long)r->cores);
}

/* No usable memory measurement: the cores decide, and the reason says
 * why the memory could not. */
static void explain_fallback(spacrbench_recommendation *r)
{
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
}

void sb_recommend_explain(spacrbench_recommendation *r, const sb_decision *d)
{
    char where_note[320] = "", where_tail[320] = "";
    memory_where(r, where_note, sizeof where_note, where_tail, sizeof where_tail);
    r->reason[0] = '\0';
    if (explain_one_worker(r, d, where_note, where_tail))
        return;
    switch (r->bound) {
    case SPACRBENCH_BOUND_MEMORY:
        snprintf(r->reason, sizeof r->reason,
                 "memory-bound: %.2f GiB free after the reserve, %.2f GiB per worker, %lld "
                 "cores available%s",
                 (double)d->budget / GIB, (double)r->per_worker_bytes / GIB, (long long)r->cores,
                 where_tail);
        reason_start_method(r);
        break;
    case SPACRBENCH_BOUND_VRAM:
        explain_vram_bound(r);
        break;
    case SPACRBENCH_BOUND_FALLBACK:
        explain_fallback(r);
        break;
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
