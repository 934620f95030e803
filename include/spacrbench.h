/*
 * spacrbench: measure what ONE worker of an image pipeline needs (wall time,
 * exact peak resident memory, peak GPU memory), read what this machine,
 * container or job can really give, and recommend a worker count with the
 * reason and the evidence. It measures; it never changes a setting.
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
 *   topic: "Since 1.1" on each declaration, "--- Since 1.2: <what> ---"
 *   (and "--- Since 1.3: ...") above each group of 1.2 (1.3)
 *   declarations; an unmarked declaration is in
 *   1.0. Fields a struct gained later are marked the same way, inside it.
 *
 * Contents, by topic:
 *   1. Versions, export macros, sentinels
 *   2. The simple path: options, benchmark, recommend, report
 *   3. Measurements: figures, constructors, accessors, the builder
 *   4. Machine discovery
 *   5. The scaling check
 *   6. Process groups (aggregate peak of processes the caller starts)
 *   7. Hand-off to a cluster scheduler (SLURM job arrays, Dask)
 *   8. Formatting and JSON
 *   9. Names and errors
 *
 * The region between SPACRBENCH_CDEF_BEGIN and SPACRBENCH_CDEF_END is fed to
 * the Python binding's cffi (python/gen_cffi.py) with its preprocessor lines
 * and the SPACRBENCH_EXTERN / SPACRBENCH_CALLBACK markers removed, so a
 * mismatch between header and binding fails at build time. Declarations in
 * it are therefore never inside #if, and never made by macros.
 */
#ifndef SPACRBENCH_H
#define SPACRBENCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* SPACRBENCH_CDEF_BEGIN */

/* ========================================================================
 * 1. Versions, export macros, sentinels
 * ======================================================================== */

#define SPACRBENCH_VERSION_MAJOR 1
#define SPACRBENCH_VERSION_MINOR 3
#define SPACRBENCH_VERSION_PATCH 0
#define SPACRBENCH_VERSION_NUMBER                                                                  \
    (SPACRBENCH_VERSION_MAJOR * 10000 + SPACRBENCH_VERSION_MINOR * 100 + SPACRBENCH_VERSION_PATCH)
#define SPACRBENCH_VERSION_STRING "1.3.0"

#if defined(_WIN32) && defined(SPACRBENCH_BUILDING)
#define SPACRBENCH_EXTERN __declspec(dllexport)
#elif defined(_WIN32)
#define SPACRBENCH_EXTERN __declspec(dllimport)
#elif defined(__GNUC__)
#define SPACRBENCH_EXTERN __attribute__((visibility("default")))
#else
#define SPACRBENCH_EXTERN
#endif

/* Pins the calling convention of function pointers the caller passes in. */
#if defined(_WIN32)
#define SPACRBENCH_CALLBACK __cdecl
#else
#define SPACRBENCH_CALLBACK
#endif

#define SPACRBENCH_NOT_MEASURED (-1)
#define SPACRBENCH_AUTO         (-1)

/* The version of the library loaded at run time (compare with the macros). */
SPACRBENCH_EXTERN unsigned spacrbench_version_number(void);
SPACRBENCH_EXTERN const char *spacrbench_version_string(void);

/* ========================================================================
 * 2. The simple path: measure the work, recommend a worker count, report
 *
 *    spacrbench_measurement *m;
 *    spacrbench_recommendation rec = {sizeof rec};
 *    spacrbench_benchmark(work, items, n_items, payload, NULL, &m);
 *    spacrbench_recommend(m, NULL, &rec);
 *    spacrbench_format_report(m, &rec, buf, sizeof buf);
 *    spacrbench_measurement_free(m);
 * ======================================================================== */

typedef struct spacrbench_measurement spacrbench_measurement; /* opaque */
/* What this machine can give: section 4. */
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
/* Frees a measurement (NULL does nothing); section 3 reads one. */
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

/* Since 1.4. The verbose report: spacrbench_format_report_with() (which
 * gives the short report: the figures, the advice and the notes a user
 * acts on) with the notes on how each figure was obtained (the kernel
 * mark, the cgroup, the sampling) and, where they differ, the memory
 * charged beside the tree's RSS. The JSON keeps every note either way. */
SPACRBENCH_EXTERN int spacrbench_format_report_verbose(const spacrbench_measurement *m,
                                                       const spacrbench_recommendation *rec,
                                                       const spacrbench_report_options *opts,
                                                       char *buf, size_t cap);

/* Since 1.2. How m's peak was obtained, in the report's words ("exact,
 * kernel high-water mark", "sampled", "exact, cgroup peak of the process
 * tree", never called exact where hugetlb pages escape it), for plots and
 * exports that show the method to a reader; the JSON keeps
 * spacrbench_peak_method_name(). NULL m: "not measured". Never NULL. */
SPACRBENCH_EXTERN const char *spacrbench_measurement_peak_words(const spacrbench_measurement *m);

/* --- Since 1.3: advice for the whole plate ------------------------------ */

/* The fields of one plate share their dimensions, not their content: a
 * dense well needs several times the memory of a sparse one, so the first
 * few items say little about the largest. Choose the items to measure
 * across a size key (spacrbench_plate_select), measure them (in this
 * order: spacrbench_plate_pick_get), predict every item from them
 * (spacrbench_plate_predict) and recommend for the plate's largest
 * (spacrbench_plate_recommend). docs/advice.md, "The plate".
 *
 *    spacrbench_plate *p;
 *    spacrbench_plate_select(n, file_size, paths, NULL, &p);
 *    ... run the items of spacrbench_plate_pick_get(p, 0 ..) into m ...
 *    spacrbench_plate_predict(p, m);
 *    spacrbench_plate_recommend(p, m, NULL, NULL, &rec);
 *    spacrbench_format_plate(p, &rec, labels, n, buf, sizeof buf);
 *    spacrbench_plate_free(p); */
typedef struct spacrbench_plate spacrbench_plate; /* opaque */

/* What the key of a plate is. */
typedef enum spacrbench_plate_key {
    SPACRBENCH_PLATE_KEY_NONE = 0,  /* no key: an evenly spaced sample */
    SPACRBENCH_PLATE_KEY_BYTES = 1, /* a size in bytes (a file's, an array's nbytes) */
    SPACRBENCH_PLATE_KEY_NUMBER = 2 /* any other number that grows with the item */
} spacrbench_plate_key;

/* Why an item was chosen. */
typedef enum spacrbench_plate_why {
    SPACRBENCH_PLATE_WHY_LARGEST = 1,  /* the largest key (always measured) */
    SPACRBENCH_PLATE_WHY_SMALLEST = 2, /* the smallest key */
    SPACRBENCH_PLATE_WHY_SPREAD = 3,   /* nearest an even step across the key's range */
    SPACRBENCH_PLATE_WHY_WARMUP = 4,   /* the warm-up: nearest the median key */
    SPACRBENCH_PLATE_WHY_EVEN = 5,     /* no key: evenly spaced through the plate */
    SPACRBENCH_PLATE_WHY_RANDOM = 6    /* since 1.5: drawn at random within a stratum of the key */
} spacrbench_plate_why;

/* How the footprints of the items not measured were predicted. */
typedef enum spacrbench_plate_fit {
    SPACRBENCH_PLATE_FIT_NONE = 0,        /* not predicted, or no footprint measured */
    SPACRBENCH_PLATE_FIT_KEY = 1,         /* they grow with the key: a line, plus its margin */
    SPACRBENCH_PLATE_FIT_UNIFORM = 2,     /* the measured ones agree within 10 % */
    SPACRBENCH_PLATE_FIT_UNEXPLAINED = 3, /* the key does not explain them */
    SPACRBENCH_PLATE_FIT_KEYLESS = 4,     /* no key */
    SPACRBENCH_PLATE_FIT_FEW = 5          /* fewer than 3 measured beside the warm-up */
} spacrbench_plate_fit;

typedef struct spacrbench_plate_options {
    size_t size;          /* sizeof(spacrbench_plate_options) */
    int64_t sample;       /* items to measure beside the warm-up; >= 1, or (since 1.5) 0:
                             sequentially (spacrbench_plate_more); default 0 */
    int64_t warmup;       /* warm-up items, measured first; default 1; >= 0 */
    int32_t key_kind;     /* spacrbench_plate_key of a key function; default BYTES */
    int32_t reserved;     /* must be 0 */
    const char *key_name; /* what the key is, in words ("file size"); NULL: "key" */
    /* Since 1.5, sample 0: the most the items measured beyond the least
     * sample may take, as a share of the plate's predicted serial time;
     * default 0.05, 0 to 1 (0: the least sample alone). */
    double sample_cost;
} spacrbench_plate_options;

#define SPACRBENCH_PLATE_OPTIONS_INIT                                                              \
    {                                                                                              \
        sizeof(spacrbench_plate_options), 0, 1, SPACRBENCH_PLATE_KEY_BYTES, 0, NULL, 0.05          \
    }
SPACRBENCH_EXTERN int spacrbench_plate_options_init(spacrbench_plate_options *opts, size_t size);

/* The key of item `index`: return 0 with *key set (a finite number >= 0,
 * such as the item's file size), or non-zero to stop (the key failed). */
typedef int(SPACRBENCH_CALLBACK *spacrbench_plate_key_fn)(size_t index, double *key, void *payload);

/* Choose which of n_items items to measure: min(n_items, sample) and, from
 * what is left, up to warmup warm-up items (a warm-up the plate has no
 * room for is cut, never the sample; a note says so), deterministic. With
 * a key (called once per item): the largest key always, the smallest, the
 * rest nearest even steps across the key's range, spread through the
 * plate's order among equal keys (a plate of equal keys is sampled evenly,
 * never as its first items), and the warm-up nearest the median key;
 * without one (key NULL):
 * evenly spaced through the plate, first and last included, and the
 * prediction says the largest item cannot be predicted. O(n log n).
 * Since 1.5 a NaN key is an item with no key (a line that names no file):
 * it is taken to be as large as the plate's largest key and a note says
 * so, the others keep theirs (every key NaN: no key). EINVAL for a key
 * that is negative or infinite (the message names the item's index); EUSER when the key function returned non-zero
 * (spacrbench_last_work_result() holds its value, _last_stopped_item()
 * the index); ENOITEMS for no items. opts may be NULL (defaults). */
SPACRBENCH_EXTERN int spacrbench_plate_select(size_t n_items, spacrbench_plate_key_fn key,
                                              void *payload, const spacrbench_plate_options *opts,
                                              spacrbench_plate **out);
/* spacrbench_plate_select with the keys given as an array (keys[i] is
 * item i's; NULL: no key). */
SPACRBENCH_EXTERN int spacrbench_plate_select_keys(size_t n_items, const double *keys,
                                                   const spacrbench_plate_options *opts,
                                                   spacrbench_plate **out);
SPACRBENCH_EXTERN void spacrbench_plate_free(spacrbench_plate *p);

/* One chosen item, in the order to measure them (warm-up first, then the
 * largest, so a failure there shows at once, then by increasing key; since
 * 1.5 the random items last, in the order drawn, so every prefix is a
 * smaller sample). The measured figures are set by spacrbench_plate_predict. */
typedef struct spacrbench_plate_pick {
    size_t size;
    int64_t index;           /* the item's index in the plate */
    double key;              /* NaN without a key */
    int32_t why;             /* spacrbench_plate_why */
    int32_t is_warmup;       /* 1 for the warm-up items */
    int64_t footprint_bytes; /* measured peak above the baseline; -1 not (yet) measured */
    double seconds;          /* measured wall time; NaN not (yet) measured */
} spacrbench_plate_pick;

/* How many items were chosen (the warm-up included): the items to run. */
SPACRBENCH_EXTERN size_t spacrbench_plate_pick_count(const spacrbench_plate *p);
/* The chosen item at position i of the order. ERANGE past the end. */
SPACRBENCH_EXTERN int spacrbench_plate_pick_get(const spacrbench_plate *p, size_t i,
                                                spacrbench_plate_pick *out);

/* Since 1.5, measuring sequentially (the default, sample 0): after the
 * first `measured` chosen items ran, in order, with these peaks (each
 * item's peak RSS, as spacrbench_progress's item_peak_rss_bytes; < 0:
 * none) and wall times (NULL: unknown), whether to run the next one
 * (*more = 1) or stop (0). At least 5 + ceil(1.5 ln(n / 5)) items beside
 * the warm-up, then more while the plate's predicted largest still grows
 * (by more than 5 % over one of the last 2 items) and the items beyond the
 * least took under the options' sample_cost (5 %) of the plate's predicted
 * serial time. A sample the user fixed (>= 1) runs every chosen item.
 * spacrbench_plate_predict takes a measurement of the items run up to the
 * stop. */
SPACRBENCH_EXTERN int spacrbench_plate_more(const spacrbench_plate *p, size_t measured,
                                            const int64_t *peak_rss_bytes, const double *seconds,
                                            int *more);

/* Predict every item of the plate from m, the measurement of the chosen
 * items run in order (one record each, m's warm-up the plate's). Each
 * item's footprint is modelled against its key, conservatively: an item
 * that was measured is predicted as measured; one beyond the measured keys
 * never below the largest measured footprint; the fit's uncertainty
 * (its 95 % prediction margin) only adds. When the footprints do not grow
 * with the key (or there is no key), the items not measured are taken to
 * need the largest measured footprint plus the spread across the measured
 * items, and a note says why. The plate's largest footprint is never
 * below m's whole footprint (spacrbench_measurement_work_rss_bytes). Wall
 * time is modelled the same way for the plate's total. The footprints
 * "grow with the key" when r reaches the one-sided 5 % critical value for
 * their count (0.988 at 3 items, 0.900 at 4, 0.805 at 5, never below 0.8).
 * EINVAL when m's records do not match the chosen items (since 1.5: the
 * first ones, where spacrbench_plate_more stopped), or m stopped before
 * they were all measured (the items before the stop are not the plate).
 * May be called again. */
SPACRBENCH_EXTERN int spacrbench_plate_predict(spacrbench_plate *p,
                                               const spacrbench_measurement *m);

/* What spacrbench_plate_predict found (zeroed, with -1 and NaN, before). */
typedef struct spacrbench_plate_prediction {
    size_t size;
    int64_t items;    /* the plate's items */
    int64_t measured; /* chosen items with a measured footprint */
    int64_t warmup;   /* of which warm-up */
    int32_t key_kind; /* spacrbench_plate_key */
    int32_t fit;      /* spacrbench_plate_fit of the footprints */
    int32_t time_fit; /* spacrbench_plate_fit of the wall times */
    int32_t reserved;
    double correlation;             /* r of footprint and key over the measured; NaN */
    double slope_bytes_per_key;     /* the line: footprint = intercept + slope * key; NaN */
    double intercept_bytes;         /* NaN without a line */
    int64_t largest_index;          /* the item predicted to need the most; -1 */
    double largest_key;             /* its key; NaN */
    double median_key;              /* the plate's median key; NaN without a key */
    int64_t largest_bytes;          /* the plate's largest predicted footprint; -1 */
    int64_t largest_measured_bytes; /* the largest measured footprint; -1 */
    int64_t spread_bytes;           /* largest - smallest measured footprint; -1 */
    double slowest_seconds;         /* the plate's slowest item, predicted; NaN */
    double total_seconds;           /* every item one after another, predicted; NaN */
    int64_t note_count;
} spacrbench_plate_prediction;

SPACRBENCH_EXTERN int spacrbench_plate_prediction_get(const spacrbench_plate *p,
                                                      spacrbench_plate_prediction *out);
/* The note's text (why the prediction is what it is), owned by p; NULL
 * out of range. */
SPACRBENCH_EXTERN const char *spacrbench_plate_note(const spacrbench_plate *p, size_t index);
/* Item `index`'s predicted footprint and wall time (measured where it was
 * measured). ERANGE past the plate, EINVAL before spacrbench_plate_predict. */
SPACRBENCH_EXTERN int spacrbench_plate_item_prediction(const spacrbench_plate *p, size_t index,
                                                       int64_t *footprint_bytes, double *seconds);

/* spacrbench_recommend_on for the plate: the memory bound divides by the
 * predicted largest footprint (never less than m's own), and the reason
 * keeps upstream's words first and adds the plate's ("...; the plate's
 * largest field (file size 460 KiB, 7.1x the plate's median file size) is
 * predicted to need 0.55 GiB"). EINVAL before spacrbench_plate_predict. */
SPACRBENCH_EXTERN int spacrbench_plate_recommend(const spacrbench_plate *p,
                                                 const spacrbench_measurement *m,
                                                 const spacrbench_recommend_options *opts,
                                                 const spacrbench_machine *machine,
                                                 spacrbench_recommendation *out);
/* The plate's predicted wall time with `workers` workers: the serial
 * total / workers, never below the slowest item; NaN before a prediction
 * or for workers < 1. */
SPACRBENCH_EXTERN double spacrbench_plate_eta_seconds(const spacrbench_plate *p, int64_t workers);
/* The report's plate section, snprintf-style: how many items, which were
 * measured and why (labels: one per item of the plate, or NULL), the
 * predicted largest footprint, and the plate's time with rec's workers
 * (rec may be NULL). Lines fit 79 columns. */
SPACRBENCH_EXTERN int spacrbench_format_plate(const spacrbench_plate *p,
                                              const spacrbench_recommendation *rec,
                                              const char *const *labels, size_t n_labels, char *buf,
                                              size_t cap);
/* The measurement the hand-off sizes a plate's tasks from (SLURM --mem and
 * --time, Dask's memory_limit): m with the plate's predicted largest
 * footprint as its peak (above m's baseline) and the predicted slowest
 * item as its slowest, so a job for the whole plate asks for what its
 * largest item needs. *out is a new measurement (spacrbench_measurement_free). */
SPACRBENCH_EXTERN int spacrbench_plate_handoff_measurement(const spacrbench_plate *p,
                                                           const spacrbench_measurement *m,
                                                           spacrbench_measurement **out);
/* A measurement of few items that differ: when m's measured items'
 * footprints differ by more than 1.5x (and 1 MiB), add a note saying so
 * and naming `remedy`, how to size for the whole plate (e.g.
 * "spacrbench.benchmark_plate()"). Returns 1 when it added the note, 0
 * when they do not differ, or a negative code. */
SPACRBENCH_EXTERN int spacrbench_measurement_note_spread(spacrbench_measurement *m,
                                                         const char *remedy);

/* The plate section a measurement carries, so that what was measured of
 * which plate, and what it predicts, travels with the figures: its JSON's
 * "plate" member (docs/spacrbench.schema.json), the report's and the
 * exports' plate section, Python's Measurement.plate. One pick per record,
 * in the records' order (the run order): pick i says which item of the
 * plate record i measured and why. -1 and NaN are "none". */
typedef struct spacrbench_plate_section {
    size_t size;
    int64_t items;                  /* the plate's items (>= 1) */
    int32_t key_kind;               /* spacrbench_plate_key */
    int32_t fit;                    /* spacrbench_plate_fit of the footprints */
    int32_t time_fit;               /* spacrbench_plate_fit of the wall times */
    int32_t reserved;               /* 0 */
    char key_name[64];              /* what the key is: "file size", "nbytes", "key" */
    double median_key;              /* the plate's median key; NaN */
    double correlation;             /* r of footprint and key over the measured; NaN */
    double slope_bytes_per_key;     /* the line; NaN */
    double intercept_bytes;         /* NaN */
    int64_t largest_index;          /* the item predicted to need the most; -1 */
    double largest_key;             /* its key; NaN */
    int64_t largest_bytes;          /* its predicted footprint (one worker's need); -1 */
    int64_t largest_measured_bytes; /* -1 */
    int64_t spread_bytes;           /* largest - smallest measured footprint; -1 */
    double slowest_seconds;         /* the plate's slowest item, predicted; NaN */
    double total_seconds;           /* every item one after another, predicted; NaN */
    int64_t workers;                /* the recommended workers the ETA is for; -1 */
    double eta_seconds;             /* the plate's time with those workers; NaN */
    int64_t pick_count;             /* read: the picks (one per record) */
    int64_t note_count;             /* read */
    int64_t seed;                   /* since 1.5: the seed of the random items' draw; -1 none */
} spacrbench_plate_section;

/* All "none" (-1, NaN), key_kind NONE, the size set. */
SPACRBENCH_EXTERN int spacrbench_plate_section_init(spacrbench_plate_section *s, size_t size);
/* Attach p's section to m (replacing one m had): m is the measurement p
 * was predicted from (one record per pick), workers the recommendation's
 * (the ETA's; < 1: none). EINVAL before spacrbench_plate_predict or when
 * m's records are not p's picks. */
SPACRBENCH_EXTERN int spacrbench_measurement_set_plate(spacrbench_measurement *m,
                                                       const spacrbench_plate *p, int64_t workers);
/* A section by parts (a reader, a copy): _begin replaces m's section with
 * s's figures and no picks or notes; then one pick per record, in order
 * (index, key, why and is_warmup are kept; the measured figures come from
 * the record), then the notes. EINVAL for figures out of range (items < 1,
 * an index past the plate, a pick's warm-up flag not its record's), ERANGE
 * for more picks than records, before _begin. */
SPACRBENCH_EXTERN int spacrbench_measurement_plate_begin(spacrbench_measurement *m,
                                                         const spacrbench_plate_section *s);
SPACRBENCH_EXTERN int spacrbench_measurement_plate_add_pick(spacrbench_measurement *m,
                                                            const spacrbench_plate_pick *pick);
SPACRBENCH_EXTERN int spacrbench_measurement_plate_add_note(spacrbench_measurement *m,
                                                            const char *note);
/* Readers. _plate: SPACRBENCH_ERANGE when m carries no plate section.
 * _plate_pick: the pick of record i, its footprint (peak above m's
 * baseline) and seconds from that record. _plate_note: NULL out of range. */
SPACRBENCH_EXTERN int spacrbench_measurement_plate(const spacrbench_measurement *m,
                                                   spacrbench_plate_section *out);
SPACRBENCH_EXTERN int spacrbench_measurement_plate_pick(const spacrbench_measurement *m, size_t i,
                                                        spacrbench_plate_pick *out);
SPACRBENCH_EXTERN const char *spacrbench_measurement_plate_note(const spacrbench_measurement *m,
                                                                size_t i);
/* The report's plate section of m's (spacrbench_format_plate's words), its
 * labels one per record (or NULL), snprintf-style. ERANGE without one. */
SPACRBENCH_EXTERN int spacrbench_format_plate_section(const spacrbench_measurement *m,
                                                      const char *const *labels, size_t n_labels,
                                                      char *buf, size_t cap);
/* spacrbench_plate_handoff_measurement from m's section alone (a report
 * read back, Python's Measurement.plate): the hand-off (SLURM --mem and
 * --time, Dask's memory_limit) sized for the plate's predicted largest and
 * slowest item, and its texts say "predicted". ERANGE without a section. */
SPACRBENCH_EXTERN int spacrbench_measurement_plate_handoff(const spacrbench_measurement *m,
                                                           spacrbench_measurement **out);

/* ========================================================================
 * 3. Measurements: figures, constructors, accessors, the builder
 * ======================================================================== */

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

/* --- Constructors: a measurement from figures taken elsewhere ---------- */

/* Build a measurement from caller-supplied figures (bindings, external
 * commands). peak_method SPACRBENCH_PEAK_NONE becomes SUPPLIED. */
SPACRBENCH_EXTERN int spacrbench_measurement_create(const spacrbench_figures *figures,
                                                    spacrbench_measurement **out);
SPACRBENCH_EXTERN int spacrbench_measurement_add_note(spacrbench_measurement *m, const char *note);
SPACRBENCH_EXTERN int spacrbench_measurement_add_record(spacrbench_measurement *m,
                                                        const spacrbench_item_record *record);
/* Since 1.1.
 * Append count records at once (the counterpart of copy_records): records
 * is an array of elements of record_size bytes, each validated as by
 * spacrbench_measurement_add_record; on an error nothing is appended. */
SPACRBENCH_EXTERN int spacrbench_measurement_add_records(spacrbench_measurement *m,
                                                         const void *records, size_t count,
                                                         size_t record_size);
SPACRBENCH_EXTERN int spacrbench_measurement_add_gpu(spacrbench_measurement *m,
                                                     const spacrbench_gpu_info *gpu);

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

/* --- The builder (since 1.1) -------------------------------------------- */

/* Since 1.1.
 * Building a measurement item by item: the one construction used by the
 * runner, `spacrbench run` and the Python binding. The plan gives what is
 * known before the first item; each item then adds its own figures; the
 * builder classifies warm-up items (the warm-up is clamped so the last
 * planned item is measured), sums time and CPU of the measured items, keeps
 * the largest peak, and writes the notes. */
typedef struct spacrbench_run_plan {
    size_t size;
    int64_t items;              /* items to run, warm-up included; >= 1 */
    int64_t warmup;             /* requested warm-up items; >= 0 */
    int32_t peak_method;        /* spacrbench_peak_method of the item peaks */
    int32_t records;            /* 1: keep a record per item */
    int64_t sample_interval_us; /* 0 when no sampler ran */
    int64_t baseline_rss_bytes; /* >= 0; 0 when every item is its own process */
    int32_t vram_source;        /* spacrbench_source of the items' VRAM (NVML, ...) */
    int32_t reserved;           /* must be 0 */
} spacrbench_run_plan;

/* Since 1.1. */
typedef struct spacrbench_item_figures {
    size_t size;
    double seconds;          /* wall time; finite, >= 0 */
    double cpu_seconds;      /* user+sys; NaN if unknown, else finite >= 0 */
    int64_t peak_rss_bytes;  /* -1 = not measured */
    int64_t peak_vram_bytes; /* -1 = not measured */
} spacrbench_item_figures;

/* Since 1.1. */
SPACRBENCH_EXTERN int spacrbench_run_plan_init(spacrbench_run_plan *plan, size_t size);
/* Since 1.1. */
SPACRBENCH_EXTERN int spacrbench_item_figures_init(spacrbench_item_figures *item, size_t size);
/* Since 1.1. */
SPACRBENCH_EXTERN int spacrbench_measurement_begin(const spacrbench_run_plan *plan,
                                                   spacrbench_measurement **out);
/* Since 1.1.
 * Add the next item (index = items added so far). ERANGE past the plan. */
SPACRBENCH_EXTERN int spacrbench_measurement_add_item(spacrbench_measurement *m,
                                                      const spacrbench_item_figures *item);
/* Since 1.1.
 * The run was stopped by item `item_index` (counted or not), which returned
 * work_result. The caller adds its own note saying why. */
SPACRBENCH_EXTERN int spacrbench_measurement_mark_stopped(spacrbench_measurement *m,
                                                          int64_t item_index, int work_result);
/* Since 1.1.
 * An item was killed by the kernel's out-of-memory killer under a limit of
 * limit_bytes: one worker needs MORE than that. The peak becomes at least
 * the limit and is marked a lower bound; the recommendation then says so
 * ("one worker needs more than ...") instead of falling back to cores. */
SPACRBENCH_EXTERN int spacrbench_measurement_mark_out_of_memory(spacrbench_measurement *m,
                                                                int64_t limit_bytes);
/* Since 1.1.
 * Close the measurement: warm-up notes, the peak over the items and the
 * baseline. Items added afterwards are refused (EINVAL). */
SPACRBENCH_EXTERN int spacrbench_measurement_end(spacrbench_measurement *m);

/* Since 1.1.
 * Why VRAM was not measured ("" when it was, or nobody said): part of the
 * measurement, so a rebuilt measurement reports the same words. Said while
 * the measurement is being built (before spacrbench_measurement_end), it
 * also marks the items' VRAM not measured: the run's peak and every
 * record's become -1 at the end. */
SPACRBENCH_EXTERN int spacrbench_measurement_set_vram_reason(spacrbench_measurement *m,
                                                             const char *reason);
/* Since 1.1. */
SPACRBENCH_EXTERN const char *spacrbench_measurement_vram_reason(const spacrbench_measurement *m);

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

/* --- Since 1.2: each item's CPU time ------------------------------------ */

/* The CPU seconds of item record `index` (NaN when unknown or out of range):
 * `spacrbench run` knows each command's; the in-process runner does not. */
SPACRBENCH_EXTERN double spacrbench_measurement_item_cpu_seconds(const spacrbench_measurement *m,
                                                                 size_t index);
SPACRBENCH_EXTERN int spacrbench_measurement_set_item_cpu_seconds(spacrbench_measurement *m,
                                                                  size_t index, double cpu_seconds);

/* --- Since 1.2: hugetlb pages a front end's peak misses ----------------- */

/* hugetlb pages (MAP_HUGETLB) are in neither RSS, VmHWM nor a memory
 * cgroup's charge. A front end that measures processes itself (`spacrbench
 * run`) and adds the HugetlbPages it sampled to the peak calls this once
 * its items are measured: where some were seen, or the system can hand
 * such pages out, m's report then never calls the peak exact, and a note
 * says what was seen (seen_bytes; -1 or 0: none) at what sampling period;
 * elsewhere nothing changes. Said once. EINVAL for a NULL m, seen_bytes <
 * -1 or a period outside (0, 3600] s. */
SPACRBENCH_EXTERN int spacrbench_measurement_note_hugetlb(spacrbench_measurement *m,
                                                          int64_t seen_bytes,
                                                          double interval_seconds);

/* --- Since 1.3: a measurement read back from its JSON ------------------- */

/* Flags of spacrbench_measurement_from_json. */
enum spacrbench_read_flags {
    /* Take a run that stopped early ("stopped": true, e.g. a failed task's
     * report) with its partial figures, as a plot draws them; without it
     * such a document is EINVAL: advice from partial figures would read as
     * a clean run's. */
    SPACRBENCH_READ_STOPPED = 1
};

/* The measurement that json (len bytes) describes: the object of
 * spacrbench_measurement_to_json, or a document holding it as its
 * "measurement" member (`spacrbench run --json`, a SLURM task's report).
 * Every field is checked for its type, range and whether it may be null
 * (docs/spacrbench.schema.json), the records must be one per item in
 * order with the warm-up first (a measured run has them), the timeline's
 * marks within them; derived figures (items_per_second, ...) are
 * recomputed, members it does not know are passed over. A value of the
 * wrong type is SPACRBENCH_ETYPE, any other problem EINVAL, with a message
 * naming the field as name['records'][0]['index'] (name: what the caller
 * calls the document, NULL "data"; types in the words of Python's json
 * module: dict, list, str, int, float, bool, None). NaN and Infinity, and
 * numbers no double holds, are read to be named, not refused as text.
 * The records' item labels are kept (spacrbench_measurement_item_label).
 * flags: spacrbench_read_flags. On success *out owns the measurement. */
SPACRBENCH_EXTERN int spacrbench_measurement_from_json(const char *json, size_t len,
                                                       const char *name, uint32_t flags,
                                                       spacrbench_measurement **out);
/* The label ("item") record index had in the JSON m was read from, owned
 * by m; NULL when it had none or index is past the records. */
SPACRBENCH_EXTERN const char *spacrbench_measurement_item_label(const spacrbench_measurement *m,
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

/* Set the figures of record index (added already). EINVAL below -1. */
SPACRBENCH_EXTERN int spacrbench_measurement_set_item_memory(spacrbench_measurement *m,
                                                             size_t index,
                                                             const spacrbench_memory_figures *f);
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

/* Builder: the next item from its count (1 to SPACRBENCH_RUNS_MAX) timed
 * runs, an array of run_size-byte elements: its record's seconds and CPU
 * seconds are their means (CPU NaN when a run's is unknown), its peaks
 * and memory figures their largest, and the runs are kept with it. */
SPACRBENCH_EXTERN int spacrbench_measurement_add_item_runs(spacrbench_measurement *m,
                                                           const void *runs, size_t count,
                                                           size_t run_size);
/* The runs of record index as given (a copy: a measurement read back, or
 * rebuilt by a binding); count 0 drops them. Nothing is derived. */
SPACRBENCH_EXTERN int spacrbench_measurement_set_item_runs(spacrbench_measurement *m, size_t index,
                                                           const void *runs, size_t count,
                                                           size_t run_size);
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

/* ========================================================================
 * 4. Machine discovery: memory and cores this process may really use
 * ======================================================================== */

/* Where a figure of the machine (or of VRAM) came from. */
typedef enum spacrbench_source {
    SPACRBENCH_SOURCE_UNKNOWN = 0,
    SPACRBENCH_SOURCE_HOST = 1,     /* MemAvailable; GlobalMemoryStatusEx; host statistics */
    SPACRBENCH_SOURCE_AFFINITY = 2, /* sched_getaffinity; process affinity and processor groups */
    SPACRBENCH_SOURCE_CGROUP_V1 = 3,
    SPACRBENCH_SOURCE_CGROUP_V2 = 4,
    SPACRBENCH_SOURCE_CALLER = 5, /* the caller passed the figure */
    SPACRBENCH_SOURCE_CPUSET = 6,
    SPACRBENCH_SOURCE_NVML = 7,
    SPACRBENCH_SOURCE_TORCH = 8,
    SPACRBENCH_SOURCE_JOB_OBJECT = 9, /* since 1.1: a Windows Job Object's limit */
    SPACRBENCH_SOURCE_SYSCTL = 10     /* since 1.1: macOS sysctl (hw.activecpu) */
} spacrbench_source;

/* What this machine, container or job can give right now. */
struct spacrbench_machine {
    size_t size;
    int64_t available_bytes;      /* min(MemAvailable, every cgroup headroom); 0 if unreadable */
    int64_t host_available_bytes; /* MemAvailable; -1 if unreadable */
    int32_t memory_source;        /* HOST, CGROUP_V1, CGROUP_V2 or UNKNOWN */
    int32_t cores_source;         /* AFFINITY, CGROUP_V1, CGROUP_V2, CPUSET */
    int64_t memory_limit_bytes;   /* limit of the binding cgroup; -1 if none */
    int64_t cores;                /* usable cores, >= 1 */
    int64_t affinity_cores;       /* CPUs in the affinity mask */
    double cpu_quota_cores;       /* tightest quota/period; -1 if none */
    char memory_cgroup[512];      /* directory of the binding cgroup, or "" */
    char cores_cgroup[512];       /* directory of the binding cpu cgroup, or "" */
};

SPACRBENCH_EXTERN int spacrbench_discover(spacrbench_machine *out);
SPACRBENCH_EXTERN int64_t spacrbench_available_memory_bytes(void); /* 0 if unreadable */
SPACRBENCH_EXTERN int64_t spacrbench_usable_cores(void);           /* >= 1 */

/* ========================================================================
 * 5. The scaling check (since 1.1; docs/scaling.md)
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
 * ======================================================================== */

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

/* --- Since 1.3: a scaling check read back from its JSON ----------------- */

/* The scaling check json (len bytes) describes: the object of
 * spacrbench_scale_to_json, or a document holding its "scaling" members
 * (`spacrbench run --scale --json`). Its points (in increasing worker
 * count), spreads, knee, verdict, reason and notes as written, not decided
 * again; every field checked as spacrbench_measurement_from_json checks
 * its own (the same errors and messages). On success *out owns it
 * (spacrbench_scale_free). */
SPACRBENCH_EXTERN int spacrbench_scale_from_json(const char *json, size_t len, const char *name,
                                                 spacrbench_scale_result **out);

/* --- Since 1.3: the scaling check over an executor -------------------- */

/* The most workers of one count, in every front end (the C harness, the
 * command's copies, the Python pool). */
#define SPACRBENCH_SCALE_MAX_WORKERS 1024
/* The most items one worker runs in one round (a timed repeat grown to
 * last min_seconds stops there; min_items is at most this). */
#define SPACRBENCH_SCALE_MAX_ROUND_ITEMS 100000

/* The one scaling driver (spacrbench_scale_execute) owns every rule of the
 * check: the counts and the top count, the warm-up, the timed repeats and
 * how many items each asks, the repeats' spread and when to stop, the
 * budget as each count's memory limit, what an OOM kill or a count ended
 * at the budget means, the notes. An executor only runs what it is asked:
 * it starts a count's k workers (open), runs rounds on them (round: each
 * of the k workers runs `items` items, worker w the items first[w],
 * first[w] + 1, ... modulo the item count, all released at once) and
 * ends them (close). spacrbench_scale_timed is the driver over forked
 * workers; `spacrbench run --scale` and Python's scale() give it their own
 * executors (command copies, a process pool). docs/scaling.md. */
typedef struct spacrbench_scale_driver spacrbench_scale_driver; /* opaque, the driver's */

/* One round, as the driver asks it. */
typedef struct spacrbench_scale_round {
    size_t size;
    int64_t workers;      /* k, as opened */
    int64_t items;        /* items each worker runs in turn */
    const int64_t *first; /* k entries: worker w's first item (0 .. n_items - 1) */
    int32_t warmup;       /* 1: the warm-up round, untimed */
    int32_t index;        /* the count's rounds, from 0 */
} spacrbench_scale_round;

/* How a worker's round ended. */
typedef enum spacrbench_scale_worker_end {
    SPACRBENCH_SCALE_WORKER_DONE = 0,   /* ran its items */
    SPACRBENCH_SCALE_WORKER_FAILED = 1, /* the work failed (non-zero, raised, exit status) */
    SPACRBENCH_SCALE_WORKER_LOST = 2    /* died, was killed or never ran */
} spacrbench_scale_worker_end;

/* What one worker did in a round; the driver sets LOST, 0 items, 0 s. */
typedef struct spacrbench_scale_worker {
    size_t size;
    int64_t items;       /* the items it finished */
    double item_seconds; /* their times, summed */
    int32_t end;         /* spacrbench_scale_worker_end */
    int32_t sigkilled;   /* it died of a SIGKILL spacrbench did not send */
} spacrbench_scale_worker;

/* The answer of open and round beside the workers'; the driver zeroes it. */
typedef struct spacrbench_scale_outcome {
    size_t size;
    double seconds;  /* round: the release to the last worker's end */
    int32_t failed;  /* the round failed as a whole (a timeout, a fork that failed) */
    int32_t stopped; /* 1: a stop request ended it, the check ends; 2: it came before
                        the release (nothing ran) */
    char why[640];   /* what failed, in words ("copy 2 (item b) exited with status 3"),
                        for the note "2 workers: ...; the point is marked failed" */
} spacrbench_scale_outcome;

/* A count's figures from an executor that measures its group itself (no
 * SPACRBENCH_SCALE_EXECUTOR_GROUP); the driver sets the sentinels. */
typedef struct spacrbench_scale_count {
    size_t size;
    int64_t peak_bytes;      /* the group's peak; -1 not measured */
    int64_t vram_peak_bytes; /* -1 not measured */
    int64_t oom_kills;       /* the OOM killer's kills in the group's own cgroup, or (oom_outside)
                                in a cgroup around it, while the count ran; -1 unknown */
    int64_t limit_bytes;     /* the memory limit the group ran under (nearest above); -1 none */
    int32_t peak_method;     /* spacrbench_peak_method */
    int32_t oom_outside;     /* oom_kills counts a cgroup around the group */
    int32_t limit_is_budget; /* 1: the group's own cgroup carried the budget as its limit;
                                2: no cgroup could, spacrbench watched the budget */
    int32_t ours;            /* spacrbench killed the group itself (a timeout, a stop) */
    int32_t ended_at_budget; /* no cgroup could hold the limit: spacrbench ended the count
                                when its sampled memory passed the budget */
    int32_t reserved;
} spacrbench_scale_count;

enum spacrbench_scale_executor_flags {
    /* The driver measures each count in a spacrbench_group of its own (the
     * budget its limit): open gives the workers' pids. */
    SPACRBENCH_SCALE_EXECUTOR_GROUP = 1
};

/* Kinds of the notes the driver makes (spacrbench_scale_executor.note). */
enum spacrbench_scale_note_kind {
    SPACRBENCH_SCALE_NOTE_COUNT = 0,  /* about one count, not a failure */
    SPACRBENCH_SCALE_NOTE_FAILED = 1, /* a count failed: which and why */
    SPACRBENCH_SCALE_NOTE_METHOD = 2  /* how the check measured (timing, budget, group) */
};

/* Callbacks return 0, or a negative spacrbench_error to abort the check
 * (its message in the outcome's why where there is one); open returns 1
 * when it could not start all k workers (why says so; it has cleaned up:
 * no close follows). pids: with SPACRBENCH_SCALE_EXECUTOR_GROUP, open
 * fills k pids (the workers run no item before the first round). close is
 * called once per opened count; failed: a round failed (the driver has
 * already killed a group it measures), so end the workers now. */
typedef struct spacrbench_scale_executor {
    size_t size;
    uint32_t flags; /* spacrbench_scale_executor_flags */
    uint32_t reserved;
    void *payload; /* given to every callback */
    int64_t cores; /* usable cores for the top count; SPACRBENCH_AUTO: discovered */
    int(SPACRBENCH_CALLBACK *open)(spacrbench_scale_driver *driver, int64_t workers,
                                   int64_t budget_bytes, int64_t *pids,
                                   spacrbench_scale_outcome *out, void *payload);
    int(SPACRBENCH_CALLBACK *round)(spacrbench_scale_driver *driver,
                                    const spacrbench_scale_round *round,
                                    spacrbench_scale_worker *workers, spacrbench_scale_outcome *out,
                                    void *payload);
    int(SPACRBENCH_CALLBACK *close)(spacrbench_scale_driver *driver, int32_t failed,
                                    spacrbench_scale_count *count, void *payload);
    /* Hears each note the driver makes (may be NULL): return 0 to keep it
     * in the result, 1 to leave it out (said elsewhere, e.g. stderr). */
    int(SPACRBENCH_CALLBACK *note)(int32_t kind, const char *text, void *payload);
} spacrbench_scale_executor;

SPACRBENCH_EXTERN int spacrbench_scale_executor_init(spacrbench_scale_executor *ex, size_t size);
/* The scaling check of n_items items over ex (opts, timing NULL: the
 * defaults). Every rule is the driver's, so every front end gives the
 * same points and notes for the same rounds. EBUSY while another check
 * runs in this process. On success *out owns a result. */
SPACRBENCH_EXTERN int spacrbench_scale_execute(const spacrbench_scale_executor *ex, size_t n_items,
                                               const spacrbench_scale_options *opts,
                                               const spacrbench_scale_timing *timing,
                                               spacrbench_scale_result **out);
/* A note of the executor's own (about the count being measured), kept in
 * the result in order (the note hook does not hear it). */
SPACRBENCH_EXTERN int spacrbench_scale_driver_note(spacrbench_scale_driver *driver,
                                                   const char *note);
/* First thing in a worker a front end starts itself (a process pool's
 * initializer), as the fork executor's workers do: it ends with its parent
 * (PR_SET_PDEATHSIG; at once when parent_pid is no longer its parent) and
 * is the OOM killer's first choice (oom_score_adj 1000), so a job-wide OOM
 * kill takes a worker, never the caller. 0; SPACRBENCH_EUNSUPPORTED off
 * Linux. */
SPACRBENCH_EXTERN int spacrbench_scale_worker_begin(int64_t parent_pid);

/* ========================================================================
 * 6. Process groups (since 1.1)
 *
 * Aggregate peak memory of a group of processes, for bindings that start
 * their own workers (a Python process pool). A memory cgroup child of this
 * process's own where the machine allows (peak exact, page cache included,
 * counted from when each process joins; without root, one delegated to the
 * user: docs/discovery.md), else a sampler thread summing the PSS of the
 * added processes and their descendants, at least 20 ms apart and within
 * 0.5 % of a core (spacrbench_group_sampling_note). Closing
 * removes the cgroup (moving any process still in it back), on every path.
 * ======================================================================== */

/* Since 1.1. */
typedef struct spacrbench_group spacrbench_group; /* opaque */

/* Since 1.1.
 * flags: spacrbench_scale_flags (SPACRBENCH_SCALE_NO_CGROUP). */
SPACRBENCH_EXTERN int spacrbench_group_open(uint32_t flags, spacrbench_group **out);
/* Since 1.1. */
SPACRBENCH_EXTERN int spacrbench_group_add_process(spacrbench_group *g, int64_t pid);
/* Since 1.1.
 * The peak so far and its method (CGROUP or PSS_SUM); -1 if unreadable. */
SPACRBENCH_EXTERN int spacrbench_group_peak(spacrbench_group *g, int64_t *bytes, int32_t *method);
/* Since 1.1.
 * How the group measures, and why no cgroup was made when none was. */
SPACRBENCH_EXTERN const char *spacrbench_group_note(const spacrbench_group *g);
/* Since 1.1.
 * 0, or ESYSTEM if the cgroup could not be removed (g is freed anyway). */
SPACRBENCH_EXTERN int spacrbench_group_close(spacrbench_group *g);

/* --- Since 1.2: the group's memory limit -------------------------------- */

/* Give the group a memory limit (cgroup v1 memory.limit_in_bytes, v2
 * memory.max with memory.oom.group=1) before processes join it;
 * SPACRBENCH_EUNSUPPORTED when it measures without a cgroup. */
SPACRBENCH_EXTERN int spacrbench_group_set_limit(spacrbench_group *g, int64_t bytes);
/* Times the kernel's OOM killer ran in the group; -1 unknown. */
SPACRBENCH_EXTERN int64_t spacrbench_group_oom_kills(const spacrbench_group *g);

/* --- Since 1.3: how often a group without a cgroup was sampled ---------- */

/* Without a cgroup of its own, what the group's PSS sampler really did:
 * "group PSS: statm sampled 212 times, every 24.1 ms on average, at most
 * 40.3 ms apart (...); the shared part from smaps_rollup re-read every 310
 * ms on average (18 reads): a spike shorter than 41 ms may be missed". ""
 * with a cgroup (the peak is the kernel's, exact) or before the first
 * sample. Valid until the next call or spacrbench_group_close. */
SPACRBENCH_EXTERN const char *spacrbench_group_sampling_note(spacrbench_group *g);

/* ========================================================================
 * 7. Hand-off to a cluster scheduler: SLURM job arrays, Dask
 *
 * Compute the settings once (spacrbench_schedule_compute), then write them
 * as text: directives (format_slurm), a Dask cluster (format_dask), either
 * from a schedule already computed (format_schedule), or a whole job
 * script that submits as is (format_slurm_script).
 * ======================================================================== */

/* Settings to take a measurement to a cluster scheduler (SLURM job array,
 * Dask cluster); the margin rule is documented in docs/scheduler-handoff.md. */
typedef struct spacrbench_schedule {
    size_t size;
    int64_t cpus_per_task;      /* SLURM --cpus-per-task */
    int64_t mem_per_task_bytes; /* SLURM --mem, margin included */
    int64_t array_concurrency;  /* SLURM array %N that fits one node like this one */
    int64_t n_workers;          /* Dask */
    int64_t threads_per_worker; /* Dask */
    int64_t memory_limit_bytes; /* Dask memory_limit per worker, margin included */
    double margin;              /* fraction added to the measured peak, e.g. 0.25 */
    int64_t margin_floor_bytes; /* smallest absolute margin added */
} spacrbench_schedule;

/* Cluster hand-off: compute the settings, or format them as text
 * (snprintf-style like spacrbench_format_report). */
SPACRBENCH_EXTERN int spacrbench_schedule_compute(const spacrbench_measurement *m,
                                                  const spacrbench_recommendation *rec,
                                                  spacrbench_schedule *out);
SPACRBENCH_EXTERN int spacrbench_format_slurm(const spacrbench_measurement *m,
                                              const spacrbench_recommendation *rec, char *buf,
                                              size_t cap);
SPACRBENCH_EXTERN int spacrbench_format_dask(const spacrbench_measurement *m,
                                             const spacrbench_recommendation *rec, char *buf,
                                             size_t cap);

/* Since 1.1.
 * The hand-off text of a schedule already computed (spacrbench_schedule_compute),
 * so a front end that also prints the schedule does not compute it twice. */
typedef enum spacrbench_handoff {
    SPACRBENCH_HANDOFF_SLURM = 1,
    SPACRBENCH_HANDOFF_DASK = 2
} spacrbench_handoff;
/* Since 1.1. kind: spacrbench_handoff. */
SPACRBENCH_EXTERN int spacrbench_format_schedule(const spacrbench_measurement *m,
                                                 const spacrbench_schedule *schedule, int kind,
                                                 char *buf, size_t cap);

/* Since 1.1.
 * A job script that submits as is: `sbatch job.sh` runs one array task per
 * item of items_file (its non-empty lines, a trailing CR dropped, as
 * `spacrbench run --items` reads them). Each task picks its item, runs the
 * command on it under `spacrbench run --json --report
 * output_dir/task-<index>.json` (the item reaches the command as one
 * argument, never through a shell), so every task records what it really
 * used; `spacrbench summarize output_dir` reads the reports. Initialise
 * with spacrbench_slurm_job_init. Strings are UTF-8, NUL-terminated. */
typedef struct spacrbench_slurm_job {
    size_t size;
    const char *items_file;        /* required; best absolute (tasks start elsewhere) */
    int64_t n_items;               /* items in it, >= 1: the array is 0..n_items-1 */
    const char *output_dir;        /* required: task reports and SLURM logs; must exist
                                   at submission; no whitespace, quotes, % or backslash */
    const char *job_name;          /* NULL: "spacrbench"; no whitespace or quotes */
    const char *const *command;    /* the command, {} for the item (appended when absent) */
    size_t command_len;            /* >= 1 */
    const char *spacrbench;        /* how tasks call spacrbench: a path, or NULL for
                                   "spacrbench" from PATH */
    const char *const *directives; /* extra "#SBATCH " lines, e.g. "--partition=short",
                                      read as sbatch reads them (every option of a line,
                                      abbreviations): EINVAL for one sbatch reads as --array,
                                      --mem-per-cpu/--mem-per-gpu, --output/--error, or an
                                      ambiguous abbreviation; a --time, --mem or
                                      --cpus-per-task there is the script's own (since 1.3) */
    size_t n_directives;
} spacrbench_slurm_job;

/* Since 1.1. */
SPACRBENCH_EXTERN int spacrbench_slurm_job_init(spacrbench_slurm_job *job, size_t size);
/* Since 1.1.
 * The script, snprintf-style, from a schedule (spacrbench_schedule_compute):
 * --mem, --cpus-per-task and --array=0-(n_items-1)%K with K the schedule's
 * concurrency (at most n_items). EINVAL for a missing or unusable field
 * (the message names it). */
SPACRBENCH_EXTERN int spacrbench_format_slurm_script(const spacrbench_measurement *m,
                                                     const spacrbench_schedule *schedule,
                                                     const spacrbench_slurm_job *job, char *buf,
                                                     size_t cap);

/* --- Since 1.2: wall time, Dask memory, the array's tasks and files ----- */

/* The SLURM --time of a task whose slowest item took slowest_seconds:
 * twice that, rounded up to whole minutes, at least 5 minutes; at least
 * the per-item timeout + 1 minute when timeout_seconds > 0 (the task then
 * still writes its report). ERANGE beyond 365 days; EINVAL for a negative
 * or non-finite time. docs/scheduler-handoff.md says why. */
SPACRBENCH_EXTERN int spacrbench_time_limit_minutes(double slowest_seconds, double timeout_seconds,
                                                    int64_t *minutes);
/* The slowest measured item's wall seconds (the per-item mean without
 * records); NaN when m has no items. */
SPACRBENCH_EXTERN double
spacrbench_measurement_slowest_item_seconds(const spacrbench_measurement *m);
/* A Dask memory_limit that keeps mem_per_task_bytes (peak + margin) at or
 * below `fraction` of it: round_up_MiB(mem / fraction). fraction is the
 * smallest of distributed's enabled worker memory fractions (target,
 * spill, pause, terminate; 0.6 by default), in (0, 1]. */
SPACRBENCH_EXTERN int spacrbench_dask_memory_limit(int64_t mem_per_task_bytes, double fraction,
                                                   int64_t *memory_limit_bytes);

/* How the array's tasks run, beside spacrbench_slurm_job. */
typedef struct spacrbench_slurm_tasks {
    size_t size;
    int64_t array_limit;         /* > 0: --array=0-N%array_limit; 0: no throttle */
    int64_t time_minutes;        /* > 0: #SBATCH --time; 0: from the measurement */
    double item_timeout_seconds; /* > 0: each task runs with --timeout this (1e-9 to 1e7,
                                    written as the task's parser reads it back), unless its
                                    submission exports SPACRBENCH_ITEM_TIMEOUT (since 1.3) */
    int32_t no_cgroup;           /* 1: each task runs with --no-cgroup */
    int32_t reserved;            /* must be 0 */
} spacrbench_slurm_tasks;
SPACRBENCH_EXTERN int spacrbench_slurm_tasks_init(spacrbench_slurm_tasks *tasks, size_t size);
/* The job script as spacrbench_format_slurm_script, with tasks (NULL:
 * defaults). Each task finds its item in O(1) through the index that
 * spacrbench_slurm_write_array writes. */
SPACRBENCH_EXTERN int spacrbench_format_slurm_job(const spacrbench_measurement *m,
                                                  const spacrbench_schedule *schedule,
                                                  const spacrbench_slurm_job *job,
                                                  const spacrbench_slurm_tasks *tasks, char *buf,
                                                  size_t cap);
/* Into job->output_dir (which must exist): spacrbench-items.idx (a
 * header line with the script's key and the items file's size, then one
 * 40-byte line "OFFSET LENGTH CRC" per item of job->items_file, read as
 * `run --items` reads it), the script itself (spacrbench-job.sh, which
 * summarize's next command line names) and the manifest
 * spacrbench-array.json (tasks, items file, script, key, job name, the
 * requested mem, cpus and time), written under a lock on the directory
 * and renamed into place together. EINVAL, nothing written, when the
 * directory holds another array's files (docs/scheduler-handoff.md) or
 * the file holds another number of items than job->n_items; ESYSTEM with
 * the path and errno's words. */
SPACRBENCH_EXTERN int spacrbench_slurm_write_array(const spacrbench_measurement *m,
                                                   const spacrbench_schedule *schedule,
                                                   const spacrbench_slurm_job *job,
                                                   const spacrbench_slurm_tasks *tasks);

/* --- Since 1.2: summarize, what the tasks used and the one resubmission - */

/* summarize: what the tasks of a job array used against what they asked
 * for (SLURM's seff, per task), the sbatch command line(s) that rerun only
 * the tasks a resubmission fixes, with strictly more of the memory or time
 * that failed them, and (since 1.3) what needs the user, each with its
 * line; reports and logs of another array (another key) never count. Reads
 * directory/task-<index>.json (their "task" records), the manifest
 * spacrbench-array.json, and SLURM logs slurm-<job>_<index>.out; every file
 * bounded (regular files only, 16 MiB, JSON depth 64), each problem an
 * "unreadable" task. job_script (may be NULL): the script whose #SBATCH
 * --array says which tasks there were. EINVAL for a directory that cannot
 * be read or holds neither reports nor a manifest. */
typedef struct spacrbench_summary spacrbench_summary; /* opaque */
SPACRBENCH_EXTERN int spacrbench_summarize(const char *directory, const char *job_script,
                                           spacrbench_summary **out);
/* The text and the JSON document, snprintf-style. */
SPACRBENCH_EXTERN int spacrbench_summary_text(const spacrbench_summary *s, char *buf, size_t cap);
SPACRBENCH_EXTERN int spacrbench_summary_json(const spacrbench_summary *s, char *buf, size_t cap);
/* 0: every task ok, nothing to rerun; 3: some task needs a resubmission
 * (or, since 1.3, the user). */
SPACRBENCH_EXTERN int spacrbench_summary_status(const spacrbench_summary *s);
SPACRBENCH_EXTERN void spacrbench_summary_free(spacrbench_summary *s);

/* ========================================================================
 * 8. Formatting and JSON (since 1.1)
 *
 * Text, snprintf-style: write at most cap bytes (NUL included), return the
 * full length or a negative code. (The reports of sections 2, 5 and 7 sit
 * with their topic.)
 * ======================================================================== */

/* Since 1.1.
 * "512 B", "12.3 MiB", "1.50 GiB"; "not measured" for a negative size. */
SPACRBENCH_EXTERN int spacrbench_format_bytes(int64_t bytes, char *buf, size_t cap);

/* --- Since 1.2: byte sizes as text -------------------------------------- */

/* "4G", "4GiB", "4Gi" (powers of 1024, as SLURM's --mem), "4GB" (powers of
 * 1000, as Dask's parse_bytes), "1.5M", "1048576", "512B": units K M G T P E
 * in either case; a fraction rounds up to whole bytes. Returns 0 with
 * *bytes set, or SPACRBENCH_EINVAL (the message names what is wrong: empty,
 * negative, junk, an unknown unit, or above 8 EiB - 1). At most 64 bytes
 * of text are read. The command's size options use this parser. */
SPACRBENCH_EXTERN int spacrbench_parse_size(const char *text, int64_t *bytes);
/* Since 1.1.
 * The progress line every front end prints after an item, e.g.
 * "item 2/5 (warm-up) 0.353 s, peak 198.3 MiB". label may be NULL; control
 * characters in it are escaped (\n, \t, \xNN). */
SPACRBENCH_EXTERN int spacrbench_format_progress(const spacrbench_progress *progress,
                                                 const char *label, char *buf, size_t cap);
/* Since 1.1.
 * One report line per item record ("  item 3   0.353 s, peak 198.3 MiB: a.tif"),
 * label escaped as above and may be NULL. */
SPACRBENCH_EXTERN int spacrbench_format_item_line(const spacrbench_item_record *record,
                                                  const char *label, char *buf, size_t cap);

/* --- Since 1.3: an item's line with its runs and memory figures, and the
 * one-line answer --------------------------------------------------------- */

/* The report line of record index of m, as spacrbench_format_item_line
 * writes it, with what only m holds: the spread of its runs and its two
 * memory figures. A line wider than 79 columns goes on under the value
 * column. label as above. */
SPACRBENCH_EXTERN int spacrbench_measurement_format_item(const spacrbench_measurement *m,
                                                         size_t index, const char *label, char *buf,
                                                         size_t cap);
/* One line, GNU time's question answered: the peak RSS (and the charge
 * where measured), the time per item (mean and spread with runs) and the
 * recommended workers (rec may be NULL), e.g. "peak RSS 308.5 MiB
 * (303.9 MiB charged), 0.763 s per item, 2 workers". No newline. */
SPACRBENCH_EXTERN int spacrbench_format_brief(const spacrbench_measurement *m,
                                              const spacrbench_recommendation *rec, char *buf,
                                              size_t cap);

/* Since 1.1.
 * JSON objects in the one document shape (docs/spacrbench.schema.json):
 * "not measured" is null, names as spelled in section 9. item_labels may be
 * NULL (n_labels labels otherwise, one per record, shown as "item"). */
SPACRBENCH_EXTERN int spacrbench_measurement_to_json(const spacrbench_measurement *m,
                                                     const char *const *item_labels,
                                                     size_t n_labels, char *buf, size_t cap);
/* Since 1.1. */
SPACRBENCH_EXTERN int spacrbench_recommendation_to_json(const spacrbench_recommendation *rec,
                                                        char *buf, size_t cap);
/* Since 1.1. */
SPACRBENCH_EXTERN int spacrbench_machine_to_json(const spacrbench_machine *machine, char *buf,
                                                 size_t cap);
/* Since 1.1. */
SPACRBENCH_EXTERN int spacrbench_schedule_to_json(const spacrbench_schedule *schedule, char *buf,
                                                  size_t cap);
/* Since 1.1.
 * {"scaling": [{"workers", "items", "seconds", "items_per_second", "speedup",
 * "efficiency", "peak_bytes", "peak_method", "fits", "failed"}...],
 * "scaling_workers": N|null, "scaling_best_workers", "scaling_reason",
 * "scaling_verdict", "scaling_budget_bytes", "scaling_notes": [...]},
 * snprintf-style; not measured is null. */
SPACRBENCH_EXTERN int spacrbench_scale_to_json(const spacrbench_scale_result *r, char *buf,
                                               size_t cap);

/* --- Since 1.2: exports a user pastes (Markdown, CSV) ------------------- */

/* Exports a user pastes (snprintf-style like spacrbench_format_report).
 * One file per format behind one interface (src/output/export_*.c):
 * MARKDOWN: a summary, one table row per item (time, peak, CPU) and the
 * recommendation with its evidence (rec may be NULL); CSV: a header line
 * and one row per item record (RFC 4180 quoting). item_labels may be NULL
 * (n_labels labels otherwise, one per record). */
typedef enum spacrbench_export_format {
    SPACRBENCH_FORMAT_MARKDOWN = 1,
    SPACRBENCH_FORMAT_CSV = 2
} spacrbench_export_format;
SPACRBENCH_EXTERN int spacrbench_format_export(const spacrbench_measurement *m,
                                               const spacrbench_recommendation *rec, int format,
                                               const char *const *item_labels, size_t n_labels,
                                               char *buf, size_t cap);

/* ========================================================================
 * 9. Names and errors
 * ======================================================================== */

/* One X-macro lists every error code with its message: it makes the
 * strerror table and spacrbench_error_name, and src/abi/errors.c checks at
 * compile time that the enum below holds exactly these codes with these
 * values. Codes are never renumbered; a retired code stays as a placeholder. */
#define SPACRBENCH_ERROR_MAP(X)                                                                    \
    X(EINVAL, -1, "invalid argument")                                                              \
    X(ENOMEM, -2, "out of memory")                                                                 \
    X(EUSER, -3, "stopped: the work or progress function returned non-zero")                       \
    X(EUNKNOWN_FIELDS, -4,                                                                         \
      "struct is larger than this library knows and its unknown fields are "                       \
      "not zero")                                                                                  \
    X(ENOITEMS, -5, "no items to measure")                                                         \
    X(EBUSY, -6, "another benchmark is running in this process (peaks are per process)")           \
    X(ESYSTEM, -7, "an operating-system call failed")                                              \
    X(ERANGE, -8, "index out of range")                                                            \
    X(ETHREAD, -9, "could not start the sampler thread")                                           \
    X(ENOSPACE, -10, "buffer too small")                                                           \
    X(EFORKED, -11,                                                                                \
      "the work forked and the child returned into spacrbench_benchmark; the child's "             \
      "measurement was dropped")                                                                   \
    X(EUNSUPPORTED, -12, "not available on this platform")                                         \
    X(ETYPE, -13, "a value of the wrong type")

/* Written out (not generated) so that readers and cffi see the names. */
typedef enum spacrbench_error {
    SPACRBENCH_OK = 0,
    SPACRBENCH_EINVAL = -1,
    SPACRBENCH_ENOMEM = -2,
    SPACRBENCH_EUSER = -3,
    SPACRBENCH_EUNKNOWN_FIELDS = -4,
    SPACRBENCH_ENOITEMS = -5,
    SPACRBENCH_EBUSY = -6,
    SPACRBENCH_ESYSTEM = -7,
    SPACRBENCH_ERANGE = -8,
    SPACRBENCH_ETHREAD = -9,
    SPACRBENCH_ENOSPACE = -10,
    SPACRBENCH_EFORKED = -11,      /* since 1.1 */
    SPACRBENCH_EUNSUPPORTED = -12, /* since 1.1: not on this platform (see docs/platforms.md) */
    SPACRBENCH_ETYPE = -13         /* since 1.3: a document's field of the wrong type */
} spacrbench_error;

SPACRBENCH_EXTERN const char *spacrbench_strerror(int code);
/* Detailed message of this thread's last failed call ("" if none). */
SPACRBENCH_EXTERN const char *spacrbench_last_error_message(void);
/* After SPACRBENCH_EUSER in this thread: the stopping function's value and
 * the item index (0 and -1 when the last call was not stopped). */
SPACRBENCH_EXTERN int spacrbench_last_work_result(void);
SPACRBENCH_EXTERN int64_t spacrbench_last_stopped_item(void);

/* Since 1.1.
 * One spelling of every name, for every front end (the command's JSON,
 * Python's to_dict(), reports): lower-case identifiers such as "hwm_reset",
 * "cgroup_v1", "memory", "spawn"; errors as "EINVAL". Values this library
 * does not know give "unknown" (errors: "EUNKNOWN"). Never NULL. */
SPACRBENCH_EXTERN const char *spacrbench_peak_method_name(int method);
SPACRBENCH_EXTERN const char *spacrbench_source_name(int source);
SPACRBENCH_EXTERN const char *spacrbench_bound_name(int bound);
SPACRBENCH_EXTERN const char *spacrbench_start_method_name(int method);
SPACRBENCH_EXTERN const char *spacrbench_reserve_rule_name(int rule);
SPACRBENCH_EXTERN const char *spacrbench_error_name(int code);
/* Since 1.1. */
SPACRBENCH_EXTERN const char *spacrbench_scale_verdict_name(int verdict);

/* --- Since 1.3: the plate's names --------------------------------------- */

/* "largest_key", "smallest_key", "spread", "warmup", "even"; "key",
 * "uniform", "unexplained", "keyless", "few", "none"; "none", "bytes",
 * "number". */
SPACRBENCH_EXTERN const char *spacrbench_plate_why_name(int why);
SPACRBENCH_EXTERN const char *spacrbench_plate_fit_name(int fit);
SPACRBENCH_EXTERN const char *spacrbench_plate_key_name(int kind);

/* SPACRBENCH_CDEF_END */

#ifdef __cplusplus
}
#endif

#endif /* SPACRBENCH_H */
