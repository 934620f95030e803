/* A SLURM job script that submits as is (spacrbench_format_slurm_script):
 * the #SBATCH lines of a schedule, and a bash body that picks the task's
 * item the way `spacrbench run --items` reads the file and runs the command
 * on it under `spacrbench run --json --report`. Every value from the caller
 * is single-quoted in the body; values that must sit in an #SBATCH line
 * (sbatch parses those itself) are refused when they could be misread. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

#define SB_MIB INT64_C(1048576)

int spacrbench_slurm_job_init(spacrbench_slurm_job *job, size_t size)
{
    sb_clear_error();
    if (!job || size < sizeof(size_t))
        return sb_fail(SPACRBENCH_EINVAL, "job must not be NULL and size must hold a size_t");
    memset(job, 0, size);
    job->size = size;
    return SPACRBENCH_OK;
}

/* 1 when text has a control character (a newline would end an #SBATCH
 * line or a comment early). */
static int has_control(const char *text)
{
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return 1;
    return 0;
}

/* A value sbatch reads from an #SBATCH line: no control characters, and
 * none of the characters in `refused`. */
static int directive_value_ok(const char *text, const char *refused)
{
    return *text && !has_control(text) && strpbrk(text, refused) == NULL;
}

/* 'text' for bash: every ' becomes '\''. */
static void quoted(sb_text *t, const char *text)
{
    sb_text_printf(t, "'");
    for (const char *p = text; *p; p++) {
        if (*p == '\'')
            sb_text_printf(t, "'\\''");
        else
            sb_text_printf(t, "%c", *p);
    }
    sb_text_printf(t, "'");
}

static int check_job(const spacrbench_slurm_job *j)
{
    if (!j->items_file || !*j->items_file)
        return sb_fail(SPACRBENCH_EINVAL, "job.items_file is required: each task reads its item "
                                          "from it");
    if (j->n_items < 1)
        return sb_fail(SPACRBENCH_EINVAL, "job.n_items is %" PRId64 ", expected >= 1", j->n_items);
    if (!j->output_dir || !directive_value_ok(j->output_dir, " \t'\"%\\"))
        return sb_fail(SPACRBENCH_EINVAL,
                       "job.output_dir '%s' is missing or cannot be written in an #SBATCH "
                       "--output line (no whitespace, quotes, %% or backslash)",
                       j->output_dir ? j->output_dir : "(null)");
    if (j->job_name && !directive_value_ok(j->job_name, " \t'\"\\"))
        return sb_fail(SPACRBENCH_EINVAL,
                       "job.job_name '%s' must be non-empty, without whitespace, quotes, "
                       "backslash or control characters",
                       j->job_name);
    if (!j->command || j->command_len < 1)
        return sb_fail(SPACRBENCH_EINVAL, "job.command is empty: give the command to run per item");
    for (size_t i = 0; i < j->command_len; i++)
        if (!j->command[i])
            return sb_fail(SPACRBENCH_EINVAL, "job.command[%zu] is NULL", i);
    if (j->spacrbench && !*j->spacrbench)
        return sb_fail(SPACRBENCH_EINVAL, "job.spacrbench is empty (NULL means from PATH)");
    if (j->n_directives && !j->directives)
        return sb_fail(SPACRBENCH_EINVAL, "job.directives is NULL but n_directives is %zu",
                       j->n_directives);
    for (size_t i = 0; i < j->n_directives; i++)
        if (!j->directives[i] || !*j->directives[i] || has_control(j->directives[i]))
            return sb_fail(SPACRBENCH_EINVAL,
                           "job.directives[%zu] is empty or holds a control character", i);
    return 0;
}

static void header(sb_text *t, const spacrbench_figures *f, const spacrbench_schedule *s,
                   const spacrbench_slurm_job *j)
{
    char peak[32];
    sb_format_bytes(peak, sizeof peak, f->peak_rss_bytes);
    int64_t concurrency = s->array_concurrency < j->n_items ? s->array_concurrency : j->n_items;
    sb_text_printf(t,
                   "#!/bin/bash\n"
                   "# spacrbench %s: one SLURM array task per item (%" PRId64 " items).\n"
                   "# --mem = measured peak %s + margin max(25%%, 256 MiB), rounded up to a MiB\n"
                   "# --cpus-per-task = measured CPU seconds per wall second, rounded\n"
                   "# --array %%%" PRId64 " = tasks that fit one node like the measured one\n",
                   SPACRBENCH_VERSION_STRING, j->n_items, peak, concurrency);
    if (f->peak_vram_bytes > 0) {
        char v[32];
        sb_format_bytes(v, sizeof v, f->peak_vram_bytes);
        sb_text_printf(t,
                       "# GPU: each worker peaked at %s of VRAM; request a GPU (--gres=gpu:1) "
                       "or share one only if that much fits per worker\n",
                       v);
    }
    sb_text_printf(t,
                   "# Each task writes what it really used to %s/task-<index>.json;\n"
                   "# afterwards: spacrbench summarize %s\n"
                   "#SBATCH --job-name=%s\n"
                   "#SBATCH --cpus-per-task=%" PRId64 "\n"
                   "#SBATCH --mem=%" PRId64 "M\n"
                   "#SBATCH --array=0-%" PRId64 "%%%" PRId64 "\n"
                   "#SBATCH --output=%s/slurm-%%A_%%a.out\n",
                   j->output_dir, j->output_dir, j->job_name ? j->job_name : "spacrbench",
                   s->cpus_per_task, s->mem_per_task_bytes / SB_MIB, j->n_items - 1, concurrency,
                   j->output_dir);
    for (size_t i = 0; i < j->n_directives; i++)
        sb_text_printf(t, "#SBATCH %s\n", j->directives[i]);
}

/* The body: values as bash arrays of single-quoted words; the item picked
 * with `read -r` (no word splitting, no globbing) and handed to spacrbench
 * through --items, which substitutes {} exactly as the measuring run did. */
static void body(sb_text *t, const spacrbench_slurm_job *j)
{
    sb_text_printf(t, "set -euo pipefail\nitems_file=");
    quoted(t, j->items_file);
    sb_text_printf(t, "\noutput_dir=");
    quoted(t, j->output_dir);
    sb_text_printf(t, "\nspacrbench=");
    quoted(t, j->spacrbench ? j->spacrbench : "spacrbench");
    sb_text_printf(t, "\ncommand=(");
    for (size_t i = 0; i < j->command_len; i++) {
        sb_text_printf(t, i ? " " : "");
        quoted(t, j->command[i]);
    }
    sb_text_printf(
        t, ")\n"
           "task=${SLURM_ARRAY_TASK_ID:?submit this script with sbatch: it is a job array}\n"
           "# Item <task>: the non-empty lines of the file, a trailing CR dropped.\n"
           "item='' index=0 found=0\n"
           "while IFS= read -r line || [ -n \"$line\" ]; do\n"
           "    line=${line%%$'\\r'}\n"
           "    [ -n \"$line\" ] || continue\n"
           "    if [ \"$index\" -eq \"$task\" ]; then item=$line found=1; break; fi\n"
           "    index=$((index + 1))\n"
           "done <\"$items_file\"\n"
           "if [ \"$found\" -ne 1 ]; then\n"
           "    printf 'spacrbench job: %%s has no item %%s\\n' \"$items_file\" \"$task\" >&2\n"
           "    exit 2\n"
           "fi\n"
           "exec \"$spacrbench\" run --json --report \"$output_dir/task-$task.json\" \\\n"
           "    --items <(printf '%%s\\n' \"$item\") -- \"${command[@]}\"\n");
}

int spacrbench_format_slurm_script(const spacrbench_measurement *m,
                                   const spacrbench_schedule *schedule,
                                   const spacrbench_slurm_job *job, char *buf, size_t cap)
{
    sb_clear_error();
    if (!m || !schedule || !job)
        return sb_fail(SPACRBENCH_EINVAL, "measurement, schedule and job must not be NULL");
    if (buf == NULL && cap > 0)
        return sb_fail(SPACRBENCH_EINVAL, "buf is NULL but cap is %zu", cap);
    spacrbench_slurm_job j;
    spacrbench_slurm_job_init(&j, sizeof j);
    int rc = sb_struct_in(&j, sizeof j, job, "spacrbench_slurm_job");
    if (rc < 0 || (rc = check_job(&j)) < 0)
        return rc;
    spacrbench_schedule s;
    memset(&s, 0, sizeof s);
    s.size = sizeof s;
    if ((rc = sb_struct_in(&s, sizeof s, schedule, "spacrbench_schedule")) < 0)
        return rc;
    if (s.cpus_per_task < 1 || s.array_concurrency < 1 || s.mem_per_task_bytes < SB_MIB)
        return sb_fail(SPACRBENCH_EINVAL, "the schedule has a count below 1 or no memory: "
                                          "compute it with spacrbench_schedule_compute");
    spacrbench_figures f;
    memset(&f, 0, sizeof f);
    f.size = sizeof f;
    if ((rc = spacrbench_measurement_figures(m, &f)) < 0)
        return rc;
    sb_text t = {0};
    header(&t, &f, &s, &j);
    body(&t, &j);
    return sb_text_deliver(&t, buf, cap);
}
