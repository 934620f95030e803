/* `spacrbench run --sample K`: the plate is every item given; K of them
 * (plus --warmup's) are chosen across the items' file sizes by the
 * library (spacrbench_plate_select) and run, the rest predicted
 * (spacrbench_plate_predict), so the advice and the hand-off are for the
 * plate's largest item. */
#ifndef SPACRBENCH_CLI_RUN_PLATE_H
#define SPACRBENCH_CLI_RUN_PLATE_H

#include "cli_args.h"
#include "item_list.h"
#include "spacrbench.h"

typedef struct run_plate {
    item_list all;           /* the plate: every item given (owned) */
    spacrbench_plate *plate; /* NULL without --sample */
} run_plate;

/* With --sample: choose among *items, which then holds the chosen items
 * in their order (copies) while rp->all keeps the plate. CLI_EXIT_OK, or
 * CLI_EXIT_ERROR after saying why. Without --sample nothing changes. */
int run_plate_choose(const cli_args *a, item_list *items, run_plate *rp);
/* --sample 0: whether to run the next chosen item after the `added`
 * measured into m (1), or stop (0), dropping the items not run from
 * *items; 1 without a plate, and for a fixed K until its items all ran. */
int run_plate_more(const run_plate *rp, const spacrbench_measurement *m, item_list *items,
                   size_t added);
/* After the run: predict the plate from m (the chosen items' records);
 * 0, or -1 after a note in m saying why there is no recommendation for
 * the plate (stopped: the run stopped before the chosen items were all
 * measured, so it is not predicted from the smaller items before it). */
int run_plate_predict(run_plate *rp, spacrbench_measurement *m, int stopped);
/* A run that stopped: m carries the plate's section of what was chosen
 * and measured (no prediction), so its items are named by their place in
 * the plate as a complete run's are. */
void run_plate_attach_chosen(const run_plate *rp, spacrbench_measurement *m);
/* The warm-up the plate runs (cut where the plate is small), or asked
 * without --sample. */
int64_t run_plate_warmup(const run_plate *rp, int64_t asked);
/* Run item i's number for people: its place in the plate (1-based) with
 * --sample, else i + 1. */
size_t run_plate_number(const run_plate *rp, size_t i);
void run_plate_free(run_plate *rp);

#endif
