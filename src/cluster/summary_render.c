/* The text and the JSON of a decided summary. Text from files summarize
 * did not write (items, keys, paths, log lines) goes through
 * sb_text_label: one line, no terminal escapes. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "internal.h"
#include "record.h"

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

/* What the task asked: its own report's figure, else this array's
 * manifest's (never for another array's report). */
static int64_t requested(const sum_task *t, int64_t own, int64_t manifest)
{
    return own > 0 || t->state == SUM_FOREIGN ? own : manifest;
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
    case SUM_FOREIGN:
        sb_text_label(t, k->why ? k->why : "missing (a report from an older job)");
        return;
    case SUM_OUTSIDE:
        sb_text_printf(t, "outside the array (left from another submission?): shown, not "
                          "counted or resubmitted");
        return;
    case SUM_FAILED:
        break;
    }
    int o = k->rec.outcome, status = (int)k->rec.exit_status;
    int sig = k->rec.signal > 0 ? (int)k->rec.signal : 0;
    if (k->slurm_timeout) {
        int64_t lim = requested(k, k->rec.time_minutes, s->manifest.rec.time_minutes);
        if (lim > 0)
            sb_text_printf(t, "TIMEOUT (SLURM's --time of %" PRId64 " min)", lim);
        else
            sb_text_printf(t, "TIMEOUT (SLURM's time limit)");
    } else if (k->rec.oom_limit_bytes > 0 || o == SB_TASK_OOM) {
        bytes_cell(b, sizeof b, k->rec.oom_limit_bytes > 0 ? k->rec.oom_limit_bytes : -1);
        sb_text_printf(t, "OOM-killed (limit %s)", k->rec.oom_limit_bytes > 0 ? b : "unknown");
    } else if (k->slurm_oom)
        sb_text_printf(t, "OOM-killed (the SLURM log says so)");
    else if (k->preempted)
        sb_text_printf(t, "preempted (the SLURM log says so)");
    else if (o == SB_TASK_TIMEOUT) {
        char given[48] = "?";
        double ended = k->rec.timeout_seconds > 0 ? k->rec.timeout_seconds
                                                  : s->manifest.rec.item_timeout_seconds;
        if (ended > 0)
            sb_slurm_seconds_text(given, sizeof given, ended);
        sb_text_printf(t, "item timeout (the script's item --timeout of %s s ended it)", given);
    } else if (o == SB_TASK_EXIT)
        sb_text_printf(t, "exited with status %d", status);
    else if (o == SB_TASK_SIGNAL)
        sb_text_printf(t, "killed by signal %d", sig);
    else if (o == SB_TASK_NOT_STARTED)
        sb_text_printf(t, "could not be started (exit %d)", status);
    else if (o == SB_TASK_INTERRUPTED)
        sb_text_printf(t, "interrupted by signal %d", sig);
    else
        sb_text_printf(t, "failed (an older report without a task record)");
}

static void row(sb_text *t, const spacrbench_summary *s, const sum_task *k)
{
    char req[32], peak[40], mem_use[32], cpu[32], wall[32], lim[32], tuse[32];
    int64_t rm = requested(k, k->rec.mem_bytes, s->manifest.rec.mem_bytes),
            rt = requested(k, k->rec.time_minutes, s->manifest.rec.time_minutes);
    int known = k->state != SUM_UNREADABLE;
    bytes_cell(req, sizeof req, rm);
    if (!known)
        snprintf(peak, sizeof peak, "unknown");
    else if (k->state == SUM_FAILED && k->peak >= 0) {
        char b[32];
        bytes_cell(b, sizeof b,
                   k->rec.oom_limit_bytes > k->peak ? k->rec.oom_limit_bytes : k->peak);
        snprintf(peak, sizeof peak, ">=%s", b); /* a failed task's peak is a lower bound */
    } else
        bytes_cell(peak, sizeof peak, k->peak);
    pct(mem_use, sizeof mem_use,
        known && rm > 0 && k->peak >= 0 ? (double)k->peak / (double)rm : -1);
    int64_t cpus =
        k->rec.cpus > 0 ? k->rec.cpus : (s->manifest.rec.cpus > 0 ? s->manifest.rec.cpus : 1);
    pct(cpu, sizeof cpu,
        known && k->cpu_seconds >= 0 && k->rec.elapsed_seconds > 0
            ? k->cpu_seconds / (k->rec.elapsed_seconds * (double)cpus)
            : -1);
    if (known && k->rec.elapsed_seconds >= 0)
        snprintf(wall, sizeof wall, "%.2fs", k->rec.elapsed_seconds);
    else
        snprintf(wall, sizeof wall, "-");
    if (rt > 0)
        snprintf(lim, sizeof lim, "%" PRId64 "m", rt);
    else
        snprintf(lim, sizeof lim, "-");
    pct(tuse, sizeof tuse,
        known && rt > 0 && k->rec.elapsed_seconds >= 0 ? k->rec.elapsed_seconds / ((double)rt * 60)
                                                       : -1);
    sb_text_printf(t, "%7" PRId64 "  ", k->index);
    cell(t, k->rec.item, ITEM_WIDTH);
    sb_text_printf(t, "  %10s  %11s  %7s  %7s  %9s  %5s  %8s  ", req, peak, mem_use, cpu, wall, lim,
                   tuse);
    result(t, s, k);
    sb_text_printf(t, "\n");
}

/* What a missing task's SLURM log says. */
static void log_says(sb_text *t, const sum_log *l)
{
    sb_text_printf(t, "its SLURM log slurm-%" PRId64 "_%" PRId64 ".out says ", l->job, l->index);
    if (l->setup) {
        sb_text_printf(t, "nothing was run: ");
        sb_text_label(t, l->said ? l->said : "?");
    } else if (l->timeout)
        sb_text_printf(t, "TIMEOUT: DUE TO TIME LIMIT");
    else if (l->oom)
        sb_text_printf(t, "OOM-killed (an oom-kill)");
    else
        sb_text_printf(t, "preempted: DUE TO PREEMPTION");
}

static void missing_row(sb_text *t, const spacrbench_summary *s, const sum_range *r)
{
    char idx[80];
    if (r->first == r->last)
        snprintf(idx, sizeof idx, "%7" PRId64, r->first);
    else
        sum_range_text(r, 1, idx, sizeof idx);
    sb_text_printf(t, "%7s  %-*s  %10s  %11s  %7s  %7s  %9s  %5s  %8s  ", idx, ITEM_WIDTH, "-", "-",
                   "unknown", "-", "-", "-", "-", "-");
    size_t k, n = sum_logs_of(s, r->first, &k);
    const sum_log *l = NULL;
    for (size_t i = k; i < k + n; i++)
        l = s->logs[i].missing ? &s->logs[i] : l;
    if (r->first == r->last && l) {
        sb_text_printf(t, "missing (no report; ");
        log_says(t, l);
        sb_text_printf(t, ")\n");
    } else if (r->first == r->last)
        sb_text_printf(t, "missing (no report: cancelled, never started, or killed before "
                          "writing one)\n");
    else {
        sb_text_printf(t,
                       "%" PRId64 " missing (no report: cancelled, never started, or killed "
                       "before writing one)\n",
                       (r->last - r->first) / r->step + 1);
        for (; k < s->n_logs && s->logs[k].index <= r->last; k++) {
            const sum_log *m = &s->logs[k];
            if (!m->missing || (m->index - r->first) % r->step != 0)
                continue;
            sb_text_printf(t, "%7" PRId64 "  ", m->index);
            log_says(t, m);
            sb_text_printf(t, "\n");
        }
    }
}

static char *ranges_text(const sum_ranges *r)
{
    sb_text t = {0};
    sum_ranges_write(&t, r, 0, r->n);
    return sb_text_take(&t);
}

/* What the --export beside each --time is for (a task cannot read its
 * own --time: SLURM exports no limit). */
#define TIME_EXPORT_WORDS                                                                          \
    "SPACRBENCH_TIME_LIMIT_MINUTES tells each task its --time, for its report's time use"

/* The counts by outcome, which tasks the array had and from where, and
 * the table's column heads. */
static void text_header(sb_text *t, const spacrbench_summary *s, const char *array)
{
    int64_t total = sum_ranges_count(&s->array);
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
    if (s->n_preempted)
        sb_text_printf(t, ", %" PRId64 " preempted", s->n_preempted);
    if (s->n_foreign)
        sb_text_printf(t, "; %" PRId64 " report(s) of another array, not counted", s->n_foreign);
    if (s->n_outside)
        sb_text_printf(t, "; %" PRId64 " report(s) outside the array, not counted", s->n_outside);
    sb_text_printf(t, "\ntasks %s, ", array[0] ? array : "-");
    sb_text_label(t, s->array_source ? s->array_source : "");
    if (s->throttle > 0)
        sb_text_printf(t, " (at most %" PRId64 " at once: %%%" PRId64 ")", s->throttle,
                       s->throttle);
    if (s->newest_job)
        sb_text_printf(t, "; newest submission: array job %s", s->newest_job);
    sb_text_printf(t, "\n%7s  %-*s  %10s  %11s  %7s  %7s  %9s  %5s  %8s  result\n", "task",
                   ITEM_WIDTH, "item", "requested", "peak", "mem use", "CPU eff", "elapsed",
                   "limit", "time use");
}

static int counted(const sum_task *k) { return k->state != SUM_FOREIGN && k->state != SUM_OUTSIDE; }

/* One row per task in index order: the array's reports and its missing
 * ranges merged (both are sorted), then the reports not counted (another
 * array's task 1 is no row of this array's, and would split the range of
 * missing tasks around it), then the files that were not reports. */
static void text_rows(sb_text *t, const spacrbench_summary *s)
{
    size_t i = 0, m = 0;
    for (;;) {
        while (i < s->n_tasks && !counted(&s->tasks[i]))
            i++;
        if (i == s->n_tasks && m == s->missing.n)
            break;
        int64_t ti = i < s->n_tasks ? s->tasks[i].index : INT64_MAX;
        int64_t mi = m < s->missing.n ? s->missing.r[m].first : INT64_MAX;
        if (mi < ti)
            missing_row(t, s, &s->missing.r[m++]);
        else
            row(t, s, &s->tasks[i++]);
    }
    for (size_t k = 0; k < s->n_tasks; k++)
        if (!counted(&s->tasks[k]))
            row(t, s, &s->tasks[k]);
    for (size_t k = 0; k < s->n_ignored; k++) {
        sb_text_printf(t, "ignored: ");
        sb_text_label(t, s->ignored[k]);
        sb_text_printf(t, " (not task-<index>.json, the name a task's report has)\n");
    }
}

/* The largest need the next --mem comes from, and what it cannot know. */
static void text_memory(sb_text *t, const spacrbench_summary *s)
{
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
}

static void print_lines(sb_text *t, char *const *lines, size_t n, const char *indent)
{
    for (size_t i = 0; i < n; i++)
        sb_text_printf(t, "%s%s\n", indent, lines[i]);
}

static const char *const k_need_word[SUM_NEEDS] = {
    [SUM_NEED_ITEM] = "the item --timeout",
    [SUM_NEED_COMMAND] = "the command failed",
    [SUM_NEED_FILES] = "the job's files",
    [SUM_NEED_LIMIT] = "beyond the limits",
};

/* The tasks of one need of the user, and what to do about them. */
static void text_need(sb_text *t, const spacrbench_summary *s, int need)
{
    char *tasks = ranges_text(&s->act[need]);
    sb_text_printf(t, "  %s: task(s) %s", k_need_word[need], tasks ? tasks : "?");
    free(tasks);
    if (need == SUM_NEED_ITEM) {
        char ended[48] = "?", next[48] = "0";
        if (s->ended_timeout > 0)
            sb_slurm_seconds_text(ended, sizeof ended, s->ended_timeout);
        if (s->next_item_timeout > 0)
            sb_slurm_seconds_text(next, sizeof next, s->next_item_timeout);
        sb_text_printf(t,
                       ": the job script's own item --timeout (%s s) ended the item, and a "
                       "resubmission as it is would end it the same way. To give items longer, "
                       "export SPACRBENCH_ITEM_TIMEOUT (seconds, read by the script; 0: no "
                       "limit), e.g. twice it (%s):\n",
                       ended, next);
        print_lines(t, s->act_lines[need], s->n_act_lines[need], "    ");
    } else if (need == SUM_NEED_COMMAND) {
        sb_text_printf(t, ": the command exited with its own status, crashed or could not be "
                          "started (see each row and its SLURM log); more memory or time does "
                          "not change that. Once fixed (or if it was a passing fault):\n");
        print_lines(t, s->act_lines[need], s->n_act_lines[need], "    ");
    } else if (need == SUM_NEED_FILES)
        sb_text_printf(t, ": the task stopped before anything ran (its SLURM log says why: files "
                          "that are not this job's, an items file changed since, a bad "
                          "SPACRBENCH_ITEM_TIMEOUT): emit the job again, then submit it\n");
    else
        sb_text_printf(t, ": SLURM's time limit ended it at the most a job can ask (365 days): "
                          "split its item, or ask your cluster's administrators\n");
}

/* The sbatch lines for the tasks to resubmit, what needs the user, or,
 * when all are ok, the options for a next array like this one. */
static void text_next(sb_text *t, const spacrbench_summary *s)
{
    int64_t act = 0;
    for (int n = SUM_NEED_ITEM; n < SUM_NEEDS; n++)
        act += sum_ranges_count(&s->act[n]);
    if (s->n_lines) {
        sb_text_printf(t,
                       "next submission: only the %" PRId64
                       " task(s) that need it, with the memory and time they need (--mem = "
                       "need + max(25%%, 256 MiB); --time = 2 x the longest elapsed, at least "
                       "5 min; " TIME_EXPORT_WORDS ")%s:\n",
                       sum_ranges_count(&s->rerun),
                       s->n_lines > 1 ? "; one argument cannot hold its --array, so it is "
                                        "split over several lines, each its own job"
                                      : "");
        print_lines(t, s->lines, s->n_lines, "  ");
    }
    if (act) {
        sb_text_printf(t,
                       "needs you: %" PRId64 " task(s) that a resubmission with more memory or "
                       "time does not fix:\n",
                       act);
        for (int n = SUM_NEED_ITEM; n < SUM_NEEDS; n++)
            if (s->act[n].n)
                text_need(t, s, n);
    }
    if ((s->n_lines || act) && !s->job_script)
        sb_text_printf(t,
                       "  (JOB_SCRIPT: the script the tasks ran; --job JOB_SCRIPT puts it "
                       "here%s)\n",
                       s->script_unusable ? "; the script's path holds control "
                                            "characters, so it is not printed"
                                          : "");
    if (!s->n_lines && !act) {
        sb_text_printf(t,
                       "all %" PRId64 " task(s) ok: nothing to resubmit; for a next array like "
                       "this one:",
                       s->n_ok);
        const sum_line_settings next = {s->next_mem, s->next_cpus, s->next_time, -1};
        sum_options(t, &next);
        sb_text_printf(t, s->next_time > 0 ? " (" TIME_EXPORT_WORDS ")\n" : "\n");
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

/* A task's object in the JSON document: its members as they are, and
 * what it does not hold as one (names, words, the requests with the
 * manifest's) in a view, each unknown figure -1 so that the table writes
 * it as null. */
typedef struct task_view {
    const char *state, *outcome, *result, *needs;
    int64_t oom_limit_bytes, req_mem, req_cpus, req_time;
    int32_t oom, item_timeout;
} task_view;

#define N                               SB_FIELD_NULLABLE
#define TASK(key, type, member, flags)  SB_FIELD(key, type, sum_task, 0, member, flags, 0, 0, NULL)
#define SHOWN(key, type, member, flags) SB_FIELD(key, type, task_view, 1, member, flags, 0, 0, NULL)
static const sb_field k_task_row[] = {
    TASK("task", SB_FT_INT, index, 0),
    SHOWN("state", SB_FT_TEXT, state, 0),
    TASK("report", SB_FT_TEXT, file, N),
    TASK("item", SB_FT_TEXT, rec.item, N),
    SHOWN("outcome", SB_FT_TEXT, outcome, N),
    SHOWN("result", SB_FT_TEXT, result, N),
    TASK("array_job", SB_FT_TEXT, rec.array_job_id, N),
    TASK("array_key", SB_FT_TEXT, rec.array_key, N),
    SHOWN("needs", SB_FT_TEXT, needs, N),
    TASK("exit_status", SB_FT_INT, rec.exit_status, N),
    TASK("signal", SB_FT_INT, rec.signal, N), /* the reader keeps 1..128, else -1 */
    SHOWN("oom_limit_bytes", SB_FT_INT, oom_limit_bytes, 0),
    SHOWN("out_of_memory", SB_FT_BOOL, oom, 0),
    TASK("timeout", SB_FT_BOOL, slurm_timeout, 0),
    SHOWN("item_timeout", SB_FT_BOOL, item_timeout, 0),
    TASK("preempted", SB_FT_BOOL, preempted, 0),
    TASK("peak_rss_bytes", SB_FT_INT, peak, N),
    TASK("seconds", SB_FT_NUMBER, rec.elapsed_seconds, N),
    TASK("cpu_seconds", SB_FT_NUMBER, cpu_seconds, N),
    SHOWN("requested_mem_bytes", SB_FT_INT, req_mem, N),
    SHOWN("requested_cpus", SB_FT_INT, req_cpus, N),
    SHOWN("requested_time_minutes", SB_FT_INT, req_time, N),
    TASK("why", SB_FT_TEXT, why, N),
};
static const sb_record k_task_record = SB_RECORD("summary task", k_task_row);

#define LOG(key, type, member) SB_FIELD(key, type, sum_log, 0, member, 0, 0, 0, NULL)
static const sb_field k_missing_log[] = {
    LOG("task", SB_FT_INT, index),           LOG("array_job", SB_FT_INT, job),
    LOG("timeout", SB_FT_BOOL, timeout),     LOG("out_of_memory", SB_FT_BOOL, oom),
    LOG("preempted", SB_FT_BOOL, preempted), LOG("nothing_run", SB_FT_BOOL, setup),
    LOG("said", SB_FT_TEXT, said),
};
static const sb_record k_missing_log_record = SB_RECORD("summary missing log", k_missing_log);

#define COUNT(key, member) SB_FIELD(key, SB_FT_INT, spacrbench_summary, 0, member, 0, 0, 0, NULL)
static const sb_field k_counts[] = {
    COUNT("ok", n_ok),
    COUNT("failed", n_failed),
    COUNT("out_of_memory", n_oom),
    COUNT("timeout", n_timeout),
    COUNT("missing", n_missing),
    COUNT("stale", n_stale),
    COUNT("unreadable", n_unreadable),
    COUNT("outside", n_outside),
    COUNT("foreign", n_foreign),
    COUNT("preempted", n_preempted),
};
static const sb_record k_counts_record = SB_RECORD("summary counts", k_counts);

/* Each need's name in the JSON. */
static const char *const k_need[SUM_NEEDS] = {
    NULL, "rerun", "item_timeout", "command_failed", "job_files", "beyond_limits"};

static void json_task(json_writer *w, const spacrbench_summary *s, const sum_task *k)
{
    static const char *const k_state[] = {"ok",    "failed",  "unreadable",
                                          "stale", "outside", "foreign"};
    _Static_assert(sizeof k_state / sizeof *k_state == SUM_STATES, "one name per sum_state");
    sb_text r = {0};
    result(&r, s, k);
    int64_t rm = requested(k, k->rec.mem_bytes, s->manifest.rec.mem_bytes),
            rt = requested(k, k->rec.time_minutes, s->manifest.rec.time_minutes);
    const task_view v = {
        .state = k_state[k->state],
        .outcome = k->rec.outcome >= 0 ? sb_task_outcome_name(k->rec.outcome) : NULL,
        .result = r.data,
        .needs = k_need[k->need],
        .oom_limit_bytes = k->rec.oom_limit_bytes > 0 ? k->rec.oom_limit_bytes : 0,
        .req_mem = rm > 0 ? rm : -1,
        .req_cpus = k->rec.cpus > 0 ? k->rec.cpus : -1,
        .req_time = rt > 0 ? rt : -1,
        .oom = sum_task_oom(k),
        .item_timeout = k->rec.outcome == SB_TASK_TIMEOUT,
    };
    const void *const parts[] = {k, &v};
    sb_record_write(w, NULL, &k_task_record, parts, NULL);
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
    for (size_t i = 0; i < s->n_logs; i++) {
        const void *const parts[] = {&s->logs[i]};
        if (s->logs[i].missing)
            sb_record_write(w, NULL, &k_missing_log_record, parts, NULL);
    }
    json_end_array(w);
}

static void json_lines(json_writer *w, const char *name, char *const *lines, size_t n)
{
    json_begin_array(w, name);
    for (size_t i = 0; i < n; i++)
        json_string(w, NULL, lines[i]);
    json_end_array(w);
}

/* The next submission: its array, --mem, --cpus-per-task, --time, and its
 * command line(s) (the first as "command"). */
static void json_next_submission(json_writer *w, const spacrbench_summary *s, const char *rerun)
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
    int_or_null(w, "array_limit", s->throttle, s->throttle > 0);
    json_string(w, "command", s->n_lines ? s->lines[0] : NULL);
    json_lines(w, "commands", s->lines, s->n_lines);
    json_end_object(w);
}

/* What needs the user: the reason, the tasks, the offered lines. */
static void json_needs(json_writer *w, const spacrbench_summary *s)
{
    json_begin_array(w, "needs_you");
    for (int n = SUM_NEED_ITEM; n < SUM_NEEDS; n++) {
        if (!s->act[n].n)
            continue;
        char *tasks = ranges_text(&s->act[n]);
        json_begin_object(w, NULL);
        json_string(w, "reason", k_need[n]);
        json_string(w, "tasks", tasks ? tasks : "");
        json_int(w, "count", sum_ranges_count(&s->act[n]));
        if (n == SUM_NEED_ITEM) {
            json_double(w, "item_timeout_seconds", s->ended_timeout);
            json_double(w, "next_item_timeout_seconds", s->next_item_timeout);
        }
        json_lines(w, "commands", s->act_lines[n], s->n_act_lines[n]);
        json_end_object(w);
        free(tasks);
    }
    json_end_array(w);
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
    const void *const summary[] = {s};
    sb_record_write(w, "counts", &k_counts_record, summary, NULL);
    int_or_null(w, "peak_rss_bytes", s->peak, s->peak >= 0);
    json_bool(w, "peak_is_lower_bound", s->peak_is_lower_bound);
    json_next_submission(w, s, rerun);
    json_needs(w, s);
    json_int(w, "status", spacrbench_summary_status(s));
    json_string(w, "report", text);
    json_end_object(w);
}

int sum_render(spacrbench_summary *s)
{
    s->work += s->n_tasks + s->missing.n + s->n_missing_logs + s->n_ignored; /* each row once */
    char *rerun = ranges_text(&s->rerun), *array = ranges_text(&s->array);
    sb_text t = {0};
    if (rerun && array) {
        text_header(&t, s, array);
        text_rows(&t, s);
        text_memory(&t, s);
        text_next(&t, s);
    }
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
