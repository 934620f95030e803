/*
 * The scaling check (since 1.1; docs/scaling.md)
 *
 * Runs the work with several worker counts at once and measures what really
 * happens: throughput, speed-up over one worker, efficiency, and the
 * group's real aggregate peak memory; then picks "the knee", the smallest
 * count within 10 % of the best throughput that fits the memory budget.
 *
 * Fork-safety rules for a work function given to spacrbench_scale (each
 * worker is a fork() of the calling process that runs items and _exit()s):
 * - Only the forking thread exists in a worker: threads the work relies on
 *   (thread pools, BLAS/OpenMP runtimes already started, a logger thread)
 *   are gone, and a lock another thread held at the fork stays locked.
 *   Start such things inside the work, or initialise them lazily per item.
 * - File descriptors are shared with the parent and the other workers
 *   (one file offset each): open files inside the work.
 * - GPU contexts (CUDA, OpenCL) must not be inherited: do not create one
 *   before spacrbench_scale; create it in the work if needed.
 * - Workers never return into the caller and never run atexit handlers or
 *   flush stdio buffers: write results to files the work opens itself.
 * - The work must not call spacrbench_scale or spacrbench_benchmark.
 */
/* First spacrbench.h, outside the guard: whichever header a program
 * includes, every header is then read in spacrbench.h's order. */
#include "../spacrbench.h"

#ifndef SPACRBENCH_PUBLIC_SCALE_H
#define SPACRBENCH_PUBLIC_SCALE_H

#ifdef __cplusplus
extern "C" {
#endif

/* SPACRBENCH_CDEF_BEGIN */

/* Since 1.1.
 * Flags for spacrbench_scale_options.flags and spacrbench_group_open. */
enum spacrbench_scale_flags {
    /* Do not make a memory cgroup: sample the workers' PSS instead. */
    SPACRBENCH_SCALE_NO_CGROUP = 1
};

/* Since 1.1.
 * What decided the knee of a scaling check. */
typedef enum spacrbench_scale_verdict {
    SPACRBENCH_SCALE_NONE = 0,      /* no usable point */
    SPACRBENCH_SCALE_LINEAR = 1,    /* still gaining at the largest count measured */
    SPACRBENCH_SCALE_SATURATED = 2, /* more workers give < 10 % more throughput */
    SPACRBENCH_SCALE_MEMORY = 3     /* a faster count does not fit the memory budget */
} spacrbench_scale_verdict;

/* Since 1.1. */
typedef struct spacrbench_scale_options {
    size_t size;
    const int64_t *worker_counts; /* NULL: 1, 2, 4, ... up to max_workers */
    size_t n_worker_counts;
    int64_t max_workers;         /* AUTO: min(cores, workers whose measured
                                     1-worker peak fits the budget, + 1) */
    int64_t items_per_worker;    /* AUTO: n_items; each worker runs this many */
    int64_t memory_budget_bytes; /* AUTO: available - reserve (spacrbench_recommend) */
    uint32_t flags;              /* spacrbench_scale_flags */
    uint32_t reserved;           /* must be 0 */
} spacrbench_scale_options;

/* Since 1.1.
 * One worker count. Inputs of spacrbench_scale_from_points: workers, items,
 * seconds, mean_item_seconds (NaN if unknown), peak_bytes (-1 = not
 * measured), peak_method, failed, vram_peak_bytes (-1 = not measured); the
 * library computes the rest. */
typedef struct spacrbench_scale_point {
    size_t size;
    int64_t workers;
    int64_t items;            /* items run by all workers together */
    double seconds;           /* wall time, all workers started to all done */
    double items_per_second;  /* NaN if unusable */
    double speedup;           /* over the 1-worker point; NaN without one */
    double efficiency;        /* speedup / workers; NaN without one */
    double mean_item_seconds; /* per-item time inside a worker; NaN unknown */
    int64_t peak_bytes;       /* the group's aggregate peak; -1 not measured */
    int32_t peak_method;      /* spacrbench_peak_method (CGROUP, PSS_SUM, ...) */
    int32_t fits;             /* fits the memory budget: 1, 0, -1 unknown */
    int32_t failed;           /* 1: a worker's work returned non-zero or died */
    int32_t reserved;
    int64_t
        vram_peak_bytes; /* since 1.1: the workers' GPU memory together (NVML); -1 not measured */
} spacrbench_scale_point;

/* Since 1.1. */
typedef struct spacrbench_scale_summary {
    size_t size;
    int64_t chosen_workers;       /* the knee; -1 when no point was usable */
    int64_t best_workers;         /* highest throughput among usable points; -1 */
    double best_items_per_second; /* NaN when none */
    int64_t memory_budget_bytes;  /* -1 unknown */
    int32_t verdict;              /* spacrbench_scale_verdict */
    int32_t peak_method;          /* of the points (NONE when mixed or none) */
    int64_t point_count;
    int64_t note_count;
    char reason[512]; /* "saturates at 4: 8 workers give 1.06x of 4 ..." */
} spacrbench_scale_summary;

/* Since 1.1. */
typedef struct spacrbench_scale_result spacrbench_scale_result; /* opaque */

/* Since 1.1. */
SPACRBENCH_EXTERN int spacrbench_scale_options_init(spacrbench_scale_options *opts, size_t size);
/* Since 1.1.
 * A point with the sentinels set (NaN, -1, NONE) and size = size. */
SPACRBENCH_EXTERN int spacrbench_scale_point_init(spacrbench_scale_point *point, size_t size);

/* Since 1.1.
 * Fork k workers for every count k; each runs items_per_worker items
 * (worker w starts at item w * n_items / k and wraps around), all starting
 * together. Measures each point's wall time, per-item time (reported by
 * the workers through a pipe) and the group's peak (a memory cgroup of its
 * own where possible, else the workers' PSS sum), then applies the rule of
 * spacrbench_scale_from_points. A worker whose work returns non-zero marks
 * its point failed (not an error). EBUSY while another scaling check runs
 * in this process. On success *out owns a result (spacrbench_scale_free). */
SPACRBENCH_EXTERN int spacrbench_scale(spacrbench_work_fn work, void *const *items, size_t n_items,
                                       void *payload, const spacrbench_scale_options *opts,
                                       spacrbench_scale_result **out);

/* Since 1.1.
 * The rule alone, on points measured elsewhere (a Python pool, the
 * command): speed-up, efficiency, fits and the knee. points is an array of
 * n elements of point_size bytes (the caller's sizeof(spacrbench_scale_point)).
 * Worker counts must be >= 1 and distinct; budget_bytes -1 = unknown. */
SPACRBENCH_EXTERN int spacrbench_scale_from_points(const void *points, size_t n, size_t point_size,
                                                   int64_t budget_bytes,
                                                   spacrbench_scale_result **out);
/* Since 1.1. */
SPACRBENCH_EXTERN int spacrbench_scale_add_note(spacrbench_scale_result *r, const char *note);
/* Since 1.1. */
SPACRBENCH_EXTERN int spacrbench_scale_summary_get(const spacrbench_scale_result *r,
                                                   spacrbench_scale_summary *out);
/* Since 1.1.
 * Points in increasing worker count. ERANGE past the end. */
SPACRBENCH_EXTERN int spacrbench_scale_point_get(const spacrbench_scale_result *r, size_t index,
                                                 spacrbench_scale_point *out);
/* Since 1.1.
 * The note's text, owned by r; NULL out of range. */
SPACRBENCH_EXTERN const char *spacrbench_scale_note(const spacrbench_scale_result *r, size_t index);
/* Since 1.1. */
SPACRBENCH_EXTERN void spacrbench_scale_free(spacrbench_scale_result *r);
/* Since 1.1.
 * The table and the verdict, snprintf-style. */
SPACRBENCH_EXTERN int spacrbench_format_scaling(const spacrbench_scale_result *r, char *buf,
                                                size_t cap);
/* Since 1.1.
 * The AUTO memory budget: available - reserve as spacrbench_recommend
 * computes them now; -1 if unknown. */
SPACRBENCH_EXTERN int64_t spacrbench_scale_memory_budget(void);

/* --- Since 1.2: steady-state timing, the spread, the knee as the answer -- */

/* How each worker count is timed, hyperfine-like: every worker first runs
 * warmup_items untimed items (its start-up: page faults, imports, a model
 * load), then the workers are released together for a timed repeat in
 * which each runs at least min_items items AND for at least min_seconds;
 * at least min_repeats repeats, more (up to max_repeats) while the spread
 * between them exceeds target_spread. Initialise with
 * spacrbench_scale_timing_init (the defaults: 1 warm-up item, 3 items,
 * 1.0 s, 2 to 5 repeats, 5 %). */
typedef struct spacrbench_scale_timing {
    size_t size;
    int64_t warmup_items; /* per worker, untimed; >= 0 */
    int64_t min_items;    /* per worker and repeat; >= 1 */
    double min_seconds;   /* per repeat; >= 0 */
    int64_t min_repeats;  /* >= 1 */
    int64_t max_repeats;  /* >= min_repeats, <= 100 */
    double target_spread; /* relative half-range, e.g. 0.05; >= 0 */
} spacrbench_scale_timing;

/* What the repeats of one point say about its noise, beside
 * spacrbench_scale_point (same index). spread = (max - min) / (2 * mean)
 * of the repeats' items/s: a count is better than another only when its
 * gain exceeds both 10 % and the two counts' spreads added. oom_killed: the
 * kernel's OOM killer ran in the point's group (its memory limit is the
 * budget): the point is failed and counts as over the budget. */
typedef struct spacrbench_scale_spread {
    size_t size;
    int64_t repeats;             /* timed repeats; 0 unknown (spread NaN) */
    double items_per_second_min; /* the slowest repeat; NaN unknown */
    double items_per_second_max; /* the fastest repeat; NaN unknown */
    double spread;               /* NaN with fewer than 2 repeats */
    int64_t warmup_items;        /* per worker, untimed; -1 unknown */
    int32_t oom_killed;          /* 1: OOM-killed in its group at its limit (the budget);
                                    2: by a limit outside it (a job's, --no-cgroup);
                                    3 (since 1.3): ended by spacrbench at the budget,
                                    which no cgroup could hold as a limit */
    int32_t reserved;
    int64_t limit_bytes; /* the group's memory limit; -1 none */
} spacrbench_scale_spread;

SPACRBENCH_EXTERN int spacrbench_scale_timing_init(spacrbench_scale_timing *timing, size_t size);
SPACRBENCH_EXTERN int spacrbench_scale_spread_init(spacrbench_scale_spread *spread, size_t size);
/* spacrbench_scale with the timing rules above (timing NULL: the
 * defaults; opts->items_per_worker, when not AUTO, is min_items). The
 * group of each count carries a memory limit of the budget where it is a
 * cgroup, so an over-budget count is OOM-killed inside it, never the
 * caller; workers die with the caller (PR_SET_PDEATHSIG). */
SPACRBENCH_EXTERN int spacrbench_scale_timed(spacrbench_work_fn work, void *const *items,
                                             size_t n_items, void *payload,
                                             const spacrbench_scale_options *opts,
                                             const spacrbench_scale_timing *timing,
                                             spacrbench_scale_result **out);
/* spacrbench_scale_from_points with each point's spread (spreads: n
 * elements of spread_size bytes, or NULL for none). */
SPACRBENCH_EXTERN int spacrbench_scale_from_points_spread(const void *points, size_t n,
                                                          size_t point_size, const void *spreads,
                                                          size_t spread_size, int64_t budget_bytes,
                                                          spacrbench_scale_result **out);
/* The spread of point index (increasing worker count). ERANGE past the end. */
SPACRBENCH_EXTERN int spacrbench_scale_spread_get(const spacrbench_scale_result *r, size_t index,
                                                  spacrbench_scale_spread *out);

/* One answer: where a scaling check ran, its knee, within the serial
 * bounds (memory, VRAM, the maximum), becomes rec->workers; rec->reason
 * says so ("measured: ..." first where the knee decides; upstream's words
 * first where a serial bound is lower), rec->bound is unchanged. 0, or
 * EINVAL. A check without a usable count says what to do, and leaves
 * workers unless one worker alone exceeded the budget (then 1). */
SPACRBENCH_EXTERN int spacrbench_recommend_apply_scaling(spacrbench_recommendation *rec,
                                                         const spacrbench_scale_result *scaling);
/* Since 1.3.
 * The worker counts a check may measure, as spacrbench_scale_execute
 * checks worker_counts: at most 64, each 1 to SPACRBENCH_SCALE_MAX_WORKERS,
 * none twice. A problem is named by name, the caller's word for the list
 * (NULL: "worker_counts"). 0 or EINVAL. */
SPACRBENCH_EXTERN int spacrbench_scale_check_counts(const int64_t *counts, size_t n,
                                                    const char *name);

/* SPACRBENCH_CDEF_END */

#ifdef __cplusplus
}
#endif

#endif /* SPACRBENCH_PUBLIC_SCALE_H */
