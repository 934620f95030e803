/* See slurm_env.h. */
#include "slurm_env.h"

#include <stdlib.h>

static const char *const k_names[] = {"SLURM_JOB_ID", "SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID",
                                      "SLURM_MEM_PER_NODE", "SLURM_CPUS_PER_TASK"};
#define N_NAMES (sizeof k_names / sizeof k_names[0])

void slurm_env_describe(json_writer *w)
{
    if (!getenv("SLURM_JOB_ID"))
        return;
    json_begin_object(w, "job");
    for (size_t i = 0; i < N_NAMES; i++) {
        const char *v = getenv(k_names[i]);
        if (v)
            json_string(w, k_names[i], v);
    }
    json_end_object(w);
}
