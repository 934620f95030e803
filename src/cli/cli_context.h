/* What a mode hands to the output once it holds a measurement: its name,
 * one label per record, and a function adding its own members to the JSON
 * document ("command", "items_given" ... or "workload"), and the scaling
 * check when one ran. */
#ifndef SPACRBENCH_CLI_CONTEXT_H
#define SPACRBENCH_CLI_CONTEXT_H

#include <stddef.h>

#include "json_writer.h"
#include "spacrbench.h"

typedef struct cli_context {
    const char *mode;               /* "demo" or "run" */
    const char *const *item_labels; /* one per record, or NULL */
    size_t n_labels;
    void (*describe)(json_writer *w, const void *arg, const spacrbench_measurement *m);
    const void *describe_arg;
    const spacrbench_scale_result *scaling; /* run --scale: the check, or NULL */
    /* run --sample: the measurement the hand-off sizes from (the plate's
     * largest item); NULL: m. The plate's section is m's own. */
    const spacrbench_measurement *handoff;
    int brief; /* run --brief: stdout gets one line (the report still goes to --report) */
} cli_context;

#endif
