/* See slurm_job.h. */
#include "slurm_job.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_options.h"

/* mkdir -p. 0 or -1 (errno set). */
static int make_dirs(const char *path)
{
    char *copy = strdup(path);
    if (!copy)
        return -1;
    int rc = 0;
    for (char *p = copy + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char was = *p;
        *p = '\0';
        if (mkdir(copy, 0777) != 0 && errno != EEXIST) {
            rc = -1;
            break;
        }
        *p = was;
        if (was == '\0')
            break;
    }
    int e = errno;
    free(copy);
    errno = e;
    return rc;
}

static char *own_path(void)
{
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        return NULL;
    buf[n] = '\0';
    return strdup(buf);
}

int cli_slurm_job_prepare(const cli_args *a, size_t n_items, cli_slurm_job *out)
{
    memset(out, 0, sizeof *out);
    const cli_slurm *s = &a->slurm;
    const char *dir = s->output_dir ? s->output_dir : "spacrbench-job";
    if (!(out->items_file = realpath(a->items_file, NULL)))
        return cli_usage_error("--items", "cannot resolve '%s': %s", a->items_file,
                               strerror(errno));
    if (make_dirs(dir) != 0 || !(out->output_dir = realpath(dir, NULL))) {
        fprintf(stderr, "spacrbench: --slurm-output: cannot create '%s': %s\n", dir,
                strerror(errno));
        return CLI_EXIT_ERROR;
    }
    if (!s->from_path && !(out->self = own_path())) {
        fprintf(stderr,
                "spacrbench: --emit slurm: cannot find this program's own path (%s); "
                "use --slurm-from-path\n",
                strerror(errno));
        return CLI_EXIT_ERROR;
    }
    spacrbench_slurm_job *j = &out->job;
    spacrbench_slurm_job_init(j, sizeof *j);
    j->items_file = out->items_file;
    j->n_items = (int64_t)n_items;
    j->output_dir = out->output_dir;
    j->job_name = s->job_name;
    j->command = (const char *const *)a->cmd;
    j->command_len = a->cmd_len;
    j->spacrbench = out->self;
    j->directives = s->sbatch;
    j->n_directives = s->n_sbatch;
    return CLI_EXIT_OK;
}

void cli_slurm_job_free(cli_slurm_job *j)
{
    free(j->items_file);
    free(j->output_dir);
    free(j->self);
    memset(j, 0, sizeof *j);
}
