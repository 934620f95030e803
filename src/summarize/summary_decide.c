/* Deciding for spacrbench_summarize (summary.h): which report counts (a
 * newer submission's tasks win; an older report of a task it reran is
 * stale), which tasks are missing (as ranges: 10^6 missing tasks are one
 * range, not 10^6 rows), and the next submission by the hand-off rule:
 *   --mem  = the rule (peak + max(25%, 256 MiB)) on the largest peak ANY
 *            task reached, a failed task's included (a lower bound); a
 *            task OOM-killed at a limit needs more than it, so it counts
 *            as twice that limit (doubling finds any need in a few
 *            resubmissions, where "limit + margin" may never);
 *   --cpus-per-task = the largest measured CPU seconds per wall second;
 *   --time = the --time rule on the longest elapsed time, where a task
 *            that SLURM's time limit ended counts as that limit (it needed
 *            more), so the next --time is larger;
 *   --array = only the tasks that failed, are missing, stale or unreadable. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handoff_rule.h"
#include "internal.h"
#include "summary.h"

/* SLURM job ids grow: the longer digit string, else the larger. */
static int job_newer(const char *a, const char *b)
{
    if (!b)
        return 1;
    size_t la = strlen(a), lb = strlen(b);
    return la != lb ? la > lb : strcmp(a, b) > 0;
}

static int numeric(const char *t)
{
    return t && *t && strspn(t, "0123456789") == strlen(t) && strlen(t) <= 20;
}

/* The newest submission's tasks, when its reports say its range: 1 and
 * *set filled, 0 when unknown (an irregular --array such as 1,5). */
static int newest_range(const spacrbench_summary *s, sum_ranges *set)
{
    for (size_t i = 0; i < s->n_tasks; i++) {
        const sum_task *t = &s->tasks[i];
        if (!t->array_job || strcmp(t->array_job, s->newest_job) != 0 || t->array_min < 0 ||
            t->array_max < t->array_min || t->array_step < 1 || t->array_count < 1)
            continue;
        if ((t->array_max - t->array_min) / t->array_step + 1 != t->array_count)
            return 0;
        if (t->array_step == 1)
            return sum_ranges_add(set, t->array_min, t->array_max) == 0;
        for (int64_t k = t->array_min; k <= t->array_max; k += t->array_step)
            if (sum_ranges_add(set, k, k) != 0)
                return 0;
        return 1;
    }
    return 0;
}

static char *textf(const char *fmt, ...) SB_PRINTF(1, 2);
static char *textf(const char *fmt, ...)
{
    sb_text t = {0};
    va_list ap;
    va_start(ap, fmt);
    char buf[512];
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    sb_text_printf(&t, "%s", buf);
    return t.data;
}

/* The missing indices: the array's, less those with a report (both
 * sorted): O(ranges + reports). A stale report's task is counted missing
 * on its own row. */
static int find_missing(spacrbench_summary *s)
{
    size_t k = 0;
    for (size_t r = 0; r < s->array.n; r++) {
        int64_t at = s->array.r[r].first, last = s->array.r[r].last;
        while (k < s->n_tasks && s->tasks[k].index < at)
            k++;
        while (at <= last) {
            int64_t next = k < s->n_tasks ? s->tasks[k].index : INT64_MAX;
            if (next > at) {
                int64_t end = next - 1 < last ? next - 1 : last;
                if (sum_ranges_add(&s->missing, at, end) != 0)
                    return -1;
                at = end + 1;
            } else {
                at = next + 1;
                k++;
            }
        }
    }
    return 0;
}

/* The SLURM logs of missing tasks (the newest submission's, a bounded
 * number): a task SIGKILLed at its time limit or by an oom-kill of the
 * whole step leaves no report, but its log says which. */
#define SUM_MISSING_LOGS_MAX 1000

static int read_missing_logs(spacrbench_summary *s)
{
    if (!s->newest_job || s->n_logs == 0)
        return 0;
    int64_t newest = strtoll(s->newest_job, NULL, 10);
    for (size_t i = 0; i < s->n_logs && s->n_missing_logs < SUM_MISSING_LOGS_MAX; i++) {
        if (s->logs[i].job != newest || !sum_ranges_contains(&s->missing, s->logs[i].index))
            continue;
        sum_task t;
        memset(&t, 0, sizeof t);
        t.index = s->logs[i].index;
        sum_read_log(s, &t, s->newest_job);
        if (!t.slurm_timeout && !t.slurm_oom)
            continue;
        sum_missing_log *n =
            realloc(s->missing_logs, (s->n_missing_logs + 1) * sizeof *s->missing_logs);
        if (!n)
            return -1;
        s->missing_logs = n;
        s->missing_logs[s->n_missing_logs++] =
            (sum_missing_log){t.index, t.slurm_timeout, t.slurm_oom};
    }
    return 0;
}

/* The newest submission: the largest numeric array job id of the reports. */
static int find_newest_job(spacrbench_summary *s)
{
    for (size_t i = 0; i < s->n_tasks; i++)
        if (s->tasks[i].state != SUM_UNREADABLE && numeric(s->tasks[i].array_job) &&
            job_newer(s->tasks[i].array_job, s->newest_job))
            s->newest_job = s->tasks[i].array_job;
    if (s->newest_job && !(s->newest_job = strdup(s->newest_job)))
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory");
    return 0;
}

/* Outside the array, or stale: an older submission's report of a task the
 * newest one ran (its range known; one file per task, so only the range
 * says it). */
static void mark_outside_and_stale(spacrbench_summary *s)
{
    sum_ranges newest = {0};
    int known = s->newest_job && newest_range(s, &newest);
    for (size_t i = 0; i < s->n_tasks; i++) {
        sum_task *t = &s->tasks[i];
        if (t->state == SUM_UNREADABLE)
            continue;
        if (!sum_ranges_contains(&s->array, t->index)) {
            t->state = SUM_OUTSIDE;
            continue;
        }
        if (known && t->array_job && strcmp(t->array_job, s->newest_job) != 0 &&
            sum_ranges_contains(&newest, t->index)) {
            t->state = SUM_STALE;
            t->why = textf("missing (a report from job %s; job %s, the newest submission, "
                           "ran this task and left none)",
                           t->array_job, s->newest_job);
        }
    }
    sum_ranges_free(&newest);
}

static int ended_by_signal(const sum_task *t)
{
    return t->outcome &&
           (strcmp(t->outcome, "interrupted") == 0 || strcmp(t->outcome, "signal") == 0);
}

/* What ended a failed task; SLURM's own words where spacrbench had none
 * (its time limit, an oom-kill of the whole step). */
static void read_how_it_ended(spacrbench_summary *s, sum_task *t, int64_t limit)
{
    if (t->state != SUM_FAILED)
        return;
    if (!t->outcome || ended_by_signal(t))
        sum_read_log(s, t, t->array_job);
    if (!t->slurm_timeout && ended_by_signal(t) && t->signal == 15 && limit > 0 &&
        t->seconds >= 0.9 * (double)limit * 60)
        t->slurm_timeout = 1; /* SIGTERM at the limit: what SLURM's time limit sends */
}

static void count_state(spacrbench_summary *s, const sum_task *t)
{
    switch (t->state) {
    case SUM_OK:
        s->n_ok++;
        break;
    case SUM_FAILED:
        s->n_failed++;
        s->n_oom +=
            t->oom_limit > 0 || (t->outcome && strcmp(t->outcome, "oom") == 0) || t->slurm_oom;
        s->n_timeout += t->slurm_timeout;
        break;
    case SUM_UNREADABLE:
        s->n_unreadable++;
        break;
    case SUM_STALE:
        s->n_stale++;
        break;
    case SUM_OUTSIDE:
        s->n_outside++;
        break;
    }
}

/* What one more run of t needs: every measured peak counts; an OOM-killed
 * task as twice the limit it hit. */
static int64_t memory_need(const sum_task *t)
{
    int64_t need = t->peak;
    if (t->oom_limit > 0 && t->oom_limit <= SUM_BYTES_MAX && 2 * t->oom_limit > need)
        need = 2 * t->oom_limit;
    else if (t->slurm_oom && t->req_mem > 0 && 2 * t->req_mem > need)
        need = 2 * t->req_mem;
    return need;
}

/* Each readable task's peak, time and CPU count toward the next
 * submission; returns the most cores one task kept busy. */
static int64_t weigh_tasks(spacrbench_summary *s)
{
    s->peak = -1;
    s->peak_task = -1;
    s->slowest = 0;
    int64_t cpus = 0;
    for (size_t i = 0; i < s->n_tasks; i++) {
        sum_task *t = &s->tasks[i];
        int64_t limit = t->req_time > 0 ? t->req_time : s->manifest.req_time;
        read_how_it_ended(s, t, limit);
        count_state(s, t);
        if (t->state == SUM_UNREADABLE)
            continue;
        int64_t need = memory_need(t);
        if (need > s->peak) {
            s->peak = need;
            s->peak_task = t->index;
            s->peak_is_lower_bound = t->state == SUM_FAILED;
        }
        double elapsed = t->seconds > 0 ? t->seconds : 0;
        if (t->slurm_timeout && limit > 0 && (double)limit * 60 > elapsed)
            elapsed = (double)limit * 60;
        if (elapsed > s->slowest)
            s->slowest = elapsed;
        if (t->cpu_seconds >= 0 && t->seconds > 0) {
            double par;
            int64_t c = sb_cores_per_worker(t->cpu_seconds, t->seconds, &par);
            if (c > cpus)
                cpus = c;
        }
    }
    return cpus;
}

/* Missing tasks whose SLURM log says TIMEOUT or an oom-kill. */
static void weigh_missing_logs(spacrbench_summary *s)
{
    int64_t limit = s->manifest.req_time;
    for (size_t i = 0; i < s->n_missing_logs; i++) {
        const sum_missing_log *l = &s->missing_logs[i];
        s->n_timeout += l->timeout;
        s->n_oom += l->oom;
        if (l->timeout && limit > 0 && (double)limit * 60 > s->slowest)
            s->slowest = (double)limit * 60;
        if (l->oom && s->manifest.req_mem > 0 && 2 * s->manifest.req_mem > s->peak) {
            s->peak = 2 * s->manifest.req_mem;
            s->peak_task = l->index;
            s->peak_is_lower_bound = 1;
        }
    }
}

/* The next submission's --mem, --cpus-per-task and --time. */
static void next_settings(spacrbench_summary *s, int64_t cpus)
{
    int64_t known_req = s->manifest.req_mem;
    for (size_t i = 0; i < s->n_tasks && known_req < 0; i++)
        known_req = s->tasks[i].req_mem;
    s->next_mem = s->peak >= 0 ? sb_handoff_mem_bytes(s->peak) : known_req;
    s->next_cpus = cpus > 0 ? cpus : (s->manifest.req_cpus > 0 ? s->manifest.req_cpus : 1);
    if (s->next_cpus > 1024)
        s->next_cpus = 1024;
    s->item_timeout = s->manifest.item_timeout;
    if (spacrbench_time_limit_minutes(s->slowest, s->item_timeout, &s->next_time) != 0)
        s->next_time = -1;
}

/* The tasks to rerun: failed, stale, unreadable within the array, and
 * every missing range, merged in index order so the set stays sorted. */
static int rerun_set(spacrbench_summary *s)
{
    for (size_t i = 0, m = 0; i < s->n_tasks || m < s->missing.n;) {
        int64_t ti = i < s->n_tasks ? s->tasks[i].index : INT64_MAX;
        int64_t mi = m < s->missing.n ? s->missing.r[m].first : INT64_MAX;
        int rc = 0;
        if (mi < ti) {
            rc = sum_ranges_add(&s->rerun, mi, s->missing.r[m].last);
            m++;
        } else {
            const sum_task *t = &s->tasks[i++];
            if (t->state == SUM_FAILED || t->state == SUM_STALE ||
                (t->state == SUM_UNREADABLE && sum_ranges_contains(&s->array, t->index)))
                rc = sum_ranges_add(&s->rerun, t->index, t->index);
        }
        if (rc != 0)
            return rc;
    }
    return 0;
}

int sum_decide(spacrbench_summary *s)
{
    if (find_newest_job(s) != 0)
        return SPACRBENCH_ENOMEM;
    mark_outside_and_stale(s);
    if (find_missing(s) != 0)
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory");
    int64_t cpus = weigh_tasks(s);
    s->n_missing = sum_ranges_count(&s->missing);
    if (read_missing_logs(s) != 0)
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory");
    weigh_missing_logs(s);
    next_settings(s, cpus);
    return rerun_set(s);
}
