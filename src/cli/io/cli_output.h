/* What both modes do once they hold a measurement: recommend on the
 * machine snapshot the mode discovered, then print the report, the JSON
 * document or the scheduler hand-off, and write the --report file. */
#ifndef SPACRBENCH_CLI_OUTPUT_H
#define SPACRBENCH_CLI_OUTPUT_H

#include "cli_context.h"
#include "cli_options.h"

/* machine: the run's one discovery (NULL when it failed: the library then
 * discovers). Returns CLI_EXIT_OK or CLI_EXIT_ERROR. */
int cli_finish(const cli_common *c, const spacrbench_measurement *m,
               const spacrbench_machine *machine, const cli_context *ctx);

#endif
