/* Internal shape of a scaling-check result, shared by the rule
 * (scale_rule.c), the options and counts (scale.c), the measurement of one
 * count (linux/scale_fork.c, or scale_none.c elsewhere) and the text and JSON
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

#define SB_SCALE_MAX_WORKERS 1024

/* What every worker of a point runs. */
typedef struct sb_scale_args {
    spacrbench_work_fn work;
    void *const *items;
    size_t n_items;
    void *payload;
    int64_t per_worker;
    uint32_t flags;
} sb_scale_args;

/* Measure k workers at once into *p (notes into r). Library error codes;
 * a worker that failed only marks the point. SPACRBENCH_EUNSUPPORTED where
 * the platform has no implementation. */
int sb_scale_run_point(const sb_scale_args *a, int64_t k, spacrbench_scale_point *p,
                       spacrbench_scale_result *r);

int sb_scale_notef(spacrbench_scale_result *r, const char *fmt, ...) SB_PRINTF(2, 3);

#endif
