/* The plate section's words that the report (plate_report.c) and the
 * Markdown export (export_plate.c) share. Not installed. */
#ifndef SPACRBENCH_OUTPUT_PLATE_WORDS_H
#define SPACRBENCH_OUTPUT_PLATE_WORDS_H

#include <stddef.h>

#include "spacrbench.h"

/* Why an item was measured, in the report's words ("largest", "warm-up"). */
const char *sb_plate_why_words(int why);
/* A plate's time as users plan with it: "2 h 05 min" (whole minutes,
 * rounded up), "40 s" under a minute, "unknown" when not finite. */
void sb_plate_duration_words(double seconds, char *buf, size_t cap);
/* Why no one item can be named as the plate's largest (the fit is not a
 * line against the key, and items were left unmeasured); NULL when the
 * prediction names one. */
const char *sb_plate_untold_words(const spacrbench_plate_section *s, size_t n_picks);

#endif
