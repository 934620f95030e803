/* Internal shape of a scaling-check result, shared by the rule
 * (scale_rule.c), the driver (scale_driver.c: the one loop over an
 * executor, and its timing rules), the options (scale.c) and
 * the text and JSON output (scale_output.c). Not installed. */
#ifndef SPACRBENCH_SCALE_H
#define SPACRBENCH_SCALE_H

#include "core.h"

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

/* Check, copy and sort caller points (and their spreads, NULL for none),
 * then apply the rule. */
int sb_scale_result_make(const void *points, size_t n, size_t point_size, const void *spreads,
                         size_t spread_size, int64_t budget_bytes, spacrbench_scale_result **out);

/* spacrbench_scale_spread.oom_killed: how a count's memory ended it. */
enum {
    SB_SCALE_OOM_NONE = 0,
    SB_SCALE_OOM_AT_BUDGET =
        1,                    /* the kernel, in the group's own cgroup at its limit (the budget) */
    SB_SCALE_OOM_OUTSIDE = 2, /* the kernel, at a limit outside the group */
    SB_SCALE_ENDED_AT_BUDGET = 3 /* spacrbench: no cgroup could hold the limit, so it watched */
};

#define SB_SCALE_MAX_REPEATS 100 /* timing.max_repeats at most */
#define SB_SCALE_MAX_GROW    3   /* short timed rounds redone with more items, per count */

/* ---- the executors the library brings ---- */

/* What the forked workers of spacrbench_scale_timed run. */
typedef struct sb_scale_work {
    spacrbench_work_fn work;
    void *const *items;
    size_t n_items;
    void *payload;
} sb_scale_work;

/* The fork executor over w (scale/scale_fork.c); elsewhere
 * SPACRBENCH_EUNSUPPORTED. *state is freed by sb_scale_fork_executor_free. */
int sb_scale_fork_executor(const sb_scale_work *w, spacrbench_scale_executor *ex, void **state);
void sb_scale_fork_executor_free(void *state);

/* ---- notes ---- */

int sb_scale_notef(spacrbench_scale_result *r, const char *fmt, ...) SB_PRINTF(2, 3);

/* The one guard: a second check in this process gets EBUSY. 0 taken. */
int sb_scale_lock_take(void);
void sb_scale_lock_give(void);

/* available - reserve, as spacrbench_recommend computes them (the note
 * says so); -1 unknown. */
int64_t sb_scale_auto_budget(char *note, size_t cap);

/* The caller's options and timing, checked, into *o and *t (defaults
 * where NULL; items_per_worker, where given, is min_items). */
int sb_scale_args_in(const spacrbench_scale_options *opts, const spacrbench_scale_timing *timing,
                     spacrbench_scale_options *o, spacrbench_scale_timing *t);

/* Between the scaling rule's arithmetic (scale_rule.c) and the sentence
 * that explains it (scale_reason.c): the points the rule picked out.
 * Not installed. */
/* Points of the rule's sorted array; NULL where there is none. A candidate
 * has a throughput and does not exceed the budget (or its fit is unknown). */
typedef struct sb_scale_picks {
    const spacrbench_scale_point *best;     /* the highest candidate throughput */
    const spacrbench_scale_point *last;     /* the largest candidate count */
    const spacrbench_scale_point *chosen;   /* the knee */
    const spacrbench_scale_point *excluded; /* beyond the noise faster than the knee, over budget */
    const spacrbench_scale_point *oom;      /* the first count above the knee OOM-killed */
} sb_scale_picks;

/* The reason for s->verdict (already decided) into s->reason. */
void sb_scale_explain(const spacrbench_scale_point *pts, const spacrbench_scale_spread *sps,
                      size_t n, int64_t budget, const sb_scale_picks *k,
                      spacrbench_scale_summary *s);

#endif
