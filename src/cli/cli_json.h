/* The one JSON document of the command. Its members are composed here,
 * but every object (measurement, machine, recommendation, schedule) is the
 * library's own serialisation, so the command and Python spell every name
 * and "not measured" (null) the same way. */
#ifndef SPACRBENCH_CLI_JSON_H
#define SPACRBENCH_CLI_JSON_H

#include "cli_context.h"

/* machine, rec and sched may be NULL (null in the document). malloc'd
 * document ending in a newline, NULL on failure (message printed). */
char *cli_json_document(const spacrbench_measurement *m, const spacrbench_machine *machine,
                        const spacrbench_recommendation *rec, const spacrbench_schedule *sched,
                        const char *report, const cli_context *ctx);

#endif
