/* The bounded, downsampling memory timeline; see timeline.h. */
#include <math.h>
#include <stdlib.h>

#include "core.h"
#include "grow.h"
#include "internal.h"
#include "proc.h"

enum { CAP = SPACRBENCH_TIMELINE_MAX_POINTS };

/* Writes a byte of every page: calloc's fresh pages are only address
 * space until written, and a compiler may drop a memset of zeros after
 * calloc (or turn malloc + memset into calloc), so the writes are
 * volatile. */
static void commit_pages(void *p, size_t n)
{
    volatile unsigned char *b = p;
    for (size_t i = 0; i < n; i += 4096)
        b[i] = 0;
}

sb_timeline *sb_timeline_new(int64_t interval_us, size_t n_items)
{
    sb_timeline *tl = calloc(1, sizeof *tl);
    if (!tl)
        return NULL;
    /* Written now: the pages are the run's, never the work's footprint. */
    tl->points = calloc(CAP, sizeof *tl->points);
    tl->items = n_items ? calloc(n_items, sizeof *tl->items) : NULL;
    if (!tl->points || (n_items && !tl->items)) {
        sb_timeline_free(tl);
        return NULL;
    }
    commit_pages(tl->points, CAP * sizeof *tl->points);
    if (tl->items)
        commit_pages(tl->items, n_items * sizeof *tl->items);
    tl->item_cap = n_items;
    tl->origin = sb_now();
    tl->cpu_origin = sb_proc_cpu_seconds();
    tl->interval_us = interval_us;
    tl->stride = 1;
    return tl;
}

void sb_timeline_free(sb_timeline *tl)
{
    if (!tl)
        return;
    free(tl->points);
    free(tl->items);
    free(tl);
}

/* b (the later) merged into a: the higher RSS sample (and its time)
 * stands for both; the CPU used is the later's. */
static void merge(sb_timeline_sample *a, const sb_timeline_sample *b)
{
    if (!isnan(b->cpu_seconds))
        a->cpu_seconds = b->cpu_seconds;
    if (b->rss_bytes > a->rss_bytes) {
        a->seconds = b->seconds;
        a->rss_bytes = b->rss_bytes;
    }
    a->cgroup_bytes = max64(a->cgroup_bytes, b->cgroup_bytes);
}

/* The buffer is full: pairs become one point, later points twice as wide. */
static void halve(sb_timeline *tl)
{
    size_t n = tl->count / 2;
    for (size_t i = 0; i < n; i++) {
        sb_timeline_sample p = tl->points[2 * i];
        merge(&p, &tl->points[2 * i + 1]);
        tl->points[i] = p;
    }
    tl->count = n;
    tl->stride *= 2;
}

void sb_timeline_sample_add(sb_timeline *tl, double seconds, int64_t rss, int64_t cgroup)
{
    sb_timeline_sample s = {seconds, rss, cgroup, NAN};
    sb_timeline_sample_push(tl, &s);
}

void sb_timeline_sample_push(sb_timeline *tl, const sb_timeline_sample *s)
{
    if (tl->pending_n == 0)
        tl->pending = *s;
    else
        merge(&tl->pending, s);
    tl->samples++;
    if (++tl->pending_n < tl->stride)
        return;
    tl->points[tl->count++] = tl->pending;
    tl->pending_n = 0;
    /* At once, so that the points shown (with a partial one) stay <= CAP. */
    if (tl->count == CAP)
        halve(tl);
}

void sb_timeline_on_rss(void *ctx, double now, int64_t rss)
{
    sb_timeline *tl = ctx;
    /* getrusage: about a microsecond, thread-safe; this process's CPU is
     * the work's (and the sampler's own, a fraction of a percent). */
    double cpu = sb_proc_cpu_seconds() - tl->cpu_origin;
    sb_timeline_sample s = {now - tl->origin, rss, -1, cpu >= 0 ? cpu : NAN};
    sb_timeline_sample_push(tl, &s);
}

int sb_timeline_point_add(sb_timeline *tl, const sb_timeline_sample *p)
{
    if (sb_timeline_count(tl) >= CAP)
        return sb_fail(SPACRBENCH_ERANGE, "a timeline holds at most %d points", (int)CAP);
    if (tl->pending_n) { /* a copy after live samples: close the partial point */
        tl->points[tl->count++] = tl->pending;
        tl->pending_n = 0;
    }
    tl->points[tl->count++] = *p;
    return SPACRBENCH_OK;
}

int sb_timeline_item_add(sb_timeline *tl, const spacrbench_timeline_item *item)
{
    if (sb_grow(&tl->items, &tl->item_cap, tl->item_count + 1, sizeof *tl->items))
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory growing the timeline");
    tl->items[tl->item_count++] = *item;
    return SPACRBENCH_OK;
}

size_t sb_timeline_count(const sb_timeline *tl) { return tl->count + (tl->pending_n > 0); }

sb_timeline_sample sb_timeline_point(const sb_timeline *tl, size_t index)
{
    return index < tl->count ? tl->points[index] : tl->pending;
}

spacrbench_timeline_item sb_timeline_item(const sb_timeline *tl, size_t index)
{
    spacrbench_timeline_item it = tl->items[index];
    it.size = sizeof it;
    if (!isnan(it.peak_seconds))
        return it;
    it.peak_seconds = it.end_seconds;
    /* Points are in time order: find the first inside the item by bisection,
     * so marking every item of a long run stays cheap. */
    size_t lo = 0, hi = sb_timeline_count(tl);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sb_timeline_point(tl, mid).seconds < it.start_seconds)
            lo = mid + 1;
        else
            hi = mid;
    }
    int64_t best = -1;
    for (size_t i = lo, n = sb_timeline_count(tl); i < n; i++) {
        sb_timeline_sample p = sb_timeline_point(tl, i);
        if (p.seconds > it.end_seconds)
            break;
        if (p.rss_bytes > best) {
            best = p.rss_bytes;
            it.peak_seconds = p.seconds;
        }
    }
    return it;
}
