/* The files a job array needs beside its task reports
 * (spacrbench_slurm_write_array): the items index that makes each task's
 * lookup O(1), and the manifest that tells summarize how many tasks the
 * array had and what they asked for. Both are written to a temporary
 * name and renamed, so a task or summarize never reads half of one. */
#if !defined(_WIN32)
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "handoff_rule.h"
#include "internal.h"
#include "json_writer.h"

/* An open temporary file beside path, renamed over it by finish. */
typedef struct atomic_file {
    char *path, *tmp;
    FILE *f;
} atomic_file;

static int atomic_open(atomic_file *a, const char *dir, const char *name, mode_t mode)
{
    memset(a, 0, sizeof *a);
    size_t n = strlen(dir) + strlen(name) + 48;
    a->path = malloc(n);
    a->tmp = malloc(n);
    if (!a->path || !a->tmp) {
        free(a->path);
        free(a->tmp);
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory");
    }
    snprintf(a->path, n, "%s/%s", dir, name);
    snprintf(a->tmp, n, "%s/.%s.%ld.tmp", dir, name, (long)getpid());
    int fd = open(a->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd < 0 || !(a->f = fdopen(fd, "w"))) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        int rc = sb_fail(SPACRBENCH_ESYSTEM, "cannot create %s: %s", a->tmp, strerror(e));
        free(a->path);
        free(a->tmp);
        return rc;
    }
    return 0;
}

/* Rename into place when ok and every write went through; else remove. */
static int atomic_finish(atomic_file *a, int ok)
{
    int failed = ferror(a->f);
    int e = errno;
    if (fclose(a->f) != 0 && !failed) {
        failed = 1;
        e = errno;
    }
    int rc = 0;
    if (ok && (failed || rename(a->tmp, a->path) != 0)) {
        e = failed ? e : errno;
        rc = sb_fail(SPACRBENCH_ESYSTEM, "cannot write %s: %s", a->path, strerror(e));
    }
    if (!ok || rc != 0)
        unlink(a->tmp);
    free(a->path);
    free(a->tmp);
    return ok ? rc : -1;
}

/* One index line per item of the file, by the rule of `run --items`:
 * lines end at \n, a trailing CR is not part of the item, empty items are
 * skipped. The offset and length cover the whole line but its \n, so the
 * task hands --items the line as the file has it. */
static int write_index(FILE *items, const char *items_path, FILE *out, int64_t *count)
{
    int64_t start = 0, pos = 0;
    int64_t len = 0; /* bytes of the line so far */
    int last = -1, c;
    *count = 0;
    for (;;) {
        c = getc(items);
        if (c == EOF || c == '\n') {
            int64_t item_len = len - (last == '\r' ? 1 : 0);
            if (item_len > 0) {
                fprintf(out, "%019" PRId64 " %019" PRId64 "\n", start, len);
                (*count)++;
            }
            if (c == EOF)
                break;
            start = pos + 1;
            len = 0;
            last = -1;
        } else if (c == '\0') {
            return sb_fail(SPACRBENCH_EINVAL,
                           "%s: a NUL byte at offset %" PRId64 " (run --items refuses it too)",
                           items_path, pos);
        } else {
            len++;
            last = c;
        }
        pos++;
    }
    if (ferror(items))
        return sb_fail(SPACRBENCH_ESYSTEM, "cannot read %s: %s", items_path, strerror(errno));
    return 0;
}

static int write_manifest(const spacrbench_slurm_job *j, const spacrbench_slurm_tasks *k,
                          const spacrbench_schedule *s, int64_t minutes)
{
    json_writer w;
    json_init(&w, 1);
    json_begin_object(&w, NULL);
    json_string(&w, "spacrbench_version", SPACRBENCH_VERSION_STRING);
    json_int(&w, "tasks", j->n_items); /* #SBATCH --array=0-(tasks - 1) */
    json_string(&w, "items_file", j->items_file);
    json_string(&w, "index", SB_SLURM_INDEX);
    size_t n = strlen(j->output_dir) + sizeof "/" SB_SLURM_SCRIPT;
    char *script = malloc(n);
    if (script)
        snprintf(script, n, "%s/%s", j->output_dir, SB_SLURM_SCRIPT);
    json_string(&w, "script", script);
    free(script);
    json_string(&w, "job_name", j->job_name ? j->job_name : "spacrbench");
    json_begin_object(&w, "requested");
    json_int(&w, "mem_bytes", s->mem_per_task_bytes);
    json_int(&w, "cpus", s->cpus_per_task);
    json_int(&w, "time_minutes", minutes);
    json_end_object(&w);
    json_int(&w, "array_limit", k->array_limit);
    json_double(&w, "item_timeout_seconds", k->item_timeout_seconds);
    json_bool(&w, "no_cgroup", k->no_cgroup);
    json_end_object(&w);
    const char *text = json_result(&w);
    if (!text) {
        json_free(&w);
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory");
    }
    atomic_file a;
    int rc = atomic_open(&a, j->output_dir, SB_SLURM_MANIFEST, 0644);
    if (rc == 0) {
        fputs(text, a.f);
        fputc('\n', a.f);
        rc = atomic_finish(&a, 1);
    }
    json_free(&w);
    return rc;
}

/* The script itself beside its reports, so summarize's next command line
 * names a script that exists. */
static int write_script(const spacrbench_measurement *m, const spacrbench_schedule *s,
                        const spacrbench_slurm_job *j, const spacrbench_slurm_tasks *k)
{
    int n = spacrbench_format_slurm_job(m, s, j, k, NULL, 0);
    if (n < 0)
        return n;
    char *text = malloc((size_t)n + 1);
    if (!text)
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory");
    int rc = spacrbench_format_slurm_job(m, s, j, k, text, (size_t)n + 1);
    atomic_file a;
    if (rc == n && (rc = atomic_open(&a, j->output_dir, SB_SLURM_SCRIPT, 0755)) == 0) {
        fwrite(text, 1, (size_t)n, a.f);
        rc = atomic_finish(&a, 1);
    }
    free(text);
    return rc < 0 ? rc : 0;
}

int spacrbench_slurm_write_array(const spacrbench_measurement *m,
                                 const spacrbench_schedule *schedule,
                                 const spacrbench_slurm_job *job,
                                 const spacrbench_slurm_tasks *tasks)
{
    sb_clear_error();
    if (!m || !schedule || !job)
        return sb_fail(SPACRBENCH_EINVAL, "measurement, schedule and job must not be NULL");
    spacrbench_slurm_job j;
    spacrbench_slurm_job_init(&j, sizeof j);
    int rc = sb_struct_in(&j, sizeof j, job, "spacrbench_slurm_job");
    if (rc < 0)
        return rc;
    spacrbench_slurm_tasks k;
    spacrbench_slurm_tasks_init(&k, sizeof k);
    if (tasks && (rc = sb_struct_in(&k, sizeof k, tasks, "spacrbench_slurm_tasks")) < 0)
        return rc;
    spacrbench_schedule s = {.size = sizeof s};
    if ((rc = sb_struct_in(&s, sizeof s, schedule, "spacrbench_schedule")) < 0)
        return rc;
    if (!j.items_file || !j.output_dir || j.n_items < 1)
        return sb_fail(SPACRBENCH_EINVAL, "job.items_file, job.output_dir and job.n_items >= 1 "
                                          "are required");
    int64_t minutes = k.time_minutes;
    if (minutes == 0 && (rc = sb_measurement_time_limit(m, k.item_timeout_seconds, &minutes)) < 0)
        return rc;
    FILE *items = fopen(j.items_file, "rbe");
    if (!items)
        return sb_fail(SPACRBENCH_ESYSTEM, "cannot open %s: %s", j.items_file, strerror(errno));
    atomic_file a;
    rc = atomic_open(&a, j.output_dir, SB_SLURM_INDEX, 0644);
    int64_t count = 0;
    if (rc == 0) {
        rc = write_index(items, j.items_file, a.f, &count);
        if (rc == 0 && count != j.n_items)
            rc = sb_fail(SPACRBENCH_EINVAL,
                         "%s holds %" PRId64 " items now, the job %" PRId64
                         " (it changed since it was read?)",
                         j.items_file, count, j.n_items);
        int done = atomic_finish(&a, rc == 0);
        if (rc == 0)
            rc = done;
    }
    fclose(items);
    if (rc == 0)
        rc = write_script(m, &s, &j, &k);
    if (rc == 0)
        rc = write_manifest(&j, &k, &s, minutes);
    return rc;
}

#else /* Windows: no openat, O_NONBLOCK or FIFOs to guard against */

#include "internal.h"

int spacrbench_slurm_write_array(const spacrbench_measurement *m,
                                 const spacrbench_schedule *schedule,
                                 const spacrbench_slurm_job *job,
                                 const spacrbench_slurm_tasks *tasks)
{
    (void)m;
    (void)schedule;
    (void)job;
    (void)tasks;
    sb_clear_error();
    return sb_fail(SPACRBENCH_EUNSUPPORTED,
                   "a SLURM job array's files are written on Linux and macOS, not on Windows");
}
#endif
