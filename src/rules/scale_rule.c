/* The scaling check's rule: speed-up over one worker, efficiency, the
 * memory fit, and the knee (the smallest worker count within 10 % of the
 * best throughput that fits the budget), with the reason in words. Pure:
 * the same points always give the same verdict, so the C fork run, the
 * Python pool and the command all share it. Also the result's lifetime. */
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

/* "; 8 workers failed", "; 8 workers exceed the budget" tails. */
static void tails(const spacrbench_scale_point *pts, size_t n, int64_t budget, char *buf,
                  size_t cap)
{
    size_t len = strlen(buf);
    char a[32], b[32];
    for (size_t i = 0; i < n && len < cap; i++) {
        const spacrbench_scale_point *p = &pts[i];
        if (p->failed)
            snprintf(buf + len, cap - len, "; %lld workers failed", (long long)p->workers);
        else if (p->fits == 0) {
            sb_format_bytes(a, sizeof a, p->peak_bytes);
            sb_format_bytes(b, sizeof b, budget);
            snprintf(buf + len, cap - len, "; %lld workers need %s, over the budget of %s",
                     (long long)p->workers, a, b);
        }
        len = strlen(buf);
    }
}

void sb_scale_apply_rule(spacrbench_scale_point *pts, size_t n, int64_t budget,
                         spacrbench_scale_summary *s)
{
    double base = NAN;
    for (size_t i = 0; i < n; i++) {
        spacrbench_scale_point *p = &pts[i];
        p->items_per_second = usable(p) ? (double)p->items / p->seconds : NAN;
        if (p->workers == 1 && isfinite(p->items_per_second))
            base = p->items_per_second;
    }
    const spacrbench_scale_point *best = NULL, *chosen = NULL, *last = NULL;
    for (size_t i = 0; i < n; i++) {
        spacrbench_scale_point *p = &pts[i];
        p->speedup = isfinite(base) ? p->items_per_second / base : NAN;
        p->efficiency = p->speedup / (double)p->workers;
        p->fits = budget < 0 || p->peak_bytes < 0 ? -1 : p->peak_bytes <= budget;
        if (candidate(p)) {
            if (!best || p->items_per_second > best->items_per_second)
                best = p;
            last = p;
        }
    }
    /* Ascending order: the first point close enough to the best is the knee. */
    for (size_t i = 0; best && i < n && !chosen; i++)
        if (candidate(&pts[i]) &&
            pts[i].items_per_second >= (1.0 - SB_SCALE_KNEE_TOLERANCE) * best->items_per_second)
            chosen = &pts[i];

    s->chosen_workers = chosen ? chosen->workers : -1;
    s->best_workers = best ? best->workers : -1;
    s->best_items_per_second = best ? best->items_per_second : NAN;
    s->memory_budget_bytes = budget < 0 ? -1 : budget;
    s->point_count = (int64_t)n;
    s->peak_method = n ? pts[0].peak_method : SPACRBENCH_PEAK_NONE;
    for (size_t i = 1; i < n; i++)
        if (pts[i].peak_method != s->peak_method)
            s->peak_method = SPACRBENCH_PEAK_NONE;

    char *r = s->reason;
    size_t cap = sizeof s->reason;
    if (!chosen) {
        s->verdict = SPACRBENCH_SCALE_NONE;
        snprintf(r, cap, "no usable worker count");
        tails(pts, n, budget, r, cap);
        return;
    }
    /* A count that is clearly faster but does not fit makes it memory-bound. */
    const spacrbench_scale_point *excluded = NULL;
    for (size_t i = 0; i < n; i++)
        if (isfinite(pts[i].items_per_second) && pts[i].fits == 0 &&
            pts[i].items_per_second > (1.0 + SB_SCALE_KNEE_TOLERANCE) * chosen->items_per_second &&
            (!excluded || pts[i].items_per_second > excluded->items_per_second))
            excluded = &pts[i];
    long long c = (long long)chosen->workers;
    if (excluded) {
        char a[32], b[32];
        sb_format_bytes(a, sizeof a, excluded->peak_bytes);
        sb_format_bytes(b, sizeof b, budget);
        s->verdict = SPACRBENCH_SCALE_MEMORY;
        snprintf(r, cap,
                 "memory-bound at %lld: %lld workers would give %.2fx of %lld's throughput but "
                 "need %s, over the budget of %s",
                 c, (long long)excluded->workers,
                 excluded->items_per_second / chosen->items_per_second, c, a, b);
        return;
    }
    if (chosen == last) {
        s->verdict = SPACRBENCH_SCALE_LINEAR;
        if (isfinite(chosen->speedup))
            snprintf(r, cap,
                     "still scaling at %lld, the largest count measured: %.2fx of 1 worker "
                     "(efficiency %.0f %%)",
                     c, chosen->speedup, 100.0 * chosen->efficiency);
        else
            snprintf(r, cap,
                     "best at %lld, the largest count measured (no 1-worker point to "
                     "compare with)",
                     c);
    } else {
        double ratio = last->items_per_second / chosen->items_per_second;
        s->verdict = SPACRBENCH_SCALE_SATURATED;
        snprintf(r, cap,
                 ratio >= 1.0 ? "saturates at %lld: %lld workers give %.2fx of %lld's throughput "
                                "(memory bandwidth, I/O or another shared resource binds)"
                              : "throughput falls beyond %lld: %lld workers give %.2fx of "
                                "%lld's throughput",
                 c, (long long)last->workers, ratio, c);
    }
    tails(pts, n, budget, r, cap);
}

static int by_workers(const void *a, const void *b)
{
    int64_t x = ((const spacrbench_scale_point *)a)->workers;
    int64_t y = ((const spacrbench_scale_point *)b)->workers;
    return (x > y) - (x < y);
}

int sb_scale_result_make(const void *points, size_t n, size_t point_size, int64_t budget,
                         spacrbench_scale_result **out)
{
    if (!out)
        return sb_fail(SPACRBENCH_EINVAL, "out must not be NULL");
    *out = NULL;
    if (n == 0)
        return sb_fail(SPACRBENCH_ENOITEMS, "the scaling rule needs at least one point");
    if (!points)
        return sb_fail(SPACRBENCH_EINVAL, "points must not be NULL when n is %zu", n);
    if (point_size < sizeof(size_t) || point_size > 4096)
        return sb_fail(SPACRBENCH_EINVAL, "point_size %zu is not a spacrbench_scale_point size",
                       point_size);
    if (budget < -1)
        return sb_fail(SPACRBENCH_EINVAL, "budget_bytes is %lld; use >= 0 or -1 (unknown)",
                       (long long)budget);
    spacrbench_scale_result *r = calloc(1, sizeof *r);
    if (r)
        r->points = calloc(n, sizeof *r->points);
    if (!r || !r->points) {
        spacrbench_scale_free(r);
        return sb_fail(SPACRBENCH_ENOMEM, "no memory for %zu scaling points", n);
    }
    int rc = SPACRBENCH_OK;
    for (size_t i = 0; i < n && rc == 0; i++) {
        spacrbench_scale_point *p = &r->points[i];
        spacrbench_scale_point_init(p, sizeof *p);
        const unsigned char *src = (const unsigned char *)points + i * point_size;
        rc = sb_struct_in(p, sizeof *p, src, "spacrbench_scale_point");
        if (rc == 0 && p->workers < 1)
            rc = sb_fail(SPACRBENCH_EINVAL, "points[%zu].workers is %lld; it must be >= 1", i,
                         (long long)p->workers);
        else if (rc == 0 && (p->items < 0 || p->seconds < 0 || isnan(p->seconds)))
            rc = sb_fail(SPACRBENCH_EINVAL,
                         "points[%zu] has items %lld, seconds %g; both must be >= 0", i,
                         (long long)p->items, p->seconds);
        if (rc == 0 && p->peak_bytes < -1)
            rc = sb_fail(SPACRBENCH_EINVAL, "points[%zu].peak_bytes is %lld; use -1 for unknown", i,
                         (long long)p->peak_bytes);
        if (rc == 0 && p->vram_peak_bytes < -1)
            rc = sb_fail(SPACRBENCH_EINVAL,
                         "points[%zu].vram_peak_bytes is %lld; use -1 for not measured", i,
                         (long long)p->vram_peak_bytes);
        p->failed = p->failed != 0;
    }
    if (rc == 0) {
        qsort(r->points, n, sizeof *r->points, by_workers);
        for (size_t i = 1; i < n && rc == 0; i++)
            if (r->points[i].workers == r->points[i - 1].workers)
                rc = sb_fail(SPACRBENCH_EINVAL, "worker count %lld appears twice",
                             (long long)r->points[i].workers);
    }
    if (rc) {
        spacrbench_scale_free(r);
        return rc;
    }
    r->n_points = n;
    r->summary.size = sizeof r->summary;
    sb_scale_apply_rule(r->points, n, budget, &r->summary);
    *out = r;
    return SPACRBENCH_OK;
}

int spacrbench_scale_point_init(spacrbench_scale_point *p, size_t size)
{
    if (!p)
        return sb_fail(SPACRBENCH_EINVAL, "point must not be NULL");
    if (size < sizeof(size_t))
        return sb_fail(SPACRBENCH_EINVAL, "size %zu is too small for spacrbench_scale_point", size);
    spacrbench_scale_point d;
    memset(&d, 0, sizeof d);
    d.size = size;
    d.seconds = d.items_per_second = d.speedup = d.efficiency = d.mean_item_seconds = NAN;
    d.peak_bytes = d.vram_peak_bytes = SPACRBENCH_NOT_MEASURED;
    d.peak_method = SPACRBENCH_PEAK_NONE;
    d.fits = -1;
    memset(p, 0, size);
    memcpy(p, &d, size < sizeof d ? size : sizeof d);
    p->size = size;
    return SPACRBENCH_OK;
}

int spacrbench_scale_from_points(const void *points, size_t n, size_t point_size,
                                 int64_t budget_bytes, spacrbench_scale_result **out)
{
    sb_clear_error();
    return sb_scale_result_make(points, n, point_size, budget_bytes, out);
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
    sb_clear_error();
    if (!r || !out)
        return sb_fail(SPACRBENCH_EINVAL, "%s must not be NULL", r ? "out" : "result");
    if (index >= r->n_points)
        return sb_fail(SPACRBENCH_ERANGE, "point %zu of %zu", index, r->n_points);
    return sb_struct_out(out, &r->points[index], sizeof *out, "spacrbench_scale_point");
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
    free(r);
}

const char *spacrbench_scale_verdict_name(int verdict)
{
    switch (verdict) {
    case SPACRBENCH_SCALE_NONE:
        return "none";
    case SPACRBENCH_SCALE_LINEAR:
        return "linear";
    case SPACRBENCH_SCALE_SATURATED:
        return "saturated";
    case SPACRBENCH_SCALE_MEMORY:
        return "memory";
    default:
        return "unknown";
    }
}
