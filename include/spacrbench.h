/*
 * spacrbench: measure what ONE worker of an image pipeline needs (wall time,
 * exact peak resident memory, peak GPU memory), read what this machine,
 * container or job can really give, and recommend a worker count with the
 * reason and the evidence. It measures; it never changes a setting.
 *
 * The simple path, which is all most programs need, is this file:
 *
 *    spacrbench_measurement *m;
 *    spacrbench_recommendation rec = {sizeof rec};
 *    spacrbench_benchmark(work, items, n_items, payload, NULL, &m);
 *    spacrbench_recommend(m, NULL, &rec);
 *    spacrbench_format_report(m, &rec, buf, sizeof buf);
 *    spacrbench_measurement_free(m);
 *
 * It includes every other header, so <spacrbench.h> is the one to include:
 *   spacrbench/common.h       versions, export macros, sentinels, errors
 *   spacrbench/measurement.h  a measurement's figures, records, runs, GPUs
 *   spacrbench/machine.h      the memory and cores this process may use
 *   spacrbench/plate.h        advice for a whole plate of items that differ
 *   spacrbench/scale.h        the scaling check: several workers at once
 *   spacrbench/cluster.h      the hand-off: SLURM job arrays, Dask, summarize
 *   spacrbench/format.h       text, JSON, exports, names
 *   spacrbench/sys/           lower-level, for tools and bindings; the same
 *                             stable ABI: builder.h (a measurement by parts),
 *                             timeline.h, group.h (process groups) and
 *                             executor.h (the scaling check over your workers)
 *
 * Conventions (stable C ABI, SONAME libspacrbench.so.1):
 * - Everything public is prefixed spacrbench_ / SPACRBENCH_.
 * - Functions return 0 on success or a negative spacrbench_error code; a
 *   detailed, thread-local message is kept in spacrbench_last_error_message().
 * - Structs that may grow carry their size first ("size"). Initialise input
 *   structs with the *_init() function (or the *_INIT macro). The library
 *   accepts an older, smaller struct (missing fields take their defaults) and
 *   rejects a larger one whose unknown tail is not all zero
 *   (SPACRBENCH_EUNKNOWN_FIELDS). Output structs: set "size"; the library
 *   fills the fields it knows and zeroes any tail it does not know.
 * - A value that was not measured is SPACRBENCH_NOT_MEASURED (-1), never 0:
 *   "not measured" and "measured, none" are different answers.
 * - Text is written snprintf-style: a function writes at most cap bytes (NUL
 *   included) and returns the full length, or a negative code.
 * - Everything added after 1.0 is marked where it is declared, in its
 *   header: "Since 1.1" on each declaration, "--- Since 1.2: <what> ---"
 *   (and "--- Since 1.3: ...") above each group of 1.2 (1.3)
 *   declarations; an unmarked declaration is in
 *   1.0. Fields a struct gained later are marked the same way, inside it.
 *
 * The region between SPACRBENCH_CDEF_BEGIN and SPACRBENCH_CDEF_END of each
 * header, in the order of the #include lines below, is fed to the Python
 * binding's cffi (python/gen_cffi.py) with its preprocessor lines and the
 * SPACRBENCH_EXTERN / SPACRBENCH_CALLBACK markers removed, so a mismatch
 * between header and binding fails at build time. Declarations in it are
 * therefore never inside #if, and never made by macros.
 */
#ifndef SPACRBENCH_H
#define SPACRBENCH_H

#include "spacrbench/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* SPACRBENCH_CDEF_BEGIN */

typedef struct spacrbench_measurement spacrbench_measurement; /* opaque */
/* What this machine can give: spacrbench/machine.h. */
typedef struct spacrbench_machine spacrbench_machine;

/* --- Options of a benchmark ------------------------------------------- */

/* Work function: called once per item, in order, in the calling thread.
 * Return 0 to continue; any other value stops the run (SPACRBENCH_EUSER). */
typedef int(SPACRBENCH_CALLBACK *spacrbench_work_fn)(void *item, void *payload);

/* Passed to the progress function after each item. */
typedef struct spacrbench_progress {
    size_t size;
    int64_t index; /* 0-based index of the item just finished */
    int64_t total; /* number of items, warm-up included; -1 unknown (1.2) */
    int32_t is_warmup;
    int32_t reserved;
    double item_seconds;         /* wall time of that item */
    double elapsed_seconds;      /* since the first item started */
    int64_t item_peak_rss_bytes; /* -1 without per-item records */
} spacrbench_progress;

/* Return non-zero to stop the run (SPACRBENCH_EUSER). */
typedef int(SPACRBENCH_CALLBACK *spacrbench_progress_fn)(const spacrbench_progress *progress,
                                                         void *payload);

/* Flags for spacrbench_options.flags. */
enum spacrbench_option_flags {
    /* Ignore the kernel high-water-mark reset and use the fallback path
     * (H0/H1 rule plus sampler), as on kernels without clear_refs. */
    SPACRBENCH_FLAG_NO_HWM_RESET = 1,
    /* Do not look for GPUs. */
    SPACRBENCH_FLAG_NO_GPU = 2,
    /* On a stop, still hand back the measurement of what ran so far. */
    SPACRBENCH_FLAG_KEEP_PARTIAL = 4
};

typedef struct spacrbench_options {
    size_t size;                     /* sizeof(spacrbench_options) */
    int64_t warmup;                  /* items run before timing; default 1; >= 0 */
    int64_t sample_interval_us;      /* sampler period; default 10000; 0 = default */
    int32_t item_records;            /* per-item time and peak; default 1 */
    uint32_t flags;                  /* spacrbench_option_flags */
    spacrbench_progress_fn progress; /* may be NULL */
    void *progress_payload;
} spacrbench_options;

#define SPACRBENCH_OPTIONS_INIT                                                                    \
    {                                                                                              \
        sizeof(spacrbench_options), 1, 10000, 1, 0, NULL, NULL                                     \
    }
/* Struct initialiser: SPACRBENCH_OPTIONS_INIT, with size = size (the
 * caller's sizeof), for callers without the macro (bindings). */
SPACRBENCH_EXTERN int spacrbench_options_init(spacrbench_options *opts, size_t size);

/* --- Benchmark ---------------------------------------------------------- */

/* Run work(items[i], payload) for i in 0..n_items-1, serially, measuring.
 * opts may be NULL (defaults). On success *out owns a measurement to free
 * with spacrbench_measurement_free.
 *
 * Concurrency: peaks are per process, so one benchmark runs at a time in a
 * process. A call made while another is running (another thread, or the
 * work itself calling again) fails at once with SPACRBENCH_EBUSY; it never
 * waits. (The Python binding serialises its callers with a lock instead.)
 * Every other function is safe to call from any thread.
 *
 * What the work may do: it must RETURN. Leaving it by longjmp or a C++
 * exception abandons the run; the next call from the same thread (made no
 * deeper in the stack than the abandoned one) detects that, releases the
 * abandoned run's sampler thread, files and memory, notes it in its own
 * measurement and proceeds. The work may fork: a child that returns into
 * the runner gets SPACRBENCH_EFORKED (nothing of the parent's run is
 * touched in it: no thread is joined, its copies of the files are closed);
 * a child should rather _exit(). */
SPACRBENCH_EXTERN int spacrbench_benchmark(spacrbench_work_fn work, void *const *items,
                                           size_t n_items, void *payload,
                                           const spacrbench_options *opts,
                                           spacrbench_measurement **out);
/* Frees a measurement (NULL does nothing); spacrbench/measurement.h reads one. */
SPACRBENCH_EXTERN void spacrbench_measurement_free(spacrbench_measurement *m);

/* --- Since 1.2: items of unknown count ---------------------------------- */

/* Run work(NULL, payload) once per item until it returns
 * SPACRBENCH_ITEMS_END: for a source that cannot say how many items it
 * holds before they are taken (a generator), each item taken by the work
 * as it is processed. The call that returns SPACRBENCH_ITEMS_END is no
 * item and is not timed; any other non-zero value stops the run as in
 * spacrbench_benchmark (SPACRBENCH_EUSER). The measurement means what
 * spacrbench_benchmark's does: the first opts->warmup items are warm-up
 * and the last item is always measured; when the items end before the
 * warm-up does, the last one is counted as measured after the fact (the
 * progress function was told is_warmup = 1 for it, and the note says the
 * warm-up was clamped). The progress function gets total = -1 (unknown).
 * SPACRBENCH_ENOITEMS when the very first call returns
 * SPACRBENCH_ITEMS_END. Records and timeline marks grow between items
 * (outside every item's window; the memory they take joins the baseline,
 * as a counted run's records do, never the work's footprint);
 * SPACRBENCH_ENOMEM if they cannot. */
enum spacrbench_items_end { SPACRBENCH_ITEMS_END = 2147483647 }; /* INT_MAX */
SPACRBENCH_EXTERN int spacrbench_benchmark_stream(spacrbench_work_fn work, void *payload,
                                                  const spacrbench_options *opts,
                                                  spacrbench_measurement **out);

/* --- Recommend a worker count ------------------------------------------ */

/* Which rule decided a recommendation. */
typedef enum spacrbench_bound {
    SPACRBENCH_BOUND_NONE = 0,
    SPACRBENCH_BOUND_MEMORY = 1,   /* "memory-bound" */
    SPACRBENCH_BOUND_CORES = 2,    /* "core-bound" */
    SPACRBENCH_BOUND_MAXIMUM = 3,  /* "capped at the N-worker maximum" */
    SPACRBENCH_BOUND_FALLBACK = 4, /* "no usable memory measurement" */
    SPACRBENCH_BOUND_ONE = 5,      /* "one worker at a time" */
    SPACRBENCH_BOUND_VRAM = 6      /* "VRAM-bound" */
} spacrbench_bound;

/* Since 1.1.
 * How the workers will be started (spacrbench_recommend_options). With fork
 * a worker shares the parent's pages, so it needs only the work's footprint
 * above the baseline; spawn and forkserver start a fresh interpreter, so
 * each worker also pays the baseline. */
typedef enum spacrbench_start_method {
    SPACRBENCH_START_FORK = 0,
    SPACRBENCH_START_SPAWN = 1,
    SPACRBENCH_START_FORKSERVER = 2
} spacrbench_start_method;

/* Since 1.1.
 * How workers start unless the caller says: fork on Linux; spawn where
 * Python's multiprocessing starts them fresh (Windows, its only method;
 * macOS, its default since Python 3.8), so each pays the baseline. */
#if defined(_WIN32) || defined(__APPLE__)
#define SPACRBENCH_START_DEFAULT SPACRBENCH_START_SPAWN
#else
#define SPACRBENCH_START_DEFAULT SPACRBENCH_START_FORK
#endif

/* Since 1.1.
 * Which rule set the memory reserve of a recommendation. */
typedef enum spacrbench_reserve_rule {
    SPACRBENCH_RESERVE_CALLER = 0, /* the caller gave it */
    SPACRBENCH_RESERVE_HOST = 1,   /* host default: 2 GiB for the OS and desktop */
    SPACRBENCH_RESERVE_LIMIT = 2   /* a cgroup limit binds: 10% of it, 64 MiB to 2 GiB */
} spacrbench_reserve_rule;

typedef struct spacrbench_recommend_options {
    size_t size;
    int64_t cores;              /* SPACRBENCH_AUTO = discover; values < 1 count as 1 */
    int64_t available_bytes;    /* SPACRBENCH_AUTO = discover; otherwise >= 0 */
    int64_t reserve_bytes;      /* >= 0; SPACRBENCH_AUTO (the 1.1 default) = 2 GiB on a
                                   host, 10% of a binding cgroup limit (64 MiB..2 GiB) */
    int64_t maximum;            /* default 32; >= 1 */
    int64_t vram_reserve_bytes; /* default 1 GiB; >= 0 */
    int64_t free_vram_bytes;    /* SPACRBENCH_AUTO = from the measurement's GPUs */
    /* Since 1.1 (older, shorter structs get the defaults): */
    int32_t start_method; /* spacrbench_start_method; default FORK */
    int32_t reserved;     /* must be 0 */
} spacrbench_recommend_options;

#define SPACRBENCH_RECOMMEND_OPTIONS_INIT                                                          \
    {                                                                                              \
        sizeof(spacrbench_recommend_options), SPACRBENCH_AUTO, SPACRBENCH_AUTO, SPACRBENCH_AUTO,   \
            32, INT64_C(1073741824), SPACRBENCH_AUTO, SPACRBENCH_START_DEFAULT, 0                  \
    }
/* Struct initialiser: SPACRBENCH_RECOMMEND_OPTIONS_INIT, with size = size. */
SPACRBENCH_EXTERN int spacrbench_recommend_options_init(spacrbench_recommend_options *opts,
                                                        size_t size);

/* A worker count and every number that produced it. */
typedef struct spacrbench_recommendation {
    size_t size;
    int64_t workers;
    int32_t bound;        /* spacrbench_bound */
    int32_t cores_source; /* spacrbench_source */
    int64_t cores;
    int64_t available_bytes;
    int32_t memory_source; /* spacrbench_source */
    int32_t reserved;
    int64_t memory_limit_bytes; /* binding cgroup limit, -1 if none */
    int64_t reserve_bytes;
    int64_t per_worker_bytes; /* measured work footprint; -1 if none */
    int64_t memory_workers;   /* (available - reserve) / per worker; -1 if rule absent */
    int64_t maximum;
    int64_t per_worker_vram_bytes; /* -1 if not measured */
    int64_t free_vram_bytes;       /* -1 if unknown */
    int64_t vram_reserve_bytes;
    int64_t vram_workers; /* -1 if rule absent */
    char reason[512];
    char memory_where[600]; /* "host (MemAvailable)" or "cgroup v2 PATH, limit X" */
    char cores_where[600];
    /* Since 1.1: */
    double cpu_parallelism;     /* CPU seconds / wall seconds of the work; -1 unknown */
    int64_t cores_per_worker;   /* max(1, round(cpu_parallelism)) */
    int64_t core_workers;       /* floor(cores / cores_per_worker), >= 1 */
    int64_t threads_per_worker; /* suggested thread count per worker */
    int64_t baseline_bytes;     /* added to each worker's need (spawn/forkserver), else 0 */
    int32_t start_method;       /* spacrbench_start_method */
    int32_t reserve_rule;       /* spacrbench_reserve_rule */
    int64_t oom_limit_bytes;    /* > 0: an item was OOM-killed at this limit */
} spacrbench_recommendation;

/* Recommend a worker count. m may be NULL ("no usable memory measurement");
 * opts may be NULL (defaults). */
SPACRBENCH_EXTERN int spacrbench_recommend(const spacrbench_measurement *m,
                                           const spacrbench_recommend_options *opts,
                                           spacrbench_recommendation *out);
/* Since 1.1.
 * spacrbench_recommend on a machine snapshot the caller already discovered
 * (machine NULL: discover now), so one run reads /proc and cgroups once. */
SPACRBENCH_EXTERN int spacrbench_recommend_on(const spacrbench_measurement *m,
                                              const spacrbench_recommend_options *opts,
                                              const spacrbench_machine *machine,
                                              spacrbench_recommendation *out);

/* --- Report ------------------------------------------------------------- */

/* The report a user can paste into an issue, snprintf-style: writes at most
 * cap bytes (NUL included) and returns the full length, or a negative code.
 * rec may be NULL (no recommendation section). */
SPACRBENCH_EXTERN int spacrbench_format_report(const spacrbench_measurement *m,
                                               const spacrbench_recommendation *rec, char *buf,
                                               size_t cap);

/* --- Since 1.2: the report of what a caller holds ----------------------- */

/* What spacrbench_format_report_with() prints beyond the structs: a caller
 * (the Python binding) may hold more than they can. Zero-initialise it and
 * set size; a field left 0 changes nothing. */
typedef struct spacrbench_report_options {
    size_t size;        /* sizeof(spacrbench_report_options) */
    const char *reason; /* the "because" line, UTF-8, any length; NULL: rec->reason
                           (its field holds 511 bytes) */
    int use_seconds;    /* 1: the throughput line is spaCR's arithmetic on `seconds`,
                           a caller's figure the measurement cannot hold (NaN,
                           infinite, negative), with "; not measured (seconds is
                           <value>)" after it */
    double seconds;
} spacrbench_report_options;

/* spacrbench_format_report() with opts (NULL: the same report). */
SPACRBENCH_EXTERN int spacrbench_format_report_with(const spacrbench_measurement *m,
                                                    const spacrbench_recommendation *rec,
                                                    const spacrbench_report_options *opts,
                                                    char *buf, size_t cap);

/* Since 1.3. The verbose report: spacrbench_format_report_with() (which
 * gives the short report: the figures, the advice and the notes a user
 * acts on) with the notes on how each figure was obtained (the kernel
 * mark, the cgroup, the sampling) and, where they differ, the memory
 * charged beside the tree's RSS. The JSON keeps every note either way. */
SPACRBENCH_EXTERN int spacrbench_format_report_verbose(const spacrbench_measurement *m,
                                                       const spacrbench_recommendation *rec,
                                                       const spacrbench_report_options *opts,
                                                       char *buf, size_t cap);

/* SPACRBENCH_CDEF_END */

#ifdef __cplusplus
}
#endif

/* The topics, then sys/: each only uses what comes before it (in this
 * order, which clang-format would sort). */
/* clang-format off */
#include "spacrbench/measurement.h"
#include "spacrbench/machine.h"
#include "spacrbench/plate.h"
#include "spacrbench/scale.h"
#include "spacrbench/cluster.h"
#include "spacrbench/format.h"
#include "spacrbench/sys/builder.h"
#include "spacrbench/sys/timeline.h"
#include "spacrbench/sys/group.h"
#include "spacrbench/sys/executor.h"
/* clang-format on */

#endif /* SPACRBENCH_H */
