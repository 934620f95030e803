/*
 * Advice for a whole plate (since 1.3; docs/advice.md, "The plate"):
 * choose the items to measure across a size key, predict every item from
 * them, recommend for the plate's largest.
 */
/* First spacrbench.h, outside the guard: whichever header a program
 * includes, every header is then read in spacrbench.h's order. */
#include "../spacrbench.h"

#ifndef SPACRBENCH_PUBLIC_PLATE_H
#define SPACRBENCH_PUBLIC_PLATE_H

#ifdef __cplusplus
extern "C" {
#endif

/* SPACRBENCH_CDEF_BEGIN */

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
    SPACRBENCH_PLATE_WHY_RANDOM = 6    /* since 1.3: drawn at random within a stratum of the key */
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
    int64_t sample;       /* items to measure beside the warm-up; >= 1, or (since 1.3) 0:
                             sequentially (spacrbench_plate_more); default 0 */
    int64_t warmup;       /* warm-up items, measured first; default 1; >= 0 */
    int32_t key_kind;     /* spacrbench_plate_key of a key function; default BYTES */
    int32_t reserved;     /* must be 0 */
    const char *key_name; /* what the key is, in words ("file size"); NULL: "key" */
    /* Since 1.3, sample 0: the most the items measured beyond the least
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
 * rest nearest nested steps across the key's range (the middle, the
 * quarters: a smaller sample's items are a larger one's), spread through the
 * plate's order among equal keys (a plate of equal keys is sampled evenly,
 * never as its first items), and the warm-up nearest the median key;
 * without one (key NULL):
 * by the same steps through the plate, last and first included, and the
 * prediction says the largest item cannot be predicted. O(n log n).
 * Since 1.3 a NaN key is an item with no key (a line that names no file):
 * it is taken to be as large as the plate's largest key and a note says
 * so, the others keep theirs (every key NaN: no key). EINVAL for a key
 * that is negative or infinite (the message names the item's index); EUSER when the key function returned non-zero
 * (spacrbench_last_work_result() holds its value, _last_stopped_item()
 * the index); ENOITEMS for no items, after opts are checked (EINVAL).
 * opts may be NULL (defaults). */
SPACRBENCH_EXTERN int spacrbench_plate_select(size_t n_items, spacrbench_plate_key_fn key,
                                              void *payload, const spacrbench_plate_options *opts,
                                              spacrbench_plate **out);
/* spacrbench_plate_select with the keys given as an array (keys[i] is
 * item i's; NULL: no key). */
SPACRBENCH_EXTERN int spacrbench_plate_select_keys(size_t n_items, const double *keys,
                                                   const spacrbench_plate_options *opts,
                                                   spacrbench_plate **out);
SPACRBENCH_EXTERN void spacrbench_plate_free(spacrbench_plate *p);
/* Since 1.3.
 * The key of an item that names a file (the command's --sample, Python's
 * benchmark_plate): its size in bytes when path (UTF-8) names a regular
 * file, else NaN (a missing file, a directory, a FIFO, a symlink loop),
 * which spacrbench_plate_select takes to be as large as the largest. Stat
 * only: nothing is opened, so a FIFO or a device cannot block. */
SPACRBENCH_EXTERN double spacrbench_plate_file_key(const char *path);

/* One chosen item, in the order to measure them (warm-up first, then the
 * largest, so a failure there shows at once, then by increasing key; since
 * 1.3 the random items last, in the order drawn, so every prefix is a
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

/* Since 1.3, measuring sequentially (the default, sample 0): after the
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
 * EINVAL when m's records do not match the chosen items (since 1.3: the
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
/* Since 1.3. spacrbench_plate_recommend from the plate section m carries
 * (spacrbench_measurement_plate: a plate's report read back from its
 * JSON): the same workers and reason as the plate's own run; a section
 * whose largest is below m's own need is taken at m's own. m without a
 * section: spacrbench_recommend_on. */
SPACRBENCH_EXTERN int spacrbench_plate_recommend_measurement(
    const spacrbench_measurement *m, const spacrbench_recommend_options *opts,
    const spacrbench_machine *machine, spacrbench_recommendation *out);
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
    int64_t seed;                   /* since 1.3: the seed of the random items' draw; -1 none */
} spacrbench_plate_section;

/* All "none" (-1, NaN), key_kind NONE, the size set. */
SPACRBENCH_EXTERN int spacrbench_plate_section_init(spacrbench_plate_section *s, size_t size);
/* Attach p's section to m (replacing one m had): m is the measurement p
 * was predicted from (one record per pick), workers the recommendation's
 * (the ETA's; < 1: none). EINVAL before spacrbench_plate_predict or when
 * m's records are not p's picks. */
SPACRBENCH_EXTERN int spacrbench_measurement_set_plate(spacrbench_measurement *m,
                                                       const spacrbench_plate *p, int64_t workers);
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

/* SPACRBENCH_CDEF_END */

#ifdef __cplusplus
}
#endif

#endif /* SPACRBENCH_PUBLIC_PLATE_H */
