/* The command line of a command, parsed in ONE getopt_long pass from its
 * option table (cli_option.h). For `run`, the items are the non-option
 * arguments met in that pass, and `--` ends the options and starts the
 * command. A value's error names its option ("spacrbench: --cores: ..."),
 * exit 2. */
#ifndef SPACRBENCH_CLI_ARGS_H
#define SPACRBENCH_CLI_ARGS_H

#include <stddef.h>
#include <stdint.h>

#include "cli_option.h"
#include "cli_options.h"
#include "commands.h"
#include "field_workload.h"
#include "slurm_options.h"

#define CLI_SCALE_MAX 16 /* --scale entries */

typedef enum cli_mode { CLI_MODE_DEMO = 1, CLI_MODE_RUN = 2 } cli_mode;

typedef struct cli_args {
    cli_mode mode;
    const cli_command *command; /* whose table is parsed, and whose help is printed */
    cli_common common;
    int done;            /* --help or --version was printed: exit 0 */
    int64_t warmup;      /* requested; the library clamps it */
    int64_t interval_us; /* --interval: the sampler's period (0: the library's) */
    /* demo */
    field_params field;
    int64_t fields;
    int gpu;                 /* --gpu: smooth and threshold on a CUDA device */
    const char *width_from;  /* the option that set the width, for messages */
    const char *height_from; /* ... and the height */
    /* run */
    int no_cgroup;
    double timeout_s; /* --timeout per item, 0 none */
    const char *items_file;
    char **items; /* items given as arguments (pointers into argv) */
    size_t n_items;
    char **cmd; /* after "--" */
    size_t cmd_len;
    /* --sample K: measure K items chosen across the plate; 0: as the
     * plate needs, one at a time; -1: all */
    int64_t sample;
    double sample_cost; /* --sample-cost: --sample 0's share of the plate's time; < 0: default */
    int64_t runs;       /* --runs N: timed runs of each measured item (default 1) */
    int brief;          /* --brief: one line instead of the report */
    /* run --scale: worker counts (n_scale 0: none; scale_auto: from the
     * recommendation), items each copy runs, and the --plot file. */
    int64_t scale[CLI_SCALE_MAX];
    size_t n_scale;
    int scale_auto;
    int64_t scale_items; /* minimum items per copy and timed repeat */
    int scale_items_given;
    double scale_seconds; /* minimum seconds per timed repeat */
    int scale_seconds_given;
    const char *plot_path;
    /* run --emit slurm: the job script's options */
    cli_slurm slurm;
} cli_args;

/* Defaults of the mode. */
void cli_args_init(cli_args *a, cli_mode mode);

/* Parse argv[1..argc-1] (argv[0] names the program or "run"). Returns
 * CLI_EXIT_OK (check a->done) or CLI_EXIT_USAGE after printing the error.
 * Free with cli_args_free whatever it returned. */
int cli_args_parse(cli_args *a, int argc, char **argv);
void cli_args_free(cli_args *a);

#endif
