/* The files a finished run writes beside its report: --export-markdown,
 * --export-csv (the library's spacrbench_format_export) and, for a serial
 * run, --plot (the JSON document drawn by the Python helper, run_plot.h). */
#ifndef SPACRBENCH_CLI_EXPORT_H
#define SPACRBENCH_CLI_EXPORT_H

#include "cli_context.h"
#include "cli_options.h"

/* An export is named '-': it goes to stdout, in place of the report. */
int cli_export_takes_stdout(const cli_common *c);

/* 0, or -1 after a line on stderr for each file that could not be made.
 * json: the run's --json document (needed for --plot), or NULL. */
int cli_write_exports(const cli_common *c, const spacrbench_measurement *m,
                      const spacrbench_recommendation *rec, const cli_context *ctx,
                      const char *json);

#endif
