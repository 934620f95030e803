/* See slurm_options.h. */
#include "slurm_options.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli_options.h"
#include "spacrbench.h"

static int has_control(const char *text)
{
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return 1;
    return 0;
}

/* The library's reading of one #SBATCH line (sbatch's: every option on
 * it, abbreviations and clusters of short options too), on a stand-in
 * job: NULL when it takes the line, else why not (the library's words,
 * without the field name). */
static const char *directive_refused(const char *line)
{
    spacrbench_figures f = {.size = sizeof f};
    f.items = 1;
    f.seconds = f.cpu_seconds = 1;
    f.peak_rss_bytes = (int64_t)1 << 20;
    f.peak_vram_bytes = SPACRBENCH_NOT_MEASURED;
    f.peak_method = SPACRBENCH_PEAK_CHILD_RUSAGE;
    f.stopped_item = -1;
    spacrbench_measurement *m = NULL;
    if (spacrbench_measurement_create(&f, &m) != 0)
        return NULL; /* the library checks it again before any item runs */
    spacrbench_schedule sched = {.size = sizeof sched};
    sched.cpus_per_task = sched.array_concurrency = sched.n_workers = sched.threads_per_worker = 1;
    sched.mem_per_task_bytes = sched.memory_limit_bytes = (int64_t)1 << 30;
    static const char *const command[] = {"true"};
    const char *lines[] = {line};
    spacrbench_slurm_job job;
    spacrbench_slurm_job_init(&job, sizeof job);
    job.items_file = "/items";
    job.n_items = 1;
    job.output_dir = "/out";
    job.command = command;
    job.command_len = 1;
    job.directives = lines;
    job.n_directives = 1;
    int rc = spacrbench_format_slurm_job(m, &sched, &job, NULL, NULL, 0);
    spacrbench_measurement_free(m);
    if (rc >= 0)
        return NULL;
    const char *why = spacrbench_last_error_message();
    const char *field = "job.directives[0]: ";
    return strncmp(why, field, strlen(field)) == 0 ? why + strlen(field) : why;
}

int cli_slurm_option(cli_slurm *s, int which, const char *name, const char *value)
{
    if (!s->first_given)
        s->first_given = which == 'o'   ? "--slurm-output"
                         : which == 'j' ? "--job-name"
                         : which == 's' ? "--sbatch"
                         : which == 'l' ? "--array-limit"
                                        : "--slurm-from-path";
    if (which == 'p') {
        s->from_path = 1;
        return CLI_EXIT_OK;
    }
    if (!value || !*value || has_control(value))
        return cli_usage_error(name, "needs a non-empty value on one line");
    switch (which) {
    case 'o':
        s->output_dir = value;
        break;
    case 'l': {
        char *end = NULL;
        errno = 0;
        long long n = strtoll(value, &end, 10);
        if (errno || *end || n < 1 || n > 1000000 || *value == '+' || *value == ' ')
            return cli_usage_error(name,
                                   "expected the most tasks to run at once on the whole "
                                   "cluster, 1 to 1000000, got '%s'",
                                   value);
        s->array_limit = n;
        break;
    }
    case 'j':
        if (strpbrk(value, " \t'\"\\"))
            return cli_usage_error(name, "no whitespace, quotes or backslash, got '%s'", value);
        s->job_name = value;
        break;
    default: /* 's': "--partition=short", with or without its "#SBATCH " */
        if (strncmp(value, "#SBATCH", 7) == 0)
            value += 7 + strspn(value + 7, " \t");
        if (*value != '-')
            return cli_usage_error(name,
                                   "expected an sbatch option such as --partition=short, "
                                   "got '%s'",
                                   value);
        const char *refused = directive_refused(value);
        if (refused)
            return cli_usage_error(name, "'%s': %s", value, refused);
        s->sbatch[s->n_sbatch++] = value;
        break;
    }
    return CLI_EXIT_OK;
}

int cli_slurm_check(const cli_slurm *s, int emit_slurm, const char *items_file)
{
    if (s->first_given && !emit_slurm)
        return cli_usage_error(s->first_given, "shapes the job script: needs --emit slurm");
    if (!emit_slurm)
        return CLI_EXIT_OK;
    if (!items_file || strcmp(items_file, "-") == 0)
        return cli_usage_error("--emit slurm",
                               "the job script needs the items in a file (--items FILE): each "
                               "array task reads its item from it");
    return CLI_EXIT_OK;
}
