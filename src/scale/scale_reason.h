/* Between the scaling rule's arithmetic (scale_rule.c) and the sentence
 * that explains it (scale_reason.c): the points the rule picked out.
 * Not installed. */
#ifndef SPACRBENCH_SCALE_REASON_H
#define SPACRBENCH_SCALE_REASON_H

#include "scale.h"

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
