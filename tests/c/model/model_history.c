/* One history of the model (model.h): a job array emitted by the library
 * into a directory (sometimes one that held another array's reports and
 * logs), submitted, its tasks' fates drawn from the cluster's truth (what
 * each item needs; OOM kills at the submission's --mem, SLURM's time limit,
 * the item --timeout the script passed, preemptions, tasks that vanish or
 * are cancelled while pending, a command that fails on its item), then
 * summarize, whose printed lines are submitted as printed, again and
 * again. After every summarize the invariants of docs/scheduler-handoff.md
 * are checked:
 *   I1 a line asks strictly more of what killed a task (memory after an
 *      OOM, --time after a TIMEOUT, the item --timeout after an item
 *      timeout) than the submission that failed it;
 *   I2 no report or log of another array enters a figure or a count;
 *   I3 every line runs as printed (shell words, each argument within
 *      MAX_ARG_STRLEN, options sbatch knows) and keeps the --array-limit;
 *   I4 every task that needs it is in a line or named, and no task that
 *      is done is rerun;
 *   I5 the loop ends (no line) within a bound of submissions, with every
 *      task ok or named with a reason the user must act on.
 * A broken invariant returns -1 with the history's steps. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "model.h"
#include "spacrbench.h"
#include "util.h"

#define MAX_ARRAY       4000000            /* the cluster's MaxArraySize (raised by its admins) */
#define NODE_MEM_MIB    (256 * 1024)       /* MaxMemPerNode: 256 GiB */
#define MAX_TIME_MIN    (30 * 24 * 60)     /* the partition's MaxTime: 30 days */
#define POISON_MIB      ((int64_t)4 << 20) /* another array's peaks: 4 TiB */
#define POISON_SECONDS  (200.0 * 86400)    /* ... and elapsed times: 200 days */
#define POISON_LINE_MIN (100 * 24 * 60) /* no line of ours asks this (the cluster takes 30 days) */
#define MAX_SUBMISSIONS 80
#define OTHER_KEY_JOB   7 /* the other array's job id: older than ours */

typedef struct truth {
    int64_t need_mib;
    double runtime;
    int exit_status, crash_signal, not_started; /* its own failure, until the user fixes it */
    char *item;
} truth;

/* A task's last attempt that ran (what the invariants compare with). */
typedef struct attempt {
    int ran, ok;
    char kind[16]; /* ok oom timeout itemtimeout exit crash notstart term vanish setup */
    int64_t mem_mib, time_min, job;
    double item_timeout;
} attempt;

typedef struct history {
    model_rng r;
    const model_options *o;
    model_stats *st;
    char scratch[400], dir[420], items[420], script[460], key[17];
    int64_t n;
    truth *t;
    attempt *last;
    int64_t throttle;
    double built_in_timeout;
    int64_t mem0_mib, time0_min;
    int64_t next_job;
    int64_t submissions;
    int disruptions_left, disruptions, acts, items_edited, other_array;
    mtext trace;
    char *why;
    size_t why_cap;
    /* The real script's command lines, by the item --timeout a submission
     * exported ("" none): replayed for the tasks bash did not run. */
    capture *caps[4];
    char *cap_sig[4];
    size_t n_caps;
    char builtin_item[64]; /* the script's own item --timeout, as its first line prints it */
} history;

static int fail(history *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(history *h, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    snprintf(h->why, h->why_cap, "%s\n--- the history ---\n%s", buf, h->trace.s ? h->trace.s : "");
    return -1;
}

static void step(history *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void step(history *h, const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    mt_printf(&h->trace, "%s\n", buf);
    if (h->o->verbose)
        printf("%s\n", buf);
}

/* ---- the array: items, the emit ---- */

static const char *const k_odd_items[] = {"with  two spaces",   "it's \"quoted\"",
                                          "$HOME `id`",         "glob * ? [a]",
                                          "semi; amp & pipe |", "trailing-cr\r"};

static void write_items(history *h)
{
    mtext t = {0};
    mt_printf(&t, "%s", "");
    for (int64_t i = 0; i < h->n; i++) {
        free(h->t[i].item);
        mtext it = {0};
        if (model_chance(&h->r, 0.1))
            mt_printf(&it, "%s-%" PRId64, k_odd_items[model_int(&h->r, 0, 5)], i);
        else
            mt_printf(&it, "field-%" PRId64 ".tif", i);
        /* A trailing CR must stay last: the script hands the line as the file has it. */
        char *cr = strchr(it.s, '\r');
        if (cr) {
            memmove(cr, cr + 1, strlen(cr));
            mt_printf(&it, "\r");
        }
        h->t[i].item = it.s;
        mt_printf(&t, "%s\n", it.s);
    }
    model_write_file(h->items, t.s, t.n);
    mt_free(&t);
}

/* The directives a user gives with --sbatch; refused ones come from a
 * list sbatch reads as --array, or that would break the script. */
static const char *const k_directives[] = {"--partition=short", "--account=lab",
                                           "--qos=normal",      "--partition=short --qos=normal",
                                           "--mail-type=END",   "#SBATCH --comment=model"};
static const char *const k_refused[] = {"--array=0-99",
                                        "--arr=0-3",
                                        "-a0-3",
                                        "--partition=short --array=0-99",
                                        "-Ha1-2",
                                        "--ar 0-3",
                                        "--mem-per-cpu=1G",
                                        "--output=/tmp/elsewhere-%a.out",
                                        "-o x",
                                        "--error=x"};

static spacrbench_measurement *measured(history *h)
{
    spacrbench_measurement *m = model_measurement_begin(3);
    int64_t peak = model_int(&h->r, 20, 3000);
    double seconds = model_chance(&h->r, 0.7) ? 0.01 * (double)model_int(&h->r, 1, 3000)
                                              : (double)model_int(&h->r, 60, 3000);
    for (int i = 0; i < 3; i++) {
        spacrbench_item_figures it;
        spacrbench_item_figures_init(&it, sizeof it);
        it.seconds = seconds * (0.5 + 0.25 * i);
        it.cpu_seconds = it.seconds * 0.9;
        it.peak_rss_bytes = (peak - 10 * i) << 20;
        if (spacrbench_measurement_add_item(m, &it) != 0)
            abort();
    }
    if (spacrbench_measurement_end(m) != 0)
        abort();
    return m;
}

/* The library writes the array into h->dir: 0, 1 refused (with why), -1 error. */
static int emit(history *h, const char *name, const char **directives, size_t n_dir,
                int64_t array_limit, double item_timeout, int no_cgroup, char *why, size_t cap)
{
    spacrbench_measurement *m = measured(h);
    spacrbench_recommendation rec;
    memset(&rec, 0, sizeof rec);
    rec.size = sizeof rec;
    rec.workers = 1;
    rec.cores = 4;
    spacrbench_schedule s = {.size = sizeof s};
    if (spacrbench_schedule_compute(m, &rec, &s) != 0)
        abort();
    spacrbench_slurm_job job;
    spacrbench_slurm_job_init(&job, sizeof job);
    static const char *const command[] = {"true", "--input={}"};
    job.items_file = h->items;
    job.n_items = h->n;
    job.output_dir = h->dir;
    job.job_name = name;
    job.command = command;
    job.command_len = 2;
    job.spacrbench = h->o->self;
    job.directives = directives;
    job.n_directives = n_dir;
    spacrbench_slurm_tasks tasks;
    spacrbench_slurm_tasks_init(&tasks, sizeof tasks);
    tasks.array_limit = array_limit;
    tasks.item_timeout_seconds = item_timeout;
    tasks.no_cgroup = no_cgroup;
    int rc = spacrbench_slurm_write_array(m, &s, &job, &tasks);
    if (rc != 0)
        snprintf(why, cap, "%s", spacrbench_last_error_message());
    spacrbench_measurement_free(m);
    return rc == 0 ? 0 : rc == SPACRBENCH_EINVAL ? 1 : -1;
}

static void read_key(history *h)
{
    char *text = model_read_file(h->script, NULL);
    const char *k = text ? strstr(text, "\narray_key='") : NULL;
    snprintf(h->key, sizeof h->key, "%.16s", k ? k + 12 : "?");
    free(text);
}

/* ---- the tasks ---- */

/* SLURM's environment of task `task` of job `job` (submission s), and the
 * variables the submission exported; nothing of another task stays. */
static void task_env(const submission *s, int64_t job, int64_t task)
{
    char v[64];
    snprintf(v, sizeof v, "%" PRId64, job + 1 + task);
    setenv("SLURM_JOB_ID", v, 1);
    snprintf(v, sizeof v, "%" PRId64, job);
    setenv("SLURM_ARRAY_JOB_ID", v, 1);
    snprintf(v, sizeof v, "%" PRId64, task);
    setenv("SLURM_ARRAY_TASK_ID", v, 1);
    int64_t min = s->tasks.v[0], max = s->tasks.v[s->tasks.n - 1];
    /* SLURM 22.05: the step of a single a-b:s range, else 1 (count tells). */
    int64_t step = 1;
    if (s->tasks.n > 1) {
        step = s->tasks.v[1] - s->tasks.v[0];
        for (size_t i = 2; i < s->tasks.n; i++)
            if (s->tasks.v[i] - s->tasks.v[i - 1] != step)
                step = 1;
    }
    snprintf(v, sizeof v, "%" PRId64, min);
    setenv("SLURM_ARRAY_TASK_MIN", v, 1);
    snprintf(v, sizeof v, "%" PRId64, max);
    setenv("SLURM_ARRAY_TASK_MAX", v, 1);
    snprintf(v, sizeof v, "%" PRId64, step);
    setenv("SLURM_ARRAY_TASK_STEP", v, 1);
    snprintf(v, sizeof v, "%zu", s->tasks.n);
    setenv("SLURM_ARRAY_TASK_COUNT", v, 1);
    snprintf(v, sizeof v, "%" PRId64, s->mem_mib);
    setenv("SLURM_MEM_PER_NODE", v, 1);
    snprintf(v, sizeof v, "%" PRId64, s->cpus);
    setenv("SLURM_CPUS_PER_TASK", v, 1);
    if (s->time_var)
        setenv("SPACRBENCH_TIME_LIMIT_MINUTES", s->time_var, 1);
    else
        unsetenv("SPACRBENCH_TIME_LIMIT_MINUTES");
    if (s->item_timeout)
        setenv("SPACRBENCH_ITEM_TIMEOUT", s->item_timeout, 1);
    else
        unsetenv("SPACRBENCH_ITEM_TIMEOUT");
    unsetenv("SPACRBENCH_ARRAY_KEY"); /* the script exports its own */
}

static void log_path(const history *h, int64_t job, int64_t task, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s/slurm-%" PRId64 "_%" PRId64 ".out", h->dir, job, task);
}

/* The real job script for one task, under bash, as slurmstepd runs it. */
static int real_script(history *h, const submission *s, int64_t job, int64_t task, capture *c)
{
    char log[700], cap_file[700];
    log_path(h, job, task, log, sizeof log);
    snprintf(cap_file, sizeof cap_file, "%s/capture", h->scratch);
    task_env(s, job, task);
    h->st->real_scripts++;
    int rc = model_run_script(s->script, log, cap_file, c);
    c->task = task;
    return rc;
}

/* What the script exports to spacrbench (as it did for the captured
 * task): its key, and the --time the submission exported, else its own. */
static void script_env(const history *h, const capture *c, const submission *s)
{
    if (c->key && *c->key)
        setenv("SPACRBENCH_ARRAY_KEY", c->key, 1);
    else
        unsetenv("SPACRBENCH_ARRAY_KEY");
    char time[32];
    snprintf(time, sizeof time, "%" PRId64, h->time0_min);
    if (c->time_var && *c->time_var)
        setenv("SPACRBENCH_TIME_LIMIT_MINUTES", s->time_var ? s->time_var : time, 1);
    else
        unsetenv("SPACRBENCH_TIME_LIMIT_MINUTES"); /* a script that exports none */
}

/* The captured command line, for task `task`: its own report and item. */
static char **argv_for(const history *h, const capture *c, int64_t task, const char *item_file)
{
    char **a = model_alloc((c->argc + 1) * sizeof *a);
    for (size_t i = 0; i < c->argc; i++) {
        char buf[800];
        if (i > 0 && strcmp(c->argv[i - 1], "--report") == 0) {
            snprintf(buf, sizeof buf, "%s/task-%" PRId64 ".json", h->dir, task);
            a[i] = model_strdup(buf);
        } else if (i > 0 && strcmp(c->argv[i - 1], "--items") == 0)
            a[i] = model_strdup(item_file);
        else
            a[i] = model_strdup(c->argv[i]);
    }
    return a;
}

/* The command line the script builds under another exported item
 * --timeout (sig, "" none), from one it built: "--timeout V" after the
 * report, none for 0 (the script's rule, which bash checks whenever it
 * runs the script under an export the model did not see yet). */
static capture *derive(const capture *from, const char *sig)
{
    capture *c = model_alloc(sizeof *c);
    *c = *from;
    c->job = -1;
    c->key = from->key ? model_strdup(from->key) : NULL;
    c->time_var = from->time_var ? model_strdup(from->time_var) : NULL;
    c->items = model_strdup(from->items ? from->items : "");
    c->log = from->log ? model_strdup(from->log) : NULL;
    c->argv = model_alloc((from->argc + 3) * sizeof *c->argv);
    c->argc = 0;
    int none = strspn(sig, "0.") == strlen(sig) && *sig;
    for (size_t i = 0; i < from->argc; i++) {
        if (strcmp(from->argv[i], "--timeout") == 0) {
            i++;
            continue;
        }
        c->argv[c->argc++] = model_strdup(from->argv[i]);
        if (i > 0 && strcmp(from->argv[i - 1], "--report") == 0 && *sig && !none) {
            c->argv[c->argc++] = model_strdup("--timeout");
            c->argv[c->argc++] = model_strdup(sig);
        }
    }
    return c;
}

/* The script's first line for task `task` of job `job` of submission s
 * (cluster.h: the model's reading of the script, checked against the
 * real one every time bash runs it). */
static void header_for(const history *h, const capture *c, const submission *s, int64_t job,
                       int64_t task, char *buf, size_t cap)
{
    char time[32];
    snprintf(time, sizeof time, "%" PRId64, h->time0_min);
    snprintf(buf, cap,
             "spacrbench job: array job %" PRId64 " task %" PRId64 ": key %s, --mem %" PRId64
             " MiB, --time %s min, item --timeout %s s\n",
             job, task, c->key ? c->key : h->key, s->mem_mib, s->time_var ? s->time_var : time,
             s->item_timeout ? s->item_timeout : h->builtin_item);
}

/* The log bash wrote for the captured task, as task `task` of job `job`
 * would have it: the first line the script's for this task, the other
 * lines with its task number. */
static char *log_for(const history *h, const capture *c, const submission *s, int64_t job,
                     int64_t task)
{
    mtext t = {0};
    mt_printf(&t, "%s", "");
    char from_task[64], to_task[64];
    snprintf(from_task, sizeof from_task, "task %" PRId64, c->task);
    snprintf(to_task, sizeof to_task, "task %" PRId64, task);
    for (const char *p = c->log ? c->log : ""; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);
        if (strncmp(p, "spacrbench job: array job ", 26) == 0) {
            char head[512];
            header_for(h, c, s, job, task, head, sizeof head);
            mt_printf(&t, "%s", head);
            p += n;
            continue;
        }
        for (const char *end = p + n; p < end;) {
            size_t lf = strlen(from_task);
            if (strncmp(p, from_task, lf) == 0 && (p[lf] < '0' || p[lf] > '9')) {
                mt_printf(&t, "%s", to_task);
                p += lf;
            } else
                mt_printf(&t, "%c", *p++);
        }
    }
    return t.s;
}

/* Task i's environment and command line, as the script gives them: its
 * SLURM variables and what the script exports, its own report, its item
 * in a file for --items. */
static char **task_argv(const history *h, const capture *c, const submission *s, int64_t job,
                        int64_t i, char *item_file, size_t cap)
{
    task_env(s, job, i);
    script_env(h, c, s);
    snprintf(item_file, cap, "%s/item", h->scratch);
    mtext line = {0};
    mt_printf(&line, "%s\n", h->t[i].item);
    model_write_file(item_file, line.s, line.n);
    mt_free(&line);
    return argv_for(h, c, i, item_file);
}

static const char *kill_line(int kind, int64_t job)
{
    static char buf[256];
    switch (kind) {
    case 'T':
        snprintf(buf, sizeof buf,
                 "slurmstepd: error: *** JOB %" PRId64 " ON node1 CANCELLED AT "
                 "2026-01-01T00:00:00 DUE TO TIME LIMIT ***\n",
                 job);
        break;
    case 'P':
        snprintf(buf, sizeof buf,
                 "slurmstepd: error: *** JOB %" PRId64 " ON node1 CANCELLED AT "
                 "2026-01-01T00:00:00 DUE TO PREEMPTION ***\n",
                 job);
        break;
    default:
        snprintf(buf, sizeof buf,
                 "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=%" PRId64
                 ".batch. Some of your processes may have been killed by the cgroup "
                 "out-of-memory handler.\n",
                 job);
    }
    return buf;
}

/* One task of a submission: its fate, its report (through the command's
 * code) and its SLURM log. */
static int run_task(history *h, const submission *s, int64_t job, int64_t i, const capture *c)
{
    int bash_ran_it = c->job == job && c->task == i; /* its log holds bash's lines already */
    char log[700], item_file[700];
    log_path(h, job, i, log, sizeof log);
    truth *t = &h->t[i];
    attempt *a = &h->last[i];
    h->st->tasks++;
    /* Disruptions: not the task's doing, a bounded number per history. */
    if (h->disruptions_left > 0 && model_chance(&h->r, 0.08)) {
        h->disruptions_left--;
        h->disruptions++;
        int64_t what = model_int(&h->r, bash_ran_it ? 1 : 0, c->ran ? 3 : 1);
        if (what == 0) { /* cancelled while pending: no log, no report */
            step(h, "    task %" PRId64 ": cancelled while pending", i);
            return 0;
        }
        char *head = bash_ran_it ? NULL : log_for(h, c, s, job, i);
        if (head)
            model_append_file(log, head);
        free(head);
        *a = (attempt){1, 0, "vanish", s->mem_mib, s->time_min, job, 0};
        if (what == 1) {
            step(h, "    task %" PRId64 ": its node failed (no report)", i);
            return 0;
        }
        model_append_file(log, kill_line('P', job));
        if (what == 2) {
            step(h, "    task %" PRId64 ": preempted, SIGKILLed (no report)", i);
            return 0;
        }
        /* Preempted: SIGTERM, spacrbench reports it. */
        char **argv = task_argv(h, c, s, job, i, item_file, sizeof item_file);
        /* Before its end and before its time limit (it would be TIMEOUT). */
        double end = t->runtime < (double)s->time_min * 60 ? t->runtime : (double)s->time_min * 60;
        task_plan p = {FATE_TERM, t->need_mib, t->runtime, end * model_unit(&h->r), 0, 0, 0, 0};
        task_result r;
        model_task_run((int)c->argc, argv, &p, log, &r);
        model_words_free(argv, c->argc);
        step(h, "    task %" PRId64 ": preempted, SIGTERM (%s)", i, r.outcome);
        return 0;
    }
    char *head = bash_ran_it ? NULL : log_for(h, c, s, job, i);
    if (head)
        model_append_file(log, head);
    free(head);
    if (!c->ran) { /* the script stopped before running anything */
        *a = (attempt){1, 0, "setup", s->mem_mib, s->time_min, job, 0};
        step(h, "    task %" PRId64 ": the script stopped before the run", i);
        return 0;
    }
    char **argv = task_argv(h, c, s, job, i, item_file, sizeof item_file);
    char perr[512];
    double timeout = model_task_timeout((int)c->argc, argv, perr, sizeof perr);
    if (timeout < 0) {
        /* spacrbench refused the command line the script built: exit 2. */
        model_append_file(log, perr);
        *a = (attempt){1, 0, "setup", s->mem_mib, s->time_min, job, 0};
        step(h, "    task %" PRId64 ": spacrbench refused its command line: %s", i, perr);
        model_words_free(argv, c->argc);
        return 0;
    }
    /* Which kill comes first: the OOM killer (at the item's peak, half
     * way), SLURM's time limit, the item's --timeout, or none. */
    double t_oom = t->need_mib > s->mem_mib ? 0.5 * t->runtime : INFINITY;
    double t_lim = (double)s->time_min * 60 < t->runtime ? (double)s->time_min * 60 : INFINITY;
    double t_item = timeout > 0 && timeout < t->runtime ? timeout : INFINITY;
    task_plan p = {FATE_RUN, t->need_mib,    t->runtime,      t->runtime,
                   0,        t->exit_status, t->crash_signal, t->not_started};
    const char *kind = t->not_started    ? "notstart"
                       : t->crash_signal ? "crash"
                       : t->exit_status  ? "exit"
                                         : "ok";
    int no_report = 0;
    if (t_item <= t_oom && t_item <= t_lim && t_item < INFINITY)
        kind = "itemtimeout";
    else if (t_oom <= t_lim && t_oom < INFINITY) {
        kind = "oom";
        int64_t form = model_int(&h->r, 0, 19);
        p.fate = form < 11 ? FATE_OOM : FATE_OOM9;
        p.at = t_oom;
        p.limit_mib = s->mem_mib;
        no_report = form >= 16; /* the whole step OOM-killed: only the log */
        if (p.fate == FATE_OOM9)
            model_append_file(log, kill_line('O', job));
    } else if (t_lim < INFINITY) {
        kind = "timeout";
        p.fate = FATE_TERM;
        p.at = t_lim;
        no_report = model_chance(&h->r, 0.4); /* SIGKILL after KillWait */
        model_append_file(log, kill_line('T', job));
    }
    *a = (attempt){1, strcmp(kind, "ok") == 0, "", s->mem_mib, s->time_min, job, timeout};
    snprintf(a->kind, sizeof a->kind, "%s", kind);
    if (no_report) {
        step(h, "    task %" PRId64 ": %s, killed before its report", i, kind);
        model_words_free(argv, c->argc);
        return 0;
    }
    task_result r;
    model_task_run((int)c->argc, argv, &p, log, &r);
    model_words_free(argv, c->argc);
    step(h, "    task %" PRId64 ": %s (report: %s, --timeout %g)", i, kind, r.outcome,
         r.item_timeout);
    if (!r.reported)
        return fail(h, "task %" PRId64 " wrote no report: %s", i, r.parse_error);
    int want_timeout = strcmp(kind, "itemtimeout") == 0;
    if (want_timeout != (strcmp(r.outcome, "timeout") == 0))
        return fail(h, "task %" PRId64 ": the model expected %s, the report says %s", i, kind,
                    r.outcome);
    return 0;
}

/* What bash ran: the task's own report path and item, and the first line
 * of its log as the model renders it. */
static int check_capture(history *h, const submission *s, const capture *c)
{
    char *nl = c->log ? strchr(c->log, '\n') : NULL;
    if (c->log && strncmp(c->log, "spacrbench job: array job ", 26) == 0 && nl) {
        /* The script's own item --timeout, as it prints it. */
        const char *f = strstr(c->log, "item --timeout ");
        if (!s->item_timeout && f && f < nl)
            snprintf(h->builtin_item, sizeof h->builtin_item, "%.*s",
                     (int)(strchr(f + 15, ' ') ? strchr(f + 15, ' ') - (f + 15) : 0), f + 15);
        char want[512];
        header_for(h, c, s, c->job, c->task, want, sizeof want);
        if (strncmp(c->log, want, (size_t)(nl - c->log) + 1) != 0)
            return fail(h, "the script's first line '%.*s' is not the model's '%s'",
                        (int)(nl - c->log), c->log, want);
    }
    if (!c->ran)
        return 0;
    char want_report[700];
    snprintf(want_report, sizeof want_report, "%s/task-%" PRId64 ".json", h->dir, c->task);
    int report_ok = 0;
    for (size_t k = 1; k + 1 < c->argc; k++)
        if (strcmp(c->argv[k], "--report") == 0 && strcmp(c->argv[k + 1], want_report) == 0)
            report_ok = 1;
    char want_items[4200];
    snprintf(want_items, sizeof want_items, "%s\n", h->t[c->task].item);
    if (!report_ok)
        return fail(h, "the script's report is not %s", want_report);
    if (strcmp(c->items, want_items) != 0)
        return fail(h, "the script handed task %" PRId64 " the item '%s', not '%s'", c->task,
                    c->items, h->t[c->task].item);
    return 0;
}

/* One submission: sbatch's reading of argv, the tasks. 0, 1 refused by
 * the cluster (why), -1 broken invariant. */
static int submit(history *h, char **argv, size_t argc, int from_summarize, char *why, size_t cap)
{
    submission s;
    if (model_sbatch(argv, argc, MAX_ARRAY, &s, why, cap) != 0) {
        submission_free(&s);
        return 1;
    }
    if (from_summarize && h->throttle > 0 && s.throttle != h->throttle) {
        int64_t got = s.throttle;
        submission_free(&s);
        return fail(h, "I3: the line's --array has %%%" PRId64 ", the array's limit is %%%" PRId64,
                    got, h->throttle);
    }
    if (s.mem_mib > NODE_MEM_MIB) {
        snprintf(why, cap,
                 "sbatch: error: Memory specification can not be satisfied (--mem=%" PRId64
                 "M, the nodes have %d MiB)",
                 s.mem_mib, NODE_MEM_MIB);
        submission_free(&s);
        return 1;
    }
    if (s.time_min > MAX_TIME_MIN) {
        snprintf(why, cap,
                 "sbatch: error: Requested time limit is invalid (missing or exceeds some limit)");
        submission_free(&s);
        return 1;
    }
    for (size_t k = 0; k < s.tasks.n; k++)
        if (s.tasks.v[k] >= h->n) {
            int64_t v = s.tasks.v[k];
            submission_free(&s);
            return fail(h, "I3: the submission has task %" PRId64 ", the array %" PRId64 " items",
                        v, h->n);
        }
    int64_t job = h->next_job;
    h->next_job += (int64_t)s.tasks.n + 1;
    h->submissions++;
    h->st->submissions++;
    char *set = idx_text(&s.tasks);
    step(h, "  job %" PRId64 ": tasks %s, --mem=%" PRId64 "M --time=%" PRId64 " item timeout %s",
         job, set, s.mem_mib, s.time_min, s.item_timeout ? s.item_timeout : "(script's)");
    free(set);
    /* The log's name: the script's --output, as slurmstepd expands it. */
    char want[700];
    snprintf(want, sizeof want, "%s/slurm-%%A_%%a.out", h->dir);
    if (!s.output || strcmp(s.output, want) != 0) {
        submission_free(&s);
        return fail(h, "I3: the logs go to %s, not beside the reports", s.output ? s.output : "?");
    }
    /* The real script, under bash, for one task: in the first submission,
     * in one of 3 submissions that export an item --timeout not seen yet
     * (the others take the script's rule for it), and in one of 20 others;
     * every other task replays the command line it built (with its own
     * report and item). */
    const char *sig = s.item_timeout ? s.item_timeout : "";
    size_t slot = 0;
    while (slot < h->n_caps && strcmp(h->cap_sig[slot], sig) != 0)
        slot++;
    int rc = 0;
    int known = slot < h->n_caps;
    if (!known || h->submissions == 1 || model_chance(&h->r, 1.0 / 20)) {
        if (slot == h->n_caps && h->n_caps == sizeof h->caps / sizeof h->caps[0])
            slot = 0; /* a full cache: the first one goes */
        capture *c;
        if (!known && h->n_caps && !model_chance(&h->r, 1.0 / 3)) {
            c = derive(h->caps[0], sig);
        } else {
            int64_t sampled = s.tasks.v[model_int(&h->r, 0, (int64_t)s.tasks.n - 1)];
            c = model_alloc(sizeof *c);
            real_script(h, &s, job, sampled, c);
            c->job = job;
            rc = check_capture(h, &s, c);
        }
        if (slot == h->n_caps)
            h->n_caps++;
        if (h->caps[slot]) {
            capture_free(h->caps[slot]);
            free(h->caps[slot]);
        }
        h->caps[slot] = c;
        free(h->cap_sig[slot]);
        h->cap_sig[slot] = model_strdup(sig);
    }
    for (size_t k = 0; k < s.tasks.n && rc == 0; k++)
        rc = run_task(h, &s, job, s.tasks.v[k], h->caps[slot]);
    submission_free(&s);
    return rc;
}

/* ---- summarize, read as a user reads it ---- */

typedef struct line {
    char *text;
    char **argv;
    size_t argc;
    idxset tasks;
    char reason[32]; /* "" the next submission, else the needs-you group */
} line;

typedef struct reading {
    char *text, *json;
    line *lines;
    size_t n;
    idxset named; /* tasks of needs-you groups without a line */
    int status;
    int64_t ok;
    int64_t peak;
} reading;

static void reading_free(reading *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->lines[i].text);
        model_words_free(r->lines[i].argv, r->lines[i].argc);
        idx_free(&r->lines[i].tasks);
    }
    free(r->lines);
    idx_free(&r->named);
    free(r->text);
    free(r->json);
    memset(r, 0, sizeof *r);
}

static int add_line(history *h, reading *r, const char *cmd, const char *reason)
{
    if (!strstr(r->text, cmd))
        return fail(h, "I3: the command '%s' is not in the text", cmd);
    r->lines = realloc(r->lines, (r->n + 1) * sizeof *r->lines);
    line *l = &r->lines[r->n++];
    memset(l, 0, sizeof *l);
    l->text = model_strdup(cmd);
    snprintf(l->reason, sizeof l->reason, "%s", reason);
    char why[256];
    if (model_shell_words(cmd, &l->argv, &l->argc, why, sizeof why) != 0)
        return fail(h, "I3: the line '%.300s' does not run as printed: %s", cmd, why);
    if (l->argc < 2 || strcmp(l->argv[0], "sbatch") != 0)
        return fail(h, "I3: the line '%.300s' is not an sbatch command", cmd);
    for (size_t k = 0; k < l->argc; k++)
        if (strlen(l->argv[k]) > MODEL_ARG_MAX)
            return fail(h, "I3: argument %zu of a line is %zu bytes, beyond MAX_ARG_STRLEN", k,
                        strlen(l->argv[k]));
    submission s;
    if (model_sbatch(l->argv + 1, l->argc - 1, MAX_ARRAY, &s, why, sizeof why) != 0) {
        /* Beyond the cluster's limits is sbatch's refusal, not the model's. */
        submission_free(&s);
        return fail(h, "I3: sbatch does not take '%.300s': %s", cmd, why);
    }
    l->tasks = s.tasks;
    memset(&s.tasks, 0, sizeof s.tasks);
    submission_free(&s);
    return 0;
}

static int parse_tasks(const char *spec, idxset *out)
{
    int64_t throttle;
    char why[128];
    return model_array_spec(spec, MAX_ARRAY, out, &throttle, why, sizeof why);
}

static int read_summary(history *h, reading *r)
{
    memset(r, 0, sizeof *r);
    spacrbench_summary *s = NULL;
    h->st->summarizes++;
    if (spacrbench_summarize(h->dir, NULL, &s) != 0)
        return fail(h, "summarize failed: %s", spacrbench_last_error_message());
    int n = spacrbench_summary_text(s, NULL, 0);
    r->text = model_alloc((size_t)n + 1);
    spacrbench_summary_text(s, r->text, (size_t)n + 1);
    n = spacrbench_summary_json(s, NULL, 0);
    r->json = model_alloc((size_t)n + 1);
    spacrbench_summary_json(s, r->json, (size_t)n + 1);
    r->status = spacrbench_summary_status(s);
    spacrbench_summary_free(s);
    step(h, "%s", r->text);
    json_doc doc;
    const json_limits lim = {64, (size_t)1 << 22, 0};
    if (json_parse(&doc, r->json, strlen(r->json), &lim) != 0)
        return fail(h, "summarize's JSON does not parse: %s", doc.error);
    const json_node *root = json_root(&doc);
    const json_node *counts = json_get(&doc, root, "counts");
    const json_node *ok = counts ? json_get(&doc, counts, "ok") : NULL;
    r->ok = ok && ok->is_integer ? ok->integer : -1;
    const json_node *peak = json_get(&doc, root, "peak_rss_bytes");
    r->peak = peak && peak->is_integer ? peak->integer : -1;
    const json_node *next = json_get(&doc, root, "next");
    const json_node *cmds = next ? json_get(&doc, next, "commands") : NULL;
    int rc = 0;
    if (cmds && cmds->kind == JSON_ARRAY) {
        for (const json_node *c = json_child(&doc, cmds, 0); c && rc == 0; c = json_next(&doc, c))
            rc = add_line(h, r, c->text, "");
    } else if (next) { /* before the lines were split: one command */
        const json_node *c = json_get(&doc, next, "command");
        if (c && c->kind == JSON_STRING)
            rc = add_line(h, r, c->text, "");
    }
    const json_node *needs = json_get(&doc, root, "needs_you");
    for (const json_node *g = needs ? json_child(&doc, needs, 0) : NULL; g && rc == 0;
         g = json_next(&doc, g)) {
        const json_node *reason = json_get(&doc, g, "reason");
        const json_node *tasks = json_get(&doc, g, "tasks");
        const json_node *gc = json_get(&doc, g, "commands");
        size_t before = r->n;
        for (const json_node *c = gc ? json_child(&doc, gc, 0) : NULL; c && rc == 0;
             c = json_next(&doc, c))
            rc = add_line(h, r, c->text, reason ? reason->text : "?");
        if (rc == 0 && r->n == before && tasks && tasks->kind == JSON_STRING &&
            parse_tasks(tasks->text, &r->named) != 0)
            rc = fail(h, "needs_you tasks '%s' do not parse", tasks->text);
    }
    idx_sort(&r->named);
    json_doc_free(&doc);
    return rc;
}

/* ---- the invariants ---- */

static double line_item_timeout(const history *h, const line *l)
{
    for (size_t k = 0; k < l->argc; k++) {
        const char *e = strstr(l->argv[k], "SPACRBENCH_ITEM_TIMEOUT=");
        if (strncmp(l->argv[k], "--export=", 9) == 0 && e)
            return atof(e + 24);
    }
    return h->built_in_timeout;
}

static int check(history *h, const reading *r)
{
    int64_t ok = 0;
    for (int64_t i = 0; i < h->n; i++) {
        const attempt *a = &h->last[i];
        ok += a->ok;
        int covered = idx_has(&r->named, i);
        for (size_t k = 0; k < r->n; k++) {
            const line *l = &r->lines[k];
            if (!idx_has(&l->tasks, i))
                continue;
            covered = 1;
            if (a->ok)
                return fail(h,
                            "I4: task %" PRId64 " is done (ok in job %" PRId64
                            ") but the line '%.200s' reruns it",
                            i, a->job, l->text);
            submission s;
            char why[256];
            model_sbatch(l->argv + 1, l->argc - 1, MAX_ARRAY, &s, why, sizeof why);
            int64_t mem = s.mem_mib, time = s.time_min;
            submission_free(&s);
            if (strcmp(a->kind, "oom") == 0 && mem <= a->mem_mib)
                return fail(h,
                            "I1: task %" PRId64 " was OOM-killed at --mem=%" PRId64
                            "M (job %" PRId64 ") and the line asks --mem=%" PRId64 "M again",
                            i, a->mem_mib, a->job, mem);
            if (strcmp(a->kind, "timeout") == 0 && time <= a->time_min)
                return fail(h,
                            "I1: task %" PRId64 " hit --time=%" PRId64 " (job %" PRId64
                            ") and the line asks --time=%" PRId64 " again",
                            i, a->time_min, a->job, time);
            double it = line_item_timeout(h, l);
            if (strcmp(a->kind, "itemtimeout") == 0 && it > 0 && it <= a->item_timeout)
                return fail(h,
                            "I1: task %" PRId64 " hit the item --timeout %g (job %" PRId64
                            ") and the line gives it %g again",
                            i, a->item_timeout, a->job, it);
            if (mem >= POISON_MIB / 2 || time >= POISON_LINE_MIN)
                return fail(h, "I2: the line '%.200s' asks another array's figures", l->text);
        }
        if (!a->ok && !covered)
            return fail(
                h, "I4: task %" PRId64 " (%s in job %" PRId64 ") is neither in a line nor named", i,
                a->ran ? a->kind : "never ran", a->job);
    }
    if (r->ok != ok)
        return fail(h, "I2: summarize counts %" PRId64 " task(s) ok, the model %" PRId64, r->ok,
                    ok);
    if (r->peak >= POISON_MIB << 20)
        return fail(h, "I2: summarize's peak %" PRId64 " is another array's", r->peak);
    int something = r->n > 0 || r->named.n > 0;
    if (r->status != (something ? 3 : 0))
        return fail(h, "summarize's status %d with %zu line(s) and %zu named task(s)", r->status,
                    r->n, r->named.n);
    return 0;
}

/* The truth's bound on submissions: doublings of memory, time and item
 * timeout from the first request, plus disruptions and what the user did. */
static int64_t bound(const history *h)
{
    double mem = 1, time = 1, item = 1;
    for (int64_t i = 0; i < h->n; i++) {
        double m = (double)h->t[i].need_mib / (double)h->mem0_mib;
        double t = h->t[i].runtime / ((double)h->time0_min * 60);
        double it = h->built_in_timeout > 0 ? h->t[i].runtime / h->built_in_timeout : 1;
        mem = m > mem ? m : mem;
        time = t > time ? t : time;
        item = it > item ? it : item;
    }
    return 4 + h->disruptions + 2 * h->acts + (int64_t)ceil(log2(mem)) + (int64_t)ceil(log2(time)) +
           (int64_t)ceil(log2(item)) + 3;
}

/* ---- the history ---- */

static void draw_truth(history *h)
{
    for (int64_t i = 0; i < h->n; i++) {
        truth *t = &h->t[i];
        double x = model_unit(&h->r);
        t->need_mib = x < 0.6    ? model_int(&h->r, 10, h->mem0_mib / 2 + 10)
                      : x < 0.97 ? model_int(&h->r, h->mem0_mib, h->mem0_mib * 40)
                                 : model_int(&h->r, NODE_MEM_MIB, 2 * NODE_MEM_MIB);
        double y = model_unit(&h->r);
        t->runtime = y < 0.6    ? 0.5 + 60 * model_unit(&h->r)
                     : y < 0.97 ? (double)h->time0_min * 60 * (1 + 30 * model_unit(&h->r))
                                : (double)MAX_TIME_MIN * 60 * (1 + model_unit(&h->r));
        t->exit_status = t->crash_signal = t->not_started = 0;
        double z = model_unit(&h->r);
        if (z < 0.03)
            t->exit_status = (int)model_int(&h->r, 1, 3);
        else if (z < 0.04)
            t->crash_signal = 11;
        else if (z < 0.045)
            t->not_started = 1;
    }
}

/* Another array's reports and logs in the directory (its files removed
 * afterwards, as the docs say): figures no line of ours may ask. */
static int other_array(history *h)
{
    const char *none[1] = {NULL};
    char why[512];
    if (emit(h, "other", none, 0, 0, 0, 0, why, sizeof why) != 0)
        return fail(h, "the other array's emit failed: %s", why);
    char key[17];
    char *text = model_read_file(h->script, NULL);
    const char *k = strstr(text, "\narray_key='");
    snprintf(key, sizeof key, "%.16s", k ? k + 12 : "?");
    free(text);
    submission s = {0};
    for (int64_t i = 0; i < h->n + 2; i++)
        idx_add(&s.tasks, i);
    s.mem_mib = 999999;
    s.cpus = 1;
    s.time_min = 99999;
    for (int64_t i = 0; i < h->n + 2; i++) {
        char report[700], item[700], log[700];
        snprintf(report, sizeof report, "%s/task-%" PRId64 ".json", h->dir, i);
        snprintf(item, sizeof item, "%s/item", h->scratch);
        model_write_file(item, "other\n", 6);
        task_env(&s, OTHER_KEY_JOB, i);
        setenv("SPACRBENCH_ARRAY_KEY", key, 1);
        char *argv[] = {"run", "--json", "--report", report, "--items", item, "--", "true", NULL};
        task_plan p = {FATE_RUN, POISON_MIB, POISON_SECONDS, POISON_SECONDS, 0, 0, 0, 0};
        log_path(h, OTHER_KEY_JOB, i + 1000, log, sizeof log);
        task_result r;
        model_task_run(8, argv, &p, log, &r);
        unsetenv("SPACRBENCH_ARRAY_KEY");
        if (!r.reported)
            return fail(h, "the other array's report: %s", r.parse_error);
        /* Its logs name kills our figures must not take. */
        log_path(h, OTHER_KEY_JOB, i, log, sizeof log);
        char head[256];
        snprintf(head, sizeof head,
                 "spacrbench job: array job %d task %" PRId64 ": key %s, --mem 999999 MiB, "
                 "--time 99999 min, item --timeout 0 s\n",
                 OTHER_KEY_JOB, i, key);
        model_append_file(log, head);
        model_append_file(log, kill_line('O', OTHER_KEY_JOB));
        model_append_file(log, kill_line('T', OTHER_KEY_JOB));
    }
    idx_free(&s.tasks);
    char path[800];
    static const char *const files[] = {"spacrbench-items.idx", "spacrbench-job.sh",
                                        "spacrbench-array.json"};
    for (int f = 0; f < 3; f++) {
        snprintf(path, sizeof path, "%s/%s", h->dir, files[f]);
        unlink(path);
    }
    for (int64_t i = 0; i < h->n + 2; i++) { /* the other array's own first-run logs */
        log_path(h, OTHER_KEY_JOB, i + 1000, path, sizeof path);
        unlink(path);
    }
    step(h, "another array's %" PRId64 " reports and logs (key %s, job %d) are in the directory",
         h->n + 2, key, OTHER_KEY_JOB);
    return 0;
}

/* The first submission, as a user types it. */
static char **first_argv(history *h, size_t *argc)
{
    char **a = model_alloc(6 * sizeof *a);
    size_t n = 0;
    a[n++] = model_strdup("sbatch");
    double x = model_unit(&h->r);
    char buf[4096];
    if (x < 0.1 && h->n >= 3) {
        snprintf(buf, sizeof buf, "--array=0-%" PRId64 ":2", h->n - 1);
        a[n++] = model_strdup(buf);
    } else if (x < 0.2 && h->n >= 3) {
        idxset some = {0};
        for (int64_t i = 0; i < h->n; i++)
            if (model_chance(&h->r, 0.5))
                idx_add(&some, i);
        idx_add(&some, h->n - 1);
        idx_sort(&some);
        char *t = idx_text(&some);
        snprintf(buf, sizeof buf, "--array=%s", t);
        free(t);
        idx_free(&some);
        a[n++] = model_strdup(buf);
    } else if (x < 0.27) {
        snprintf(buf, sizeof buf, "--mem=%" PRId64 "G", model_int(&h->r, 1, 8));
        a[n++] = model_strdup(buf);
    } else if (x < 0.32) {
        int64_t t = model_int(&h->r, 5, 300);
        snprintf(buf, sizeof buf, "--time=%" PRId64, t);
        a[n++] = model_strdup(buf);
        snprintf(buf, sizeof buf, "--export=ALL,SPACRBENCH_TIME_LIMIT_MINUTES=%" PRId64, t);
        a[n++] = model_strdup(buf);
    }
    a[n++] = model_strdup(h->script);
    *argc = n;
    return a;
}

/* The script's own --mem and --time (the first request). */
static void first_request(history *h)
{
    char *script = model_strdup(h->script);
    char *argv[] = {script};
    submission s;
    char why[256];
    if (model_sbatch(argv, 1, MAX_ARRAY, &s, why, sizeof why) == 0) {
        h->mem0_mib = s.mem_mib;
        h->time0_min = s.time_min;
    }
    submission_free(&s);
    free(script);
}

static int play(history *h)
{
    size_t argc;
    char **argv = first_argv(h, &argc);
    char why[512];
    int rc = submit(h, argv + 1, argc - 1, 0, why, sizeof why);
    model_words_free(argv, argc);
    if (rc != 0)
        return rc < 0 ? -1 : fail(h, "the first submission was refused: %s", why);
    for (;;) {
        reading r;
        if (read_summary(h, &r) != 0 || check(h, &r) != 0) {
            reading_free(&r);
            return -1;
        }
        /* Rarely, the user edits the items file while the array is not
         * done: every task then stops before it runs (the job's files). */
        if (!h->items_edited && r.n && model_chance(&h->r, 0.03)) {
            h->items_edited = 1;
            model_append_file(h->items, "edited\n");
            for (size_t k = 0; k < h->n_caps; k++) { /* bash must see it */
                capture_free(h->caps[k]);
                free(h->caps[k]);
                free(h->cap_sig[k]);
                h->caps[k] = NULL;
                h->cap_sig[k] = NULL;
            }
            h->n_caps = 0;
            step(h, "the user edits the items file");
        }
        /* What to submit: every next-submission line; the needs-you lines
         * as a user might (after fixing the command, or to give items
         * longer). */
        size_t chosen = 0;
        int refused = 0;
        for (size_t k = 0; k < r.n && rc == 0 && !refused; k++) {
            line *l = &r.lines[k];
            if (l->reason[0]) {
                int fixed = strcmp(l->reason, "command_failed") == 0;
                if (!model_chance(&h->r, fixed ? 0.6 : 0.7))
                    continue;
                h->acts++;
                for (size_t j = 0; fixed && j < l->tasks.n; j++) {
                    truth *t = &h->t[l->tasks.v[j]];
                    t->exit_status = t->crash_signal = t->not_started = 0;
                }
                step(h, "the user acts on '%s'", l->reason);
            }
            chosen++;
            rc = submit(h, l->argv + 1, l->argc - 1, 1, why, sizeof why);
            if (rc > 0) {
                refused = 1;
                rc = 0;
            }
        }
        reading_free(&r);
        if (rc != 0)
            return -1;
        if (refused) {
            /* sbatch's refusal is a reason named for the user when the truth
             * needs more than the cluster has, or when the doubling from
             * what failed passes its limit (summarize does not know the
             * cluster's largest node or longest --time). */
            int beyond = 0;
            for (int64_t i = 0; i < h->n; i++) {
                const attempt *a = &h->last[i];
                beyond |=
                    h->t[i].need_mib > NODE_MEM_MIB ||
                    h->t[i].runtime > (double)MAX_TIME_MIN * 60 ||
                    (!a->ok && strcmp(a->kind, "oom") == 0 &&
                     2.5 * (double)a->mem_mib + 256 > NODE_MEM_MIB) ||
                    (!a->ok && strcmp(a->kind, "timeout") == 0 && 2 * a->time_min > MAX_TIME_MIN);
            }
            step(h, "sbatch refused: %s", why);
            if (!beyond)
                return fail(h, "I5: sbatch refused a printed line: %s", why);
            h->st->ended_named++;
            return 0;
        }
        if (chosen == 0)
            break;
        if (h->submissions > bound(h) || h->submissions > MAX_SUBMISSIONS)
            return fail(h, "I5: %" PRId64 " submissions, more than the truth's bound %" PRId64,
                        h->submissions, bound(h));
    }
    int all_ok = 1;
    for (int64_t i = 0; i < h->n; i++)
        all_ok &= h->last[i].ok;
    if (all_ok)
        h->st->ended_ok++;
    else
        h->st->ended_named++;
    return 0;
}

int model_history(uint64_t seed, const model_options *o, model_stats *st, char *why, size_t cap)
{
    history h;
    memset(&h, 0, sizeof h);
    h.r.s = seed;
    h.o = o;
    h.st = st;
    h.why = why;
    h.why_cap = cap;
    st->histories++;
    snprintf(h.scratch, sizeof h.scratch, "%s/h-%ld-%" PRIu64, o->tmp, (long)getpid(), seed);
    snprintf(h.dir, sizeof h.dir, "%s/tasks", h.scratch);
    snprintf(h.items, sizeof h.items, "%s/items.txt", h.scratch);
    snprintf(h.script, sizeof h.script, "%s/spacrbench-job.sh", h.dir);
    if (mkdir(h.scratch, 0700) != 0 || mkdir(h.dir, 0700) != 0) {
        snprintf(why, cap, "mkdir %s: %s", h.scratch, strerror(errno));
        return -1;
    }
    double size = model_unit(&h.r);
    h.n = size < 0.75   ? model_int(&h.r, 1, 6)
          : size < 0.98 ? model_int(&h.r, 7, 30)
                        : model_int(&h.r, 60, 150);
    h.t = model_alloc((size_t)h.n * sizeof *h.t);
    h.last = model_alloc((size_t)h.n * sizeof *h.last);
    h.next_job = 1000;
    h.disruptions_left = (int)model_int(&h.r, 0, 3);
    step(&h, "seed %" PRIu64 ": %" PRId64 " item(s)", seed, h.n);
    write_items(&h);
    int rc = 0;
    if (model_chance(&h.r, 0.2)) {
        h.other_array = 1;
        rc = other_array(&h);
    }
    /* The emit: the user's --sbatch lines, --array-limit, the item --timeout. */
    const char *dirs[4];
    size_t n_dir = 0;
    int refusal = model_chance(&h.r, 0.05);
    if (refusal)
        dirs[n_dir++] = k_refused[model_int(&h.r, 0, 9)];
    for (int k = 0; k < 2; k++)
        if (model_chance(&h.r, 0.3))
            dirs[n_dir++] = k_directives[model_int(&h.r, 0, 5)];
    int64_t user_time = 0;
    char time_dir[64];
    if (model_chance(&h.r, 0.1)) {
        user_time = model_int(&h.r, 2, 200);
        switch (model_int(&h.r, 0, 3)) { /* the ways sbatch takes a --time */
        case 0:
            snprintf(time_dir, sizeof time_dir, "--time=%" PRId64, user_time);
            break;
        case 1:
            snprintf(time_dir, sizeof time_dir, "-t %" PRId64, user_time);
            break;
        case 2:
            snprintf(time_dir, sizeof time_dir, "--time %" PRId64, user_time);
            break;
        default:
            snprintf(time_dir, sizeof time_dir, "-t%" PRId64, user_time);
            break;
        }
        dirs[n_dir++] = time_dir;
    }
    h.throttle = model_chance(&h.r, 0.2) ? model_int(&h.r, 1, 4) : 0;
    static const double timeouts[] = {0.1, 1.1, 0.3, 3.3, 10.2, 30, 90.5};
    h.built_in_timeout = model_chance(&h.r, 0.3) ? timeouts[model_int(&h.r, 0, 6)] : 0;
    int no_cgroup = model_chance(&h.r, 0.3);
    char ewhy[1024] = "";
    if (rc == 0) {
        int e = emit(&h, "model", dirs, n_dir, h.throttle, h.built_in_timeout, no_cgroup, ewhy,
                     sizeof ewhy);
        step(&h, "emit: %zu directive(s)%s%s, --array-limit %" PRId64 ", --timeout %g%s: %s", n_dir,
             n_dir ? " " : "", n_dir ? dirs[0] : "", h.throttle, h.built_in_timeout,
             no_cgroup ? ", --no-cgroup" : "", e == 0 ? "written" : ewhy);
        if (refusal && e == 0) {
            /* Accepted: then sbatch must not read the script's array from it. */
            char *script = model_strdup(h.script);
            char *argv[] = {script};
            submission s;
            char swhy[256];
            int sr = model_sbatch(argv, 1, MAX_ARRAY, &s, swhy, sizeof swhy);
            if (sr != 0 || s.tasks.n != (size_t)h.n || (s.output && !strstr(s.output, h.dir)))
                rc = fail(&h, "the emit took --sbatch '%s', which makes sbatch run %s", dirs[0],
                          sr != 0 ? swhy : "another array or another log");
            else
                rc = fail(&h, "the emit took --sbatch '%s' (sbatch reads it as a conflict)",
                          dirs[0]);
            submission_free(&s);
            free(script);
        } else if (refusal) {
            st->refused_emits++;
        } else if (e != 0)
            rc = fail(&h, "the emit was refused: %s", ewhy);
        else {
            read_key(&h);
            first_request(&h);
            if (user_time && h.time0_min != user_time)
                rc = fail(&h, "--sbatch '%s' and the script's --time %" PRId64 " disagree",
                          time_dir, h.time0_min);
            char *manifest_path = model_alloc(800);
            snprintf(manifest_path, 800, "%s/spacrbench-array.json", h.dir);
            char *manifest = model_read_file(manifest_path, NULL);
            char want[64];
            snprintf(want, sizeof want, "\"time_minutes\": %" PRId64, h.time0_min);
            if (rc == 0 && (!manifest || !strstr(manifest, want)))
                rc = fail(&h, "the manifest's time is not the script's --time %" PRId64,
                          h.time0_min);
            free(manifest);
            free(manifest_path);
            if (rc == 0) {
                draw_truth(&h);
                rc = play(&h);
            }
        }
    }
    for (size_t k = 0; k < h.n_caps; k++) {
        if (h.caps[k])
            capture_free(h.caps[k]);
        free(h.caps[k]);
        free(h.cap_sig[k]);
    }
    for (int64_t i = 0; i < h.n; i++)
        free(h.t[i].item);
    free(h.t);
    free(h.last);
    mt_free(&h.trace);
    if (rc == 0)
        model_remove_tree(h.scratch);
    else /* kept for a look: say where */
        snprintf(why + strlen(why), cap - strlen(why), "\n(the directory: %s)", h.dir);
    return rc;
}
