/* Reading a job's directory: a file is read only when it is a regular
 * file of at most SUM_REPORT_MAX bytes, opened without blocking, so a
 * FIFO, a device or a huge file named like a report is an "unreadable"
 * task, never a hang; JSON within json_reader's depth and node limits. */
#if !defined(_WIN32)
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cluster.h"
#include "internal.h"
#include "records.h"
#include "util.h"

static const char *file_kind(mode_t m)
{
    return S_ISDIR(m)    ? "a directory"
           : S_ISFIFO(m) ? "a FIFO"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISSOCK(m) ? "a socket"
                         : "not a regular file";
}

int sum_read_small(int dir, const char *name, size_t max, char **text, size_t *len, char **why)
{
    *text = NULL;
    *why = NULL;
    /* Opened without blocking: a FIFO must not hang the read. */
    int fd = openat(dir, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        *why = sb_textf("cannot be opened: %s", strerror(errno));
        return -1;
    }
    struct stat st;
    int refused = fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > max;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        *why =
            sb_textf("%s, not a regular file", fstat(fd, &st) ? "unknown" : file_kind(st.st_mode));
    else if ((uint64_t)st.st_size > max)
        *why = sb_textf("%lld bytes, more than a report can be (%zu MiB at most)",
                        (long long)st.st_size, max >> 20);
    if (refused) { /* refused even when its words could not be allocated */
        close(fd);
        return -1;
    }
    int truncated = 0;
    int rc = sb_read_fd(fd, max, text, len, &truncated);
    int saved = errno;
    close(fd);
    if (rc != 0) {
        *why = saved == ENOMEM ? sb_textf("out of memory")
                               : sb_textf("cannot be read: %s", strerror(saved));
        return -1;
    }
    if (truncated) {
        free(*text);
        *text = NULL;
        *why = sb_textf("more than %zu MiB", max >> 20);
        return -1;
    }
    return 0;
}

/* "task-<index>.json" with index in canonical decimal (what the job
 * script writes); -1 for any other name. */
static int64_t task_index_of(const char *name)
{
    size_t n = strlen(name);
    if (n < 10 || strncmp(name, "task-", 5) != 0 || strcmp(name + n - 5, ".json") != 0)
        return -2; /* not a report name at all */
    const char *d = name + 5;
    size_t digits = n - 10;
    if (digits == 0 || digits > 7 || (digits > 1 && d[0] == '0'))
        return -1;
    int64_t v = 0;
    for (size_t i = 0; i < digits; i++) {
        if (d[i] < '0' || d[i] > '9')
            return -1;
        v = v * 10 + (d[i] - '0');
    }
    return v < SUM_ARRAY_MAX ? v : -1;
}

/* ---- a report's fields, read by their tables (src/records/) ---- */

/* The one reader, in summarize's words ("task.signal" is text, not ...):
 * fields an older report lacks are no problem, sizes and times bounded. */
static void reader_init(sb_reader *r, const json_doc *doc)
{
    sb_reader_init(r, doc, SB_READ_QUOTED, "");
    r->partial = 1;
    r->max_bytes = SUM_BYTES_MAX;
    r->max_seconds = SUM_SECONDS_MAX;
}

/* Of the measurement's lists, the first record's item alone. */
static int first_item(void *ctx, sb_reader *r, const sb_field *f, const json_node *value)
{
    if (f->extra != &sb_item_record)
        return 0;
    long long n = sb_read_list(r, value, 1);
    if (n <= 0)
        return (int)n;
    spacrbench_item_record rec = {sizeof rec, 0, 0, 0, 0.0, -1, -1};
    sb_item_more more = {.item = NULL}; /* the rest zero, as before */
    void *const parts[] = {&rec, &more};
    static const char *const k_item[] = {"item", NULL};
    sb_reader_push_index(r, 0);
    int rc =
        sb_record_read_only(r, json_child(r->doc, value, 0), &sb_item_record, parts, NULL, k_item);
    sb_reader_pop(r);
    *(const char **)ctx = more.item;
    return rc;
}

/* The "measurement" member: the peak, times and OOM limit into fig; the
 * first record's item. Whether it says the run stopped. */
static int measurement_fields(sb_reader *r, const json_node *m, spacrbench_figures *fig,
                              const char **item)
{
    *fig = (spacrbench_figures){
        .size = sizeof *fig, .seconds = -1, .peak_rss_bytes = -1, .cpu_seconds = -1};
    sb_measurement_more more = {0};
    const sb_record_io io = {item, NULL, first_item};
    void *const parts[] = {fig, &more};
    /* What summarize uses of a measurement, and nothing else of it. */
    static const char *const k_used[] = {
        "peak_rss_bytes", "seconds", "cpu_seconds", "oom_limit_bytes", "stopped", "records", NULL};
    sb_reader_push_key(r, "measurement");
    sb_record_read_only(r, m, &sb_measurement_record, parts, &io, k_used);
    sb_reader_pop(r);
    return fig->stopped == 1;
}

/* SLURM's environment as the "job" member holds it: digits as text. */
static int64_t env_number(sb_reader *r, const char *key, const char *t)
{
    if (!t)
        return -1;
    if (!*t || strlen(t) > 15 || strspn(t, "0123456789") != strlen(t)) {
        sb_reader_push_key(r, "job");
        sb_reader_push_key(r, key);
        sb_reader_fail(r, SB_READ_VALUE, 1, "is not a whole number");
        sb_reader_pop(r);
        sb_reader_pop(r);
        return -1;
    }
    return strtoll(t, NULL, 10);
}

static char *copy(const char *text) { return text ? strdup(text) : NULL; }

/* One report's document into t (index already set from the file name):
 * the "task" record run --report writes, what it does not say taken from
 * the measurement (the peak, times, OOM limit, first item) and the "job"
 * member (SLURM's environment: the array job, the memory and CPUs asked
 * for). The first problem in r. */
static void task_fields(sb_reader *r, const json_node *root, void *ctx)
{
    sum_task *t = ctx;
    if (root->kind != JSON_OBJECT) {
        sb_reader_fail(r, SB_READ_TYPE, 0,
                       "not a `spacrbench run --json` report (%s, not an object)",
                       sb_read_kind_words(r, root));
        return;
    }
    const json_node *mode_node = json_get(r->doc, root, "mode");
    const char *mode = NULL;
    if (mode_node && mode_node->kind != JSON_NULL) {
        sb_reader_push_key(r, "mode");
        mode = sb_read_string(r, mode_node);
        sb_reader_pop(r);
    }
    if (!mode || strcmp(mode, "run") != 0) {
        sb_reader_fail(r, SB_READ_VALUE, 0,
                       "not a `spacrbench run --json` report (\"mode\" is not \"run\")");
        return;
    }
    const json_node *m = sb_read_member_object(r, root, "measurement", 1);
    const json_node *job = sb_read_member_object(r, root, "job", 0);
    const json_node *task = sb_read_member_object(r, root, "task", 0);
    if (!m)
        return;
    spacrbench_figures fig;
    const char *item = NULL;
    int stopped = measurement_fields(r, m, &fig, &item);
    sb_job_env env = {0};
    void *const env_parts[] = {&env};
    if (job) {
        sb_reader_push_key(r, "job");
        sb_record_read(r, job, &sb_job_env_record, env_parts, NULL);
        sb_reader_pop(r);
    }
    int64_t named = env_number(r, "SLURM_ARRAY_TASK_ID", env.array_task_id);
    int64_t mib = env_number(r, "SLURM_MEM_PER_NODE", env.mem_per_node);
    int64_t cpus = env_number(r, "SLURM_CPUS_PER_TASK", env.cpus_per_task);
    sb_task_record *k = &t->rec;
    void *const parts[] = {k};
    if (task) {
        sb_reader_push_key(r, "task");
        if (sb_record_read(r, task, &sb_task_record_fields, parts, NULL) == 0 && k->outcome < 0) {
            sb_reader_push_key(r, "outcome");
            sb_reader_fail(
                r, SB_READ_VALUE, 1,
                "is not one of ok, exit, signal, oom, timeout, not_started, interrupted");
        }
        sb_reader_pop(r);
    }
    if (k->array_task_id >= 0)
        named = k->array_task_id;
    t->peak = k->failed_item_peak_bytes > fig.peak_rss_bytes ? k->failed_item_peak_bytes
                                                             : fig.peak_rss_bytes;
    t->cpu_seconds = fig.cpu_seconds;
    if (isnan(k->elapsed_seconds))
        k->elapsed_seconds = fig.seconds;
    if (fig.oom_limit_bytes > k->oom_limit_bytes)
        k->oom_limit_bytes = fig.oom_limit_bytes;
    if (k->mem_bytes < 0)
        k->mem_bytes = mib >= 0 && mib < (INT64_C(1) << 40) ? mib << 20 : -1;
    if (k->cpus < 0)
        k->cpus = cpus;
    /* The texts outlive the document. */
    k->item = copy(k->item ? k->item : item);
    k->array_job_id = copy(k->array_job_id ? k->array_job_id : env.array_job_id);
    k->array_key = copy(k->array_key); /* the script's key that ran it */
    k->job_id = NULL;
    if (k->outcome > SB_TASK_OK || (!task && stopped) || k->oom_limit_bytes > 0)
        t->state = SUM_FAILED; /* stopped: an older report, without a task record */
    if (named >= 0 && named != t->index)
        sb_reader_fail(r, SB_READ_VALUE, 0,
                       "its SLURM task is %" PRId64 " but the file is named for task %" PRId64,
                       named, t->index);
    const char *aj = k->array_job_id;
    if (aj && *aj && strlen(aj) <= 18 && strspn(aj, "0123456789") == strlen(aj))
        t->job = strtoll(aj, NULL, 10);
}

/* name's JSON read by fields(r, root, ctx): what is wrong with it
 * (malloc'd), NULL when nothing is. */
static char *read_json(int dir, const char *name,
                       void (*fields)(sb_reader *, const json_node *, void *), void *ctx)
{
    static const json_limits k_limits = {SUM_JSON_DEPTH, (size_t)1 << 20, 0};
    char *text = NULL, *why = NULL;
    size_t len = 0;
    if (sum_read_small(dir, name, SUM_REPORT_MAX, &text, &len, &why) == 0) {
        json_doc doc;
        if (json_parse(&doc, text, len, &k_limits) != 0)
            why = sb_textf("not JSON: %s", doc.error);
        else {
            sb_reader r;
            reader_init(&r, &doc);
            fields(&r, json_root(&doc), ctx);
            why = r.failed ? strdup(r.message) : NULL; /* the first problem */
        }
        json_doc_free(&doc);
    }
    free(text);
    return why;
}

static int read_report(spacrbench_summary *s, int dir, const char *name, int64_t index)
{
    sum_task t = {.index = index, .file = strdup(name), .job = -1, .peak = -1, .cpu_seconds = -1};
    sb_task_record_init(&t.rec);
    if ((t.why = read_json(dir, name, task_fields, &t)) != NULL)
        t.state = SUM_UNREADABLE;
    if (sb_grow(&s->tasks, &s->cap_tasks, s->n_tasks + 1, sizeof *s->tasks))
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory");
    s->tasks[s->n_tasks++] = t;
    return 0;
}

/* ---- the manifest ---- */

static void manifest_fields(sb_reader *r, const json_node *root, void *ctx)
{
    sb_manifest *m = ctx;
    if (root->kind != JSON_OBJECT)
        sb_reader_fail(r, SB_READ_TYPE, 0, "%s, not an object", sb_read_kind_words(r, root));
    else if (sb_manifest_read(r, root, m) != 0)
        sb_manifest_init(m); /* none of it is used */
    else if (m->tasks < 1)
        sb_reader_fail(r, SB_READ_VALUE, 0, "\"tasks\" is missing");
    const char *key = m->array_key; /* the script's key: 16 hex digits */
    m->array_key =
        key && strlen(key) == 16 && strspn(key, "0123456789abcdef") == 16 ? strdup(key) : NULL;
    m->script = m->script ? strdup(m->script) : NULL;
    m->spacrbench_version = m->items_file = m->index = m->job_name = NULL; /* not kept */
    if (!(m->item_timeout_seconds > 0))
        m->item_timeout_seconds = 0;
    if (m->array_limit > 1000000)
        m->array_limit = 0;
}

static void read_manifest(spacrbench_summary *s, int dir)
{
    sum_manifest *mf = &s->manifest;
    sb_manifest_init(&mf->rec);
    mf->rec.item_timeout_seconds = 0;
    struct stat st;
    if (fstatat(dir, SB_SLURM_MANIFEST, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return; /* none */
    mf->present = 1;
    mf->problem = read_json(dir, SB_SLURM_MANIFEST, manifest_fields, &mf->rec);
    if (mf->problem)
        mf->rec.tasks = 0;
}

/* An sbatch --array value ("0-11%2", "1,3,5-9:2") into set (a stepped
 * range stays one range) and its %K into *throttle (0 none). */
static int parse_array_spec(const char *spec, sum_ranges *set, int64_t *throttle, char **why)
{
    const char *p = spec;
    *throttle = 0;
    while (*p && *p != '%') {
        char *end;
        if (!isdigit((unsigned char)*p))
            goto bad;
        long long first = strtoll(p, &end, 10), last = first, step = 1;
        p = end;
        if (*p == '-') {
            if (!isdigit((unsigned char)p[1]))
                goto bad;
            last = strtoll(p + 1, &end, 10);
            p = end;
            if (*p == ':') {
                if (!isdigit((unsigned char)p[1]))
                    goto bad;
                step = strtoll(p + 1, &end, 10);
                p = end;
            }
        }
        if (last < first || step < 1 || last >= SUM_ARRAY_MAX)
            goto bad;
        if (sum_ranges_add_step(set, first, last, step) < 0)
            return -1;
        if (*p == ',')
            p++;
        else if (*p && *p != '%')
            goto bad;
    }
    if (*p == '%') {
        char *end;
        long long k = strtoll(p + 1, &end, 10);
        if (!isdigit((unsigned char)p[1]) || *end || k < 1 || k > 1000000)
            goto bad;
        *throttle = k;
    }
    if (sum_ranges_normalize(set) != 0)
        return -1;
    if (set->n == 0)
        goto bad;
    return 0;
bad:
    *why = sb_textf("--array=%s is not a list of task indices below %" PRId64, spec, SUM_ARRAY_MAX);
    return -1;
}

/* The #SBATCH --array line of a job script, read as sbatch does: the
 * #SBATCH lines before the first command, the last one wins. */
static int read_job_array(const char *path, sum_ranges *set, int64_t *throttle)
{
    char *text = NULL, *why = NULL;
    size_t len = 0;
    if (sum_read_small(AT_FDCWD, path, 4u << 20, &text, &len, &why) != 0) {
        int rc = sb_fail(SPACRBENCH_EINVAL, "--job %s %s", path, why ? why : "");
        free(why);
        return rc;
    }
    char *spec = NULL;
    int line_no = 0;
    for (char *line = text; line && *line; line_no++) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        char *l = line + strspn(line, " \t");
        line = nl ? nl + 1 : NULL;
        if (line_no == 0 && strncmp(l, "#!", 2) == 0)
            continue;
        if (*l && *l != '#' && *l != '\r')
            break;
        if (strncmp(l, "#SBATCH", 7) != 0)
            continue;
        l += 7 + strspn(l + 7, " \t");
        const char *v = NULL;
        if (strncmp(l, "--array=", 8) == 0)
            v = l + 8;
        else if (strncmp(l, "--array", 7) == 0 && (l[7] == ' ' || l[7] == '\t'))
            v = l + 8 + strspn(l + 8, " \t");
        else if (strncmp(l, "-a", 2) == 0)
            v = l + 2 + strspn(l + 2, " \t=");
        if (v) {
            free(spec);
            spec = strndup(v, strcspn(v, " \t\r"));
        }
    }
    free(text);
    if (!spec)
        return sb_fail(SPACRBENCH_EINVAL,
                       "--job %s has no #SBATCH --array line: give the job script "
                       "`spacrbench run --emit slurm` wrote",
                       path);
    int rc = parse_array_spec(spec, set, throttle, &why);
    free(spec);
    if (rc != 0) {
        rc = why ? sb_fail(SPACRBENCH_EINVAL, "--job %s: %s", path, why)
                 : sb_fail(SPACRBENCH_ENOMEM, "out of memory");
        free(why);
    }
    return rc;
}

/* ---- the directory ---- */

/* slurm-<job>_<index>.out, the job script's --output: a task that
 * started leaves one even when it was killed before its report. */
static int note_log(spacrbench_summary *s, const char *name)
{
    long long job, index;
    int end = 0;
    if (strncmp(name, "slurm-", 6) != 0 || !isdigit((unsigned char)name[6]) ||
        sscanf(name, "slurm-%18lld_%7lld.out%n", &job, &index, &end) != 2 || name[end] ||
        index < 0 || index >= SUM_ARRAY_MAX)
        return 0;
    if (sb_grow(&s->logs, &s->cap_logs, s->n_logs + 1, sizeof *s->logs))
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory");
    sum_log *added = &s->logs[s->n_logs++];
    memset(added, 0, sizeof *added);
    added->job = job;
    added->index = index;
    return 0;
}

int sum_job_order(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

int64_t *sum_report_jobs(spacrbench_summary *s, unsigned skip, size_t *n)
{
    int64_t *jobs = malloc((s->n_tasks ? s->n_tasks : 1) * sizeof *jobs);
    *n = 0;
    if (!jobs)
        return NULL;
    for (size_t i = 0; i < s->n_tasks; i++)
        if (s->tasks[i].job >= 0 && !((skip >> s->tasks[i].state) & 1u))
            jobs[(*n)++] = s->tasks[i].job;
    qsort(jobs, *n, sizeof *jobs, sum_job_order);
    sum_count_sort(s, *n);
    return jobs;
}

static int task_order(const void *a, const void *b)
{
    const sum_task *x = a, *y = b;
    if (x->index != y->index)
        return x->index < y->index ? -1 : 1;
    return strcmp(x->file, y->file);
}

static int note_ignored(spacrbench_summary *s, const char *name)
{
    if (sb_grow(&s->ignored, &s->cap_ignored, s->n_ignored + 1, sizeof *s->ignored) ||
        !(s->ignored[s->n_ignored] = strdup(name)))
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory");
    s->n_ignored++;
    return 0;
}

/* Every entry of the directory, then the manifest beside them. Listed
 * through a duplicate of dir, because closedir closes its fd and dir stays
 * open for the openat of each file. */
static int read_entries(spacrbench_summary *s, int dir)
{
    int dup_fd = dup(dir);
    DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
    if (!d) {
        int e = errno;
        if (dup_fd >= 0)
            close(dup_fd);
        return sb_fail(SPACRBENCH_ESYSTEM, "cannot list %s: %s", s->directory, strerror(e));
    }
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        /* A task report is read; a report name with an index that is not
         * canonical is listed as ignored; a SLURM log is noted (note_log
         * passes over every other name). */
        int64_t index = task_index_of(e->d_name);
        rc = index == -2   ? note_log(s, e->d_name)
             : index == -1 ? note_ignored(s, e->d_name)
                           : read_report(s, dir, e->d_name, index);
    }
    closedir(d);
    if (rc == 0)
        read_manifest(s, dir);
    return rc;
}

/* No script and no usable manifest: the array is as far as the highest
 * index among the reports and the logs of the reports' array jobs; the
 * source says that a later task which left nothing is not seen. Once
 * whose array it is is known (summary_owner.c, summary_logs.c), again
 * over this array's reports and logs alone (ours_only). */
int sum_array_as_seen(spacrbench_summary *s, int ours_only)
{
    /* The reports' array jobs: a log counts when its job is one. */
    size_t n_jobs;
    int64_t *jobs = sum_report_jobs(s, ours_only ? 1u << SUM_FOREIGN : 0, &n_jobs), top = -1;
    if (!jobs)
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory");
    for (size_t i = 0; i < s->n_tasks; i++)
        if (!(ours_only && s->tasks[i].state == SUM_FOREIGN) && s->tasks[i].index > top)
            top = s->tasks[i].index;
    s->work += n_jobs + s->n_logs;
    for (size_t i = 0; i < s->n_logs; i++) /* the logs of the reports' array jobs */
        if (s->logs[i].index > top && (ours_only ? s->logs[i].ours
                                                 : bsearch(&s->logs[i].job, jobs, n_jobs,
                                                           sizeof *jobs, sum_job_order) != NULL))
            top = s->logs[i].index;
    free(jobs);
    sum_ranges_free(&s->array);
    free(s->array_source);
    s->array_seen = 1;
    int rc = 0;
    if (top >= 0)
        rc = sum_ranges_add(&s->array, 0, top);
    s->array_source = sb_textf(
        "%s%s%sas far as %s shows (its task reports and SLURM logs): a task after %" PRId64
        " that left none is not seen; --job JOB_SCRIPT checks against the script's --array",
        s->manifest.problem ? SB_SLURM_MANIFEST " cannot be used (" : "",
        s->manifest.problem ? s->manifest.problem : "", s->manifest.problem ? "), so " : "",
        s->directory, top < 0 ? 0 : top);
    if (rc == 0 && !s->array_source)
        rc = sb_fail(SPACRBENCH_ENOMEM, "out of memory");
    return rc;
}

/* Which tasks the array had: the job script's --array line where one is
 * given, else the manifest written with the script, else what was seen. */
static int array_tasks(spacrbench_summary *s, const char *job_script)
{
    int rc;
    if (job_script) {
        if ((rc = read_job_array(job_script, &s->array, &s->throttle)) != 0)
            return rc;
        s->job_script = strdup(job_script);
        s->array_source = sb_textf("from the #SBATCH --array line of %s", job_script);
        return 0;
    }
    if (s->manifest.rec.tasks > 0) {
        rc = sum_ranges_add(&s->array, 0, s->manifest.rec.tasks - 1);
        s->array_source = sb_textf("from %s/" SB_SLURM_MANIFEST
                                   " (written with the job script: %" PRId64 " task(s))",
                                   s->directory, s->manifest.rec.tasks);
        if (s->manifest.rec.script)
            s->job_script = strdup(s->manifest.rec.script);
        s->throttle = s->manifest.rec.array_limit;
        return rc;
    }
    return sum_array_as_seen(s, 0);
}

int sum_read(spacrbench_summary *s, const char *job_script)
{
    int dir = open(s->directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0)
        return sb_fail(SPACRBENCH_EINVAL, "%s is not a directory that can be read: %s",
                       s->directory, strerror(errno));
    int rc = read_entries(s, dir);
    close(dir);
    if (rc != 0)
        return rc;
    if (s->n_tasks > 1)
        qsort(s->tasks, s->n_tasks, sizeof *s->tasks, task_order);
    sum_count_sort(s, s->n_tasks);
    s->work += s->n_tasks + s->n_logs; /* every entry read once */
    rc = array_tasks(s, job_script);
    if (rc == 0 && !s->array_source)
        rc = sb_fail(SPACRBENCH_ENOMEM, "out of memory");
    if (rc == 0 && s->n_tasks == 0 && s->array.n == 0)
        rc = sb_fail(SPACRBENCH_EINVAL, "no task reports (task-<index>.json) and no %s in %s",
                     SB_SLURM_MANIFEST, s->directory);
    return rc;
}

#else /* Windows: no openat, O_NONBLOCK or FIFOs to guard against */

#include "cluster.h"
#include "internal.h"

int sum_read(spacrbench_summary *s, const char *job_script)
{
    (void)s;
    (void)job_script;
    return sb_fail(SPACRBENCH_EUNSUPPORTED,
                   "summarize reads a SLURM job's directory on Linux and macOS, not on Windows");
}

#endif
