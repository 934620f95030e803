/* One interface for the paste-ready exports (spacrbench_format_export):
 * each format is one file that appends its text to an sb_text. Not
 * installed. */
#ifndef SPACRBENCH_OUTPUT_EXPORT_H
#define SPACRBENCH_OUTPUT_EXPORT_H

#include "measurement.h"

typedef struct sb_export_input {
    const spacrbench_measurement *m;
    const spacrbench_recommendation *rec; /* checked copy, or NULL */
    const char *const *labels;            /* one per record, or NULL */
    size_t n_labels;
} sb_export_input;

typedef void (*sb_export_fn)(sb_text *t, const sb_export_input *in);

void sb_export_markdown(sb_text *t, const sb_export_input *in); /* export_markdown.c */
void sb_export_csv(sb_text *t, const sb_export_input *in);      /* export_csv.c */

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

/* The plate section (export_plate.c), for a measurement that carries one:
 * record i's number for people (its place in the plate; i + 1 without
 * one), the CSV's three columns more, the Markdown's section. */
int64_t sb_export_plate_number(const sb_export_input *in, size_t i);
void sb_export_csv_plate_header(sb_text *t, const sb_export_input *in);
void sb_export_csv_plate_cells(sb_text *t, const sb_export_input *in, size_t i);
void sb_export_markdown_plate(sb_text *t, const sb_export_input *in,
                              void (*inline_text)(sb_text *, const char *));

#endif
