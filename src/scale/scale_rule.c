/* The scaling check's rule: speed-up over one worker, efficiency, the
 * memory fit, and the knee (the smallest worker count within 10 % of the
 * best throughput that fits the budget, or within the two counts' spread
 * between repeats where that is larger); the reason in words is written
 * by scale_reason.c. Pure: the same points always give the same verdict,
 * so the C fork run, the Python pool and the command all share it. Also
 * the result's lifetime. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scale.h"

static int usable(const spacrbench_scale_point *p)
{
    return !p->failed && p->items > 0 && isfinite(p->seconds) && p->seconds > 0;
}

static int candidate(const spacrbench_scale_point *p)
{
    return isfinite(p->items_per_second) && p->fits != 0;
}

static double noise(const spacrbench_scale_spread *sp)
{
    return isfinite(sp->spread) && sp->spread > 0 ? sp->spread : 0.0;
}

/* The noise the rule allows between two points: max(10 %, the sum of
 * their spreads); unknown spreads count as 0. */
static double tolerance(const spacrbench_scale_spread *a, const spacrbench_scale_spread *b)
{
    double n = noise(a) + noise(b);
    return n > SB_SCALE_KNEE_TOLERANCE ? n : SB_SCALE_KNEE_TOLERANCE;
}

/* Throughput of each usable point; against the 1-worker point's, its
 * speed-up and efficiency; whether its peak fits the budget (an OOM kill
 * at the budget never fits; an unknown peak or budget is -1). Picks the
 * best and the largest candidate. */
static void derive_points(spacrbench_scale_point *pts, const spacrbench_scale_spread *sps, size_t n,
                          int64_t budget, sb_scale_picks *k)
{
    double base = NAN;
    for (size_t i = 0; i < n; i++) {
        spacrbench_scale_point *p = &pts[i];
        p->items_per_second = usable(p) ? (double)p->items / p->seconds : NAN;
        if (p->workers == 1 && isfinite(p->items_per_second))
            base = p->items_per_second;
    }
    for (size_t i = 0; i < n; i++) {
        spacrbench_scale_point *p = &pts[i];
        p->speedup = isfinite(base) ? p->items_per_second / base : NAN;
        p->efficiency = p->speedup / (double)p->workers;
        p->fits = sps[i].oom_killed                 ? 0
                  : budget < 0 || p->peak_bytes < 0 ? -1
                                                    : p->peak_bytes <= budget;
        if (candidate(p)) {
            if (!k->best || p->items_per_second > k->best->items_per_second)
                k->best = p;
            k->last = p;
        }
    }
}

/* Ascending order: the first point whose shortfall from the best is
 * within the tolerance (10 %, or the two spreads where larger) is the
 * knee: a larger count is better only when its gain exceeds the noise. */
static const spacrbench_scale_point *knee_of(const spacrbench_scale_point *pts,
                                             const spacrbench_scale_spread *sps, size_t n,
                                             const spacrbench_scale_point *best)
{
    if (!best)
        return NULL;
    size_t bi = (size_t)(best - pts);
    for (size_t i = 0; i < n; i++)
        if (candidate(&pts[i]) && pts[i].items_per_second >=
                                      (1.0 - tolerance(&sps[i], &sps[bi])) * best->items_per_second)
            return &pts[i];
    return NULL;
}

/* A count that is clearly faster than the knee (beyond the noise) but
 * does not fit makes it memory-bound; so does a larger count OOM-killed at
 * the budget (its throughput is unknown, its memory is not). */
static void memory_bounds(const spacrbench_scale_point *pts, const spacrbench_scale_spread *sps,
                          size_t n, sb_scale_picks *k)
{
    const spacrbench_scale_point *chosen = k->chosen;
    size_t ci = (size_t)(chosen - pts);
    for (size_t i = 0; i < n; i++) {
        if (sps[i].oom_killed && pts[i].workers > chosen->workers && !k->oom)
            k->oom = &pts[i];
        if (isfinite(pts[i].items_per_second) && pts[i].fits == 0 &&
            pts[i].items_per_second >
                (1.0 + tolerance(&sps[i], &sps[ci])) * chosen->items_per_second &&
            (!k->excluded || pts[i].items_per_second > k->excluded->items_per_second))
            k->excluded = &pts[i];
    }
}

static int32_t verdict_of(const sb_scale_picks *k)
{
    if (!k->chosen)
        return SPACRBENCH_SCALE_NONE;
    if (k->excluded || k->oom)
        return SPACRBENCH_SCALE_MEMORY;
    return k->chosen == k->last ? SPACRBENCH_SCALE_LINEAR : SPACRBENCH_SCALE_SATURATED;
}

/* The summary's figures and verdict; the points' peak method where they
 * all agree, NONE where mixed. */
static void fill_summary(const spacrbench_scale_point *pts, size_t n, int64_t budget,
                         const sb_scale_picks *k, spacrbench_scale_summary *s)
{
    s->chosen_workers = k->chosen ? k->chosen->workers : -1;
    s->best_workers = k->best ? k->best->workers : -1;
    s->best_items_per_second = k->best ? k->best->items_per_second : NAN;
    s->memory_budget_bytes = budget < 0 ? -1 : budget;
    s->point_count = (int64_t)n;
    s->peak_method = n ? pts[0].peak_method : SPACRBENCH_PEAK_NONE;
    for (size_t i = 1; i < n; i++)
        if (pts[i].peak_method != s->peak_method)
            s->peak_method = SPACRBENCH_PEAK_NONE;
    s->verdict = verdict_of(k);
}

/* The pure rule: the derived fields of points sorted by workers (inputs
 * checked) and the summary. */
static void apply_rule(spacrbench_scale_point *pts, const spacrbench_scale_spread *sps, size_t n,
                       int64_t budget, spacrbench_scale_summary *s)
{
    sb_scale_picks k = {NULL, NULL, NULL, NULL, NULL};
    derive_points(pts, sps, n, budget, &k);
    k.chosen = knee_of(pts, sps, n, k.best);
    if (k.chosen)
        memory_bounds(pts, sps, n, &k);
    fill_summary(pts, n, budget, &k, s);
    sb_scale_explain(pts, sps, n, budget, &k, s);
}

/* Sort points and spreads together by worker count. */
typedef struct point_pair {
    spacrbench_scale_point p;
    spacrbench_scale_spread sp;
} point_pair;

static int by_workers(const void *a, const void *b)
{
    int64_t x = ((const point_pair *)a)->p.workers;
    int64_t y = ((const point_pair *)b)->p.workers;
    return (x > y) - (x < y);
}

static int check_point(const spacrbench_scale_point *p, size_t i)
{
    if (p->workers < 1)
        return sb_fail(SPACRBENCH_EINVAL, "points[%zu].workers is %lld; it must be >= 1", i,
                       (long long)p->workers);
    if (p->items < 0 || p->seconds < 0 || isnan(p->seconds))
        return sb_fail(SPACRBENCH_EINVAL,
                       "points[%zu] has items %lld, seconds %g; both must be >= 0", i,
                       (long long)p->items, p->seconds);
    if (p->peak_bytes < -1)
        return sb_fail(SPACRBENCH_EINVAL, "points[%zu].peak_bytes is %lld; use -1 for unknown", i,
                       (long long)p->peak_bytes);
    if (p->vram_peak_bytes < -1)
        return sb_fail(SPACRBENCH_EINVAL,
                       "points[%zu].vram_peak_bytes is %lld; use -1 for not measured", i,
                       (long long)p->vram_peak_bytes);
    return SPACRBENCH_OK;
}

static int check_spread(const spacrbench_scale_spread *sp, size_t i)
{
    if (sp->repeats < 0)
        return sb_fail(SPACRBENCH_EINVAL, "spreads[%zu].repeats is %lld; it must be >= 0", i,
                       (long long)sp->repeats);
    if (!isnan(sp->spread) && !(sp->spread >= 0 && isfinite(sp->spread)))
        return sb_fail(SPACRBENCH_EINVAL, "spreads[%zu].spread is %g; use >= 0 or NaN", i,
                       sp->spread);
    if (sp->limit_bytes < -1)
        return sb_fail(SPACRBENCH_EINVAL, "spreads[%zu].limit_bytes is %lld; use -1 for none", i,
                       (long long)sp->limit_bytes);
    return SPACRBENCH_OK;
}

/* The arguments, before anything is allocated. */
static int check_make_args(const void *points, size_t n, size_t point_size, const void *spreads,
                           size_t spread_size, int64_t budget)
{
    if (n == 0)
        return sb_fail(SPACRBENCH_ENOITEMS, "the scaling rule needs at least one point");
    if (!points)
        return sb_fail(SPACRBENCH_EINVAL, "points must not be NULL when n is %zu", n);
    if (point_size < sizeof(size_t) || point_size > 4096)
        return sb_fail(SPACRBENCH_EINVAL, "point_size %zu is not a spacrbench_scale_point size",
                       point_size);
    if (spreads && (spread_size < sizeof(size_t) || spread_size > 4096))
        return sb_fail(SPACRBENCH_EINVAL, "spread_size %zu is not a spacrbench_scale_spread size",
                       spread_size);
    if (budget < -1)
        return sb_fail(SPACRBENCH_EINVAL, "budget_bytes is %lld; use >= 0 or -1 (unknown)",
                       (long long)budget);
    if (n > ((size_t)1 << 20))
        return sb_fail(SPACRBENCH_EINVAL, "%zu points; at most %zu", n, (size_t)1 << 20);
    return SPACRBENCH_OK;
}

/* A result with room for n points and spreads, or NULL. */
static spacrbench_scale_result *result_alloc(size_t n)
{
    spacrbench_scale_result *r = calloc(1, sizeof *r);
    if (r) {
        r->points = calloc(n, sizeof *r->points);
        r->spreads = calloc(n, sizeof *r->spreads);
    }
    if (r && (!r->points || !r->spreads)) {
        spacrbench_scale_free(r);
        return NULL;
    }
    return r;
}

/* The caller's structs in, by their own size (fields an older caller
 * lacks keep their defaults), each checked; an OOM-killed point counts as
 * failed. Stops at the first bad one. */
static int read_pairs(point_pair *pairs, const void *points, size_t n, size_t point_size,
                      const void *spreads, size_t spread_size)
{
    int rc = SPACRBENCH_OK;
    for (size_t i = 0; i < n && rc == 0; i++) {
        spacrbench_scale_point *p = &pairs[i].p;
        spacrbench_scale_spread *sp = &pairs[i].sp;
        spacrbench_scale_point_init(p, sizeof *p);
        spacrbench_scale_spread_init(sp, sizeof *sp);
        const unsigned char *src = (const unsigned char *)points + i * point_size;
        rc = sb_struct_in(p, sizeof *p, src, "spacrbench_scale_point");
        if (rc == 0 && spreads)
            rc = sb_struct_in(sp, sizeof *sp, (const unsigned char *)spreads + i * spread_size,
                              "spacrbench_scale_spread");
        if (rc == 0)
            rc = check_point(p, i);
        if (rc == 0)
            rc = check_spread(sp, i);
        p->failed = p->failed != 0 || sp->oom_killed != 0;
        /* 2: outside the group; 3: ended by spacrbench at the budget */
        if (sp->oom_killed < 0 || sp->oom_killed > SB_SCALE_ENDED_AT_BUDGET)
            sp->oom_killed = SB_SCALE_OOM_AT_BUDGET;
    }
    return rc;
}

/* The rule wants increasing worker counts, each once. */
static int sort_pairs(point_pair *pairs, size_t n)
{
    qsort(pairs, n, sizeof *pairs, by_workers);
    for (size_t i = 1; i < n; i++)
        if (pairs[i].p.workers == pairs[i - 1].p.workers)
            return sb_fail(SPACRBENCH_EINVAL, "worker count %lld appears twice",
                           (long long)pairs[i].p.workers);
    return SPACRBENCH_OK;
}

int sb_scale_result_make(const void *points, size_t n, size_t point_size, const void *spreads,
                         size_t spread_size, int64_t budget, spacrbench_scale_result **out)
{
    if (!out)
        return sb_fail(SPACRBENCH_EINVAL, "out must not be NULL");
    *out = NULL;
    int rc = check_make_args(points, n, point_size, spreads, spread_size, budget);
    if (rc)
        return rc;
    spacrbench_scale_result *r = result_alloc(n);
    point_pair *pairs = calloc(n, sizeof *pairs);
    if (!r || !pairs) {
        free(pairs);
        spacrbench_scale_free(r);
        return sb_fail(SPACRBENCH_ENOMEM, "no memory for %zu scaling points", n);
    }
    rc = read_pairs(pairs, points, n, point_size, spreads, spread_size);
    if (rc == 0)
        rc = sort_pairs(pairs, n);
    for (size_t i = 0; i < n; i++) {
        r->points[i] = pairs[i].p;
        r->spreads[i] = pairs[i].sp;
    }
    free(pairs);
    if (rc) {
        spacrbench_scale_free(r);
        return rc;
    }
    r->n_points = n;
    r->summary.size = sizeof r->summary;
    apply_rule(r->points, r->spreads, n, budget, &r->summary);
    *out = r;
    return SPACRBENCH_OK;
}

int spacrbench_scale_spread_init(spacrbench_scale_spread *sp, size_t size)
{
    spacrbench_scale_spread d;
    memset(&d, 0, sizeof d);
    d.items_per_second_min = d.items_per_second_max = d.spread = NAN;
    d.warmup_items = d.limit_bytes = -1;
    return sb_struct_init(sp, size, &d, sizeof d, "spread", "spacrbench_scale_spread");
}

int spacrbench_scale_point_init(spacrbench_scale_point *p, size_t size)
{
    spacrbench_scale_point d;
    memset(&d, 0, sizeof d);
    d.seconds = d.items_per_second = d.speedup = d.efficiency = d.mean_item_seconds = NAN;
    d.peak_bytes = d.vram_peak_bytes = SPACRBENCH_NOT_MEASURED;
    d.peak_method = SPACRBENCH_PEAK_NONE;
    d.fits = -1;
    return sb_struct_init(p, size, &d, sizeof d, "point", "spacrbench_scale_point");
}

int spacrbench_scale_from_points(const void *points, size_t n, size_t point_size,
                                 int64_t budget_bytes, spacrbench_scale_result **out)
{
    sb_clear_error();
    return sb_scale_result_make(points, n, point_size, NULL, 0, budget_bytes, out);
}

int spacrbench_scale_from_points_spread(const void *points, size_t n, size_t point_size,
                                        const void *spreads, size_t spread_size,
                                        int64_t budget_bytes, spacrbench_scale_result **out)
{
    sb_clear_error();
    return sb_scale_result_make(points, n, point_size, spreads, spread_size, budget_bytes, out);
}

/* Point or spread index of r for a getter. */
static int get_at(const spacrbench_scale_result *r, size_t index, void *out, int spread)
{
    sb_clear_error();
    if (!r || !out)
        return sb_fail(SPACRBENCH_EINVAL, "%s must not be NULL", r ? "out" : "result");
    if (index >= r->n_points)
        return sb_fail(SPACRBENCH_ERANGE, "point %zu of %zu", index, r->n_points);
    return spread
               ? sb_struct_out(out, &r->spreads[index], sizeof *r->spreads,
                               "spacrbench_scale_spread")
               : sb_struct_out(out, &r->points[index], sizeof *r->points, "spacrbench_scale_point");
}

int spacrbench_scale_spread_get(const spacrbench_scale_result *r, size_t index,
                                spacrbench_scale_spread *out)
{
    return get_at(r, index, out, 1);
}

int sb_scale_notef(spacrbench_scale_result *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char line[1024];
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    char **grown = realloc(r->notes, (r->n_notes + 1) * sizeof *grown);
    char *copy = strdup(line);
    if (grown)
        r->notes = grown;
    if (!grown || !copy) {
        free(copy);
        return sb_fail(SPACRBENCH_ENOMEM, "no memory for a note");
    }
    r->notes[r->n_notes++] = copy;
    r->summary.note_count = (int64_t)r->n_notes;
    return SPACRBENCH_OK;
}

int spacrbench_scale_add_note(spacrbench_scale_result *r, const char *note)
{
    sb_clear_error();
    if (!r || !note)
        return sb_fail(SPACRBENCH_EINVAL, "%s must not be NULL", r ? "note" : "result");
    return sb_scale_notef(r, "%s", note);
}

int spacrbench_scale_summary_get(const spacrbench_scale_result *r, spacrbench_scale_summary *out)
{
    sb_clear_error();
    if (!r || !out)
        return sb_fail(SPACRBENCH_EINVAL, "%s must not be NULL", r ? "out" : "result");
    return sb_struct_out(out, &r->summary, sizeof r->summary, "spacrbench_scale_summary");
}

int spacrbench_scale_point_get(const spacrbench_scale_result *r, size_t index,
                               spacrbench_scale_point *out)
{
    return get_at(r, index, out, 0);
}

const char *spacrbench_scale_note(const spacrbench_scale_result *r, size_t index)
{
    return r && index < r->n_notes ? r->notes[index] : NULL;
}

void spacrbench_scale_free(spacrbench_scale_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n_notes; i++)
        free(r->notes[i]);
    free(r->notes);
    free(r->points);
    free(r->spreads);
    free(r);
}
