/* Reading a scaling check's result in a test, through the public API,
 * each read asserted: its summary, a point, a point's spread, a note. */
#ifndef SB_TEST_SCALE_H
#define SB_TEST_SCALE_H

#include <stddef.h>

#include "spacrbench.h"

spacrbench_scale_summary sb_test_summary_of(const spacrbench_scale_result *r);
spacrbench_scale_point sb_test_point_of(const spacrbench_scale_result *r, size_t i);
spacrbench_scale_spread sb_test_spread_of(const spacrbench_scale_result *r, size_t i);
/* The first note holding words, NULL when none does. */
const char *sb_test_note_with(const spacrbench_scale_result *r, const char *words);

#endif
