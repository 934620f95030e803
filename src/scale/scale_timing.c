/* How the scaling check times a count and which counts it measures: the
 * timing's ranges, the items a round asks of each worker (a round shorter
 * than min_seconds is redone with more, sized from that timed round's own
 * pace, so the items only ever grow), the repeats' spread and when they
 * stop, the default counts and their top. Pure: every front end's rounds
 * follow these, through the one driver (scale_driver.c). */
#include <math.h>

#include "scale.h"

int sb_scale_check_timing(const spacrbench_scale_timing *t)
{
    if (t->warmup_items < 0 || t->warmup_items > 1000000)
        return sb_fail(SPACRBENCH_EINVAL, "warmup_items is %lld; use 0 to 1000000",
                       (long long)t->warmup_items);
    if (t->min_items < 1 || t->min_items > SPACRBENCH_SCALE_MAX_ROUND_ITEMS)
        return sb_fail(SPACRBENCH_EINVAL, "min_items is %lld; use 1 to %d", (long long)t->min_items,
                       SPACRBENCH_SCALE_MAX_ROUND_ITEMS);
    if (!(t->min_seconds >= 0 && t->min_seconds <= 86400))
        return sb_fail(SPACRBENCH_EINVAL, "min_seconds is %g; use 0 to 86400", t->min_seconds);
    if (t->min_repeats < 1 || t->max_repeats < t->min_repeats ||
        t->max_repeats > SB_SCALE_MAX_REPEATS)
        return sb_fail(SPACRBENCH_EINVAL,
                       "min_repeats %lld, max_repeats %lld; use 1 <= min <= max <= %d",
                       (long long)t->min_repeats, (long long)t->max_repeats, SB_SCALE_MAX_REPEATS);
    if (!(t->target_spread >= 0 && t->target_spread <= 100))
        return sb_fail(SPACRBENCH_EINVAL, "target_spread is %g; use 0 to 100", t->target_spread);
    return SPACRBENCH_OK;
}

void sb_scale_spread_of(const double *ips, size_t n, spacrbench_scale_spread *sp)
{
    double lo = INFINITY, hi = -INFINITY, sum = 0;
    size_t used = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(ips[i])) {
            lo = ips[i] < lo ? ips[i] : lo;
            hi = ips[i] > hi ? ips[i] : hi;
            sum += ips[i];
            used++;
        }
    sp->repeats = (int64_t)used;
    sp->items_per_second_min = used ? lo : NAN;
    sp->items_per_second_max = used ? hi : NAN;
    sp->spread = used >= 2 && sum > 0 ? (hi - lo) / (2.0 * sum / (double)used) : NAN;
}

int sb_scale_want_repeat(const spacrbench_scale_timing *t, const double *ips, size_t n)
{
    if ((int64_t)n < t->min_repeats)
        return 1;
    if ((int64_t)n >= t->max_repeats)
        return 0;
    spacrbench_scale_spread sp;
    spacrbench_scale_spread_init(&sp, sizeof sp);
    sb_scale_spread_of(ips, n, &sp);
    return isfinite(sp.spread) && sp.spread > t->target_spread;
}

int sb_scale_round_short(const spacrbench_scale_timing *t, int64_t items, double seconds, int grown)
{
    return seconds < t->min_seconds && items < SPACRBENCH_SCALE_MAX_ROUND_ITEMS &&
           grown < SB_SCALE_MAX_GROW;
}

int64_t sb_scale_grown_items(const spacrbench_scale_timing *t, int64_t items, double seconds)
{
    double want = seconds > 0 ? ceil(1.2 * t->min_seconds * (double)items / seconds)
                              : (double)SPACRBENCH_SCALE_MAX_ROUND_ITEMS;
    if (want < (double)items + 1)
        want = (double)items + 1;
    return want > SPACRBENCH_SCALE_MAX_ROUND_ITEMS ? SPACRBENCH_SCALE_MAX_ROUND_ITEMS
                                                   : (int64_t)want;
}

size_t sb_scale_default_counts(int64_t top, int64_t *counts, size_t cap)
{
    size_t n = 0;
    for (int64_t k = 2; k < top && n + 1 < cap; k *= 2)
        counts[n++] = k;
    if (top > 1 && n < cap)
        counts[n++] = top;
    return n;
}

int64_t sb_scale_top_count(int64_t cores, int64_t budget, int64_t peak1)
{
    int64_t top = cores < 1 ? 1 : cores;
    if (budget >= 0 && peak1 > 0 && budget / peak1 + 1 < top)
        top = budget / peak1 + 1;
    return top > SPACRBENCH_SCALE_MAX_WORKERS ? SPACRBENCH_SCALE_MAX_WORKERS : top;
}
