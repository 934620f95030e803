/*
 * Reading a measurement: its figures, item records, GPUs, each item's CPU
 * time, memory figures and repeated runs (docs/spacrbench.schema.json).
 */
/* First spacrbench.h, outside the guard: whichever header a program
 * includes, every header is then read in spacrbench.h's order. */
#include "../spacrbench.h"

#ifndef SPACRBENCH_PUBLIC_MEASUREMENT_H
#define SPACRBENCH_PUBLIC_MEASUREMENT_H

#ifdef __cplusplus
extern "C" {
#endif

/* SPACRBENCH_CDEF_BEGIN */

/* How the peak resident memory of a run was obtained. */
typedef enum spacrbench_peak_method {
    SPACRBENCH_PEAK_NONE = 0,         /* not measured */
    SPACRBENCH_PEAK_HWM_RESET = 1,    /* kernel high-water mark, reset at start: exact */
    SPACRBENCH_PEAK_HWM_WINDOW = 2,   /* high-water mark rose during the run: exact */
    SPACRBENCH_PEAK_SAMPLED = 3,      /* sampler thread: may miss short spikes */
    SPACRBENCH_PEAK_CGROUP = 4,       /* a cgroup's peak (process tree, page cache included) */
    SPACRBENCH_PEAK_CHILD_RUSAGE = 5, /* wait4 of a child plus sampled descendants */
    SPACRBENCH_PEAK_SUPPLIED = 6      /* figures supplied by the caller */
} spacrbench_peak_method;

/* Since 1.1.
 * Peak methods added in 1.1 (values continue spacrbench_peak_method). */
enum spacrbench_group_peak_method {
    /* Sum of the group's processes' PSS (smaps_rollup), sampled: shared
     * copy-on-write pages count once, short spikes may be missed. */
    SPACRBENCH_PEAK_PSS_SUM = 7
};

/* Scalar figures of a measurement; read with spacrbench_measurement_figures,
 * or supplied to spacrbench_measurement_create (counts marked "read" are
 * ignored there). */
typedef struct spacrbench_figures {
    size_t size;
    int64_t items;              /* measured items (warm-up excluded) */
    double seconds;             /* wall seconds of the measured items */
    int64_t peak_rss_bytes;     /* whole run, warm-up included */
    int64_t baseline_rss_bytes; /* current RSS just before the first item */
    int64_t peak_vram_bytes;    /* -1 = not measured */
    double cpu_seconds;         /* user+sys of the measured window; NaN if unknown */
    int64_t warmup_items;
    double warmup_seconds;
    int32_t peak_method;        /* spacrbench_peak_method */
    int32_t vram_source;        /* spacrbench_source: NVML, TORCH, CALLER or UNKNOWN */
    int64_t sample_interval_us; /* 0 when no sampler ran */
    int32_t stopped;            /* 1 when the run was stopped early */
    int32_t work_result;        /* what the work returned when it stopped the run */
    int64_t stopped_item;       /* index of the item that stopped it, else -1 */
    int64_t note_count;         /* read */
    int64_t record_count;       /* read */
    int64_t gpu_count;          /* read */
    /* Since 1.1: */
    int64_t oom_limit_bytes; /* > 0: an item was OOM-killed at this limit, so one
                                    worker needs more: the peak is a lower bound */
} spacrbench_figures;

/* One item's own cost. */
typedef struct spacrbench_item_record {
    size_t size;
    int64_t index;
    int32_t is_warmup;
    int32_t reserved;
    double seconds;
    int64_t peak_rss_bytes;  /* -1 = not measured */
    int64_t peak_vram_bytes; /* -1 = not measured */
} spacrbench_item_record;

/* One GPU seen during a run. */
typedef struct spacrbench_gpu_info {
    size_t size;
    int64_t index;
    char name[96];
    int64_t total_bytes;
    int64_t free_bytes;         /* at the end of the run */
    int64_t process_peak_bytes; /* this process's peak on this device */
} spacrbench_gpu_info;

/* --- Accessors ---------------------------------------------------------- */

SPACRBENCH_EXTERN int spacrbench_measurement_figures(const spacrbench_measurement *m,
                                                     spacrbench_figures *out);
/* The note's text, owned by m; NULL if index is out of range. */
SPACRBENCH_EXTERN const char *spacrbench_measurement_note(const spacrbench_measurement *m,
                                                          size_t index);
SPACRBENCH_EXTERN int spacrbench_measurement_record(const spacrbench_measurement *m, size_t index,
                                                    spacrbench_item_record *out);
/* Since 1.1.
 * Copy records [first, first + count) into out, an array of elements of
 * record_size bytes each (the caller's sizeof(spacrbench_item_record)),
 * each with its size set: one call instead of one per record. */
SPACRBENCH_EXTERN int spacrbench_measurement_copy_records(const spacrbench_measurement *m,
                                                          size_t first, size_t count, void *out,
                                                          size_t record_size);
SPACRBENCH_EXTERN int spacrbench_measurement_gpu(const spacrbench_measurement *m, size_t index,
                                                 spacrbench_gpu_info *out);
/* Derived figures: NaN for a non-positive duration / no items. */
SPACRBENCH_EXTERN double spacrbench_measurement_items_per_second(const spacrbench_measurement *m);
SPACRBENCH_EXTERN double spacrbench_measurement_per_item_seconds(const spacrbench_measurement *m);
/* max(0, peak - baseline); -1 if the peak was not measured. */
SPACRBENCH_EXTERN int64_t spacrbench_measurement_work_rss_bytes(const spacrbench_measurement *m);

/* Since 1.1.
 * Why VRAM was not measured ("" when it was, or nobody said); set by
 * spacrbench_measurement_set_vram_reason (spacrbench/sys/builder.h). */
SPACRBENCH_EXTERN const char *spacrbench_measurement_vram_reason(const spacrbench_measurement *m);

/* --- Since 1.2: each item's CPU time ------------------------------------ */

/* The CPU seconds of item record `index` (NaN when unknown or out of range):
 * `spacrbench run` knows each command's; the in-process runner does not. */
SPACRBENCH_EXTERN double spacrbench_measurement_item_cpu_seconds(const spacrbench_measurement *m,
                                                                 size_t index);

/* --- Since 1.3: an item's two memory figures and its repeated runs ------ */

/* The two figures of an item run as processes of their own (`spacrbench
 * run`); -1 where not measured. A record's peak_rss_bytes is the one the
 * advice divides by (peak_method says which: the charge for "cgroup"). */
typedef struct spacrbench_memory_figures {
    size_t size;
    /* The most the kernel charged the item's own memory cgroup
     * (memory.max_usage_in_bytes, memory.peak): exact. What a SLURM --mem
     * or a container limit counts: page cache the item read or wrote
     * included, file pages other processes cached first (shared
     * libraries) not. */
    int64_t cgroup_charge_bytes;
    /* The peak RSS of the item's process tree: the larger of wait4's
     * ru_maxrss (its largest process: GNU time's %M) and the largest sum
     * of the VmHWM of its processes alive at one sample. What GNU time,
     * mprof and psrecord report; an upper bound for a tree whose peaks did
     * not coincide. */
    int64_t tree_rss_peak_bytes;
} spacrbench_memory_figures;

/* The figures of record index (-1 each where none was set). */
SPACRBENCH_EXTERN int spacrbench_measurement_item_memory(const spacrbench_measurement *m,
                                                         size_t index,
                                                         spacrbench_memory_figures *out);
/* The largest of each over m's records, warm-up included as for the peak
 * (-1 where no record has one). */
SPACRBENCH_EXTERN int spacrbench_measurement_memory(const spacrbench_measurement *m,
                                                    spacrbench_memory_figures *out);

/* What a record holds beyond spacrbench_item_record, for a binding that
 * copies every record at once: its CPU seconds
 * (spacrbench_measurement_item_cpu_seconds), its memory figures and how
 * many runs it keeps. */
typedef struct spacrbench_item_details {
    size_t size;
    double cpu_seconds;          /* NaN unknown */
    int64_t cgroup_charge_bytes; /* -1 not measured */
    int64_t tree_rss_peak_bytes; /* -1 not measured */
    int64_t run_count;           /* spacrbench_measurement_item_run_count */
} spacrbench_item_details;

/* Details of records [first, first + count) into out, an array of
 * elements of detail_size bytes (the caller's sizeof), each with its size
 * set: the counterpart of spacrbench_measurement_copy_records. */
SPACRBENCH_EXTERN int spacrbench_measurement_copy_item_details(const spacrbench_measurement *m,
                                                               size_t first, size_t count,
                                                               void *out, size_t detail_size);

/* One timed run of an item (`spacrbench run --runs N` runs each measured
 * item N times; the warm-up items run once). */
typedef struct spacrbench_item_run {
    size_t size;
    double seconds;              /* wall time; finite, >= 0 */
    double cpu_seconds;          /* user+sys; NaN unknown */
    int64_t peak_rss_bytes;      /* as the record's (peak_method); -1 not measured */
    int64_t peak_vram_bytes;     /* -1 not measured */
    int64_t cgroup_charge_bytes; /* spacrbench_memory_figures; -1 not measured */
    int64_t tree_rss_peak_bytes; /* -1 not measured */
} spacrbench_item_run;

/* How many runs record index keeps: 0 when it is its one run (none kept). */
SPACRBENCH_EXTERN size_t spacrbench_measurement_item_run_count(const spacrbench_measurement *m,
                                                               size_t index);
SPACRBENCH_EXTERN int spacrbench_measurement_item_run(const spacrbench_measurement *m, size_t index,
                                                      size_t run, spacrbench_item_run *out);

enum spacrbench_run_limits {
    SPACRBENCH_RUNS_MAX = 10000,
    /* A spread is flagged when the standard deviation of the runs is more
     * than this many percent of their mean. */
    SPACRBENCH_RUN_SPREAD_PERCENT = 10
};

/* The spread of timed runs' seconds. */
typedef struct spacrbench_run_stats {
    size_t size;
    int64_t runs;  /* timed runs counted; 0: none (the rest NaN) */
    double mean;   /* seconds */
    double stddev; /* sample standard deviation (n - 1); NaN below 2 runs */
    double min;
    double max;
    int32_t spread; /* 1: stddev above SPACRBENCH_RUN_SPREAD_PERCENT % of mean */
    int32_t reserved;
} spacrbench_run_stats;

/* Of record index's runs (a record that keeps none: its one time). */
SPACRBENCH_EXTERN int spacrbench_measurement_item_run_stats(const spacrbench_measurement *m,
                                                            size_t index,
                                                            spacrbench_run_stats *out);
/* Of every timed run of the measured (not warm-up) records together. */
SPACRBENCH_EXTERN int spacrbench_measurement_run_stats(const spacrbench_measurement *m,
                                                       spacrbench_run_stats *out);

/* SPACRBENCH_CDEF_END */

#ifdef __cplusplus
}
#endif

#endif /* SPACRBENCH_PUBLIC_MEASUREMENT_H */
