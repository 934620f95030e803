/* The human report: the library's report (verbose: with its notes on
 * method and one line per item record, spacrbench_measurement_format_item,
 * which escapes control characters);
 * and run --brief's one line (spacrbench_format_brief). */
#ifndef SPACRBENCH_CLI_TEXT_H
#define SPACRBENCH_CLI_TEXT_H

#include "cli_context.h"

/* malloc'd text, NULL on failure (message printed). verbose: the
 * report with its notes on method and the item lines. */
char *cli_report_text(const spacrbench_measurement *m, const spacrbench_recommendation *rec,
                      const cli_context *ctx, int verbose);
/* The one line of --brief, with its line break; NULL as above. */
char *cli_brief_text(const spacrbench_measurement *m, const spacrbench_recommendation *rec);

#endif
