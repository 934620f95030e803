/* The one scaling driver (spacrbench_scale_execute): every rule of the
 * check, over an executor that only runs what it is asked (hyperfine's
 * benchmark loop over its Executor is the model). Per count k: open k
 * workers (their group with the budget as its memory limit, where the
 * driver measures it), one untimed warm-up round, then timed repeats of
 * the same items per worker, a repeat too short for min_seconds redone
 * with more (the timing rules); the point, its spread, what ended it (an
 * OOM kill at the budget is a memory point) and the notes. The counts:
 * given, or 1 then powers of two up to the top count. Platform-neutral:
 * the executors are the fork harness (scale/scale_fork.c), the
 * command's copies (cli/run_scale.c) and Python's pool (_scale.py). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os.h"
#include "scale.h"

struct spacrbench_scale_driver {
    spacrbench_scale_executor ex;
    size_t n_items;
    spacrbench_scale_options o;
    spacrbench_scale_timing t;
    int64_t budget;
    spacrbench_scale_result *held; /* the notes, in order, until the result exists */
    int64_t base;                  /* worker 0's first item in the next count */
    int64_t m;                     /* items per worker of a timed round: only grows */
    int64_t rounds, short_rounds, most_items;
    int group_noted, limited, watched;
    int stopped;       /* a stop request ended the check */
    int64_t stopped_k; /* during this count (its point failed); 0: before it started */
};

/* One count while it runs. */
typedef struct count_run {
    int64_t k;
    int64_t *first;             /* each worker's next item */
    spacrbench_scale_worker *w; /* each worker's last round */
    int64_t *pids;
    spacrbench_group *g;         /* the driver's measure of it (SPACRBENCH_SCALE_EXECUTOR_GROUP) */
    spacrbench_scale_outcome oc; /* the last answer */
    double ips[SB_SCALE_MAX_REPEATS];
    size_t repeats;
    int64_t items;
    double seconds, busy;
    int32_t index;   /* the count's next round */
    int budget_held; /* the driver's group: 1 its limit, 2 watched (no cgroup) */
    int opened, failed, stopped, grown, sigkilled, ran;
} count_run;

/* The timing rules, pure: a round shorter than min_seconds is redone with
 * more items, sized from that timed round's own pace (so the items only
 * ever grow); the repeats' spread and when they stop; the default counts
 * and their top. */
static void spread_of(const double *ips, size_t n, spacrbench_scale_spread *sp)
{
    double lo = INFINITY, hi = -INFINITY, sum = 0;
    size_t used = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(ips[i])) {
            lo = ips[i] < lo ? ips[i] : lo;
            hi = ips[i] > hi ? ips[i] : hi;
            sum += ips[i];
            used++;
        }
    sp->repeats = (int64_t)used;
    sp->items_per_second_min = used ? lo : NAN;
    sp->items_per_second_max = used ? hi : NAN;
    sp->spread = used >= 2 && sum > 0 ? (hi - lo) / (2.0 * sum / (double)used) : NAN;
}

static int want_repeat(const spacrbench_scale_timing *t, const double *ips, size_t n)
{
    if ((int64_t)n < t->min_repeats)
        return 1;
    if ((int64_t)n >= t->max_repeats)
        return 0;
    spacrbench_scale_spread sp;
    spacrbench_scale_spread_init(&sp, sizeof sp);
    spread_of(ips, n, &sp);
    return isfinite(sp.spread) && sp.spread > t->target_spread;
}

static int round_short(const spacrbench_scale_timing *t, int64_t items, double seconds, int grown)
{
    return seconds < t->min_seconds && items < SPACRBENCH_SCALE_MAX_ROUND_ITEMS &&
           grown < SB_SCALE_MAX_GROW;
}

static int64_t grown_items(const spacrbench_scale_timing *t, int64_t items, double seconds)
{
    double want = seconds > 0 ? ceil(1.2 * t->min_seconds * (double)items / seconds)
                              : (double)SPACRBENCH_SCALE_MAX_ROUND_ITEMS;
    if (want < (double)items + 1)
        want = (double)items + 1;
    return want > SPACRBENCH_SCALE_MAX_ROUND_ITEMS ? SPACRBENCH_SCALE_MAX_ROUND_ITEMS
                                                   : (int64_t)want;
}

static size_t default_counts(int64_t top, int64_t *counts, size_t cap)
{
    size_t n = 0;
    for (int64_t k = 2; k < top && n + 1 < cap; k *= 2)
        counts[n++] = k;
    if (top > 1 && n < cap)
        counts[n++] = top;
    return n;
}

static int64_t top_count(int64_t cores, int64_t budget, int64_t peak1)
{
    int64_t top = cores < 1 ? 1 : cores;
    if (budget >= 0 && peak1 > 0 && budget / peak1 + 1 < top)
        top = budget / peak1 + 1;
    return top > SPACRBENCH_SCALE_MAX_WORKERS ? SPACRBENCH_SCALE_MAX_WORKERS : top;
}

static const char *workers_word(int64_t k) { return k == 1 ? "worker" : "workers"; }

/* A note of the driver's: the executor's hook may take it (1), else it is
 * kept in the result, in order. */
static int dnote(spacrbench_scale_driver *d, int32_t kind, const char *fmt, ...) SB_PRINTF(3, 4);
static int dnote(spacrbench_scale_driver *d, int32_t kind, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (d->ex.note && d->ex.note(kind, line, d->ex.payload) != 0)
        return SPACRBENCH_OK;
    return sb_scale_notef(d->held, "%s", line);
}

/* A callback's error: its words where it gave them, else its own message. */
static int executor_error(const char *which, int rc, const spacrbench_scale_outcome *oc)
{
    if (oc && oc->why[0])
        return sb_fail(rc, "the scaling executor's %s: %.*s", which, (int)sizeof oc->why, oc->why);
    if (spacrbench_last_error_message()[0])
        return rc;
    return sb_fail(rc, "the scaling executor's %s failed (%d)", which, rc);
}

static void outcome_reset(spacrbench_scale_outcome *oc)
{
    memset(oc, 0, sizeof *oc);
    oc->size = sizeof *oc;
}

/* The driver's group of a count (the budget its limit, before any worker
 * joins), holding the k workers; the first count's says how it measures. */
static int group_open(spacrbench_scale_driver *d, count_run *c)
{
    int rc = spacrbench_group_open(d->o.flags, &c->g);
    if (rc)
        return rc;
    if (!d->group_noted) {
        d->group_noted = 1;
        dnote(d, SPACRBENCH_SCALE_NOTE_METHOD, "%s", spacrbench_group_note(c->g));
    }
    /* The budget as the group's limit; where no cgroup can hold one, the
     * group's sampler ends the count that passes it. */
    if (d->budget > 0 && spacrbench_group_set_limit(c->g, d->budget) == 0)
        c->budget_held = 1;
    else if (d->budget > 0 && sb_process_group_watch(c->g, d->budget) == 0)
        c->budget_held = 2;
    for (int64_t i = 0; i < c->k && rc == 0; i++)
        rc = spacrbench_group_add_process(c->g, c->pids[i]);
    return rc;
}

/* Open the count: k workers, and their group where the driver measures it.
 * 0 open, 1 the executor could not start them (a failed point), or an
 * error. Worker w starts at item base + w * n / k: the workers spread over
 * the items, and each count starts where the last one's worker 0 stopped. */
static int count_open(spacrbench_scale_driver *d, count_run *c)
{
    size_t k = (size_t)c->k;
    c->first = calloc(k, sizeof *c->first);
    c->w = calloc(k, sizeof *c->w);
    c->pids = calloc(k, sizeof *c->pids);
    if (!c->first || !c->w || !c->pids)
        return sb_fail(SPACRBENCH_ENOMEM, "no memory for %lld workers", (long long)c->k);
    int64_t n = (int64_t)d->n_items;
    for (int64_t i = 0; i < c->k; i++)
        c->first[i] = (d->base + i * n / c->k) % n;
    outcome_reset(&c->oc);
    int rc = d->ex.open(d, c->k, d->budget, c->pids, &c->oc, d->ex.payload);
    if (rc < 0)
        return executor_error("open", rc, &c->oc);
    if (rc > 0) {
        c->failed = 1;
        dnote(d, SPACRBENCH_SCALE_NOTE_FAILED, "%lld %s: %.*s; the point is marked failed",
              (long long)c->k, workers_word(c->k), (int)sizeof c->oc.why,
              c->oc.why[0] ? c->oc.why : "its workers could not be started");
        return 1;
    }
    c->opened = 1;
    return d->ex.flags & SPACRBENCH_SCALE_EXECUTOR_GROUP ? group_open(d, c) : 0;
}

/* One round of `items` per worker. 0 ran (c->failed, c->stopped say how),
 * or an error. The workers' next items follow what was asked of them. */
static int count_round(spacrbench_scale_driver *d, count_run *c, int64_t items, int warmup,
                       int64_t *done, double *busy)
{
    for (int64_t i = 0; i < c->k; i++)
        c->w[i] =
            (spacrbench_scale_worker){sizeof c->w[i], 0, 0.0, SPACRBENCH_SCALE_WORKER_LOST, 0};
    outcome_reset(&c->oc);
    spacrbench_scale_round r = {sizeof r, c->k, items, c->first, warmup, c->index++};
    int rc = d->ex.round(d, &r, c->w, &c->oc, d->ex.payload);
    if (rc < 0)
        return executor_error("round", rc, &c->oc);
    d->rounds++;
    *done = 0;
    *busy = 0;
    int failed = c->oc.failed != 0;
    for (int64_t i = 0; i < c->k; i++) {
        *done += c->w[i].items;
        *busy += isfinite(c->w[i].item_seconds) ? c->w[i].item_seconds : 0;
        failed |= c->w[i].end != SPACRBENCH_SCALE_WORKER_DONE;
        c->sigkilled |= c->w[i].sigkilled != 0;
        c->first[i] = (c->first[i] + items) % (int64_t)d->n_items;
    }
    c->ran |= c->oc.stopped != 2;
    c->stopped = c->oc.stopped;
    c->failed = failed || c->stopped || *done < c->k * items;
    return 0;
}

/* The warm-up round, then timed repeats while the timing wants another:
 * each asks d->m items per worker; one shorter than min_seconds is redone
 * with more (at most SB_SCALE_MAX_GROW times), the items only ever grow. */
static int count_rounds(spacrbench_scale_driver *d, count_run *c)
{
    int64_t done;
    double busy;
    int rc = 0;
    if (d->t.warmup_items > 0)
        rc = count_round(d, c, d->t.warmup_items, 1, &done, &busy);
    while (rc == 0 && !c->failed && want_repeat(&d->t, c->ips, c->repeats)) {
        rc = count_round(d, c, d->m, 0, &done, &busy);
        if (rc || c->failed)
            break;
        if (round_short(&d->t, d->m, c->oc.seconds, c->grown)) {
            c->grown++, d->short_rounds++;
            d->m = grown_items(&d->t, d->m, c->oc.seconds);
            continue;
        }
        c->ips[c->repeats++] = c->oc.seconds > 0 ? (double)done / c->oc.seconds : 0;
        c->items += done;
        c->seconds += c->oc.seconds;
        c->busy += busy;
        d->most_items = d->m > d->most_items ? d->m : d->most_items;
    }
    return rc;
}

/* A failed round in words: the executor's, else from the workers' ends. */
static void note_round_failure(spacrbench_scale_driver *d, const count_run *c)
{
    int work_failed = 0;
    for (int64_t i = 0; i < c->k; i++)
        work_failed |= c->w[i].end == SPACRBENCH_SCALE_WORKER_FAILED;
    const char *why = c->oc.why[0]  ? c->oc.why
                      : work_failed ? "the work failed in a worker"
                                    : "a worker died or did not finish its items";
    dnote(d, SPACRBENCH_SCALE_NOTE_FAILED, "%lld %s: %.*s; the point is marked failed",
          (long long)c->k, workers_word(c->k), (int)sizeof c->oc.why, why);
}

static void count_init(spacrbench_scale_count *count)
{
    memset(count, 0, sizeof *count);
    count->size = sizeof *count;
    count->peak_bytes = count->vram_peak_bytes = SPACRBENCH_NOT_MEASURED;
    count->oom_kills = count->limit_bytes = -1;
    count->peak_method = SPACRBENCH_PEAK_NONE;
}

/* End the count: a failed one's group is killed first (its workers may be
 * mid-item), then the executor ends and reaps its workers, so the group's
 * OOM count and peak read next are final. 1 when close says a worker
 * ended badly after all. */
static int count_close(spacrbench_scale_driver *d, count_run *c, spacrbench_scale_count *count,
                       int *late_failure)
{
    count_init(count);
    *late_failure = 0;
    if (!c->opened)
        return 0;
    if (c->failed && c->g)
        sb_process_group_kill_all(c->g);
    int rc = d->ex.close(d, c->failed, count, d->ex.payload);
    c->opened = 0;
    if (rc < 0)
        return executor_error("close", rc, NULL);
    *late_failure = rc > 0;
    if (!c->g)
        return 0;
    count->oom_kills = spacrbench_group_oom_kills(c->g);
    count->oom_outside = 0;
    count->limit_is_budget = c->budget_held;
    count->ended_at_budget = sb_process_group_watch_ended(c->g) > 0;
    spacrbench_group_peak(c->g, &count->peak_bytes, &count->peak_method);
    /* Without a cgroup, how often the PSS sampler really looked, so a
     * missed spike's length is known ("" with a cgroup). */
    const char *sampled = spacrbench_group_sampling_note(c->g);
    if (sampled[0])
        dnote(d, SPACRBENCH_SCALE_NOTE_COUNT, "%lld %s: %s", (long long)c->k, workers_word(c->k),
              sampled);
    rc = spacrbench_group_close(c->g);
    c->g = NULL;
    return rc;
}

/* What ended a failed count's memory (spacrbench_scale_spread.oom_killed):
 * the kernel in the group's own cgroup at the budget (a memory point), the
 * kernel at a limit around it, or nothing of the kind. */
static int32_t memory_end(const count_run *c, const spacrbench_scale_count *count)
{
    if (count->ended_at_budget)
        return SB_SCALE_ENDED_AT_BUDGET;
    sb_oom_facts f = {count->oom_kills, count->oom_outside, c->sigkilled,
                      count->ours,      count->peak_bytes,  count->limit_bytes};
    int v = sb_oom_verdict(&f);
    if (v == SB_OOM_IN_GROUP && count->limit_is_budget == 1)
        return SB_SCALE_OOM_AT_BUDGET;
    return v == SB_OOM_NO ? SB_SCALE_OOM_NONE : SB_SCALE_OOM_OUTSIDE;
}

/* What ended the count's memory, in the one wording of every executor (the
 * command's copies, the forked workers, Python's pool): the kernel's OOM
 * kills are failures (a front end may say them as they happen), the
 * watch's end is a note about the count. */
static void memory_note(spacrbench_scale_driver *d, const count_run *c,
                        const spacrbench_scale_count *count, int32_t end)
{
    const char *their = c->k == 1 ? "its" : "their";
    char b[32];
    sb_format_bytes(b, sizeof b, d->budget);
    if (end == SB_SCALE_OOM_AT_BUDGET)
        dnote(d, SPACRBENCH_SCALE_NOTE_FAILED,
              "%lld %s: over the memory budget: OOM-killed in %s group at its limit of %s (the "
              "budget), a memory point; the caller is above the group and was not touched",
              (long long)c->k, workers_word(c->k), their, b);
    else if (end == SB_SCALE_ENDED_AT_BUDGET)
        dnote(d, SPACRBENCH_SCALE_NOTE_COUNT,
              "%lld %s: over the memory budget: ended by spacrbench when %s sampled memory "
              "passed the budget of %s (no cgroup could hold the limit), a memory point; the "
              "caller was not touched",
              (long long)c->k, workers_word(c->k), their, b);
    if (end != SB_SCALE_OOM_OUTSIDE)
        return;
    /* Old kernels count no kills: then a SIGKILL at the limit said it. */
    char kills[48] = "a process", limit[64] = "", l[32];
    if (count->oom_kills > 0)
        snprintf(kills, sizeof kills, "%lld process(es)", (long long)count->oom_kills);
    if (count->limit_bytes > 0) {
        sb_format_bytes(l, sizeof l, count->limit_bytes);
        snprintf(limit, sizeof limit, "; memory limit %s", l);
    }
    if (count->oom_outside)
        dnote(d, SPACRBENCH_SCALE_NOTE_FAILED,
              "%lld %s: the kernel's OOM killer ended %s while %s ran (at a limit outside the "
              "check's group%s; counted by the oom_kill count of the cgroup that held %s)",
              (long long)c->k, workers_word(c->k), kills, c->k == 1 ? "it" : "they", limit,
              c->k == 1 ? "it" : "them");
    else
        dnote(d, SPACRBENCH_SCALE_NOTE_FAILED,
              "%lld %s: the kernel's OOM killer ended %s in %s group (at a limit outside the "
              "check's group%s)",
              (long long)c->k, workers_word(c->k), kills, their, limit);
}

/* The point from the timed repeats and the count's figures; a count over
 * the budget is named as the memory point it is. */
static void count_point(spacrbench_scale_driver *d, const count_run *c,
                        const spacrbench_scale_count *count, spacrbench_scale_point *pt,
                        spacrbench_scale_spread *sp)
{
    pt->items = c->items;
    pt->seconds = c->seconds;
    pt->mean_item_seconds = c->items > 0 ? c->busy / (double)c->items : NAN;
    pt->failed = c->failed || c->repeats == 0;
    pt->peak_bytes = count->peak_bytes;
    pt->peak_method = count->peak_method;
    pt->vram_peak_bytes = count->vram_peak_bytes;
    if (count->limit_is_budget && d->budget > 0) {
        sp->limit_bytes = d->budget;
        d->limited |= count->limit_is_budget == 1;
        d->watched |= count->limit_is_budget == 2;
    }
    spread_of(c->ips, c->repeats, sp);
    sp->oom_killed = pt->failed ? memory_end(c, count) : SB_SCALE_OOM_NONE;
    memory_note(d, c, count, sp->oom_killed);
}

static void count_free(count_run *c)
{
    free(c->first);
    free(c->w);
    free(c->pids);
}

/* Measure count k into *pt and *sp. 0 with *have set when there is a point
 * (none when a stop came before anything ran), or an error; an error
 * leaves no worker and no group behind. */
static int measure_count(spacrbench_scale_driver *d, int64_t k, spacrbench_scale_point *pt,
                         spacrbench_scale_spread *sp, int *have)
{
    count_run c;
    memset(&c, 0, sizeof c);
    c.k = k;
    spacrbench_scale_point_init(pt, sizeof *pt);
    spacrbench_scale_spread_init(sp, sizeof *sp);
    pt->workers = k;
    sp->warmup_items = d->t.warmup_items;
    int rc = count_open(d, &c);
    if (rc == 0)
        rc = count_rounds(d, &c);
    c.failed |= rc < 0; /* an error ends the workers too */
    if (rc == 0 && c.failed && c.stopped != 2)
        note_round_failure(d, &c);
    spacrbench_scale_count count;
    int late = 0, closed = count_close(d, &c, &count, &late);
    if (rc == 1) /* not started: a failed point, and no close was owed */
        rc = 0;
    rc = rc ? rc : closed;
    if (rc == 0 && late && !c.failed) {
        c.failed = 1;
        note_round_failure(d, &c);
    }
    if (c.stopped) {
        d->stopped = 1;
        d->stopped_k = c.ran ? k : 0;
    }
    *have = rc == 0 && (c.ran || !c.stopped);
    if (*have)
        count_point(d, &c, &count, pt, sp);
    if (c.g)
        spacrbench_group_close(c.g); /* an error path: nothing may stay */
    if (c.first) /* the items rotate: the next count begins where this one stopped */
        d->base = c.first[0];
    count_free(&c);
    return rc;
}

/* The counts after the 1-worker point: the top count from its peak. */
static size_t auto_counts(spacrbench_scale_driver *d, const spacrbench_scale_point *one,
                          int64_t *counts, size_t cap)
{
    int64_t top = d->o.max_workers;
    if (top == SPACRBENCH_AUTO) {
        int64_t cores = d->ex.cores > 0 ? d->ex.cores : spacrbench_usable_cores();
        top = top_count(cores, d->budget, one->peak_bytes);
        if (d->budget >= 0 && one->peak_bytes > 0)
            dnote(d, SPACRBENCH_SCALE_NOTE_METHOD,
                  "worker counts up to %lld: %lld usable cores, memory for %lld workers of the "
                  "1-worker peak (+ 1)",
                  (long long)top, (long long)cores, (long long)(d->budget / one->peak_bytes));
        else
            dnote(d, SPACRBENCH_SCALE_NOTE_METHOD,
                  "worker counts up to %lld: %lld usable cores (the budget or the 1-worker "
                  "peak is unknown, so memory sets no bound)",
                  (long long)top, (long long)cores);
    }
    return default_counts(top, counts, cap);
}

/* Every count: the caller's, else 1 and then the default ones. *n points. */
static int measure_counts(spacrbench_scale_driver *d, spacrbench_scale_point *pts,
                          spacrbench_scale_spread *sps, size_t *n)
{
    int64_t counts[64];
    size_t want = d->o.n_worker_counts, next = 0;
    if (want)
        memcpy(counts, d->o.worker_counts, want * sizeof *counts);
    else
        counts[0] = 1, want = 1;
    int rc = 0;
    size_t unguarded = 0;
    for (; next < want && rc == 0 && !d->stopped; next++) {
        int have = 0;
        /* No memory beyond the reserve: no group limit would let a worker
         * start, so a count above 1 runs with none. The default counts end
         * at 1 then (memory for 0 workers, + 1); counts the caller named
         * run, and a note says what that risks. */
        unguarded += d->budget == 0 && counts[next] > 1;
        rc = measure_count(d, counts[next], &pts[*n], &sps[*n], &have);
        *n += (size_t)have;
        if (rc == 0 && !d->o.n_worker_counts && next == 0 && have && !d->stopped)
            want += auto_counts(d, &pts[0], counts + 1, 63);
    }
    if (unguarded)
        dnote(d, SPACRBENCH_SCALE_NOTE_METHOD,
              "the memory budget is 0 B (the reserve takes all the memory available), so %zu "
              "worker count(s) above 1 ran with no limit on their group: none can fit, and a "
              "limit outside the check's group (a job's, a container's) may end them or this "
              "process; lower the reserve or free memory",
              unguarded);
    if (d->stopped && d->stopped_k)
        dnote(d, SPACRBENCH_SCALE_NOTE_METHOD,
              "the check was stopped during the count of %lld %s (marked failed, never the "
              "knee); %zu of %zu worker counts measured before it",
              (long long)d->stopped_k, workers_word(d->stopped_k), *n - 1, want);
    else if (d->stopped)
        dnote(d, SPACRBENCH_SCALE_NOTE_METHOD,
              "the check was stopped after %zu of %zu worker counts", *n, want);
    return rc;
}

/* How the check measured, after the counts: the budget and the timing. */
static void method_notes(spacrbench_scale_driver *d, const char *budget_note)
{
    if (budget_note[0])
        dnote(d, SPACRBENCH_SCALE_NOTE_METHOD, "%s", budget_note);
    char b[32];
    sb_format_bytes(b, sizeof b, d->budget);
    if (d->limited)
        dnote(d, SPACRBENCH_SCALE_NOTE_METHOD,
              "each count's group had the memory budget (%s) as its limit: a count over it is "
              "OOM-killed inside its group (a memory point), never the caller",
              b);
    if (d->watched)
        dnote(d, SPACRBENCH_SCALE_NOTE_METHOD,
              "no cgroup could hold a limit, so spacrbench watched each count's sampled memory "
              "and ended a count that passed the budget (%s), a memory point; a spike shorter "
              "than the sampling interval can pass unseen",
              b);
    const spacrbench_scale_timing *t = &d->t;
    char most[96] = "";
    if (t->min_seconds > 0)
        snprintf(most, sizeof most,
                 " (a shorter one is redone with more items: %lld at most "
                 "here, %lld of %lld rounds redone)",
                 (long long)d->most_items, (long long)d->short_rounds, (long long)d->rounds);
    dnote(d, SPACRBENCH_SCALE_NOTE_METHOD,
          "timing: %lld warm-up item(s) per worker untimed; each timed repeat runs at least "
          "%lld item(s) per worker and %.2f s%s; %lld to %lld repeats (more while they differ "
          "by more than \xc2\xb1%.0f %%); items/s = all timed items / all timed seconds",
          (long long)t->warmup_items, (long long)t->min_items, t->min_seconds, most,
          (long long)t->min_repeats, (long long)t->max_repeats, 100.0 * t->target_spread);
}

static int check_executor(const spacrbench_scale_executor *ex, size_t n_items)
{
    if (!ex)
        return sb_fail(SPACRBENCH_EINVAL, "executor must not be NULL");
    if (ex->size < offsetof(spacrbench_scale_executor, note) + sizeof ex->note)
        return sb_fail(SPACRBENCH_EINVAL, "executor size %zu is not a spacrbench_scale_executor",
                       ex->size);
    if (!ex->open || !ex->round || !ex->close)
        return sb_fail(SPACRBENCH_EINVAL, "the executor needs open, round and close");
    if (ex->flags & ~(uint32_t)SPACRBENCH_SCALE_EXECUTOR_GROUP || ex->reserved)
        return sb_fail(SPACRBENCH_EINVAL, "executor flags 0x%x (reserved %u) are unknown",
                       ex->flags, ex->reserved);
    if (n_items == 0)
        return sb_fail(SPACRBENCH_ENOITEMS, "the scaling check needs at least one item");
    return SPACRBENCH_OK;
}

/* The check, with the lock held: every count, then the result. */
static int execute_locked(spacrbench_scale_driver *d, spacrbench_scale_result **out)
{
    char budget_note[600] = "";
    d->budget = d->o.memory_budget_bytes == SPACRBENCH_AUTO
                    ? sb_scale_auto_budget(budget_note, sizeof budget_note)
                    : d->o.memory_budget_bytes;
    d->m = d->t.min_items;
    spacrbench_scale_point *pts = calloc(64, sizeof *pts);
    spacrbench_scale_spread *sps = calloc(64, sizeof *sps);
    d->held = calloc(1, sizeof *d->held);
    size_t n = 0;
    int rc = pts && sps && d->held ? measure_counts(d, pts, sps, &n)
                                   : sb_fail(SPACRBENCH_ENOMEM, "no memory for the scaling check");
    if (rc == 0) {
        method_notes(d, budget_note);
        rc = n ? sb_scale_result_make(pts, n, sizeof *pts, sps, sizeof *sps, d->budget, out)
               : sb_fail(SPACRBENCH_ENOITEMS, "the check was stopped before any count ran");
    }
    for (size_t i = 0; rc == 0 && i < d->held->n_notes; i++)
        rc = sb_scale_notef(*out, "%s", d->held->notes[i]);
    if (rc && *out) {
        spacrbench_scale_free(*out);
        *out = NULL;
    }
    free(pts);
    free(sps);
    spacrbench_scale_free(d->held);
    return rc;
}

int spacrbench_scale_executor_init(spacrbench_scale_executor *ex, size_t size)
{
    sb_clear_error();
    spacrbench_scale_executor d;
    memset(&d, 0, sizeof d);
    d.cores = SPACRBENCH_AUTO;
    return sb_struct_init(ex, size, &d, sizeof d, "executor", "spacrbench_scale_executor");
}

int spacrbench_scale_execute(const spacrbench_scale_executor *ex, size_t n_items,
                             const spacrbench_scale_options *opts,
                             const spacrbench_scale_timing *timing, spacrbench_scale_result **out)
{
    SB_REFUSE(!out, "out must not be NULL");
    *out = NULL;
    spacrbench_scale_driver d;
    memset(&d, 0, sizeof d);
    int rc = check_executor(ex, n_items);
    if (rc == 0)
        rc = sb_struct_in(&d.ex, sizeof d.ex, ex, "spacrbench_scale_executor");
    if (rc == 0)
        rc = sb_scale_args_in(opts, timing, &d.o, &d.t);
    if (rc)
        return rc;
    d.n_items = n_items;
    if (sb_scale_lock_take() != 0)
        return sb_fail(SPACRBENCH_EBUSY, "another scaling check is running in this process");
    rc = execute_locked(&d, out);
    sb_scale_lock_give();
    return rc;
}

int spacrbench_scale_driver_note(spacrbench_scale_driver *driver, const char *note)
{
    sb_clear_error();
    if (!driver || !note)
        return sb_fail(SPACRBENCH_EINVAL, "%s must not be NULL", driver ? "note" : "driver");
    return sb_scale_notef(driver->held, "%s", note);
}
