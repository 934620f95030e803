/* The human report: the library's report, then one line per item record
 * (spacrbench_format_item_line, which escapes control characters). */
#ifndef SPACRBENCH_CLI_TEXT_H
#define SPACRBENCH_CLI_TEXT_H

#include "cli_context.h"

/* malloc'd text, NULL on failure (message printed). */
char *cli_report_text(const spacrbench_measurement *m, const spacrbench_recommendation *rec,
                      const cli_context *ctx);

#endif
