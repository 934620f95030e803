/* The options every measuring command shares (the recommendation's
 * inputs, the outputs), the exit codes (cli_error.h) and the value parsers
 * (cli_values.h). */
#ifndef SPACRBENCH_CLI_OPTIONS_H
#define SPACRBENCH_CLI_OPTIONS_H

#include "cli_error.h"
#include "cli_values.h"
#include "spacrbench.h"

typedef enum cli_emit { CLI_EMIT_REPORT = 0, CLI_EMIT_SLURM, CLI_EMIT_DASK } cli_emit;

typedef struct cli_common {
    spacrbench_recommend_options rec;
    int json;
    int quiet;
    int verbose; /* --verbose: the report's notes on method and its item lines */
    cli_emit emit;
    const char *report_path; /* NULL: no file */
    /* --export-markdown, --export-csv, and --plot of a serial run (NULL: none) */
    const char *export_markdown_path, *export_csv_path, *plot_path;
    /* run --emit slurm: the job the script runs (NULL: the #SBATCH lines alone) */
    const spacrbench_slurm_job *slurm_job;
} cli_common;

void cli_common_init(cli_common *c);

/* How to get what --plot needs (the Python package with matplotlib), in the
 * Python package's words (_extras.PLOT_INSTALL): the package is on no index
 * yet, so they also say how to install it from a clone. At most 79 columns:
 * a message puts it on a line of its own. */
#define CLI_PLOT_INSTALL "pip install 'spacrbench[plot]' (from a clone: pip install '.[plot]')"

#endif
