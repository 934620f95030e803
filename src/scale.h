/* Internal shape of a scaling-check result, shared by the rule
 * (scale_rule.c), the forking measurement (scale.c) and the text and JSON
 * output (scale_output.c). Not installed. */
#ifndef SPACRBENCH_SCALE_H
#define SPACRBENCH_SCALE_H

#include "internal.h"

struct spacrbench_scale_result {
    spacrbench_scale_point *points; /* increasing workers */
    size_t n_points;
    spacrbench_scale_summary summary;
    char **notes;
    size_t n_notes;
};

/* Within this fraction of the best throughput counts as "as good". */
#define SB_SCALE_KNEE_TOLERANCE 0.10

/* The pure rule: fill the derived fields of points[0..n) (sorted by
 * workers, inputs already checked) and the summary. No I/O. */
void sb_scale_apply_rule(spacrbench_scale_point *points, size_t n, int64_t budget_bytes,
                         spacrbench_scale_summary *summary);

/* Check, copy and sort caller points, then apply the rule. */
int sb_scale_result_make(const void *points, size_t n, size_t point_size, int64_t budget_bytes,
                         spacrbench_scale_result **out);

int sb_scale_notef(spacrbench_scale_result *r, const char *fmt, ...) SB_PRINTF(2, 3);

#endif
