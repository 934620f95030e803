/* The scaling check's public entry points around the one driver
 * (scale_driver.c): the options and the timing (defaults, checks), the
 * AUTO memory budget, the one-check-per-process lock, and
 * spacrbench_scale / spacrbench_scale_timed, the driver over the forked
 * workers of the fork executor. Platform-neutral. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os.h"
#include "scale.h"

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
int sb_scale_lock_take(void)
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

void sb_scale_lock_give(void)
{
    atomic_store(&scale_owner_pid, 0);
    atomic_store(&scale_owner_thread, NULL);
    atomic_flag_clear_explicit(&scale_lock, memory_order_release);
}

int spacrbench_scale_options_init(spacrbench_scale_options *opts, size_t size)
{
    sb_clear_error();
    spacrbench_scale_options d;
    memset(&d, 0, sizeof d);
    d.max_workers = d.items_per_worker = d.memory_budget_bytes = SPACRBENCH_AUTO;
    return sb_struct_init(opts, size, &d, sizeof d, "opts", "spacrbench_scale_options");
}

int spacrbench_scale_timing_init(spacrbench_scale_timing *t, size_t size)
{
    sb_clear_error();
    /* hyperfine takes at least 10 runs and 3 s; a count of workers costs k
     * times more, so fewer: enough that start-up is out and repeats agree. */
    spacrbench_scale_timing d = {sizeof d, 1, 3, 1.0, 2, 5, 0.05};
    return sb_struct_init(t, size, &d, sizeof d, "timing", "spacrbench_scale_timing");
}

/* The worker counts a scaling check may measure, checked once for every
 * front end, the problem named in the caller's words. */
int spacrbench_scale_check_counts(const int64_t *counts, size_t n, const char *name)
{
    sb_clear_error();
    name = name ? name : "worker_counts";
    if (!counts && n)
        return sb_fail(SPACRBENCH_EINVAL, "%s is NULL but holds %zu counts", name, n);
    if (n > 64)
        return sb_fail(SPACRBENCH_EINVAL, "%s has %zu counts; at most 64", name, n);
    for (size_t i = 0; i < n; i++) {
        if (counts[i] < 1)
            return sb_fail(SPACRBENCH_EINVAL, "%s[%zu] is %lld; it must be >= 1", name, i,
                           (long long)counts[i]);
        if (counts[i] > SPACRBENCH_SCALE_MAX_WORKERS)
            return sb_fail(SPACRBENCH_EINVAL,
                           "%s[%zu] is %lld; at most %d (the cap of every "
                           "front end)",
                           name, i, (long long)counts[i], SPACRBENCH_SCALE_MAX_WORKERS);
        for (size_t j = 0; j < i; j++)
            if (counts[i] == counts[j])
                return sb_fail(SPACRBENCH_EINVAL, "%s: worker count %lld appears twice", name,
                               (long long)counts[i]);
    }
    return SPACRBENCH_OK;
}

static int check_options(const spacrbench_scale_options *o)
{
    enum { CAP = SPACRBENCH_SCALE_MAX_WORKERS };
    int rc = spacrbench_scale_check_counts(o->worker_counts, o->n_worker_counts, "worker_counts");
    if (rc != SPACRBENCH_OK)
        return rc;
    if (o->max_workers != SPACRBENCH_AUTO && (o->max_workers < 1 || o->max_workers > CAP))
        return sb_fail(SPACRBENCH_EINVAL, "max_workers is %lld; use 1 to %d (or AUTO)",
                       (long long)o->max_workers, CAP);
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

/* The timing's ranges, the one check of every front end. */
static int check_timing(const spacrbench_scale_timing *t)
{
    if (t->warmup_items < 0 || t->warmup_items > 1000000)
        return sb_fail(SPACRBENCH_EINVAL, "warmup_items is %lld; use 0 to 1000000",
                       (long long)t->warmup_items);
    if (t->min_items < 1 || t->min_items > SPACRBENCH_SCALE_MAX_ROUND_ITEMS)
        return sb_fail(SPACRBENCH_EINVAL, "min_items is %lld; use 1 to %d", (long long)t->min_items,
                       SPACRBENCH_SCALE_MAX_ROUND_ITEMS);
    if (!(t->min_seconds >= 0 && t->min_seconds <= 86400))
        return sb_fail(SPACRBENCH_EINVAL, "min_seconds is %g; use 0 to 86400", t->min_seconds);
    if (t->min_repeats < 1 || t->max_repeats < t->min_repeats ||
        t->max_repeats > SB_SCALE_MAX_REPEATS)
        return sb_fail(SPACRBENCH_EINVAL,
                       "min_repeats %lld, max_repeats %lld; use 1 <= min <= max <= %d",
                       (long long)t->min_repeats, (long long)t->max_repeats, SB_SCALE_MAX_REPEATS);
    if (!(t->target_spread >= 0 && t->target_spread <= 100))
        return sb_fail(SPACRBENCH_EINVAL, "target_spread is %g; use 0 to 100", t->target_spread);
    return SPACRBENCH_OK;
}

int sb_scale_args_in(const spacrbench_scale_options *opts, const spacrbench_scale_timing *timing,
                     spacrbench_scale_options *o, spacrbench_scale_timing *t)
{
    spacrbench_scale_options_init(o, sizeof *o);
    int rc = opts ? sb_struct_in(o, sizeof *o, opts, "spacrbench_scale_options") : 0;
    if (rc || (rc = check_options(o)))
        return rc;
    spacrbench_scale_timing_init(t, sizeof *t);
    rc = timing ? sb_struct_in(t, sizeof *t, timing, "spacrbench_scale_timing") : 0;
    if (rc == 0 && o->items_per_worker != SPACRBENCH_AUTO) {
        if (o->items_per_worker > SPACRBENCH_SCALE_MAX_ROUND_ITEMS)
            return sb_fail(SPACRBENCH_EINVAL, "items_per_worker is %lld; use 1 to %d",
                           (long long)o->items_per_worker, SPACRBENCH_SCALE_MAX_ROUND_ITEMS);
        t->min_items = o->items_per_worker;
    }
    return rc ? rc : check_timing(t);
}

int64_t sb_scale_auto_budget(char *note, size_t cap)
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
    return sb_scale_auto_budget(note, sizeof note);
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
    SB_REFUSE(!out, "out must not be NULL");
    *out = NULL;
    if (!work)
        return sb_fail(SPACRBENCH_EINVAL, "work must not be NULL");
    if (n_items == 0)
        return sb_fail(SPACRBENCH_ENOITEMS, "the scaling check needs at least one item");
    if (!items)
        return sb_fail(SPACRBENCH_EINVAL, "items must not be NULL when n_items is %zu", n_items);
    sb_scale_work w = {work, items, n_items, payload};
    spacrbench_scale_executor ex;
    void *state = NULL;
    int rc = sb_scale_fork_executor(&w, &ex, &state);
    if (rc == 0)
        rc = spacrbench_scale_execute(&ex, n_items, opts, timing, out);
    sb_scale_fork_executor_free(state);
    return rc;
}
