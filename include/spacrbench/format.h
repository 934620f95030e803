/*
 * Formatting and JSON (since 1.1): text, JSON written and read back,
 * exports, names.
 *
 * Text, snprintf-style: write at most cap bytes (NUL included), return the
 * full length or a negative code. (The report, the plate's, the scaling
 * check's and the hand-off's texts sit with their topic.)
 */
/* First spacrbench.h, outside the guard: whichever header a program
 * includes, every header is then read in spacrbench.h's order. */
#include "../spacrbench.h"

#ifndef SPACRBENCH_PUBLIC_FORMAT_H
#define SPACRBENCH_PUBLIC_FORMAT_H

#ifdef __cplusplus
extern "C" {
#endif

/* SPACRBENCH_CDEF_BEGIN */

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
 * "not measured" is null, names as spelled below. item_labels may be
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
 * One file per format behind one interface (src/report/export_*.c):
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

/* Since 1.2. How m's peak was obtained, in the report's words ("exact,
 * kernel high-water mark", "sampled", "exact, cgroup peak of the process
 * tree", never called exact where hugetlb pages escape it), for plots and
 * exports that show the method to a reader; the JSON keeps
 * spacrbench_peak_method_name(). NULL m: "not measured". Never NULL. */
SPACRBENCH_EXTERN const char *spacrbench_measurement_peak_words(const spacrbench_measurement *m);

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
/* Since 1.3.
 * The recommendation json describes, as written: the object of
 * spacrbench_recommendation_to_json, or a document holding it as its
 * "recommendation" member (`spacrbench run --json`). Every field checked
 * as the other readers check theirs, a problem named as summarize names
 * one ("data.recommendation.workers" is ..., name NULL: "data"). 1 when
 * read into *out (its size set), 0 when the document has none (absent or
 * null), else a negative code. */
SPACRBENCH_EXTERN int spacrbench_recommendation_from_json(const char *json, size_t len,
                                                          const char *name,
                                                          spacrbench_recommendation *out);

/* --- Names -------------------------------------------------------------- */

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

#endif /* SPACRBENCH_PUBLIC_FORMAT_H */
