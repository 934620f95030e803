/* One answer: when a scaling check ran, its measured knee is the
 * recommendation, within the serial bounds (memory, VRAM, the maximum):
 * the serial rule says how many workers CAN run, the check says how many
 * are WORTH running. The arithmetic (knee_workers) is apart from the
 * sentence that explains it. */
#include <stdio.h>
#include <string.h>

#include "scale.h"

/* The serial upper bound: the smallest of the memory, VRAM and maximum
 * rules that apply (the cores are not one: the check measured them). */
static int64_t serial_bound(const spacrbench_recommendation *r)
{
    int64_t bound = r->maximum > 0 ? r->maximum : INT64_MAX;
    if (r->memory_workers >= 0 && r->memory_workers < bound)
        bound = r->memory_workers;
    if (r->vram_workers >= 0 && r->vram_workers < bound)
        bound = r->vram_workers;
    return bound < 1 ? 1 : bound;
}

/* The knee clipped to the serial bound; *bound_binds when it clipped.
 * -1 when the check has no usable count. */
static int64_t knee_workers(const spacrbench_recommendation *r, const spacrbench_scale_summary *s,
                            int *bound_binds)
{
    *bound_binds = 0;
    if (s->chosen_workers < 1)
        return -1;
    int64_t bound = serial_bound(r);
    if (s->chosen_workers > bound) {
        *bound_binds = 1;
        return bound;
    }
    return s->chosen_workers;
}

/* The smallest count that exceeded the memory (OOM-killed, or a peak over
 * the budget), -1 when none did: no more workers than one below it fit. */
static int64_t smallest_over(const spacrbench_scale_result *sc)
{
    int64_t k = -1;
    for (size_t i = 0; i < sc->n_points; i++)
        if ((sc->spreads[i].oom_killed || sc->points[i].fits == 0) &&
            (k < 0 || sc->points[i].workers < k))
            k = sc->points[i].workers;
    return k;
}

/* What to do when no count was usable, from what the points say: the
 * advice for one worker only where the 1-worker count was measured over. */
static void no_count_advice(const spacrbench_scale_result *sc, char *buf, size_t cap)
{
    int over = 0, outside = 0, failed = 0;
    for (size_t i = 0; i < sc->n_points; i++) {
        over |= sc->spreads[i].oom_killed == 1 || sc->spreads[i].oom_killed == 3 ||
                sc->points[i].fits == 0;
        outside |= sc->spreads[i].oom_killed == 2;
        failed |= sc->points[i].failed && !sc->spreads[i].oom_killed;
    }
    const char *limit = over ? "the budget" : "the memory limit above the check";
    if (smallest_over(sc) == 1)
        snprintf(buf, cap,
                 "even one worker needs more memory than %s: run one at a time with smaller "
                 "items, give the job more memory (a larger limit or --mem), or lower the "
                 "reserve",
                 limit);
    else if (over || outside)
        snprintf(
            buf, cap,
            "every count measured needs more memory than %s: measure fewer workers "
            "(include 1 among the counts), give the job more memory (a larger limit or --mem), "
            "or lower the reserve",
            limit);
    else if (failed)
        snprintf(buf, cap,
                 "the work failed in the check's workers: fix the failure its notes name and "
                 "run the check again");
    else
        snprintf(buf, cap, "measure again with more items or a longer minimum time");
}

int spacrbench_recommend_apply_scaling(spacrbench_recommendation *rec,
                                       const spacrbench_scale_result *scaling)
{
    sb_clear_error();
    if (!rec || !scaling)
        return sb_fail(SPACRBENCH_EINVAL, "%s must not be NULL", rec ? "scaling" : "rec");
    if (rec->size < offsetof(spacrbench_recommendation, reason) + sizeof rec->reason)
        return sb_fail(SPACRBENCH_EINVAL, "rec->size %zu is too small", rec->size);
    const spacrbench_scale_summary *s = &scaling->summary;
    int binds = 0;
    int64_t workers = knee_workers(rec, s, &binds);
    char serial[sizeof rec->reason];
    memcpy(serial, rec->reason, sizeof serial);
    serial[sizeof serial - 1] = '\0';
    if (workers < 0) {
        char advice[300];
        no_count_advice(scaling, advice, sizeof advice);
        /* The verdict starts with the same words; say them once. */
        static const char lead[] = "no usable worker count; ";
        const char *why = strncmp(s->reason, lead, sizeof lead - 1) == 0
                              ? s->reason + sizeof lead - 1
                              : s->reason;
        sb_reason_add(rec, "; the scaling check found no usable worker count (%s): %s", why,
                      advice);
        /* The number follows the advice: fewer workers than the smallest
         * count that did not fit (one worker over it: one at a time),
         * whatever the cores allow; never below 1. */
        int64_t over = smallest_over(scaling);
        if (over > 1 && rec->workers >= over) {
            rec->workers = over - 1;
            sb_reason_add(rec,
                          "; so at most %lld, below the %lld workers "
                          "that did not fit",
                          (long long)rec->workers, (long long)over);
        } else if (over == 1)
            rec->workers = 1;
        return SPACRBENCH_OK;
    }
    if (binds) /* A serial bound is lower: upstream's words lead, the knee follows. */
        sb_reason_add(rec, "; the scaling check's knee (%lld) is above this bound",
                      (long long)s->chosen_workers);
    else {
        rec->reason[0] = '\0';
        sb_reason_add(
            rec,
            "measured: %lld worker%s, the scaling check's knee (%s); the serial rule said "
            "%lld (%s)",
            (long long)workers, workers == 1 ? "" : "s", s->reason, (long long)rec->workers,
            serial);
    }
    rec->workers = workers;
    return SPACRBENCH_OK;
}
