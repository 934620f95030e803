/* run --emit slurm: the array's index and manifest beside the task
 * reports (see slurm_job.h), written by the library, as Python's
 * Recommendation.to_slurm writes them. */
#include <string.h>

#include "cli_error.h"
#include "slurm_job.h"

/* job is the first member of the cli_slurm_job that prepare filled. */
static const cli_slurm_job *whole(const spacrbench_slurm_job *job)
{
    return (const cli_slurm_job *)(const void *)job;
}

int cli_slurm_job_script(const spacrbench_slurm_job *job, const spacrbench_measurement *m,
                         const spacrbench_schedule *sched, char *buf, size_t cap)
{
    return spacrbench_format_slurm_job(m, sched, job, &whole(job)->tasks, buf, cap);
}

int cli_slurm_job_write_manifest(const spacrbench_slurm_job *job, const spacrbench_measurement *m,
                                 const spacrbench_schedule *sched)
{
    if (spacrbench_slurm_write_array(m, sched, job, &whole(job)->tasks) == 0)
        return 0;
    const char *why = spacrbench_last_error_message();
    if (strstr(why, "another job array's files")) { /* refused: says what to do */
        cli_error(CLI_EXIT_ERROR, "--emit slurm: %s", why);
        return -1;
    }
    cli_error(CLI_EXIT_ERROR,
              "--emit slurm: %s: the tasks find their items through %s/%s; emit the script again",
              spacrbench_last_error_message(), job->output_dir, "spacrbench-items.idx");
    return -1;
}
