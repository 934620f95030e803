/* The job script's description for `spacrbench run --emit slurm`, made
 * before any item runs: absolute paths of the items file and the output
 * directory, and the path of this very binary for the tasks to call (or
 * `spacrbench` from PATH). Everything the script needs is checked first
 * (the directory's absolute path as it will be, then the whole job as the
 * library checks it), so a job the script cannot hold exits 2 with
 * nothing created and nothing run; only then is the directory created. */
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

/* SLURM's default MaxArraySize: array indexes run from 0 to this - 1. */
#define CLI_SLURM_DEFAULT_MAX_ARRAY_SIZE 1001

/* CLI_EXIT_OK, or an exit code after the message. A warning goes to
 * stderr when the array exceeds SLURM's default MaxArraySize. */
int cli_slurm_job_prepare(const cli_args *a, size_t n_items, cli_slurm_job *out);
void cli_slurm_job_free(cli_slurm_job *j);

/* The array's manifest, written beside the task reports once the script
 * is out: DIR/spacrbench-array.json with the task count, the items file
 * and the job name, so `spacrbench summarize DIR` knows every task the
 * array had, a last one that never started included. 0, or -1 with a
 * warning on stderr (the script stands; summarize --job still works). */
#define CLI_SLURM_MANIFEST "spacrbench-array.json"
int cli_slurm_job_write_manifest(const spacrbench_slurm_job *job);

/* What to do about an array of n_items tasks that SLURM's default
 * MaxArraySize refuses (one sentence, no newline); "" when it fits. */
void cli_slurm_array_advice(size_t n_items, char *buf, size_t cap);

#endif
