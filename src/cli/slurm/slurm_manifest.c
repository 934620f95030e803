/* run --emit slurm: the array's manifest beside the task reports (see
 * slurm_job.h), so summarize knows the tasks that left nothing behind. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_file.h"
#include "json_writer.h"
#include "slurm_job.h"

int cli_slurm_job_write_manifest(const spacrbench_slurm_job *job)
{
    json_writer w;
    json_init(&w, 1);
    json_begin_object(&w, NULL);
    json_string(&w, "spacrbench_version", spacrbench_version_string());
    json_int(&w, "tasks", job->n_items); /* #SBATCH --array=0-(tasks - 1) */
    json_string(&w, "items_file", job->items_file);
    json_string(&w, "job_name", job->job_name ? job->job_name : "spacrbench");
    json_end_object(&w);
    const char *json = json_result(&w);
    size_t cap = strlen(job->output_dir) + sizeof "/" CLI_SLURM_MANIFEST;
    char *path = malloc(cap), *text = json ? malloc(strlen(json) + 2) : NULL;
    int rc = -1;
    if (text && path) {
        snprintf(path, cap, "%s/%s", job->output_dir, CLI_SLURM_MANIFEST);
        size_t len = (size_t)sprintf(text, "%s\n", json);
        rc = cli_write_file_atomic(path, text, len);
    } else
        errno = ENOMEM;
    if (rc != 0)
        fprintf(stderr,
                "spacrbench: --emit slurm: warning: cannot write %s/%s (%s): summarize will "
                "need --job JOB_SCRIPT to know every task of the array\n",
                job->output_dir, CLI_SLURM_MANIFEST, strerror(errno));
    free(path);
    free(text);
    json_free(&w);
    return rc;
}
