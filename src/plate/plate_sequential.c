/* Measuring a plate sequentially (plate.h): after each measured item,
 * whether the next one is worth measuring. The prediction for the plate's
 * largest (the bound of plate_model.c) only grows as items are added; once
 * it has stopped moving, another item is unlikely to move it, and the
 * plate's time is better spent on the plate itself. */
#include <math.h>
#include <stdlib.h>

#include "plate.h"

size_t sb_plate_sequential_cap(size_t n, double cost)
{
    /* The minimum, and as many more as the cost allows at the plate's
     * typical item (slower or faster items end it sooner or later: the
     * cost is checked in seconds). */
    double cap = (double)sb_plate_auto_sample(n) + ceil(cost * (double)n);
    return cap < (double)n ? (size_t)cap : n;
}

/* The bound of the first k sample items among the first r picks. */
static double bound_after(const spacrbench_plate *p, const int64_t *peaks, size_t r, size_t k,
                          double *x, double *y)
{
    double largest = -1;
    size_t got = 0;
    for (size_t i = 0; i < r && got < k; i++) {
        double f = peaks[i] < 0 ? -1 : (double)peaks[i];
        largest = f > largest ? f : largest;
        if (p->picks[i].is_warmup || f < 0)
            continue;
        x[got] = p->picks[i].key;
        y[got++] = f;
    }
    sb_plate_memory mm;
    sb_plate_memory_model(x, y, got, p->keys != NULL, largest, p->n, &mm);
    return mm.bound;
}

int sb_plate_more_after(const spacrbench_plate *p, const int64_t *peaks, const double *seconds,
                        size_t r)
{
    if (r >= p->n_picks)
        return 0;
    if (p->sample_asked != 0) /* a sample the user fixed: all of it */
        return 1;
    size_t k = 0, least = sb_plate_auto_sample(p->n);
    double spent = 0, sample_seconds = 0, beyond = 0;
    for (size_t i = 0; i < r; i++) {
        double s = seconds && isfinite(seconds[i]) && seconds[i] > 0 ? seconds[i] : 0;
        spent += s;
        if (!p->picks[i].is_warmup && peaks[i] >= 0) {
            beyond += ++k > least ? s : 0;
            sample_seconds += s;
        }
    }
    if (k < least)
        return 1;
    /* The cost: what was measured beyond the least sample against the
     * plate's serial time, the items not measured at the sample's mean. */
    double serial = spent + (double)(p->n - r) * sample_seconds / (double)k;
    if (serial > 0 && beyond >= p->cost * serial)
        return 0;
    double *x = malloc(2 * k * sizeof *x);
    if (!x) /* no memory to decide: the least sample */
        return 0;
    int moving = 0;
    double now = bound_after(p, peaks, r, k, x, x + k);
    for (size_t back = 1; back <= SB_PLATE_STEADY_STEPS && back < k && !moving; back++) {
        double before = bound_after(p, peaks, r, k - back, x, x + k);
        moving = now > before * (1 + SB_PLATE_STEADY);
        now = before;
    }
    free(x);
    return moving;
}

int spacrbench_plate_more(const spacrbench_plate *p, size_t measured, const int64_t *peak_rss_bytes,
                          const double *seconds, int *more)
{
    sb_clear_error();
    if (more)
        *more = 0;
    if (!p || !more || (measured && !peak_rss_bytes))
        return sb_fail(SPACRBENCH_EINVAL, "plate, more and (after an item) peak_rss_bytes must "
                                          "not be NULL");
    if (measured > p->n_picks)
        return sb_fail(SPACRBENCH_EINVAL, "%zu items measured, but the plate chose %zu to run",
                       measured, p->n_picks);
    *more = sb_plate_more_after(p, peak_rss_bytes, seconds, measured);
    return SPACRBENCH_OK;
}
