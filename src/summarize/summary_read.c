/* Reading a job's directory for spacrbench_summarize (summary.h): every
 * file is opened without blocking and read only when it is a regular file
 * of at most SUM_REPORT_MAX bytes, so a FIFO, a device or a huge file
 * named like a report is an "unreadable" task, never a hang or gigabytes;
 * JSON goes through json_reader's depth and node limits. */
#if !defined(_WIN32)
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "handoff_rule.h"
#include "internal.h"
#include "json_reader.h"
#include "summary.h"

static char *dup_printf(const char *fmt, ...) SB_PRINTF(1, 2);
static char *dup_printf(const char *fmt, ...)
{
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *out = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (out)
        vsnprintf(out, (size_t)n + 1, fmt, again);
    va_end(again);
    return out;
}

static const char *file_kind(mode_t m)
{
    return S_ISDIR(m)    ? "a directory"
           : S_ISFIFO(m) ? "a FIFO"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISSOCK(m) ? "a socket"
                         : "not a regular file";
}

/* name in dir, opened without blocking (a FIFO must not hang the read)
 * and checked to be a regular file of at most max bytes: the fd, or -1
 * with *why (malloc'd) saying what it is. */
static int open_small(int dir, const char *name, size_t max, struct stat *st, char **why)
{
    int fd = openat(dir, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        *why = dup_printf("cannot be opened: %s", strerror(errno));
        return -1;
    }
    if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
        *why = dup_printf("%s, not a regular file",
                          fstat(fd, st) ? "unknown" : file_kind(st->st_mode));
        close(fd);
        return -1;
    }
    if ((uint64_t)st->st_size > max) {
        *why = dup_printf("%lld bytes, more than a report can be (%zu MiB at most)",
                          (long long)st->st_size, max >> 20);
        close(fd);
        return -1;
    }
    return fd;
}

/* fd to its end, starting with the size stat gave (size <= max) plus one
 * byte to see a file that grew; at most max + 1 bytes whatever it does.
 * The buffer (malloc'd) with *got, or NULL: *why says a read error, else
 * memory ran out. */
static char *read_at_most(int fd, size_t size, size_t max, size_t *got_out, char **why)
{
    size_t cap = size < max ? size + 1 : max + 1, got = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (got == cap) {
            if (cap > max)
                break;
            size_t more = cap > max / 2 ? max + 1 : cap * 2;
            char *b = realloc(buf, more);
            if (!b) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = b;
            cap = more;
        }
        ssize_t n = read(fd, buf + got, cap - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            *why = dup_printf("cannot be read: %s", strerror(errno));
            free(buf);
            buf = NULL;
        }
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    *got_out = got;
    return buf;
}

/* The whole file name in dir, when it is a regular file of at most max
 * bytes: 0 with *text (malloc'd, NUL-terminated) and *len, else -1 with
 * *why (malloc'd) saying what it is. */
static int read_small(int dir, const char *name, size_t max, char **text, size_t *len, char **why)
{
    *text = NULL;
    *why = NULL;
    struct stat st;
    int fd = open_small(dir, name, max, &st, why);
    if (fd < 0)
        return -1;
    size_t got = 0;
    char *buf = read_at_most(fd, (size_t)st.st_size, max, &got, why);
    close(fd);
    if (!buf) {
        if (!*why)
            *why = dup_printf("out of memory");
        return -1;
    }
    if (got > max) {
        free(buf);
        *why = dup_printf("more than %zu MiB", max >> 20);
        return -1;
    }
    char *t = realloc(buf, got + 1);
    if (!t)
        t = buf;
    t[got] = '\0';
    *text = t;
    *len = got;
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

/* ---- fields of a report, each checked ---- */

typedef struct fields {
    const json_doc *doc;
    char *why; /* the first problem */
} fields;

static void problem(fields *f, const char *fmt, ...) SB_PRINTF(2, 3);
static void problem(fields *f, const char *fmt, ...)
{
    if (f->why)
        return;
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    f->why = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (f->why)
        vsnprintf(f->why, (size_t)n + 1, fmt, again);
    va_end(again);
}

static const char *kind_name(const json_node *n)
{
    static const char *const k[] = {"null", "false",  "true",     "a number",
                                    "text", "a list", "an object"};
    return k[n->kind];
}

/* An integer member in [lo, hi]; null or absent: dflt. */
static int64_t get_int(fields *f, const json_node *obj, const char *where, const char *key,
                       int64_t lo, int64_t hi, int64_t dflt)
{
    const json_node *n = json_get(f->doc, obj, key);
    if (!n || n->kind == JSON_NULL)
        return dflt;
    if (n->kind != JSON_NUMBER || !n->is_integer || n->integer < lo || n->integer > hi) {
        problem(f, "\"%s%s\" is %s, not a whole number from %" PRId64 " to %" PRId64, where, key,
                n->kind == JSON_NUMBER ? "out of range" : kind_name(n), lo, hi);
        return dflt;
    }
    return n->integer;
}

static double get_seconds(fields *f, const json_node *obj, const char *where, const char *key)
{
    const json_node *n = json_get(f->doc, obj, key);
    if (!n || n->kind == JSON_NULL)
        return -1;
    if (n->kind != JSON_NUMBER || !(n->number >= 0) || n->number > SUM_SECONDS_MAX) {
        if (n->kind == JSON_NUMBER)
            problem(f, "\"%s%s\" is %g, not a number of seconds from 0 to %g", where, key,
                    n->number, SUM_SECONDS_MAX);
        else
            problem(f, "\"%s%s\" is %s, not a number of seconds", where, key, kind_name(n));
        return -1;
    }
    return n->number;
}

static const char *get_text(fields *f, const json_node *obj, const char *where, const char *key)
{
    const json_node *n = json_get(f->doc, obj, key);
    if (!n || n->kind == JSON_NULL)
        return NULL;
    if (n->kind != JSON_STRING) {
        problem(f, "\"%s%s\" is %s, not text", where, key, kind_name(n));
        return NULL;
    }
    return n->text;
}

static const json_node *get_object(fields *f, const json_node *obj, const char *where,
                                   const char *key, int required)
{
    const json_node *n = json_get(f->doc, obj, key);
    if ((!n && required) || (n && n->kind != JSON_OBJECT)) {
        problem(f, "\"%s%s\" is %s, not an object", where, key, n ? kind_name(n) : "missing");
        return NULL;
    }
    return n;
}

/* SLURM's environment as the "job" member holds it: digits as text. */
static int64_t env_number(fields *f, const json_node *job, const char *key)
{
    const char *t = get_text(f, job, "job.", key);
    if (!t)
        return -1;
    if (!*t || strlen(t) > 15 || strspn(t, "0123456789") != strlen(t)) {
        problem(f, "\"job.%s\" is not a whole number", key);
        return -1;
    }
    return strtoll(t, NULL, 10);
}

static char *dup_or_null(const char *t) { return t ? strdup(t) : NULL; }

static const char *const k_outcomes[] = {"ok",      "exit",        "signal",     "oom",
                                         "timeout", "not_started", "interrupted"};

/* The "measurement" member: the peak, times and OOM limit; the first
 * record's item. Whether it says the run stopped (true, false, null). */
static const json_node *measurement_fields(fields *f, const json_node *m, sum_task *t,
                                           const char **item)
{
    t->peak = get_int(f, m, "measurement.", "peak_rss_bytes", 0, SUM_BYTES_MAX, -1);
    t->seconds = get_seconds(f, m, "measurement.", "seconds");
    t->cpu_seconds = get_seconds(f, m, "measurement.", "cpu_seconds");
    t->oom_limit = get_int(f, m, "measurement.", "oom_limit_bytes", 0, SUM_BYTES_MAX, 0);
    const json_node *stopped = json_get(f->doc, m, "stopped");
    if (stopped && stopped->kind != JSON_TRUE && stopped->kind != JSON_FALSE &&
        stopped->kind != JSON_NULL)
        problem(f, "\"measurement.stopped\" is %s, not true or false", kind_name(stopped));
    const json_node *records = json_get(f->doc, m, "records");
    if (records && records->kind != JSON_ARRAY && records->kind != JSON_NULL)
        problem(f, "\"measurement.records\" is %s, not a list", kind_name(records));
    const json_node *first = records ? json_child(f->doc, records, 0) : NULL;
    *item = first ? get_text(f, first, "measurement.records[0].", "item") : NULL;
    return stopped;
}

/* The "job" member (SLURM's environment): the array job, the memory and
 * CPUs asked for; the task id it names (-1 none). */
static int64_t job_fields(fields *f, const json_node *job, sum_task *t)
{
    int64_t named = env_number(f, job, "SLURM_ARRAY_TASK_ID");
    const char *aj = get_text(f, job, "job.", "SLURM_ARRAY_JOB_ID");
    if (aj)
        t->array_job = strdup(aj);
    int64_t mib = env_number(f, job, "SLURM_MEM_PER_NODE");
    t->req_mem = mib >= 0 && mib < (INT64_C(1) << 40) ? mib << 20 : -1;
    t->req_cpus = env_number(f, job, "SLURM_CPUS_PER_TASK");
    return named;
}

/* task.outcome, one of k_outcomes (a problem otherwise). */
static void outcome_field(fields *f, const json_node *task, sum_task *t)
{
    const char *outcome = get_text(f, task, "task.", "outcome");
    size_t k = 0;
    while (outcome && k < sizeof k_outcomes / sizeof k_outcomes[0] &&
           strcmp(outcome, k_outcomes[k]) != 0)
        k++;
    if (!outcome || k == sizeof k_outcomes / sizeof k_outcomes[0])
        problem(f, "\"task.outcome\" is not one of ok, exit, signal, oom, timeout, "
                   "not_started, interrupted");
    else
        t->outcome = strdup(outcome);
}

/* task.array (the submission's range) and task.requested (what the task
 * asked for), where present. */
static void array_and_request_fields(fields *f, const json_node *task, sum_task *t)
{
    const json_node *arr = get_object(f, task, "task.", "array", 0);
    if (arr) {
        t->array_min = get_int(f, arr, "task.array.", "min", 0, SUM_ARRAY_MAX, -1);
        t->array_max = get_int(f, arr, "task.array.", "max", 0, SUM_ARRAY_MAX, -1);
        t->array_step = get_int(f, arr, "task.array.", "step", 0, SUM_ARRAY_MAX, -1);
        t->array_count = get_int(f, arr, "task.array.", "count", 0, SUM_ARRAY_MAX, -1);
    }
    const json_node *req = get_object(f, task, "task.", "requested", 0);
    if (req) {
        int64_t mem = get_int(f, req, "task.requested.", "mem_bytes", 0, SUM_BYTES_MAX, -1);
        int64_t cpus = get_int(f, req, "task.requested.", "cpus", 0, 1 << 20, -1);
        if (mem >= 0)
            t->req_mem = mem;
        if (cpus >= 0)
            t->req_cpus = cpus;
        t->req_time = get_int(f, req, "task.requested.", "time_minutes", 0, 1 << 30, -1);
    }
}

/* The "task" record run --report writes: how the task ended, the failed
 * item and its peak, the array job and task. Updates *item and *named. */
static void task_record_fields(fields *f, const json_node *task, sum_task *t, const char **item,
                               int64_t *named)
{
    outcome_field(f, task, t);
    const char *outcome = t->outcome;
    t->exit_status = (int)get_int(f, task, "task.", "exit_status", 0, 255, -1);
    t->signal = (int)get_int(f, task, "task.", "signal", 1, 128, 0);
    int64_t oom = get_int(f, task, "task.", "oom_limit_bytes", -1, SUM_BYTES_MAX, 0);
    if (oom > t->oom_limit)
        t->oom_limit = oom;
    if (outcome && strcmp(outcome, "oom") == 0 && t->oom_limit <= 0)
        t->oom_limit = 0; /* OOM-killed, limit unknown */
    t->timeout_seconds = get_seconds(f, task, "task.", "timeout_seconds");
    t->item_timeout = outcome && strcmp(outcome, "timeout") == 0;
    const char *failed_item = get_text(f, task, "task.", "item");
    if (failed_item)
        *item = failed_item;
    int64_t fpeak = get_int(f, task, "task.", "failed_item_peak_bytes", 0, SUM_BYTES_MAX, -1);
    if (fpeak > t->peak)
        t->peak = fpeak;
    double elapsed = get_seconds(f, task, "task.", "elapsed_seconds");
    if (elapsed >= 0)
        t->seconds = elapsed;
    const char *aj = get_text(f, task, "task.", "array_job_id");
    if (aj) {
        free(t->array_job);
        t->array_job = strdup(aj);
    }
    t->array_key = dup_or_null(get_text(f, task, "task.", "array_key"));
    int64_t id = get_int(f, task, "task.", "array_task_id", 0, SUM_ARRAY_MAX - 1, -1);
    if (id >= 0)
        *named = id;
    array_and_request_fields(f, task, t);
    if (t->outcome && strcmp(t->outcome, "ok") != 0)
        t->state = SUM_FAILED;
}

/* One report's document into t (index already set from the file name);
 * the first problem in f->why. */
static void task_fields(fields *f, const json_node *root, sum_task *t)
{
    if (root->kind != JSON_OBJECT) {
        problem(f, "not a `spacrbench run --json` report (%s, not an object)", kind_name(root));
        return;
    }
    const char *mode = get_text(f, root, "", "mode");
    if (!mode || strcmp(mode, "run") != 0) {
        problem(f, "not a `spacrbench run --json` report (\"mode\" is not \"run\")");
        return;
    }
    const json_node *m = get_object(f, root, "", "measurement", 1);
    const json_node *job = get_object(f, root, "", "job", 0);
    const json_node *task = get_object(f, root, "", "task", 0);
    if (!m)
        return;
    const char *item = NULL;
    const json_node *stopped = measurement_fields(f, m, t, &item);
    int64_t named = job ? job_fields(f, job, t) : -1;
    if (task)
        task_record_fields(f, task, t, &item, &named);
    else if (stopped && stopped->kind == JSON_TRUE)
        t->state = SUM_FAILED; /* an older report: no task record */
    if (t->oom_limit > 0 && t->state == SUM_OK)
        t->state = SUM_FAILED;
    if (named >= 0 && named != t->index)
        problem(f, "its SLURM task is %" PRId64 " but the file is named for task %" PRId64, named,
                t->index);
    t->item = dup_or_null(item);
    if (t->array_job && *t->array_job && strlen(t->array_job) <= 18 &&
        strspn(t->array_job, "0123456789") == strlen(t->array_job))
        t->job = strtoll(t->array_job, NULL, 10);
}

static int add_task(spacrbench_summary *s, sum_task *t)
{
    if (s->n_tasks == s->cap_tasks) {
        size_t cap = s->cap_tasks ? s->cap_tasks * 2 : 16;
        sum_task *n = realloc(s->tasks, cap * sizeof *n);
        if (!n)
            return sb_fail(SPACRBENCH_ENOMEM, "out of memory");
        s->tasks = n;
        s->cap_tasks = cap;
    }
    s->tasks[s->n_tasks++] = *t;
    return 0;
}

static void task_init(sum_task *t, int64_t index)
{
    memset(t, 0, sizeof *t);
    t->index = index;
    t->exit_status = -1;
    t->peak = -1;
    t->seconds = -1;
    t->cpu_seconds = -1;
    t->req_mem = t->req_cpus = t->req_time = -1;
    t->array_min = t->array_max = t->array_step = t->array_count = -1;
    t->job = -1;
    t->timeout_seconds = -1;
}

static const json_limits k_limits = {SUM_JSON_DEPTH, (size_t)1 << 20};

static int read_report(spacrbench_summary *s, int dir, const char *name, int64_t index)
{
    sum_task t;
    task_init(&t, index);
    t.file = strdup(name);
    char *text = NULL, *why = NULL;
    size_t len = 0;
    if (read_small(dir, name, SUM_REPORT_MAX, &text, &len, &why) == 0) {
        json_doc doc;
        if (json_parse(&doc, text, len, &k_limits) != 0)
            why = dup_printf("not JSON: %s", doc.error);
        else {
            fields f = {&doc, NULL};
            task_fields(&f, json_root(&doc), &t);
            why = f.why;
        }
        json_doc_free(&doc);
    }
    free(text);
    if (why) {
        t.state = SUM_UNREADABLE;
        t.why = why;
    }
    return add_task(s, &t);
}

/* ---- the manifest ---- */

static void read_manifest(spacrbench_summary *s, int dir)
{
    sum_manifest *mf = &s->manifest;
    mf->req_mem = mf->req_cpus = mf->req_time = -1;
    char *text = NULL, *why = NULL;
    size_t len = 0;
    struct stat st;
    if (fstatat(dir, SB_SLURM_MANIFEST, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return; /* none */
    mf->present = 1;
    if (read_small(dir, SB_SLURM_MANIFEST, SUM_REPORT_MAX, &text, &len, &why) == 0) {
        json_doc doc;
        if (json_parse(&doc, text, len, &k_limits) != 0)
            why = dup_printf("not JSON: %s", doc.error);
        else {
            fields f = {&doc, NULL};
            const json_node *root = json_root(&doc);
            if (root->kind != JSON_OBJECT)
                problem(&f, "%s, not an object", kind_name(root));
            else {
                mf->tasks = get_int(&f, root, "", "tasks", 1, SUM_ARRAY_MAX, -1);
                if (mf->tasks < 1)
                    problem(&f, "\"tasks\" is missing");
                const char *script = get_text(&f, root, "", "script");
                if (script)
                    mf->script = strdup(script);
                const json_node *req = get_object(&f, root, "", "requested", 0);
                if (req) {
                    mf->req_mem = get_int(&f, req, "requested.", "mem_bytes", 0, SUM_BYTES_MAX, -1);
                    mf->req_cpus = get_int(&f, req, "requested.", "cpus", 0, 1 << 20, -1);
                    mf->req_time = get_int(&f, req, "requested.", "time_minutes", 0, 1 << 30, -1);
                }
                double to = get_seconds(&f, root, "", "item_timeout_seconds");
                mf->item_timeout = to > 0 ? to : 0;
                const char *key = get_text(&f, root, "", "array_key");
                if (key && strlen(key) == 16 && strspn(key, "0123456789abcdef") == 16)
                    mf->key = strdup(key);
                mf->array_limit = get_int(&f, root, "", "array_limit", 0, 1000000, 0);
            }
            why = f.why;
        }
        json_doc_free(&doc);
    }
    free(text);
    if (why) {
        mf->problem = why;
        mf->tasks = 0;
    }
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
    *why =
        dup_printf("--array=%s is not a list of task indices below %" PRId64, spec, SUM_ARRAY_MAX);
    return -1;
}

/* The #SBATCH --array line of a job script, read as sbatch does: the
 * #SBATCH lines before the first command, the last one wins. */
static int read_job_array(const char *path, sum_ranges *set, int64_t *throttle)
{
    char *text = NULL, *why = NULL;
    size_t len = 0;
    if (read_small(AT_FDCWD, path, 4u << 20, &text, &len, &why) != 0) {
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
    if (s->n_logs == s->cap_logs) {
        size_t cap = s->cap_logs ? s->cap_logs * 2 : 16;
        sum_log *l = realloc(s->logs, cap * sizeof *l);
        if (!l)
            return sb_fail(SPACRBENCH_ENOMEM, "out of memory");
        s->logs = l;
        s->cap_logs = cap;
    }
    sum_log *added = &s->logs[s->n_logs++];
    memset(added, 0, sizeof *added);
    added->job = job;
    added->index = index;
    return 0;
}

static int job_order(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
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
    char **n = realloc(s->ignored, (s->n_ignored + 1) * sizeof *n);
    if (!n || !(n[s->n_ignored] = strdup(name))) {
        if (n)
            s->ignored = n;
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory");
    }
    s->ignored = n;
    s->n_ignored++;
    return 0;
}

/* One name of the directory: a task report is read; a report name with
 * an index that is not canonical is listed as ignored; a SLURM log is
 * noted (note_log passes over every other name). */
static int take_entry(spacrbench_summary *s, int dir, const char *name)
{
    int64_t index = task_index_of(name);
    if (index == -2)
        return note_log(s, name);
    if (index == -1)
        return note_ignored(s, name);
    return read_report(s, dir, name, index);
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
    while (rc == 0 && (e = readdir(d)) != NULL)
        rc = take_entry(s, dir, e->d_name);
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
    int64_t top = -1;
    /* The reports' array jobs, sorted: a log counts when its job is one. */
    int64_t *jobs = malloc((s->n_tasks ? s->n_tasks : 1) * sizeof *jobs);
    if (!jobs)
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory");
    size_t n_jobs = 0;
    for (size_t i = 0; i < s->n_tasks; i++) {
        if (ours_only && s->tasks[i].state == SUM_FOREIGN)
            continue;
        if (s->tasks[i].index > top)
            top = s->tasks[i].index;
        if (s->tasks[i].job >= 0)
            jobs[n_jobs++] = s->tasks[i].job;
    }
    qsort(jobs, n_jobs, sizeof *jobs, job_order);
    sum_count_sort(s, n_jobs);
    s->work += n_jobs + s->n_logs;
    for (size_t i = 0; i < s->n_logs; i++) /* the logs of the reports' array jobs */
        if (s->logs[i].index > top &&
            (ours_only ? s->logs[i].ours
                       : bsearch(&s->logs[i].job, jobs, n_jobs, sizeof *jobs, job_order) != NULL))
            top = s->logs[i].index;
    free(jobs);
    sum_ranges_free(&s->array);
    free(s->array_source);
    s->array_seen = 1;
    int rc = 0;
    if (top >= 0)
        rc = sum_ranges_add(&s->array, 0, top);
    s->array_source = dup_printf(
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
        s->array_source = dup_printf("from the #SBATCH --array line of %s", job_script);
        return 0;
    }
    if (s->manifest.tasks > 0) {
        rc = sum_ranges_add(&s->array, 0, s->manifest.tasks - 1);
        s->array_source = dup_printf("from %s/" SB_SLURM_MANIFEST
                                     " (written with the job script: %" PRId64 " task(s))",
                                     s->directory, s->manifest.tasks);
        if (s->manifest.script)
            s->job_script = strdup(s->manifest.script);
        s->throttle = s->manifest.array_limit;
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

#include "internal.h"
#include "summary.h"

int sum_read(spacrbench_summary *s, const char *job_script)
{
    (void)s;
    (void)job_script;
    return sb_fail(SPACRBENCH_EUNSUPPORTED,
                   "summarize reads a SLURM job's directory on Linux and macOS, not on Windows");
}

#endif
