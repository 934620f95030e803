/* The memory timeline: sampled RSS (and a command's cgroup usage) against
 * time, in a buffer of fixed size. When it fills, neighbouring points are
 * merged in pairs (each keeps the higher sample and its time) and later
 * points stand for twice as many samples, so a run of any length fits in
 * SPACRBENCH_TIMELINE_MAX_POINTS points and no spike is flattened. The
 * sampler thread writes the points; the runner writes the items (other
 * memory); both are read only after the sampler is joined. Not installed. */
#ifndef SPACRBENCH_TIMELINE_H
#define SPACRBENCH_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "spacrbench.h"

typedef struct sb_timeline_sample {
    double seconds; /* since the timeline's origin */
    int64_t rss_bytes;
    int64_t cgroup_bytes;
    double cpu_seconds; /* the watched work's CPU since the origin; NaN none */
} sb_timeline_sample;

typedef struct sb_timeline {
    double origin;       /* sb_now() at creation: time 0 */
    double cpu_origin;   /* sb_proc_cpu_seconds() then: the runner's CPU 0 */
    int64_t interval_us; /* the sampling period */
    int64_t samples;     /* samples taken (or, for a copy, as the source said) */
    int64_t stride;      /* samples per full point */
    sb_timeline_sample *points;
    size_t count;               /* full points; always < SPACRBENCH_TIMELINE_MAX_POINTS */
    sb_timeline_sample pending; /* the point being filled */
    int64_t pending_n;          /* samples in it */
    spacrbench_timeline_item *items;
    size_t item_count, item_cap;
} sb_timeline;

/* A timeline with its point memory allocated and written now (before a
 * run's baseline) and room for n_items items; NULL when out of memory. */
sb_timeline *sb_timeline_new(int64_t interval_us, size_t n_items);
void sb_timeline_free(sb_timeline *tl);
/* One sample through the downsampler (never allocates); _add: one
 * without a CPU figure. */
void sb_timeline_sample_push(sb_timeline *tl, const sb_timeline_sample *s);
void sb_timeline_sample_add(sb_timeline *tl, double seconds, int64_t rss, int64_t cgroup);
/* A sampler's on_rss (sampler.h): an RSS sample taken at sb_now() `now`
 * onto the timeline ctx, with this process's CPU seconds since then. */
void sb_timeline_on_rss(void *ctx, double now, int64_t rss);
/* A point already merged (a copy of a timeline): 0, or ERANGE when full. */
int sb_timeline_point_add(sb_timeline *tl, const sb_timeline_sample *p);
/* An item mark (ENOMEM past the reserved room if it cannot grow). */
int sb_timeline_item_add(sb_timeline *tl, const spacrbench_timeline_item *item);
/* Points as shown: the full ones and a partly filled last one. */
size_t sb_timeline_count(const sb_timeline *tl);
sb_timeline_sample sb_timeline_point(const sb_timeline *tl, size_t index);
/* The item with its peak's time filled in when it was not given (NaN): the
 * highest point inside the item, else the item's end. */
spacrbench_timeline_item sb_timeline_item(const sb_timeline *tl, size_t index);

#endif
