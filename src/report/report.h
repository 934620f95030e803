/* The report folder's contract: the words the report, the exports and the
 * JSON share, the JSON objects by their field tables (src/records/) and
 * the paste-ready exports (spacrbench_format_export). Not installed. */
#ifndef SPACRBENCH_REPORT_H
#define SPACRBENCH_REPORT_H

#include "core.h"
#include "records.h"

/* method: a spacrbench_peak_method; hugetlb_uncovered: the run used hugetlb
 * pages the peak cannot see (then a kernel mark is never called exact).
 * Never NULL. */
const char *sb_peak_method_words(int method, int hugetlb_uncovered);

/* The two figures of an item run as its own processes (spacrbench_memory_
 * figures), in the report's words. */
const char *sb_tree_rss_words(int hugetlb_uncovered);
const char *sb_charge_words(int hugetlb_uncovered);

/* Why an item was measured, in the report's words ("largest", "warm-up"). */
const char *sb_plate_why_words(int why);
/* A plate's time as users plan with it: "2 h 05 min" (whole minutes,
 * rounded up), "40 s" under a minute, "unknown" when not finite. */
void sb_plate_duration_words(double seconds, char *buf, size_t cap);
/* Why no one item can be named as the plate's largest (the fit is not a
 * line against the key, and items were left unmeasured); NULL when the
 * prediction names one. */
const char *sb_plate_untold_words(const spacrbench_plate_section *s, size_t n_picks);

/* The object of rec (from parts, io for its lists) handed to a caller
 * snprintf-style: its length, or a negative code with a message. */
int sb_json_deliver_record(const sb_record *rec, const void *const *parts, const sb_record_io *io,
                           char *buf, size_t cap);

typedef struct sb_export_input {
    const spacrbench_measurement *m;
    const spacrbench_recommendation *rec; /* checked copy, or NULL */
    const char *const *labels;            /* one per record, or NULL */
    size_t n_labels;
} sb_export_input;

void sb_export_markdown(sb_text *t, const sb_export_input *in);

/* Text we did not write, for a cell a spreadsheet may read, appended to
 * out by OWASP's rule against formula injection: a ' goes before each
 * formula start (=, +, -, @, a tab or a carriage return) at the text's
 * start and after each separator a spreadsheet may split at (',', ';', a
 * tab, a line break), unless what follows up to the next separator is a
 * plain number ("-5", "+1.5e3"), which stays a number. Returns whether a '
 * went in. */
int sb_export_defuse(sb_text *out, const char *text);

/* The label of record i, or NULL. */
const char *sb_export_label(const sb_export_input *in, size_t i);

#endif
