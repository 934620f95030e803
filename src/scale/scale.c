/* spacrbench_scale: check the options, choose the worker counts, measure
 * each count (sb_scale_run_point: scale_fork.c forks the workers on Linux)
 * and turn the points into a verdict (scale_rule.c). Platform-neutral. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc.h"
#include "scale.h"

enum { MAX_WORKERS = SB_SCALE_MAX_WORKERS };

/* One guard for scaling checks in this process; independent of the serial
 * runner's (a scaling check does not touch this process's own peaks). */
static atomic_flag scale_lock = ATOMIC_FLAG_INIT;
static _Thread_local char scale_thread; /* its address names a thread */
static _Atomic(const char *) scale_owner_thread;
static _Atomic(int64_t) scale_owner_pid; /* 0 while changing hands */

/* A child forked while another thread of the parent ran a scaling check
 * inherits the lock held by a thread it does not have: take it over. The
 * check's workers are forked by the holding thread itself, so they stay
 * refused. */
static int scale_lock_take(void)
{
    if (atomic_flag_test_and_set_explicit(&scale_lock, memory_order_acquire)) {
        int64_t pid = atomic_load(&scale_owner_pid);
        if (pid == 0 || pid == sb_self_pid() || atomic_load(&scale_owner_thread) == &scale_thread)
            return -1;
    }
    atomic_store(&scale_owner_thread, &scale_thread);
    atomic_store(&scale_owner_pid, sb_self_pid());
    return 0;
}

static void scale_lock_give(void)
{
    atomic_store(&scale_owner_pid, 0);
    atomic_store(&scale_owner_thread, NULL);
    atomic_flag_clear_explicit(&scale_lock, memory_order_release);
}

int spacrbench_scale_options_init(spacrbench_scale_options *opts, size_t size)
{
    sb_clear_error();
    if (!opts)
        return sb_fail(SPACRBENCH_EINVAL, "opts must not be NULL");
    if (size < sizeof(size_t))
        return sb_fail(SPACRBENCH_EINVAL, "size %zu is too small for spacrbench_scale_options",
                       size);
    spacrbench_scale_options d;
    memset(&d, 0, sizeof d);
    d.max_workers = d.items_per_worker = d.memory_budget_bytes = SPACRBENCH_AUTO;
    memset(opts, 0, size);
    memcpy(opts, &d, size < sizeof d ? size : sizeof d);
    opts->size = size;
    return SPACRBENCH_OK;
}

int spacrbench_scale_timing_init(spacrbench_scale_timing *t, size_t size)
{
    sb_clear_error();
    if (!t)
        return sb_fail(SPACRBENCH_EINVAL, "timing must not be NULL");
    if (size < sizeof(size_t))
        return sb_fail(SPACRBENCH_EINVAL, "size %zu is too small for spacrbench_scale_timing",
                       size);
    /* hyperfine takes at least 10 runs and 3 s; a count of workers costs k
     * times more, so fewer: enough that start-up is out and repeats agree. */
    spacrbench_scale_timing d = {sizeof d, 1, 3, 1.0, 2, 5, 0.05};
    memset(t, 0, size);
    memcpy(t, &d, size < sizeof d ? size : sizeof d);
    t->size = size;
    return SPACRBENCH_OK;
}

static int check_timing(const spacrbench_scale_timing *t)
{
    if (t->warmup_items < 0 || t->warmup_items > 1000000)
        return sb_fail(SPACRBENCH_EINVAL, "warmup_items is %lld; use 0 to 1000000",
                       (long long)t->warmup_items);
    if (t->min_items < 1 || t->min_items > 100000000)
        return sb_fail(SPACRBENCH_EINVAL, "min_items is %lld; use 1 to 100000000",
                       (long long)t->min_items);
    if (!(t->min_seconds >= 0 && t->min_seconds <= 86400))
        return sb_fail(SPACRBENCH_EINVAL, "min_seconds is %g; use 0 to 86400", t->min_seconds);
    if (t->min_repeats < 1 || t->max_repeats < t->min_repeats || t->max_repeats > 100)
        return sb_fail(SPACRBENCH_EINVAL,
                       "min_repeats %lld, max_repeats %lld; use 1 <= min <= max <= 100",
                       (long long)t->min_repeats, (long long)t->max_repeats);
    if (!(t->target_spread >= 0 && t->target_spread <= 100))
        return sb_fail(SPACRBENCH_EINVAL, "target_spread is %g; use 0 to 100", t->target_spread);
    return SPACRBENCH_OK;
}

static int check_options(const spacrbench_scale_options *o)
{
    if (o->worker_counts == NULL && o->n_worker_counts)
        return sb_fail(SPACRBENCH_EINVAL, "worker_counts is NULL but n_worker_counts is %zu",
                       o->n_worker_counts);
    if (o->n_worker_counts > 64)
        return sb_fail(SPACRBENCH_EINVAL, "n_worker_counts is %zu; at most 64", o->n_worker_counts);
    for (size_t i = 0; i < o->n_worker_counts; i++)
        if (o->worker_counts[i] < 1 || o->worker_counts[i] > MAX_WORKERS)
            return sb_fail(SPACRBENCH_EINVAL, "worker_counts[%zu] is %lld; use 1 to %d", i,
                           (long long)o->worker_counts[i], MAX_WORKERS);
    if (o->max_workers != SPACRBENCH_AUTO && (o->max_workers < 1 || o->max_workers > MAX_WORKERS))
        return sb_fail(SPACRBENCH_EINVAL, "max_workers is %lld; use 1 to %d (or AUTO)",
                       (long long)o->max_workers, MAX_WORKERS);
    if (o->items_per_worker != SPACRBENCH_AUTO && o->items_per_worker < 1)
        return sb_fail(SPACRBENCH_EINVAL, "items_per_worker is %lld; it must be >= 1 (or AUTO)",
                       (long long)o->items_per_worker);
    if (o->memory_budget_bytes < SPACRBENCH_AUTO)
        return sb_fail(SPACRBENCH_EINVAL, "memory_budget_bytes is %lld; it must be >= 0 (or AUTO)",
                       (long long)o->memory_budget_bytes);
    if (o->flags & ~(uint32_t)SPACRBENCH_SCALE_NO_CGROUP)
        return sb_fail(SPACRBENCH_EINVAL, "flags has unknown bits 0x%x",
                       o->flags & ~(uint32_t)SPACRBENCH_SCALE_NO_CGROUP);
    if (o->reserved)
        return sb_fail(SPACRBENCH_EINVAL, "reserved must be 0");
    return SPACRBENCH_OK;
}

/* available - reserve, as spacrbench_recommend computes them; -1 unknown. */
static int64_t auto_budget(char *note, size_t cap)
{
    spacrbench_recommendation rec;
    memset(&rec, 0, sizeof rec);
    rec.size = sizeof rec;
    note[0] = '\0';
    if (spacrbench_recommend(NULL, NULL, &rec) != 0) {
        snprintf(note, cap, "memory budget unknown: %s", spacrbench_last_error_message());
        return -1;
    }
    snprintf(note, cap, "memory budget: available memory less the %s reserve (%s rule)",
             "recommendation's", spacrbench_reserve_rule_name(rec.reserve_rule));
    if (rec.available_bytes <= 0)
        return -1;
    int64_t budget = rec.available_bytes - rec.reserve_bytes;
    return budget > 0 ? budget : 0;
}

int64_t spacrbench_scale_memory_budget(void)
{
    char note[600];
    return auto_budget(note, sizeof note);
}

/* The default counts after k = 1: powers of two below max, then max. */
static size_t default_counts(int64_t max, int64_t *counts, size_t cap)
{
    size_t n = 0;
    for (int64_t k = 2; k < max && n + 1 < cap; k *= 2)
        counts[n++] = k;
    if (max > 1)
        counts[n++] = max;
    return n;
}

static int scale_locked(sb_scale_args *a, const spacrbench_scale_options *o,
                        spacrbench_scale_result **out)
{
    char budget_note[600] = "";
    int64_t budget = o->memory_budget_bytes == SPACRBENCH_AUTO
                         ? auto_budget(budget_note, sizeof budget_note)
                         : o->memory_budget_bytes;
    a->budget = budget;
    size_t cap = o->n_worker_counts ? o->n_worker_counts : 64;
    spacrbench_scale_point *pts = calloc(cap, sizeof *pts);
    spacrbench_scale_spread *sps = calloc(cap, sizeof *sps);
    spacrbench_scale_result *notes = calloc(1, sizeof *notes); /* holds notes while running */
    int rc = SPACRBENCH_OK;
    size_t n = 0;
    if (!pts || !sps || !notes) {
        rc = sb_fail(SPACRBENCH_ENOMEM, "no memory for the scaling check");
        goto done;
    }
    if (o->n_worker_counts) {
        for (; n < o->n_worker_counts && rc == 0; n++)
            rc = sb_scale_run_point(a, o->worker_counts[n], &pts[n], &sps[n], notes);
    } else {
        rc = sb_scale_run_point(a, 1, &pts[0], &sps[0], notes);
        n++;
        int64_t max = o->max_workers;
        if (rc == 0 && max == SPACRBENCH_AUTO) {
            /* The recommendation's rule on the measured 1-worker peak, + 1
             * to show what lies beyond it, capped by the cores. */
            int64_t cores = spacrbench_usable_cores();
            max = cores;
            if (budget >= 0 && pts[0].peak_bytes > 0 && budget / pts[0].peak_bytes + 1 < max)
                max = budget / pts[0].peak_bytes + 1;
            if (max > MAX_WORKERS)
                max = MAX_WORKERS;
            sb_scale_notef(notes,
                           "worker counts up to %lld: %lld usable cores, memory for "
                           "%lld workers of the 1-worker peak (+ 1)",
                           (long long)max, (long long)cores,
                           budget >= 0 && pts[0].peak_bytes > 0
                               ? (long long)(budget / pts[0].peak_bytes)
                               : -1LL);
        }
        int64_t more[64];
        size_t m = rc == 0 ? default_counts(max, more, 63) : 0;
        for (size_t i = 0; i < m && rc == 0; i++)
            rc = sb_scale_run_point(a, more[i], &pts[n], &sps[n], notes), n++;
    }
    if (rc)
        goto done;
    rc = sb_scale_result_make(pts, n, sizeof *pts, sps, sizeof *sps, budget, out);
    if (rc)
        goto done;
    if (budget_note[0])
        sb_scale_notef(*out, "%s", budget_note);
    sb_scale_notef(*out,
                   "timing: %lld warm-up item(s) per worker untimed; each timed repeat runs at "
                   "least %lld item(s) per worker and %.2f s; %lld to %lld repeats (more while "
                   "they differ by more than \xc2\xb1%.0f %%)",
                   (long long)a->timing.warmup_items, (long long)a->timing.min_items,
                   a->timing.min_seconds, (long long)a->timing.min_repeats,
                   (long long)a->timing.max_repeats, 100.0 * a->timing.target_spread);
    for (size_t i = 0; i < notes->n_notes; i++)
        sb_scale_notef(*out, "%s", notes->notes[i]);
done:
    free(pts);
    free(sps);
    spacrbench_scale_free(notes);
    return rc;
}

int spacrbench_scale(spacrbench_work_fn work, void *const *items, size_t n_items, void *payload,
                     const spacrbench_scale_options *opts, spacrbench_scale_result **out)
{
    return spacrbench_scale_timed(work, items, n_items, payload, opts, NULL, out);
}

int spacrbench_scale_timed(spacrbench_work_fn work, void *const *items, size_t n_items,
                           void *payload, const spacrbench_scale_options *opts,
                           const spacrbench_scale_timing *timing, spacrbench_scale_result **out)
{
    sb_clear_error();
    if (!out)
        return sb_fail(SPACRBENCH_EINVAL, "out must not be NULL");
    *out = NULL;
    if (!work)
        return sb_fail(SPACRBENCH_EINVAL, "work must not be NULL");
    if (n_items == 0)
        return sb_fail(SPACRBENCH_ENOITEMS, "the scaling check needs at least one item");
    if (!items)
        return sb_fail(SPACRBENCH_EINVAL, "items must not be NULL when n_items is %zu", n_items);
    spacrbench_scale_options o;
    spacrbench_scale_options_init(&o, sizeof o);
    int rc = opts ? sb_struct_in(&o, sizeof o, opts, "spacrbench_scale_options") : 0;
    if (rc || (rc = check_options(&o)))
        return rc;
    spacrbench_scale_timing t;
    spacrbench_scale_timing_init(&t, sizeof t);
    rc = timing ? sb_struct_in(&t, sizeof t, timing, "spacrbench_scale_timing") : 0;
    if (rc == 0 && o.items_per_worker != SPACRBENCH_AUTO)
        t.min_items = o.items_per_worker;
    if (rc || (rc = check_timing(&t)))
        return rc;
    sb_scale_args a = {work, items, n_items, payload, t, -1, o.flags};
    if (scale_lock_take() != 0)
        return sb_fail(SPACRBENCH_EBUSY, "another scaling check is running in this process");
    rc = scale_locked(&a, &o, out);
    scale_lock_give();
    return rc;
}
