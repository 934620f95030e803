/* Which attempt counts, which tasks are missing, the next settings and
 * which tasks a resubmission fixes, over this array's reports and logs
 * alone. Why each rule: docs/scheduler-handoff.md ("How summarize
 * decides"). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "internal.h"
#include "util.h"

/* What a submission asked, from its reports and its logs' first lines. */
typedef struct request {
    int64_t job, mem, time;
} request;

typedef struct asked {
    request *r;
    size_t n;
    int64_t max_mem, max_time; /* the most any submission of this array asked */
} asked;

/* The item --timeout to give again: the largest a submission of this
 * array gave (the logs' first lines; 0 none, the largest of all), when it
 * is not the script's own. -1: the script's. */
static double item_timeout_given(const spacrbench_summary *s)
{
    double built_in = s->manifest.rec.item_timeout_seconds, given = built_in;
    for (size_t i = 0; i < s->n_logs; i++) {
        const sum_log *l = &s->logs[i];
        if (!l->ours || !l->header || l->item_timeout < 0 || given == 0)
            continue;
        if (l->item_timeout == 0 || l->item_timeout > given)
            given = l->item_timeout;
    }
    return given == built_in ? -1 : given;
}

static int request_order(const void *a, const void *b)
{
    const request *x = a, *y = b;
    return x->job < y->job ? -1 : x->job > y->job;
}

static int ours(const sum_task *t) { return t->state != SUM_FOREIGN && t->state != SUM_UNREADABLE; }

static int collect_requests(spacrbench_summary *s, asked *a)
{
    memset(a, 0, sizeof *a);
    a->r = malloc((s->n_tasks + s->n_logs + 1) * sizeof *a->r);
    if (!a->r)
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory");
    a->max_mem = s->manifest.rec.mem_bytes;
    a->max_time = s->manifest.rec.time_minutes;
    for (size_t i = 0; i < s->n_tasks; i++) {
        const sum_task *t = &s->tasks[i];
        if (!ours(t) || t->job < 0)
            continue;
        a->r[a->n++] = (request){t->job, t->rec.mem_bytes, t->rec.time_minutes};
    }
    for (size_t i = 0; i < s->n_logs; i++) {
        const sum_log *l = &s->logs[i];
        if (l->ours && l->header)
            a->r[a->n++] = (request){l->job, l->mem_bytes, l->time_minutes};
    }
    for (size_t i = 0; i < a->n; i++) {
        a->max_mem = a->r[i].mem > a->max_mem ? a->r[i].mem : a->max_mem;
        a->max_time = a->r[i].time > a->max_time ? a->r[i].time : a->max_time;
    }
    qsort(a->r, a->n, sizeof *a->r, request_order);
    sum_count_sort(s, a->n);
    /* One entry per job: the most its reports and logs say it asked. */
    size_t out = 0;
    for (size_t i = 0; i < a->n; i++) {
        if (out && a->r[out - 1].job == a->r[i].job) {
            request *r = &a->r[out - 1];
            r->mem = a->r[i].mem > r->mem ? a->r[i].mem : r->mem;
            r->time = a->r[i].time > r->time ? a->r[i].time : r->time;
        } else
            a->r[out++] = a->r[i];
    }
    a->n = out;
    s->work += a->n;
    return 0;
}

/* What job asked: its reports' or logs' figure, else the most any
 * submission of this array asked (never less than what failed). */
static void asked_by(const asked *a, int64_t job, int64_t *mem, int64_t *time)
{
    request key = {job, 0, 0};
    const request *hit = job >= 0 ? bsearch(&key, a->r, a->n, sizeof *a->r, request_order) : NULL;
    *mem = hit && hit->mem > 0 ? hit->mem : a->max_mem;
    *time = hit && hit->time > 0 ? hit->time : a->max_time;
}

/* The newest submission: the largest array job of this array's reports
 * and logs. */
static int find_newest_job(spacrbench_summary *s)
{
    int64_t newest = -1;
    for (size_t i = 0; i < s->n_tasks; i++)
        if (ours(&s->tasks[i]) && s->tasks[i].job > newest)
            newest = s->tasks[i].job;
    for (size_t i = 0; i < s->n_logs; i++)
        if (s->logs[i].ours && s->logs[i].job > newest)
            newest = s->logs[i].job;
    if (newest >= 0 && !(s->newest_job = sb_textf("%" PRId64, newest)))
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory");
    return 0;
}

/* The newest submission's tasks, when its reports say its range: 1 and
 * *set filled, 0 when unknown (an irregular --array such as 1,5). */
static int newest_range(const spacrbench_summary *s, sum_ranges *set)
{
    int64_t newest = s->newest_job ? strtoll(s->newest_job, NULL, 10) : -1;
    for (size_t i = 0; i < s->n_tasks; i++) {
        const sum_task *t = &s->tasks[i];
        if (!ours(t) || t->job != newest || t->rec.array_min < 0 ||
            t->rec.array_max < t->rec.array_min || t->rec.array_step < 1 || t->rec.array_count < 1)
            continue;
        if ((t->rec.array_max - t->rec.array_min) / t->rec.array_step + 1 != t->rec.array_count)
            return 0;
        return sum_ranges_add_step(set, t->rec.array_min, t->rec.array_max, t->rec.array_step) == 0;
    }
    return 0;
}

#define NEWEST INT64_MIN

/* This array's log of task index from job (NEWEST: the newest), NULL none. */
static sum_log *our_log(const spacrbench_summary *s, int64_t index, int64_t job)
{
    size_t first, n = sum_logs_of(s, index, &first);
    for (size_t k = first + n; k-- > first;)
        if (s->logs[k].ours && (job == NEWEST || s->logs[k].job == job))
            return &s->logs[k];
    return NULL;
}

/* l, the newest attempt of a task without a usable report, says how it
 * ended; its --time is what its job asked when it does not say. */
static void mark_missing(spacrbench_summary *s, sum_log *l, const asked *a)
{
    int64_t mem, time;
    asked_by(a, l->job, &mem, &time);
    if (l->time_minutes <= 0)
        l->time_minutes = time;
    l->missing = 1;
    s->n_missing_logs++;
}

static const char *verdict(const sum_log *l)
{
    return l->setup       ? ": its log says nothing was run"
           : l->timeout   ? ": its log says TIMEOUT"
           : l->oom       ? ": its log says OOM-killed"
           : l->preempted ? ": its log says preempted"
                          : "";
}

/* Outside the array, or stale: a newer attempt (a log of a newer job, or
 * a newer submission whose range holds the task) left no report. */
static int mark_outside_and_stale(spacrbench_summary *s, const asked *a)
{
    sum_ranges newest = {0};
    int known = s->newest_job && newest_range(s, &newest);
    int rc = 0;
    for (size_t i = 0; i < s->n_tasks && rc == 0; i++) {
        sum_task *t = &s->tasks[i];
        s->work++;
        if (!ours(t))
            continue;
        if (!sum_ranges_contains(&s->array, t->index)) {
            t->state = SUM_OUTSIDE;
            continue;
        }
        sum_log *l = our_log(s, t->index, NEWEST);
        if (l && t->job >= 0 && l->job > t->job) {
            t->state = SUM_STALE;
            t->why = sb_textf("missing (a report from job %" PRId64 "; job %" PRId64
                              ", a newer submission, ran this task and left none%s)",
                              t->job, l->job, verdict(l));
            rc = t->why ? 0 : SPACRBENCH_ENOMEM;
            mark_missing(s, l, a);
        } else if (known && t->job >= 0 && t->job != strtoll(s->newest_job, NULL, 10) &&
                   sum_ranges_contains(&newest, t->index)) {
            t->state = SUM_STALE;
            t->why = sb_textf("missing (a report from job %" PRId64 "; job %s, the newest "
                              "submission, ran this task and left none)",
                              t->job, s->newest_job);
            rc = t->why ? 0 : SPACRBENCH_ENOMEM;
        }
    }
    sum_ranges_free(&newest);
    return rc ? sb_fail(SPACRBENCH_ENOMEM, "out of memory") : 0;
}

/* The missing indices: the array's, less those with one of this array's
 * reports (sorted): O(ranges + reports). A stale report's task is on its
 * own row. The SLURM log of each missing task's newest attempt is noted. */
static int find_missing(spacrbench_summary *s, const asked *a)
{
    int64_t *at = malloc((s->n_tasks + 1) * sizeof *at);
    if (!at)
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory");
    size_t n = 0;
    for (size_t i = 0; i < s->n_tasks; i++)
        if (s->tasks[i].state != SUM_FOREIGN && s->tasks[i].state != SUM_OUTSIDE &&
            (n == 0 || at[n - 1] != s->tasks[i].index))
            at[n++] = s->tasks[i].index;
    s->work += s->n_tasks + s->array.n;
    int rc = sum_ranges_subtract(&s->array, at, n, &s->missing);
    free(at);
    if (rc != 0)
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory");
    for (size_t i = 0; i < s->n_logs; i++) {
        const sum_log *l = &s->logs[i];
        int last_of_index = i + 1 == s->n_logs || s->logs[i + 1].index != l->index;
        if (!last_of_index || !sum_ranges_contains(&s->missing, l->index))
            continue;
        sum_log *newest = our_log(s, l->index, NEWEST);
        if (newest && (newest->timeout || newest->oom || newest->preempted || newest->setup))
            mark_missing(s, newest, a);
    }
    s->work += s->n_logs;
    return 0;
}

static int ended_by_signal(const sum_task *t)
{
    return t->rec.outcome == SB_TASK_INTERRUPTED || t->rec.outcome == SB_TASK_SIGNAL;
}

/* What ended a failed task; SLURM's own words where spacrbench had none
 * (its time limit, an oom-kill of the whole step, a preemption), from the
 * log of the task's own job. */
static void read_how_it_ended(const spacrbench_summary *s, sum_task *t, int64_t limit)
{
    if (t->state != SUM_FAILED)
        return;
    if (t->rec.outcome < 0 || ended_by_signal(t)) {
        const sum_log *l = our_log(s, t->index, t->job);
        if (l) {
            t->slurm_timeout |= l->timeout;
            t->slurm_oom |= l->oom;
            t->preempted |= l->preempted;
        }
    }
    if (!t->slurm_timeout && !t->preempted && ended_by_signal(t) && t->rec.signal == 15 &&
        limit > 0 && t->rec.elapsed_seconds >= 0.9 * (double)limit * 60)
        t->slurm_timeout = 1; /* SIGTERM at the limit: what SLURM's time limit sends */
}

static void count_state(spacrbench_summary *s, const sum_task *t)
{
    int64_t *const count[] = {&s->n_ok,    &s->n_failed,  &s->n_unreadable,
                              &s->n_stale, &s->n_outside, NULL}; /* foreign: summary_owner.c */
    _Static_assert(sizeof count / sizeof *count == SUM_STATES, "one counter per sum_state");
    if (count[t->state])
        (*count[t->state])++;
    if (t->state == SUM_FAILED) {
        s->n_oom += sum_task_oom(t);
        s->n_timeout += t->slurm_timeout;
        s->n_preempted += t->preempted;
    }
}

/* What one more run of t needs: every measured peak counts; an OOM-killed
 * task twice the limit it hit (or what its submission asked). */
static int64_t memory_need(const sum_task *t, int64_t job_mem)
{
    int64_t need = t->peak;
    int64_t given = t->rec.mem_bytes > 0 ? t->rec.mem_bytes : job_mem;
    if (t->rec.oom_limit_bytes > 0 && t->rec.oom_limit_bytes <= SUM_BYTES_MAX &&
        2 * t->rec.oom_limit_bytes > need)
        need = 2 * t->rec.oom_limit_bytes;
    else if ((t->slurm_oom || t->rec.outcome == SB_TASK_OOM) && given > 0 &&
             given <= SUM_BYTES_MAX && 2 * given > need)
        need = 2 * given;
    return need;
}

static void weigh_need(spacrbench_summary *s, int64_t need, int64_t task, int lower_bound)
{
    if (need > s->peak) {
        s->peak = need;
        s->peak_task = task;
        s->peak_is_lower_bound = lower_bound;
    }
}

/* This array's reports' peaks, times and CPUs toward the next submission;
 * returns the most cores one task kept busy. */
static int64_t weigh_tasks(spacrbench_summary *s, const asked *a)
{
    int64_t cpus = 0;
    for (size_t i = 0; i < s->n_tasks; i++) {
        sum_task *t = &s->tasks[i];
        s->work++;
        int64_t job_mem, job_time;
        asked_by(a, t->job, &job_mem, &job_time);
        int64_t limit = t->rec.time_minutes > 0 ? t->rec.time_minutes : job_time;
        read_how_it_ended(s, t, limit);
        count_state(s, t);
        if (!ours(t) || t->state == SUM_OUTSIDE)
            continue;
        weigh_need(s, memory_need(t, job_mem), t->index, t->state == SUM_FAILED);
        double elapsed = t->rec.elapsed_seconds > 0 ? t->rec.elapsed_seconds : 0;
        if (t->slurm_timeout && limit > 0 && (double)limit * 60 > elapsed)
            elapsed = (double)limit * 60;
        if (elapsed > s->slowest)
            s->slowest = elapsed;
        if (t->cpu_seconds >= 0 && t->rec.elapsed_seconds > 0) {
            double par;
            int64_t c = sb_cores_per_worker(t->cpu_seconds, t->rec.elapsed_seconds, &par);
            if (c > cpus)
                cpus = c;
        }
    }
    return cpus;
}

/* Every log of this array that names a kill: an oom-kill counts as twice
 * what its submission asked, a TIMEOUT as its time limit. */
static void weigh_logs(spacrbench_summary *s, const asked *a)
{
    for (size_t i = 0; i < s->n_logs; i++) {
        const sum_log *l = &s->logs[i];
        if (l->missing) {
            s->n_timeout += l->timeout;
            s->n_oom += l->oom;
            s->n_preempted += l->preempted;
        }
        if (!l->ours || !(l->oom || l->timeout))
            continue;
        int64_t mem, time;
        asked_by(a, l->job, &mem, &time);
        if (l->mem_bytes > 0)
            mem = l->mem_bytes;
        if (l->time_minutes > 0)
            time = l->time_minutes;
        if (l->oom && mem > 0 && mem <= SUM_BYTES_MAX)
            weigh_need(s, 2 * mem, l->index, 1);
        if (l->timeout && time > 0 && (double)time * 60 > s->slowest)
            s->slowest = (double)time * 60;
    }
    s->work += s->n_logs + s->n_missing_logs;
}

/* The --time rule, never beyond what a job can ask. */
static int64_t time_rule(double slowest, double item_timeout)
{
    int64_t minutes;
    if (spacrbench_time_limit_minutes(slowest, item_timeout, &minutes) != 0)
        minutes = SB_TIME_MAX_MINUTES;
    return minutes;
}

/* The next submission's --mem, --cpus-per-task and --time. */
static void next_settings(spacrbench_summary *s, int64_t cpus, const asked *a)
{
    s->next_mem = s->peak >= 0 ? sb_handoff_mem_bytes(s->peak) : a->max_mem;
    s->next_cpus = cpus > 0 ? cpus : (s->manifest.rec.cpus > 0 ? s->manifest.rec.cpus : 1);
    if (s->next_cpus > 1024)
        s->next_cpus = 1024;
    s->given_item_timeout = item_timeout_given(s);
    s->next_time =
        time_rule(s->slowest, s->given_item_timeout >= 0 ? s->given_item_timeout
                                                         : s->manifest.rec.item_timeout_seconds);
}

/* What a failed report's task needs. */
static sum_need report_need(const spacrbench_summary *s, const sum_task *t, const asked *a)
{
    int o = t->rec.outcome;
    if (sum_task_oom(t))
        return SUM_NEED_RERUN;
    if (t->slurm_timeout) {
        int64_t mem, time;
        asked_by(a, t->job, &mem, &time);
        int64_t limit = t->rec.time_minutes > 0 ? t->rec.time_minutes : time;
        return limit >= s->next_time ? SUM_NEED_LIMIT : SUM_NEED_RERUN;
    }
    if (t->rec.outcome == SB_TASK_TIMEOUT)
        return SUM_NEED_ITEM;
    /* Ended from outside (a preemption, scancel, the node): run it again. */
    if (t->preempted || o == SB_TASK_INTERRUPTED ||
        (o == SB_TASK_SIGNAL &&
         (t->rec.signal == 1 || t->rec.signal == 2 || t->rec.signal == 9 || t->rec.signal == 15)))
        return SUM_NEED_RERUN;
    if (o == SB_TASK_EXIT || o == SB_TASK_NOT_STARTED || o == SB_TASK_SIGNAL)
        return SUM_NEED_COMMAND;
    return SUM_NEED_RERUN; /* an older report without a task record */
}

static sum_need log_need(const spacrbench_summary *s, const sum_log *l)
{
    if (l->setup)
        return SUM_NEED_FILES;
    if (l->timeout && l->time_minutes >= s->next_time)
        return SUM_NEED_LIMIT;
    return SUM_NEED_RERUN;
}

/* Each task's need, and the sets: what the next submission reruns, and
 * what each need of the user holds. */
static int sort_needs(spacrbench_summary *s, const asked *a)
{
    /* Missing indices whose log names a need of the user leave the rerun
     * (the logs are sorted by index: so are they). */
    int64_t *special = malloc((s->n_missing_logs + 1) * sizeof *special);
    if (!special)
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory");
    size_t n_special = 0;
    for (sum_log *l = s->logs; l < s->logs + s->n_logs; l++) {
        l->need = l->missing ? log_need(s, l) : SUM_NEED_NONE;
        if (l->need > SUM_NEED_RERUN && sum_ranges_contains(&s->missing, l->index))
            special[n_special++] = l->index;
    }
    sum_ranges missing_rerun = {0};
    int rc = sum_ranges_subtract(&s->missing, special, n_special, &missing_rerun);
    free(special);
    s->work += s->n_missing_logs + s->missing.n;
    /* Merged in index order with the reports' tasks: the sets stay sorted. */
    size_t m = 0;
    for (size_t i = 0; i < s->n_tasks && rc == 0; i++) {
        sum_task *t = &s->tasks[i];
        s->work++;
        while (m < missing_rerun.n && missing_rerun.r[m].first < t->index && rc == 0) {
            const sum_range *r = &missing_rerun.r[m++];
            rc = sum_ranges_add_step(&s->rerun, r->first, r->last, r->step);
        }
        sum_need need = SUM_NEED_NONE;
        const sum_log *l = t->state == SUM_STALE ? our_log(s, t->index, NEWEST) : NULL;
        if (t->state == SUM_FAILED)
            need = report_need(s, t, a);
        else if (t->state == SUM_UNREADABLE && sum_ranges_contains(&s->array, t->index))
            need = SUM_NEED_RERUN;
        else if (t->state == SUM_STALE)
            need = l && l->missing ? l->need : SUM_NEED_RERUN;
        t->need = need;
        if (need == SUM_NEED_RERUN)
            rc = sum_ranges_add(&s->rerun, t->index, t->index);
        else if (need != SUM_NEED_NONE)
            rc = sum_ranges_add(&s->act[need], t->index, t->index);
    }
    for (; m < missing_rerun.n && rc == 0; m++)
        rc = sum_ranges_add_step(&s->rerun, missing_rerun.r[m].first, missing_rerun.r[m].last,
                                 missing_rerun.r[m].step);
    for (size_t i = 0; i < s->n_logs && rc == 0; i++) {
        const sum_log *l = &s->logs[i];
        if (l->need > SUM_NEED_RERUN && sum_ranges_contains(&s->missing, l->index))
            rc = sum_ranges_add(&s->act[l->need], l->index, l->index);
    }
    sum_ranges_free(&missing_rerun);
    sum_ranges_compact(&s->rerun);
    for (int n = 0; n < SUM_NEEDS; n++)
        sum_ranges_compact(&s->act[n]);
    return rc ? sb_fail(SPACRBENCH_ENOMEM, "out of memory") : 0;
}

/* The item --timeout a resubmission of the item-timeout tasks would give:
 * twice the largest that ended one (none beyond what --timeout takes). */
static void item_timeout_offer(spacrbench_summary *s)
{
    s->ended_timeout = 0;
    for (size_t i = 0; i < s->n_tasks; i++) {
        const sum_task *t = &s->tasks[i];
        if (t->need != SUM_NEED_ITEM)
            continue;
        double ended = t->rec.timeout_seconds > 0  ? t->rec.timeout_seconds
                       : s->given_item_timeout > 0 ? s->given_item_timeout
                                                   : s->manifest.rec.item_timeout_seconds;
        if (ended > s->ended_timeout)
            s->ended_timeout = ended;
    }
    s->next_item_timeout = s->ended_timeout > 0 && 2 * s->ended_timeout <= 1e7
                               ? 2 * s->ended_timeout
                               : 0; /* unknown, or beyond: none */
    s->item_time = time_rule(s->slowest, s->next_item_timeout);
}

int sum_decide(spacrbench_summary *s)
{
    int rc = sum_read_logs(s);
    if (rc == 0 && s->array_seen)
        rc = sum_array_as_seen(s, 1);
    asked a = {0};
    if (rc == 0)
        rc = collect_requests(s, &a);
    if (rc == 0)
        rc = find_newest_job(s);
    if (rc == 0)
        rc = mark_outside_and_stale(s, &a);
    if (rc == 0)
        rc = find_missing(s, &a);
    if (rc == 0) {
        s->peak = -1;
        s->peak_task = -1;
        s->slowest = 0;
        int64_t cpus = weigh_tasks(s, &a);
        s->n_missing = sum_ranges_count(&s->missing);
        weigh_logs(s, &a);
        next_settings(s, cpus, &a);
        rc = sort_needs(s, &a);
    }
    if (rc == 0) {
        item_timeout_offer(s);
        rc = sum_make_lines(s);
    }
    free(a.r);
    return rc;
}
