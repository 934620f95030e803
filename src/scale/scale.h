/* Internal shape of a scaling-check result, shared by the rule
 * (scale_rule.c), the options and counts (scale.c), the measurement of one
 * count (linux/scale_fork.c, or scale_none.c elsewhere) and the text and JSON
 * output (scale_output.c). Not installed. */
#ifndef SPACRBENCH_SCALE_H
#define SPACRBENCH_SCALE_H

#include "internal.h"

struct spacrbench_scale_result {
    spacrbench_scale_point *points;   /* increasing workers */
    spacrbench_scale_spread *spreads; /* one per point, same order */
    size_t n_points;
    spacrbench_scale_summary summary;
    char **notes;
    size_t n_notes;
};

/* Within this fraction of the best throughput counts as "as good". */
#define SB_SCALE_KNEE_TOLERANCE 0.10

/* The pure rule: fill the derived fields of points[0..n) (sorted by
 * workers, inputs already checked; spreads[i] belongs to points[i]) and
 * the summary. No I/O. */
void sb_scale_apply_rule(spacrbench_scale_point *points, const spacrbench_scale_spread *spreads,
                         size_t n, int64_t budget_bytes, spacrbench_scale_summary *summary);

/* Check, copy and sort caller points (and their spreads, NULL for none),
 * then apply the rule. */
int sb_scale_result_make(const void *points, size_t n, size_t point_size, const void *spreads,
                         size_t spread_size, int64_t budget_bytes, spacrbench_scale_result **out);

/* The noise the rule allows between two points: max(10 %, the sum of
 * their spreads); unknown spreads count as 0. */
double sb_scale_tolerance(const spacrbench_scale_spread *a, const spacrbench_scale_spread *b);

#define SB_SCALE_MAX_WORKERS 1024

/* What every worker of a point runs. */
typedef struct sb_scale_args {
    spacrbench_work_fn work;
    void *const *items;
    size_t n_items;
    void *payload;
    spacrbench_scale_timing timing; /* checked, complete */
    int64_t budget;                 /* the group's memory limit where > 0 */
    uint32_t flags;
} sb_scale_args;

/* Measure k workers at once into *p and *sp (notes into r). Library error
 * codes; a worker that failed only marks the point. SPACRBENCH_EUNSUPPORTED
 * where the platform has no implementation. */
int sb_scale_run_point(const sb_scale_args *a, int64_t k, spacrbench_scale_point *p,
                       spacrbench_scale_spread *sp, spacrbench_scale_result *r);

/* Spread of n repeat throughputs into *sp (repeats, min, max, spread). */
void sb_scale_spread_of(const double *ips, size_t n, spacrbench_scale_spread *sp);

/* Whether another repeat is needed after n of them (timing rules). */
int sb_scale_want_repeat(const spacrbench_scale_timing *t, const double *ips, size_t n);

int sb_scale_notef(spacrbench_scale_result *r, const char *fmt, ...) SB_PRINTF(2, 3);

#endif
