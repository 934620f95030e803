/* See slurm_env.h. */
#include "slurm_env.h"

#include <stdlib.h>

#include "records.h"

void slurm_env_describe(json_writer *w)
{
    if (!getenv("SLURM_JOB_ID"))
        return;
    sb_job_env env = {getenv("SLURM_JOB_ID"), getenv("SLURM_ARRAY_JOB_ID"),
                      getenv("SLURM_ARRAY_TASK_ID"), getenv("SLURM_MEM_PER_NODE"),
                      getenv("SLURM_CPUS_PER_TASK")};
    const void *parts[] = {&env};
    sb_record_write(w, "job", &sb_job_env_record, parts, NULL); /* what is set */
}
