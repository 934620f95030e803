/* Command-line parsing shared by the default mode and `spacrbench run`:
 * numbers, byte sizes with suffixes, and the options both modes accept
 * (recommendation inputs and output choices). */
#ifndef SPACRBENCH_CLI_OPTIONS_H
#define SPACRBENCH_CLI_OPTIONS_H

#include <stdint.h>

#include "spacrbench.h"

#define CLI_EXIT_OK 0
#define CLI_EXIT_ERROR 1   /* the measurement could not be made */
#define CLI_EXIT_USAGE 2   /* bad command line */
#define CLI_EXIT_STOPPED 3 /* a measured command failed; partial report printed */

typedef enum cli_emit { CLI_EMIT_REPORT = 0, CLI_EMIT_SLURM, CLI_EMIT_DASK } cli_emit;

typedef struct cli_common {
    spacrbench_recommend_options rec;
    int json;
    int quiet;
    cli_emit emit;
    const char *report_path; /* NULL: no file */
} cli_common;

void cli_common_init(cli_common *c);

/* "123", "2G", "512M", "1.5GiB", "64k" (powers of 1024). 0 or -1. */
int cli_parse_bytes(const char *text, int64_t *out);
/* A whole number in [min, max]. 0 or -1. */
int cli_parse_int(const char *text, int64_t min, int64_t max, int64_t *out);
/* "2048x1024". 0 or -1. */
int cli_parse_size(const char *text, int64_t *width, int64_t *height);

/* Print "spacrbench: OPTION: message" on stderr and return CLI_EXIT_USAGE. */
int cli_usage_error(const char *option, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The value of option argv[*i]: "--opt=value" or "--opt value" (advancing
 * *i). NULL after printing an error when it is missing. */
const char *cli_option_value(int argc, char **argv, int *i, const char *name);

/* Does argv[*i] name option `name` (either "--name" or "--name=...")? */
int cli_is_option(const char *arg, const char *name);

/* Consume argv[*i] if it is a common option. Returns 1 when consumed,
 * 0 when it is not a common option, CLI_EXIT_USAGE (negated) on error. */
int cli_parse_common(int argc, char **argv, int *i, cli_common *c);

#endif
