/* `spacrbench run --scale`: after the serial run, the library's one
 * scaling driver (spacrbench_scale_execute) over an executor whose rounds
 * are k copies of the command at once on different items (one group of
 * the supervisor, one cgroup), so every rule and the verdict are the ones
 * Python and C give. */
#ifndef SPACRBENCH_CLI_RUN_SCALE_H
#define SPACRBENCH_CLI_RUN_SCALE_H

#include "cli_args.h"
#include "item_list.h"
#include "spacrbench.h"
#include "supervisor.h"

typedef struct run_scale_input {
    const cli_args *args;
    const item_list *items;
    sb_supervisor *sup; /* the serial run's: its peak method, cgroup parent and NVML */
    const spacrbench_recommendation *rec; /* NULL when none could be made */
} run_scale_input;

/* CLI_EXIT_OK with *out set (a failed copy marks its point failed and sets
 * *copy_failed, after printing which one on stderr); an interruption ends
 * the check early with the points so far, the count it stopped marked
 * failed (sb_stop_signal() says so);
 * CLI_EXIT_ERROR with a message when spacrbench could not do its part
 * (*out NULL). */
int run_scale(const run_scale_input *in, spacrbench_scale_result **out, int *copy_failed);

#endif
