/* The plate section's words that the report (plate_report.c) and the
 * Markdown export (export_plate.c) share. Not installed. */
#ifndef SPACRBENCH_OUTPUT_PLATE_WORDS_H
#define SPACRBENCH_OUTPUT_PLATE_WORDS_H

/* Why an item was measured, in the report's words ("largest", "warm-up"). */
const char *sb_plate_why_words(int why);

#endif
