/* Exit codes, the options both modes share, and the parsers of option
 * values (numbers, byte sizes, WxH) with the one error format:
 * "spacrbench: OPTION: message", exit 2. */
#ifndef SPACRBENCH_CLI_OPTIONS_H
#define SPACRBENCH_CLI_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "spacrbench.h"

#define CLI_EXIT_OK      0
#define CLI_EXIT_ERROR   1 /* the measurement could not be made */
#define CLI_EXIT_USAGE   2 /* bad command line */
#define CLI_EXIT_STOPPED 3 /* a measured command failed; partial report printed */

typedef enum cli_emit { CLI_EMIT_REPORT = 0, CLI_EMIT_SLURM, CLI_EMIT_DASK } cli_emit;

typedef struct cli_common {
    spacrbench_recommend_options rec;
    int json;
    int quiet;
    cli_emit emit;
    const char *report_path; /* NULL: no file */
    /* --export-markdown, --export-csv, and --plot of a serial run (NULL: none) */
    const char *export_markdown_path, *export_csv_path, *plot_path;
    /* run --emit slurm: the job the script runs (NULL: the #SBATCH lines alone) */
    const spacrbench_slurm_job *slurm_job;
} cli_common;

void cli_common_init(cli_common *c);

/* "123", "2G", "512M", "1.5GiB", "64k" (powers of 1024). 0 or -1. */
int cli_parse_bytes(const char *text, int64_t *out);
/* A whole number in [min, max]. 0 or -1. */
int cli_parse_int(const char *text, int64_t min, int64_t max, int64_t *out);
/* The longest --timeout, in seconds (about 115 days), and as text. */
#define CLI_DURATION_MAX      1e7
#define CLI_DURATION_MAX_TEXT "10000000"

/* "10", "1.5", "90s", "2m", "1h": seconds > 0, at most CLI_DURATION_MAX.
 * 0 or -1. */
int cli_parse_duration(const char *text, double *seconds);
/* "2048x1024". 0 or -1. */
int cli_parse_size(const char *text, int64_t *width, int64_t *height);

/* "fork", "spawn" or "forkserver" (spacrbench_start_method). 0 or -1. */
int cli_parse_start_method(const char *text, int32_t *out);
/* "1,2,4": at most cap distinct whole numbers from 1 to max. Returns how
 * many, or -1 with why ("expected ...") filled in. */
int cli_parse_count_list(const char *text, int64_t max, int64_t *out, size_t cap, char *why,
                         size_t why_cap);

/* Print "spacrbench: OPTION: message" on stderr and return CLI_EXIT_USAGE. */
int cli_usage_error(const char *option, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
