/* The two renderings of a decided summary (summary.h): the text a user
 * reads (a row per report, a row per range of missing tasks, the next
 * submission as ONE command line) and the JSON document (every number
 * finite: json_writer writes NaN and infinities as null). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handoff_rule.h"
#include "internal.h"
#include "json_writer.h"
#include "summary.h"

#define ITEM_WIDTH 24

/* label escaped (one line, no terminal escapes), cut to width, padded. */
static void cell(sb_text *t, const char *label, int width)
{
    sb_text e = {0};
    if (label)
        sb_text_label(&e, label);
    else
        sb_text_printf(&e, "-");
    const char *shown = e.data ? e.data : "?";
    size_t n = strlen(shown);
    if ((int)n > width)
        sb_text_printf(t, "%.*s...", width - 3, shown);
    else
        sb_text_printf(t, "%-*s", width, shown);
    sb_text_free(&e);
}

static void bytes_cell(char *buf, size_t cap, int64_t b)
{
    if (b < 0)
        snprintf(buf, cap, "-");
    else
        sb_format_bytes(buf, cap, b);
}

static void pct(char *buf, size_t cap, double x)
{
    if (!(x >= 0) || !isfinite(x) || x > 1e6)
        snprintf(buf, cap, "-");
    else
        snprintf(buf, cap, "%.0f%%", 100 * x);
}

static int64_t requested_mem(const spacrbench_summary *s, const sum_task *t)
{
    return t->req_mem > 0 ? t->req_mem : s->manifest.req_mem;
}

static int64_t requested_time(const spacrbench_summary *s, const sum_task *t)
{
    return t->req_time > 0 ? t->req_time : s->manifest.req_time;
}

/* What ended the task, in words (the result column). */
static void result(sb_text *t, const spacrbench_summary *s, const sum_task *k)
{
    char b[32];
    switch (k->state) {
    case SUM_OK:
        sb_text_printf(t, "ok");
        return;
    case SUM_UNREADABLE:
        sb_text_printf(t, "unreadable report %s: ", k->file);
        sb_text_label(t, k->why ? k->why : "?");
        return;
    case SUM_STALE:
        sb_text_printf(t, "%s", k->why ? k->why : "missing (a report from an older job)");
        return;
    case SUM_OUTSIDE:
        sb_text_printf(t, "outside the array (left from another submission?): shown, not "
                          "resubmitted");
        return;
    case SUM_FAILED:
        break;
    }
    const char *o = k->outcome ? k->outcome : "";
    if (k->slurm_timeout) {
        int64_t lim = requested_time(s, k);
        if (lim > 0)
            sb_text_printf(t, "TIMEOUT (SLURM's --time of %" PRId64 " min)", lim);
        else
            sb_text_printf(t, "TIMEOUT (SLURM's time limit)");
    } else if (k->oom_limit > 0 || strcmp(o, "oom") == 0) {
        bytes_cell(b, sizeof b, k->oom_limit > 0 ? k->oom_limit : -1);
        sb_text_printf(t, "OOM-killed (limit %s)", k->oom_limit > 0 ? b : "unknown");
    } else if (k->slurm_oom)
        sb_text_printf(t, "OOM-killed (the SLURM log says so)");
    else if (k->item_timeout)
        sb_text_printf(t, "item timeout (the measuring run's --timeout of %g s)",
                       s->item_timeout > 0 ? s->item_timeout : 0);
    else if (strcmp(o, "exit") == 0)
        sb_text_printf(t, "exited with status %d", k->exit_status);
    else if (strcmp(o, "signal") == 0)
        sb_text_printf(t, "killed by signal %d", k->signal);
    else if (strcmp(o, "not_started") == 0)
        sb_text_printf(t, "could not be started (exit %d)", k->exit_status);
    else if (strcmp(o, "interrupted") == 0)
        sb_text_printf(t, "interrupted by signal %d", k->signal);
    else
        sb_text_printf(t, "failed (an older report without a task record)");
}

static void row(sb_text *t, const spacrbench_summary *s, const sum_task *k)
{
    char req[32], peak[40], mem_use[32], cpu[32], wall[32], lim[32], tuse[32];
    int64_t rm = requested_mem(s, k), rt = requested_time(s, k);
    int known = k->state != SUM_UNREADABLE;
    bytes_cell(req, sizeof req, rm);
    if (!known)
        snprintf(peak, sizeof peak, "unknown");
    else if (k->state == SUM_FAILED && k->peak >= 0) {
        char b[32];
        bytes_cell(b, sizeof b, k->oom_limit > k->peak ? k->oom_limit : k->peak);
        snprintf(peak, sizeof peak, ">=%s", b); /* a failed task's peak is a lower bound */
    } else
        bytes_cell(peak, sizeof peak, k->peak);
    pct(mem_use, sizeof mem_use,
        known && rm > 0 && k->peak >= 0 ? (double)k->peak / (double)rm : -1);
    int64_t cpus =
        k->req_cpus > 0 ? k->req_cpus : (s->manifest.req_cpus > 0 ? s->manifest.req_cpus : 1);
    pct(cpu, sizeof cpu,
        known && k->cpu_seconds >= 0 && k->seconds > 0
            ? k->cpu_seconds / (k->seconds * (double)cpus)
            : -1);
    if (known && k->seconds >= 0)
        snprintf(wall, sizeof wall, "%.2fs", k->seconds);
    else
        snprintf(wall, sizeof wall, "-");
    if (rt > 0)
        snprintf(lim, sizeof lim, "%" PRId64 "m", rt);
    else
        snprintf(lim, sizeof lim, "-");
    pct(tuse, sizeof tuse,
        known && rt > 0 && k->seconds >= 0 ? k->seconds / ((double)rt * 60) : -1);
    sb_text_printf(t, "%7" PRId64 "  ", k->index);
    cell(t, k->item, ITEM_WIDTH);
    sb_text_printf(t, "  %10s  %11s  %7s  %7s  %9s  %5s  %8s  ", req, peak, mem_use, cpu, wall, lim,
                   tuse);
    result(t, s, k);
    sb_text_printf(t, "\n");
}

/* What a missing task's SLURM log says, or NULL. */
static const sum_missing_log *log_of(const spacrbench_summary *s, int64_t index)
{
    for (size_t i = 0; i < s->n_missing_logs; i++)
        if (s->missing_logs[i].index == index)
            return &s->missing_logs[i];
    return NULL;
}

static void missing_row(sb_text *t, const spacrbench_summary *s, const sum_range *r)
{
    char idx[48];
    if (r->first == r->last)
        snprintf(idx, sizeof idx, "%7" PRId64, r->first);
    else
        snprintf(idx, sizeof idx, "%" PRId64 "-%" PRId64, r->first, r->last);
    sb_text_printf(t, "%7s  %-*s  %10s  %11s  %7s  %7s  %9s  %5s  %8s  ", idx, ITEM_WIDTH, "-", "-",
                   "unknown", "-", "-", "-", "-", "-");
    const sum_missing_log *l = r->first == r->last ? log_of(s, r->first) : NULL;
    if (l)
        sb_text_printf(t, "missing (no report; its SLURM log slurm-%s_%" PRId64 ".out says %s)\n",
                       s->newest_job, r->first,
                       l->timeout ? "TIMEOUT: DUE TO TIME LIMIT" : "OOM-killed (an oom-kill)");
    else if (r->first == r->last)
        sb_text_printf(t, "missing (no report: cancelled, never started, or killed before "
                          "writing one)\n");
    else {
        sb_text_printf(t,
                       "%" PRId64 " missing (no report: cancelled, never started, or killed "
                       "before writing one)\n",
                       r->last - r->first + 1);
        for (size_t i = 0; i < s->n_missing_logs; i++) {
            const sum_missing_log *k = &s->missing_logs[i];
            if (k->index >= r->first && k->index <= r->last)
                sb_text_printf(t, "%7" PRId64 "  its SLURM log slurm-%s_%" PRId64 ".out says %s\n",
                               k->index, s->newest_job, k->index,
                               k->timeout ? "TIMEOUT: DUE TO TIME LIMIT"
                                          : "OOM-killed (an oom-kill)");
        }
    }
}

/* 'path' for a shell, when it needs quoting. */
static void shell_word(sb_text *t, const char *w)
{
    if (*w && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,") ==
                  strlen(w)) {
        sb_text_printf(t, "%s", w);
        return;
    }
    sb_text_printf(t, "'");
    for (const char *p = w; *p; p++) {
        if (*p == '\'')
            sb_text_printf(t, "'\\''");
        else
            sb_text_printf(t, "%c", *p);
    }
    sb_text_printf(t, "'");
}

static char *ranges_text(const sum_ranges *r)
{
    int n = sum_ranges_format(r, NULL, 0);
    char *b = malloc((size_t)n + 1);
    if (b)
        sum_ranges_format(r, b, (size_t)n + 1);
    return b;
}

/* The next submission's options (no script). */
static void next_options(sb_text *t, const spacrbench_summary *s)
{
    char time[32];
    if (s->next_mem > 0)
        sb_text_printf(t, " --mem=%" PRId64 "M", (s->next_mem + (1 << 20) - 1) >> 20);
    sb_text_printf(t, " --cpus-per-task=%" PRId64, s->next_cpus);
    if (s->next_time > 0) {
        sb_format_time_limit(time, sizeof time, s->next_time);
        sb_text_printf(t, " --time=%s --export=ALL,SPACRBENCH_TIME_LIMIT_MINUTES=%" PRId64, time,
                       s->next_time);
    }
}

static void command_line(sb_text *t, const spacrbench_summary *s, const char *rerun)
{
    sb_text_printf(t, "sbatch --array=%s", rerun);
    next_options(t, s);
    sb_text_printf(t, " ");
    if (s->job_script)
        shell_word(t, s->job_script);
    else
        sb_text_printf(t, "JOB_SCRIPT");
}

static void text_render(sb_text *t, const spacrbench_summary *s, const char *rerun,
                        const char *array)
{
    int64_t total = sum_ranges_count(&s->array) + s->n_outside;
    sb_text_printf(t, "spacrbench summarize ");
    sb_text_label(t, s->directory);
    sb_text_printf(t,
                   ": %" PRId64 " task(s), %" PRId64 " ok, %" PRId64 " failed (%" PRId64
                   " out of memory, %" PRId64 " TIMEOUT), %" PRId64 " missing",
                   total, s->n_ok, s->n_failed, s->n_oom, s->n_timeout, s->n_missing + s->n_stale);
    if (s->n_stale)
        sb_text_printf(t, " (%" PRId64 " with a report from an older submission)", s->n_stale);
    if (s->n_unreadable)
        sb_text_printf(t, ", %" PRId64 " unreadable", s->n_unreadable);
    sb_text_printf(t, "\ntasks %s, ", array[0] ? array : "-");
    sb_text_label(t, s->array_source ? s->array_source : "");
    if (s->newest_job)
        sb_text_printf(t, "; newest submission: array job %s", s->newest_job);
    sb_text_printf(t, "\n%7s  %-*s  %10s  %11s  %7s  %7s  %9s  %5s  %8s  result\n", "task",
                   ITEM_WIDTH, "item", "requested", "peak", "mem use", "CPU eff", "elapsed",
                   "limit", "time use");
    size_t i = 0, m = 0;
    while (i < s->n_tasks || m < s->missing.n) {
        int64_t ti = i < s->n_tasks ? s->tasks[i].index : INT64_MAX;
        int64_t mi = m < s->missing.n ? s->missing.r[m].first : INT64_MAX;
        if (mi < ti)
            missing_row(t, s, &s->missing.r[m++]);
        else
            row(t, s, &s->tasks[i++]);
    }
    for (size_t k = 0; k < s->n_ignored; k++) {
        sb_text_printf(t, "ignored: ");
        sb_text_label(t, s->ignored[k]);
        sb_text_printf(t, " (not task-<index>.json, the name a task's report has)\n");
    }
    if (s->peak >= 0) {
        char b[32];
        sb_format_bytes(b, sizeof b, s->peak);
        sb_text_printf(t, "largest need %s (task %" PRId64 ")%s\n", b, s->peak_task,
                       s->peak_is_lower_bound
                           ? ": at least, a failed task's peak; an OOM-killed task counts as "
                             "twice the limit it hit"
                           : "");
    } else
        sb_text_printf(t, "no task measured a peak: the memory below is the array's own request\n");
    if (s->n_missing + s->n_unreadable + s->n_stale > 0)
        sb_text_printf(t, "memory unknown for the missing and unreadable tasks: the --mem below "
                          "comes from the others' peaks; if they fail again, summarize again\n");
    char time[32] = "-";
    if (s->next_time > 0)
        sb_format_time_limit(time, sizeof time, s->next_time);
    if (rerun[0]) {
        sb_text_printf(t,
                       "next submission: only the %" PRId64
                       " task(s) that need it, with the memory and time they need (--mem = "
                       "need + max(25%%, 256 MiB); --time = 2 x the longest elapsed, at least "
                       "5 min):\n  ",
                       sum_ranges_count(&s->rerun));
        command_line(t, s, rerun);
        sb_text_printf(t, "\n");
        if (!s->job_script)
            sb_text_printf(t, "  (JOB_SCRIPT: the script the tasks ran; --job JOB_SCRIPT puts it "
                              "here)\n");
    } else {
        sb_text_printf(t,
                       "all %" PRId64 " task(s) ok: nothing to resubmit; for a next array like "
                       "this one:",
                       s->n_ok);
        next_options(t, s);
        sb_text_printf(t, "\n");
    }
}

/* name: v when it is known (v > 0, or >= 0 where 0 is a figure), else null. */
static void int_or_null(json_writer *w, const char *name, int64_t v, int known)
{
    if (known)
        json_int(w, name, v);
    else
        json_null(w, name);
}

static void json_task(json_writer *w, const spacrbench_summary *s, const sum_task *k)
{
    static const char *const k_state[] = {"ok", "failed", "unreadable", "stale", "outside"};
    sb_text r = {0};
    result(&r, s, k);
    json_begin_object(w, NULL);
    json_int(w, "task", k->index);
    json_string(w, "state", k_state[k->state]);
    json_string(w, "report", k->file);
    json_string(w, "item", k->item);
    json_string(w, "outcome", k->outcome);
    json_string(w, "result", r.data);
    json_string(w, "array_job", k->array_job);
    int_or_null(w, "exit_status", k->exit_status, k->exit_status >= 0);
    int_or_null(w, "signal", k->signal, k->signal > 0);
    json_int(w, "oom_limit_bytes", k->oom_limit > 0 ? k->oom_limit : 0);
    json_bool(w, "out_of_memory",
              k->oom_limit > 0 || k->slurm_oom || (k->outcome && strcmp(k->outcome, "oom") == 0));
    json_bool(w, "timeout", k->slurm_timeout);
    json_bool(w, "item_timeout", k->item_timeout);
    int_or_null(w, "peak_rss_bytes", k->peak, k->peak >= 0);
    json_double(w, "seconds", k->seconds >= 0 ? k->seconds : NAN);
    json_double(w, "cpu_seconds", k->cpu_seconds >= 0 ? k->cpu_seconds : NAN);
    int64_t rm = requested_mem(s, k), rt = requested_time(s, k);
    int_or_null(w, "requested_mem_bytes", rm, rm > 0);
    int_or_null(w, "requested_cpus", k->req_cpus, k->req_cpus > 0);
    int_or_null(w, "requested_time_minutes", rt, rt > 0);
    json_string(w, "why", k->why);
    json_end_object(w);
    sb_text_free(&r);
}

/* The tasks without a report: their ranges, and what their SLURM logs say. */
static void json_missing(json_writer *w, const spacrbench_summary *s)
{
    char *missing = ranges_text(&s->missing);
    json_string(w, "missing", missing ? missing : "");
    free(missing);
    json_int(w, "missing_count", s->n_missing);
    json_begin_array(w, "missing_logs");
    for (size_t i = 0; i < s->n_missing_logs; i++) {
        json_begin_object(w, NULL);
        json_int(w, "task", s->missing_logs[i].index);
        json_bool(w, "timeout", s->missing_logs[i].timeout);
        json_bool(w, "out_of_memory", s->missing_logs[i].oom);
        json_end_object(w);
    }
    json_end_array(w);
}

static void json_counts(json_writer *w, const spacrbench_summary *s)
{
    json_begin_object(w, "counts");
    json_int(w, "ok", s->n_ok);
    json_int(w, "failed", s->n_failed);
    json_int(w, "out_of_memory", s->n_oom);
    json_int(w, "timeout", s->n_timeout);
    json_int(w, "missing", s->n_missing);
    json_int(w, "stale", s->n_stale);
    json_int(w, "unreadable", s->n_unreadable);
    json_int(w, "outside", s->n_outside);
    json_end_object(w);
}

/* The next submission: its array, --mem, --cpus-per-task, --time, and the
 * one command line. */
static void json_next(json_writer *w, const spacrbench_summary *s, const char *rerun)
{
    json_begin_object(w, "next");
    json_string(w, "array", rerun);
    int_or_null(w, "mem_per_task_bytes", (s->next_mem + (1 << 20) - 1) >> 20 << 20,
                s->next_mem > 0);
    json_int(w, "cpus_per_task", s->next_cpus);
    if (s->next_time > 0) {
        char time[32];
        sb_format_time_limit(time, sizeof time, s->next_time);
        json_int(w, "time_minutes", s->next_time);
        json_string(w, "time", time);
    } else {
        json_null(w, "time_minutes");
        json_null(w, "time");
    }
    if (rerun[0]) {
        sb_text c = {0};
        command_line(&c, s, rerun);
        json_string(w, "command", c.data);
        sb_text_free(&c);
    } else
        json_null(w, "command");
    json_end_object(w);
}

static void json_render(json_writer *w, const spacrbench_summary *s, const char *rerun,
                        const char *array, const char *text)
{
    json_begin_object(w, NULL);
    json_string(w, "directory", s->directory);
    json_string(w, "array", array);
    json_string(w, "array_source", s->array_source);
    json_string(w, "job_script", s->job_script);
    json_string(w, "newest_array_job", s->newest_job);
    json_begin_array(w, "tasks");
    for (size_t i = 0; i < s->n_tasks; i++)
        json_task(w, s, &s->tasks[i]);
    json_end_array(w);
    json_missing(w, s);
    json_begin_array(w, "ignored");
    for (size_t k = 0; k < s->n_ignored; k++)
        json_string(w, NULL, s->ignored[k]);
    json_end_array(w);
    json_counts(w, s);
    int_or_null(w, "peak_rss_bytes", s->peak, s->peak >= 0);
    json_bool(w, "peak_is_lower_bound", s->peak_is_lower_bound);
    json_next(w, s, rerun);
    json_int(w, "status", rerun[0] ? 3 : 0);
    json_string(w, "report", text);
    json_end_object(w);
}

int sum_render(spacrbench_summary *s)
{
    char *rerun = ranges_text(&s->rerun), *array = ranges_text(&s->array);
    sb_text t = {0};
    if (rerun && array)
        text_render(&t, s, rerun, array);
    int rc = 0;
    if (!rerun || !array || !t.data || t.failed)
        rc = sb_fail(SPACRBENCH_ENOMEM, "out of memory");
    if (rc == 0) {
        json_writer w;
        json_init(&w, 1);
        json_render(&w, s, rerun, array, t.data);
        const char *j = json_result(&w);
        if (!j || !(s->json = strdup(j)))
            rc = sb_fail(SPACRBENCH_ENOMEM, "out of memory");
        json_free(&w);
    }
    if (rc == 0)
        s->text = t.data;
    else
        sb_text_free(&t);
    free(rerun);
    free(array);
    return rc;
}
