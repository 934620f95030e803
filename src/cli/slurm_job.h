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
    spacrbench_slurm_job job;     /* first: cli_common.slurm_job points here; into the
                                 members below and into argv */
    spacrbench_slurm_tasks tasks; /* --array-limit, the run's --timeout and --no-cgroup */
    char *items_file;
    char *output_dir;
    char *self;
    char *advice; /* cli_slurm_array_advice's sentence, made once: the warning
                     before the items run and the script's last comment; NULL
                     when the array fits */
} cli_slurm_job;

/* SLURM's default MaxArraySize: array indexes run from 0 to this - 1. */
#define CLI_SLURM_DEFAULT_MAX_ARRAY_SIZE 1001

/* CLI_EXIT_OK, or an exit code after the message. A warning goes to
 * stderr (and into out->advice) when the array exceeds SLURM's default
 * MaxArraySize. */
int cli_slurm_job_prepare(const cli_args *a, size_t n_items, cli_slurm_job *out);
void cli_slurm_job_free(cli_slurm_job *j);

/* The script of the job cli_slurm_job_prepare made (job points at its
 * first member), snprintf-style (spacrbench_format_slurm_job). */
int cli_slurm_job_script(const spacrbench_slurm_job *job, const spacrbench_measurement *m,
                         const spacrbench_schedule *sched, char *buf, size_t cap);

/* The array's files, written beside the task reports once the script is
 * out (spacrbench_slurm_write_array): the items index every task reads
 * its item through, and DIR/spacrbench-array.json with the task count,
 * the items file, the job name and the requested mem, cpus and time, so
 * `spacrbench summarize DIR` knows every task the array had. 0, or -1
 * with an error on stderr (the tasks cannot find their items without
 * the index). */
#define CLI_SLURM_MANIFEST "spacrbench-array.json"
int cli_slurm_job_write_manifest(const spacrbench_slurm_job *job, const spacrbench_measurement *m,
                                 const spacrbench_schedule *sched);

/* Before any item runs: CLI_EXIT_OK, or CLI_EXIT_ERROR after the message
 * when the output directory's manifest is another array's (another items
 * file or item count); spacrbench_slurm_write_array refuses every other
 * difference once the script is known. */
int cli_slurm_job_check_dir(const spacrbench_slurm_job *job);

/* What to do about an array of n_items tasks that SLURM's default
 * MaxArraySize refuses (one sentence, no newline, malloc'd); NULL when it
 * fits (or memory ran out: the advice is a courtesy). */
char *cli_slurm_array_advice(size_t n_items);

#endif
