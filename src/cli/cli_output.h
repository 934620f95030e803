/* What both modes do once they hold a measurement: recommend once on the
 * machine snapshot the mode discovered, then print the report, the JSON
 * document or the scheduler hand-off, and write the --report file. */
#ifndef SPACRBENCH_CLI_OUTPUT_H
#define SPACRBENCH_CLI_OUTPUT_H

#include "cli_context.h"
#include "cli_options.h"

/* The run's one recommendation, on the machine snapshot (NULL: the library
 * discovers), into out; NULL after saying why when there is none. */
const spacrbench_recommendation *cli_recommend(const cli_common *c, const spacrbench_measurement *m,
                                               const spacrbench_machine *machine,
                                               spacrbench_recommendation *out);

/* machine: the run's one discovery; rec: cli_recommend's (NULL: none).
 * Returns CLI_EXIT_OK or CLI_EXIT_ERROR. */
int cli_finish(const cli_common *c, const spacrbench_measurement *m,
               const spacrbench_machine *machine, const spacrbench_recommendation *rec,
               const cli_context *ctx);

#endif
