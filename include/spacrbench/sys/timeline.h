/*
 * The memory timeline (since 1.2): RSS (and CPU) sampled across a run, with
 * each item's boundaries and exact peak, read and built point by point.
 *
 * sys/ promises the same stable C ABI as every public header (nothing
 * exported is removed or changed; structs grow by their size field), but
 * it is lower-level: the parts spacrbench's own command and Python binding
 * are built from, for tools that measure or copy measurements themselves.
 * Nothing in <spacrbench.h> or the topic headers depends on it.
 */
/* First spacrbench.h, outside the guard: whichever header a program
 * includes, every header is then read in spacrbench.h's order. */
#include "../../spacrbench.h"

#ifndef SPACRBENCH_PUBLIC_SYS_TIMELINE_H
#define SPACRBENCH_PUBLIC_SYS_TIMELINE_H

#ifdef __cplusplus
extern "C" {
#endif

/* SPACRBENCH_CDEF_BEGIN */

/* --- Since 1.2: the memory timeline ------------------------------------- */

/* The memory timeline (docs/spacrbench.schema.json, "timeline"): sampled
 * RSS against time across a run, with each item's boundaries and exact
 * peak. The exact peak still comes from the high-water mark; the timeline
 * is the picture around it. Bounded: a long run is downsampled to at most
 * SPACRBENCH_TIMELINE_MAX_POINTS points, each the highest of `stride`
 * consecutive samples (the measurement's notes say so). */
enum spacrbench_timeline_flags {
    /* spacrbench_options.flags: sample RSS every sample_interval_us into a
     * timeline (a sampler thread runs even where the peak is exact). */
    SPACRBENCH_FLAG_TIMELINE = 8
};
enum spacrbench_timeline_limits { SPACRBENCH_TIMELINE_MAX_POINTS = 2000 };

typedef struct spacrbench_timeline_info {
    size_t size;
    int64_t interval_us; /* sampling period */
    int64_t samples;     /* samples taken */
    int64_t stride;      /* samples per point: 1 unless downsampled */
    int64_t max_points;  /* the bound, SPACRBENCH_TIMELINE_MAX_POINTS */
    int64_t point_count; /* read */
    int64_t item_count;  /* read */
    int32_t downsampled; /* read: 1 when stride > 1 */
    int32_t reserved;
} spacrbench_timeline_info;

typedef struct spacrbench_timeline_point {
    size_t size;
    double seconds;       /* since the run began (the sampler started) */
    int64_t rss_bytes;    /* highest RSS sampled in the point's span; -1 none */
    int64_t cgroup_bytes; /* an item cgroup's usage (spacrbench run); -1 none */
} spacrbench_timeline_point;

typedef struct spacrbench_timeline_item {
    size_t size;
    int64_t index; /* the item's record index */
    int32_t is_warmup;
    int32_t reserved;
    double start_seconds; /* the item's boundaries on the timeline's clock */
    double end_seconds;
    int64_t peak_rss_bytes; /* the item's exact peak (its record's); -1 none */
    double peak_seconds;    /* where the peak is marked; NaN on input: the
                               highest point inside the item, else its end */
} spacrbench_timeline_item;

/* Readers. _info: SPACRBENCH_ERANGE when the measurement has no timeline. */
SPACRBENCH_EXTERN int spacrbench_measurement_timeline_info(const spacrbench_measurement *m,
                                                           spacrbench_timeline_info *out);
SPACRBENCH_EXTERN size_t spacrbench_measurement_timeline_count(const spacrbench_measurement *m);
SPACRBENCH_EXTERN int spacrbench_measurement_timeline_point(const spacrbench_measurement *m,
                                                            size_t index,
                                                            spacrbench_timeline_point *out);
SPACRBENCH_EXTERN size_t
spacrbench_measurement_timeline_item_count(const spacrbench_measurement *m);
SPACRBENCH_EXTERN int spacrbench_measurement_timeline_item(const spacrbench_measurement *m,
                                                           size_t index,
                                                           spacrbench_timeline_item *out);
/* Builders, for front ends that sample themselves and for copies. _begin
 * starts an empty timeline (info: interval_us; for a copy also samples and
 * stride as the source said). _add_sample puts one sample through the
 * downsampler; _add_point appends a point already merged (a copy;
 * SPACRBENCH_ERANGE past the bound); _add_item marks an item. */
SPACRBENCH_EXTERN int spacrbench_measurement_timeline_begin(spacrbench_measurement *m,
                                                            const spacrbench_timeline_info *info);
SPACRBENCH_EXTERN int
spacrbench_measurement_timeline_add_sample(spacrbench_measurement *m,
                                           const spacrbench_timeline_point *sample);
SPACRBENCH_EXTERN int
spacrbench_measurement_timeline_add_point(spacrbench_measurement *m,
                                          const spacrbench_timeline_point *point);
SPACRBENCH_EXTERN int
spacrbench_measurement_timeline_add_item(spacrbench_measurement *m,
                                         const spacrbench_timeline_item *item);

/* --- Since 1.3: CPU over time on the timeline --------------------------- */

/* Each timeline point may carry the CPU seconds (user+sys) the watched
 * work had used by then, counted from the run's start: the process's own
 * in a run of the library's runner, the items' process trees in
 * `spacrbench run`. CPU % over a span is the difference of two points over
 * their time. NaN: not sampled. _add_sample_cpu is _add_sample with it
 * (the point keeps its latest); _add_point_cpu is _add_point with it. */
SPACRBENCH_EXTERN int spacrbench_measurement_timeline_add_sample_cpu(
    spacrbench_measurement *m, const spacrbench_timeline_point *sample, double cpu_seconds);
SPACRBENCH_EXTERN int spacrbench_measurement_timeline_add_point_cpu(
    spacrbench_measurement *m, const spacrbench_timeline_point *point, double cpu_seconds);
/* Point index's CPU seconds; NaN when not sampled or out of range. */
SPACRBENCH_EXTERN double spacrbench_measurement_timeline_point_cpu(const spacrbench_measurement *m,
                                                                   size_t index);

/* SPACRBENCH_CDEF_END */

#ifdef __cplusplus
}
#endif

#endif /* SPACRBENCH_PUBLIC_SYS_TIMELINE_H */
