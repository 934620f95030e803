/* The job script's description for `spacrbench run --emit slurm`, made
 * before any item runs (so a bad directory fails at once): absolute paths
 * of the items file and the output directory (created), and the path of
 * this very binary for the tasks to call (or `spacrbench` from PATH). */
#ifndef SPACRBENCH_CLI_SLURM_JOB_H
#define SPACRBENCH_CLI_SLURM_JOB_H

#include <stddef.h>

#include "cli_args.h"
#include "spacrbench.h"

typedef struct cli_slurm_job {
    spacrbench_slurm_job job; /* points into the members below and into argv */
    char *items_file;
    char *output_dir;
    char *self;
} cli_slurm_job;

/* CLI_EXIT_OK, or an exit code after the message. */
int cli_slurm_job_prepare(const cli_args *a, size_t n_items, cli_slurm_job *out);
void cli_slurm_job_free(cli_slurm_job *j);

#endif
