/* The "job" member of the run document: the SLURM job a run is part of
 * (SLURM_JOB_ID, SLURM_ARRAY_JOB_ID, SLURM_ARRAY_TASK_ID, and what the job
 * requested: SLURM_MEM_PER_NODE in MiB, SLURM_CPUS_PER_TASK), as the
 * environment gives them, so `spacrbench summarize` can set what a task
 * used against what it asked for. Nothing is written outside a job. */
#ifndef SPACRBENCH_CLI_SLURM_ENV_H
#define SPACRBENCH_CLI_SLURM_ENV_H

#include "json_writer.h"

void slurm_env_describe(json_writer *w);

#endif
