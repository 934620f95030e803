/* The plate's model, pure arithmetic on recorded figures (plate.h): a
 * least-squares line of footprint (or time) against the key, with the
 * upper ends of its 95 % intervals, and the rule that decides whether the
 * key explains the footprints at all. Conservative by construction: an
 * interval only adds to the line, and without a line the largest measured
 * footprint plus the spread across the measured items is the answer. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plate.h"

/* One-sided 95 % quantiles of Student's t, 1 to 30 degrees of freedom. */
static const double t95_table[30] = {6.314, 2.920, 2.353, 2.132, 2.015, 1.943, 1.895, 1.860,
                                     1.833, 1.812, 1.796, 1.782, 1.771, 1.761, 1.753, 1.746,
                                     1.740, 1.734, 1.729, 1.725, 1.721, 1.717, 1.714, 1.711,
                                     1.708, 1.706, 1.703, 1.701, 1.699, 1.697};

double sb_t95(size_t dof)
{
    if (dof < 1)
        return t95_table[0];
    if (dof <= 30)
        return t95_table[dof - 1];
    /* Beyond the table t falls towards the normal's 1.645 as 1/dof does;
     * this stays above the true quantile. */
    return 1.645 + (t95_table[29] - 1.645) * 30.0 / (double)dof;
}

/* "The measured footprints agree": within 10 % of the largest. */
#define SB_PLATE_UNIFORM 0.10

/* Whether the fit rests on the item whose key lies farthest from the mean:
 * one far item (the plate's largest, always measured) makes r high for any
 * footprints of the others, so without it they must still rise with the
 * key, or agree (two clusters of keys, such as sparse and dense wells). */
static int rests_on_one(const double *x, const double *y, size_t k, double scale, double mean_s)
{
    if (k < 4)
        return 0;
    size_t far = 0;
    for (size_t i = 1; i < k; i++)
        if (fabs(x[i] / scale - mean_s) > fabs(x[far] / scale - mean_s))
            far = i;
    double sx = 0, sy = 0, lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < k; i++)
        if (i != far) {
            sx += x[i] / scale;
            sy += y[i];
            lo = y[i] < lo ? y[i] : lo;
            hi = y[i] > hi ? y[i] : hi;
        }
    if (hi - lo <= SB_PLATE_UNIFORM * hi)
        return 0;
    double mx = sx / (double)(k - 1), my = sy / (double)(k - 1), sxy = 0;
    for (size_t i = 0; i < k; i++)
        if (i != far)
            sxy += (x[i] / scale - mx) * (y[i] - my);
    return !(sxy > 0);
}

void sb_line_fit(const double *x, const double *y, size_t k, sb_line *out)
{
    memset(out, 0, sizeof *out);
    out->k = k;
    out->scale = 1.0;
    out->slope = out->intercept = out->r = out->resid_sd = NAN;
    if (k == 0)
        return;
    /* The keys in units of the largest: a key of 1e154 must not overflow
     * the sums of squares (keys are >= 0 and finite). */
    double lo = x[0], hi = x[0];
    for (size_t i = 1; i < k; i++) {
        lo = x[i] < lo ? x[i] : lo;
        hi = x[i] > hi ? x[i] : hi;
    }
    double scale = hi > 0 ? hi : 1.0, sx = 0, sy = 0;
    for (size_t i = 0; i < k; i++) {
        sx += x[i] / scale;
        sy += y[i];
    }
    double mean_s = sx / (double)k;
    out->scale = scale;
    out->mean_scaled = mean_s;
    out->mean_x = mean_s * scale;
    out->mean_y = sy / (double)k;
    double sxx = 0, sxy = 0, syy = 0;
    for (size_t i = 0; i < k; i++) {
        double dx = x[i] / scale - mean_s, dy = y[i] - out->mean_y;
        sxx += dx * dx;
        sxy += dx * dy;
        syy += dy * dy;
    }
    out->sxx = sxx;
    /* Equal keys give no line (a rounding error must not make one). */
    if (k < 3 || !(hi > lo) || !(sxx > 0))
        return;
    out->usable = 1;
    double slope = sxy / sxx; /* per scaled key */
    out->slope_scaled = slope;
    out->slope = slope / scale;
    out->intercept = out->mean_y - slope * mean_s;
    double residual = 0; /* summed directly: syy - slope * sxy loses the small ones */
    for (size_t i = 0; i < k; i++) {
        double e = y[i] - out->mean_y - slope * (x[i] / scale - mean_s);
        residual += e * e;
    }
    out->resid_sd = sqrt(residual / (double)(k - 2));
    out->r = syy > 0 ? sxy / sqrt(sxx * syy) : NAN;
    out->t = sb_t95(k - 2);
    out->rests_on_one = rests_on_one(x, y, k, scale, mean_s);
}

static double line_at(const sb_line *l, double x)
{
    return l->mean_y + l->slope_scaled * (x / l->scale - l->mean_scaled);
}

static double margin(const sb_line *l, double x, double one)
{
    double dx = x / l->scale - l->mean_scaled;
    return l->t * l->resid_sd * sqrt(one + 1.0 / (double)l->k + dx * dx / l->sxx);
}

double sb_line_upper_one(const sb_line *l, double x)
{
    return l->usable ? line_at(l, x) + margin(l, x, 1.0) : NAN;
}

double sb_line_upper_mean(const sb_line *l, double x)
{
    return l->usable ? line_at(l, x) + margin(l, x, 0.0) : NAN;
}

double sb_line_r_needed(size_t k)
{
    /* The one-sided 5 % critical value of r for k points, from Student's
     * t with k - 2 degrees of freedom: r = t / sqrt(k - 2 + t^2). An
     * unrelated key reaches it one time in twenty at any k (0.988 at 3
     * points, 0.900 at 4, 0.805 at 5); never below 0.8, so a line must
     * also explain most of the spread. */
    if (k < 3)
        return INFINITY;
    double t = sb_t95(k - 2), r = t / sqrt((double)(k - 2) + t * t);
    return r > 0.8 ? r : 0.8;
}

int sb_line_explains(const sb_line *l)
{
    return l->usable && l->slope > 0 && l->r >= sb_line_r_needed(l->k) && !l->rests_on_one;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(const double *v, size_t k)
{
    if (k == 0)
        return NAN;
    double *c = malloc(k * sizeof *c);
    if (!c)
        return NAN;
    memcpy(c, v, k * sizeof *c);
    qsort(c, k, sizeof *c, compare_double);
    double m = k % 2 ? c[k / 2] : (c[k / 2 - 1] + c[k / 2]) / 2.0;
    free(c);
    return m;
}

void sb_plate_memory_model(const double *x, const double *y, size_t k, int has_key, double largest,
                           size_t n, sb_plate_memory *out)
{
    memset(out, 0, sizeof *out);
    out->sample = k;
    out->max_key = out->median_key = NAN;
    sb_line_fit(x, y, has_key ? k : 0, &out->line);
    double lo = k ? y[0] : 0, hi = k ? y[0] : 0;
    for (size_t i = 1; i < k; i++) {
        lo = y[i] < lo ? y[i] : lo;
        hi = y[i] > hi ? y[i] : hi;
    }
    out->largest = largest > hi ? largest : hi;
    out->spread = hi - lo;
    if (has_key && k) {
        out->median_key = median_of(x, k);
        out->max_key = x[0];
        for (size_t i = 1; i < k; i++)
            out->max_key = x[i] > out->max_key ? x[i] : out->max_key;
    }
    if (k == 0)
        out->fit = SPACRBENCH_PLATE_FIT_NONE;
    else if (!has_key)
        out->fit = SPACRBENCH_PLATE_FIT_KEYLESS;
    else if (k < 3)
        out->fit = SPACRBENCH_PLATE_FIT_FEW;
    else if (out->spread <= SB_PLATE_UNIFORM * hi) /* the items agree: no line needed */
        out->fit = SPACRBENCH_PLATE_FIT_UNIFORM;
    else if (sb_line_explains(&out->line))
        out->fit = SPACRBENCH_PLATE_FIT_KEY;
    else
        out->fit = SPACRBENCH_PLATE_FIT_UNEXPLAINED;
    /* Items that agree are still a sample: a few items a key orders by
     * chance show no inversion where the plate has some, so a small share
     * of the largest measured stands for the variation they did not show
     * (it grows with the largest, so it never falls either). */
    out->disagreement =
        sb_plate_disagreement(has_key ? x : NULL, y, k) + SB_PLATE_LARGEST_SHARE * out->largest;
    out->factor = sb_plate_tail_factor(n);
    out->bound = out->largest + out->factor * out->disagreement;
}

double sb_plate_memory_of(const sb_plate_memory *mm, double key)
{
    if (mm->fit == SPACRBENCH_PLATE_FIT_NONE)
        return NAN;
    if (mm->fit != SPACRBENCH_PLATE_FIT_KEY)
        return mm->bound;
    double v = sb_line_upper_one(&mm->line, key);
    /* Beyond the measured keys: never below the largest measured. */
    if (key > mm->max_key && v < mm->largest)
        v = mm->largest;
    v = v < mm->bound ? v : mm->bound;
    return v > 0 ? v : 0;
}

void sb_plate_time_model(const double *x, const double *y, size_t k, int has_key,
                         sb_plate_time *out)
{
    memset(out, 0, sizeof *out);
    out->k = k;
    out->mean = out->sd = out->slowest = NAN;
    sb_line_fit(x, y, has_key ? k : 0, &out->line);
    out->fit = k == 0                         ? SPACRBENCH_PLATE_FIT_NONE
               : !has_key                     ? SPACRBENCH_PLATE_FIT_KEYLESS
               : k < 3                        ? SPACRBENCH_PLATE_FIT_FEW
               : sb_line_explains(&out->line) ? SPACRBENCH_PLATE_FIT_KEY
                                              : SPACRBENCH_PLATE_FIT_UNEXPLAINED;
    if (k == 0)
        return;
    double sum = 0, slowest = y[0];
    for (size_t i = 0; i < k; i++) {
        sum += y[i];
        slowest = y[i] > slowest ? y[i] : slowest;
    }
    out->mean = sum / (double)k;
    out->slowest = slowest;
    double ss = 0;
    for (size_t i = 0; i < k; i++)
        ss += (y[i] - out->mean) * (y[i] - out->mean);
    out->sd = k > 1 ? sqrt(ss / (double)(k - 1)) : 0;
}

double sb_plate_time_of(const sb_plate_time *tm, double key, double one)
{
    if (tm->fit == SPACRBENCH_PLATE_FIT_NONE)
        return NAN;
    double v;
    if (tm->fit == SPACRBENCH_PLATE_FIT_KEY)
        v = line_at(&tm->line, key) + margin(&tm->line, key, one);
    else if (tm->k < 2)
        v = tm->mean;
    else
        v = tm->mean + sb_t95(tm->k - 1) * tm->sd * sqrt(one + 1.0 / (double)tm->k);
    return v > 0 ? v : 0;
}

size_t sb_plate_auto_sample(size_t n)
{
    double extra = n > 5 ? ceil(1.5 * log((double)n / 5.0)) : 0;
    size_t k = 5 + (size_t)extra;
    return k < n ? k : n;
}

double sb_plate_tail_factor(size_t n)
{
    /* The largest of n items sits about ln(n / k) scales above the largest
     * of k drawn from them (an exponential tail's order statistics), the
     * scale read from the disagreement. k is the least sample the plate
     * always measures (sb_plate_auto_sample), not the sample measured:
     * the factor is the plate's, so more measured items never lower the
     * bound. ln(n / 2), the rule before, sized every plate as if 2 items
     * had been measured: on the Sizey traces a median overshoot of +20 %
     * and a 90th percentile of +190 % for 91 of 98 plates covered, where
     * this covered as many at +19 % and +107 % (the random draw of then;
     * docs/advice.md). */
    double least = (double)sb_plate_auto_sample(n);
    return (double)n > least ? log((double)n / least) : 0;
}

typedef struct key_footprint {
    double x, y;
} key_footprint;

static int by_key_descending(const void *a, const void *b)
{
    double x = ((const key_footprint *)a)->x, y = ((const key_footprint *)b)->x;
    return (x < y) - (x > y);
}

double sb_plate_disagreement(const double *x, const double *y, size_t k)
{
    if (k < 2)
        return 0;
    key_footprint *v = malloc(k * sizeof *v);
    if (!v) /* no memory: the spread, every pair counted */
        x = NULL;
    double worst = 0, min_above = INFINITY, lo = y[0], hi = y[0];
    if (!x || !v) {
        for (size_t i = 1; i < k; i++) {
            lo = y[i] < lo ? y[i] : lo;
            hi = y[i] > hi ? y[i] : hi;
        }
        free(v);
        return hi - lo;
    }
    for (size_t i = 0; i < k; i++)
        v[i] = (key_footprint){x[i], y[i]};
    qsort(v, k, sizeof *v, by_key_descending);
    /* From the largest key down, a run of equal keys at a time: an item
     * disagrees with an equal key's smaller footprint and with any larger
     * key's. */
    for (size_t i = 0; i < k;) {
        size_t j = i;
        lo = hi = v[i].y;
        while (j < k && v[j].x == v[i].x) {
            lo = v[j].y < lo ? v[j].y : lo;
            hi = v[j].y > hi ? v[j].y : hi;
            j++;
        }
        double below = lo < min_above ? lo : min_above;
        worst = hi - below > worst ? hi - below : worst;
        min_above = below;
        i = j;
    }
    free(v);
    return worst;
}
