/* The worker-count rule in two parts (docs/advice.md): recommend.c does
 * the arithmetic (the count and the bound that decided it),
 * recommend_reason.c the sentence that explains it. */
#ifndef SPACRBENCH_RECOMMEND_RULE_H
#define SPACRBENCH_RECOMMEND_RULE_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"
#include "spacrbench.h"

/* Which "one worker at a time" case decided, when bound is ONE. */
typedef enum sb_one_case {
    SB_ONE_NONE,   /* not one of these: r->bound says what decided */
    SB_ONE_OOM,    /* an item was OOM-killed */
    SB_ONE_MEMORY, /* one worker's need is above the memory budget */
    SB_ONE_VRAM    /* one worker's VRAM is above the VRAM budget */
} sb_one_case;

/* What the arithmetic found, beside the recommendation's own fields. */
typedef struct sb_decision {
    int64_t budget; /* available memory - reserve, at least 0 */
    int has_memory; /* a usable memory measurement and a known budget */
    int has_vram;   /* a VRAM bound exists */
    sb_one_case one;
} sb_decision;

/* r->reason for what choose() decided: spaCR's words and number format
 * first, spacrbench's additions after "; ". */
void sb_recommend_explain(spacrbench_recommendation *r, const sb_decision *d);

/* The rule with one worker's need given (need: the memory footprint one
 * worker needs, -1 none; m's work_rss_bytes for spacrbench_recommend_on,
 * the plate's predicted largest for spacrbench_plate_recommend) into r, a
 * whole struct of this library's size. 0 or a negative code. */
int sb_recommend_into(const spacrbench_measurement *m, const spacrbench_recommend_options *opts,
                      const spacrbench_machine *machine, int64_t need,
                      spacrbench_recommendation *r);
/* The workers r's need allows in budget bytes of memory given by the
 * caller, after the reserve --available's budget keeps (the caller's own,
 * else the host's 2 GiB): the report's what-if line. -1 when r has no
 * need or budget is not > 0. */
int64_t sb_memory_workers_within(const spacrbench_recommendation *r, int64_t budget);
/* Append to a reason; a reason never overflows its field. */
void sb_reason_add(spacrbench_recommendation *r, const char *fmt, ...) SB_PRINTF(2, 3);

#endif
