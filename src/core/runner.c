/* spacrbench_benchmark: the serial run. This file is the run lock, the
 * timed loop, its arguments, stream mode (items of unknown count) and the
 * timeline's item marks; the probes, the peak method and VRAM live in
 * runner_probes.c. */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

/* One benchmark at a time per process (peaks are per process), and what to
 * do when a run was abandoned: the work left it by longjmp or a C++
 * exception, so the call that took the lock is no longer on the stack and
 * never will unlock it. The run's state lives on the heap so a later call
 * can release its sampler thread, files and memory. The lock is a C11
 * atomic flag (only try-lock and unlock are needed), so it is the same on
 * every platform. A process forked while another thread of its parent held
 * the lock inherits it held by a thread it does not have: the first call
 * in the child takes it over (no atfork handler is needed). */
static atomic_flag run_lock = ATOMIC_FLAG_INIT;
static sb_run *active;                     /* under run_lock */
static _Thread_local char thread_marker;   /* its address names a thread */
static _Atomic(const char *) owner_thread; /* &thread_marker of the holder */
static _Atomic(uintptr_t) owner_frame;     /* a stack address of the holder's call */
static _Atomic(int64_t) owner_pid;         /* the holder's process; 0 while changing hands */

/* The lock was taken in the parent by a thread this forked child does not
 * have: only the forking thread lives on, and it is not the holder, so no
 * frame of that run exists here. */
static int held_by_a_thread_left_in_the_parent(void)
{
    int64_t pid = atomic_load(&owner_pid);
    return pid != 0 && pid != sb_self_pid() && atomic_load(&owner_thread) != &thread_marker;
}

static int sb_run_lock_acquire(const void *frame, int *took_over)
{
    *took_over = 0;
    if (!atomic_flag_test_and_set_explicit(&run_lock, memory_order_acquire))
        goto mine;
    /* Unless the parent's run (its sampler thread is not here): held by
     * this very thread, and the call holding it is not below us on the
     * stack (stacks grow down on every platform we build for): that call is
     * gone. A call from inside the work is deeper, so it stays EBUSY like a
     * call from another thread. */
    int parent = held_by_a_thread_left_in_the_parent();
    if (!parent && (atomic_load(&owner_thread) != &thread_marker ||
                    (uintptr_t)frame < atomic_load(&owner_frame)))
        return sb_fail(SPACRBENCH_EBUSY, "another spacrbench_benchmark is running in this "
                                         "process; peaks are per process, so runs must not "
                                         "overlap");
    if (active) {
        sb_run_release(active, parent);
        free(active);
        active = NULL;
    }
    *took_over = !parent;
mine:
    atomic_store(&owner_thread, &thread_marker);
    atomic_store(&owner_frame, (uintptr_t)frame);
    atomic_store(&owner_pid, sb_self_pid());
    return SPACRBENCH_OK;
}

static void sb_run_lock_release(void)
{
    active = NULL;
    atomic_store(&owner_pid, 0);
    atomic_store(&owner_thread, NULL);
    atomic_store(&owner_frame, 0);
    atomic_flag_clear_explicit(&run_lock, memory_order_release);
}

enum { SB_DEFAULT_INTERVAL_US = 10000 };

/* Stream mode: the count is known only when the work
 * says SPACRBENCH_ITEMS_END, so the loop keeps where each call began and,
 * for a warm-up item, what a late clamp needs to make it the measured one. */
typedef struct sb_stream_marks {
    int ended;               /* the work said SPACRBENCH_ITEMS_END */
    double t_call, cpu_call; /* when the latest call began */
    double t_last, cpu_last; /* when the latest warm-up item began */
    double sampler_cpu_last; /* the sampler's CPU then */
    double progress_seconds; /* the progress function after it */
    double progress_cpu;
} sb_stream_marks;

/* After the run's own arrays grew between items: the resident growth
 * joins the baseline, as a counted run's committed records do. */
static void sb_stream_grown(sb_run *st, int64_t rss_before)
{
    int64_t after = sb_proc_rss(&st->proc);
    if (rss_before >= 0 && after > rss_before)
        st->m->fig.baseline_rss_bytes += after - rss_before;
}

static int sb_stream_item_start(sb_run *st, sb_stream_marks *marks, size_t i)
{
    spacrbench_measurement *m = st->m;
    if (st->opt.item_records && m->record_count == m->record_cap) {
        size_t cap = m->record_cap ? m->record_cap * 2 : 16;
        int64_t rss_before = sb_proc_rss(&st->proc);
        int rc = sb_measurement_commit_records(m, cap); /* written: resident now */
        if (!rc && m->record_cap > 0)
            rc = spacrbench_measurement_set_item_cpu_seconds(m, m->record_cap - 1, NAN);
        sb_stream_grown(st, rss_before);
        if (rc)
            return rc;
    }
    marks->t_call = sb_now();
    marks->cpu_call = sb_proc_cpu_seconds();
    if (i < m->clamped) {
        marks->t_last = marks->t_call;
        marks->cpu_last = marks->cpu_call;
        marks->sampler_cpu_last = st->sampler ? sb_sampler_cpu_seconds(st->sampler) : 0.0;
        marks->progress_seconds = marks->progress_cpu = 0.0;
    }
    return SPACRBENCH_OK;
}

static void sb_stream_clamp_late(sb_run *st, size_t n)
{
    spacrbench_measurement *m = st->m;
    size_t last = n - 1; /* n >= 1: the caller checked */
    m->clamped = last;
    if (m->record_count > last)
        m->records[last].is_warmup = 0;
    struct sb_timeline *tl = m->timeline;
    if (tl && tl->item_count > 0 && tl->items[tl->item_count - 1].index == (int64_t)last)
        tl->items[tl->item_count - 1].is_warmup = 0;
}

static int sb_run_mark_item(sb_run *st, int64_t index, int warm, double t0, double t1, int64_t peak)
{
    struct sb_timeline *tl = st->m->timeline;
    spacrbench_timeline_item it = {sizeof it,       index,           warm, 0,
                                   t0 - tl->origin, t1 - tl->origin, peak, NAN};
    if (st->stream && tl->item_count == tl->item_cap) {
        /* No count to reserve for: grows between items, the new room
         * written now so that its pages join the baseline, not an item. */
        int64_t rss_before = sb_proc_rss(&st->proc);
        int rc = sb_timeline_item_add(tl, &it);
        if (!rc)
            memset(tl->items + tl->item_count, 0,
                   (tl->item_cap - tl->item_count) * sizeof *tl->items);
        sb_stream_grown(st, rss_before);
        return rc;
    }
    if (tl->item_count == tl->item_cap)
        return SPACRBENCH_OK;
    tl->items[tl->item_count++] = it;
    return SPACRBENCH_OK;
}

static int sb_run_finish_timeline(sb_run *st)
{
    const struct sb_timeline *tl = st->m->timeline;
    if (!tl || tl->stride == 1)
        return SPACRBENCH_OK;
    return sb_measurement_notef(st->m,
                                "timeline downsampled: %lld RSS samples taken every %.1f ms "
                                "are shown as %zu points, each the highest of %lld "
                                "consecutive samples (at most %d points are kept)",
                                (long long)tl->samples, (double)tl->interval_us / 1000.0,
                                sb_timeline_count(tl), (long long)tl->stride,
                                (int)SPACRBENCH_TIMELINE_MAX_POINTS);
}

int spacrbench_options_init(spacrbench_options *opts, size_t size)
{
    sb_clear_error();
    const spacrbench_options defaults = SPACRBENCH_OPTIONS_INIT;
    return sb_struct_init(opts, size, &defaults, sizeof defaults, "opts", "spacrbench_options");
}

static int check_args(spacrbench_work_fn work, void *const *items, size_t n_items, int stream,
                      const spacrbench_options *opts, spacrbench_measurement **out,
                      spacrbench_options *opt)
{
    if (!out)
        return sb_fail(SPACRBENCH_EINVAL, "out must not be NULL");
    *out = NULL;
    if (!work)
        return sb_fail(SPACRBENCH_EINVAL, "work must not be NULL");
    if (stream) /* the count is found by running */
        ;
    else if (n_items == 0)
        return sb_fail(SPACRBENCH_ENOITEMS, "benchmark needs at least one item to measure");
    else if (!items)
        return sb_fail(SPACRBENCH_EINVAL, "items must not be NULL when n_items is %zu", n_items);
    else if (n_items > SIZE_MAX / 2 / sizeof(spacrbench_item_record))
        return sb_fail(SPACRBENCH_ENOMEM, "n_items %zu is more than this machine can hold",
                       n_items);
    *opt = (spacrbench_options)SPACRBENCH_OPTIONS_INIT;
    int rc = opts ? sb_struct_in(opt, sizeof *opt, opts, "spacrbench_options") : 0;
    if (rc)
        return rc;
    if (opt->warmup < 0)
        return sb_fail(SPACRBENCH_EINVAL, "options.warmup is %lld; it must be >= 0",
                       (long long)opt->warmup);
    if (opt->sample_interval_us < 0 || opt->sample_interval_us > 10000000)
        return sb_fail(SPACRBENCH_EINVAL,
                       "options.sample_interval_us is %lld; use 0 (default) to 10000000",
                       (long long)opt->sample_interval_us);
    if (opt->sample_interval_us == 0)
        opt->sample_interval_us = SB_DEFAULT_INTERVAL_US;
    const uint32_t known = SPACRBENCH_FLAG_NO_HWM_RESET | SPACRBENCH_FLAG_NO_GPU |
                           SPACRBENCH_FLAG_KEEP_PARTIAL | SPACRBENCH_FLAG_TIMELINE;
    if (opt->flags & ~known)
        return sb_fail(SPACRBENCH_EINVAL, "options.flags has unknown bits 0x%x",
                       opt->flags & ~known);
    return SPACRBENCH_OK;
}

/* Everything after the loop: the window's time and CPU, the peak, VRAM
 * and the builder's notes. */
typedef struct run_window {
    size_t done_items;
    double t_start, t_measure, t_end;
    double cpu_measure, cpu_end, sampler_cpu;
    /* time that is not the work's: the progress function, the heap release */
    double progress_seconds, progress_cpu, warmup_progress_seconds;
    int64_t item_peak;
    sb_stream_marks marks; /* stream mode: what a late warm-up clamp needs */
} run_window;

static int finish(sb_run *st, const run_window *w, int tracked)
{
    spacrbench_measurement *m = st->m;
    int64_t sampled_rss = -1, sampled_vram = -1;
    if (st->sampler) {
        sb_sampler_stop(st->sampler, &sampled_rss, &sampled_vram);
        st->sampler = NULL;
    }
    /* The loop timed the measured window as a whole (which also keeps the
     * sampler's CPU and the progress function out): counts come from the
     * builder's clamp, figures from the window. */
    sb_measurement_count_items(m, w->done_items);
    int measured = m->fig.items > 0;
    m->fig.seconds = measured ? w->t_end - w->t_measure - w->progress_seconds : 0.0;
    m->fig.warmup_seconds =
        (measured ? w->t_measure : w->t_end) - w->t_start - w->warmup_progress_seconds;
    m->fig.cpu_seconds = w->cpu_end - w->cpu_measure - w->sampler_cpu - w->progress_cpu;
    if (m->fig.cpu_seconds < 0)
        m->fig.cpu_seconds = 0.0;
    m->fig.sample_interval_us =
        st->sampler || !st->exact || st->gpu || m->timeline ? st->opt.sample_interval_us : 0;
    int rc = spacrbench_measurement_end(m);
    if (rc || (rc = sb_run_finish_timeline(st)))
        return rc;
    /* VRAM before the peak: spaCR's notes (warm-up, no CUDA device) lead. */
    rc = sb_run_finish_vram(st, sampled_vram);
    sb_run_finish_peak(st, tracked, w->item_peak, sampled_rss);
    return rc;
}

/* One item's place and times, for its progress call. */
typedef struct item_times {
    size_t index, clamped, n_items;
    double t0, t1;
    int64_t peak;
} item_times;

/* The caller's progress function after an item: its time and CPU are kept
 * apart (warm-up or measured) so they never count as the work's. Returns
 * what it returned (non-zero stops the run). */
static int call_progress(sb_run *st, run_window *w, const item_times *it)
{
    int warm = it->index < it->clamped;
    int64_t total = st->stream ? -1 : (int64_t)it->n_items;
    spacrbench_progress p = {sizeof p,        (int64_t)it->index,  total,   warm, 0,
                             it->t1 - it->t0, it->t1 - w->t_start, it->peak};
    double cpu0 = sb_proc_cpu_seconds();
    int value = st->opt.progress(&p, st->opt.progress_payload);
    double spent = sb_now() - it->t1;
    if (warm) {
        w->warmup_progress_seconds += spent;
        w->marks.progress_seconds = spent;
        w->marks.progress_cpu = sb_proc_cpu_seconds() - cpu0;
    } else {
        w->progress_seconds += spent;
        w->progress_cpu += sb_proc_cpu_seconds() - cpu0;
    }
    return value;
}

/* The measured window's end; where a stream's items ended inside the
 * warm-up, the last item is measured after all (its progress too). */
static void close_window(sb_run *st, run_window *w, size_t clamped, double sampler_cpu_measure)
{
    if (!w->marks.ended) {
        w->t_end = sb_now();
        w->cpu_end = sb_proc_cpu_seconds();
    } else if (w->done_items > 0 && w->done_items <= clamped) { /* ended in the warm-up */
        sb_stream_clamp_late(st, w->done_items);
        w->t_measure = w->marks.t_last;
        w->cpu_measure = w->marks.cpu_last;
        sampler_cpu_measure = w->marks.sampler_cpu_last;
        w->warmup_progress_seconds -= w->marks.progress_seconds;
        w->progress_seconds += w->marks.progress_seconds;
        w->progress_cpu += w->marks.progress_cpu;
    }
    if (st->stream)
        st->m->plan_items = w->done_items > 0 ? w->done_items : 1;
    w->sampler_cpu = st->sampler ? sb_sampler_cpu_seconds(st->sampler) - sampler_cpu_measure : 0.0;
}

/* Before an item's window: the allocator's free memory back to the
 * system (sb_heap_release), so the pages the item touches are counted even
 * where an earlier item or run freed as much. Its time is not the work's:
 * it is kept apart as the progress function's is. */
static void release_heap(run_window *w, int warm)
{
    double t0 = sb_now(), cpu0 = sb_proc_cpu_seconds();
    sb_heap_release();
    double spent = sb_now() - t0;
    if (warm)
        w->warmup_progress_seconds += spent;
    else {
        w->progress_seconds += spent;
        w->progress_cpu += sb_proc_cpu_seconds() - cpu0;
    }
}

static int run_loop(sb_run *st, spacrbench_work_fn work, void *const *items, size_t n_items,
                    void *payload, run_window *w, int *stop_value)
{
    spacrbench_measurement *m = st->m;
    size_t clamped = m->clamped;
    int records = st->opt.item_records != 0;
    /* Per-item windows whenever anything runs between items (records or a
     * progress function), so that its time and memory stay out. */
    int track = records || st->opt.progress;
    double sampler_cpu_measure = 0.0;
    w->item_peak = -1;
    w->t_start = w->t_measure = sb_now();
    w->cpu_measure = sb_proc_cpu_seconds();
    for (size_t i = 0; st->stream || i < n_items; i++) {
        if (i == clamped) {
            w->t_measure = sb_now();
            w->cpu_measure = sb_proc_cpu_seconds();
            sampler_cpu_measure = st->sampler ? sb_sampler_cpu_seconds(st->sampler) : 0.0;
        }
        if (st->stream) { /* room for this item's record; where it might end the run */
            int rc = sb_stream_item_start(st, &w->marks, i);
            if (rc)
                return rc;
        }
        if (track)
            release_heap(w, i < clamped);
        int64_t rss_before = track ? sb_run_item_begin(st) : -1;
        double t0 = track ? sb_now() : 0.0;
        double c0 = records ? sb_proc_cpu_seconds() : 0.0;
        int value = work(st->stream ? NULL : items[i], payload);
        if (sb_self_pid() != st->pid)
            return SPACRBENCH_EFORKED;
        if (st->stream && value == SPACRBENCH_ITEMS_END) {
            w->marks.ended = 1; /* no item: the window closed before this call */
            w->t_end = w->marks.t_call;
            w->cpu_end = w->marks.cpu_call;
            break;
        }
        double t1 = track ? sb_now() : 0.0;
        if (records && m->item_cpu) /* room reserved by the builder */
            m->item_cpu[m->record_count] = sb_proc_cpu_seconds() - c0;
        w->done_items = i + 1;
        int64_t peak = -1, vram = -1;
        if (track) {
            peak = sb_run_item_end(st, rss_before, &vram);
            if (peak > w->item_peak)
                w->item_peak = peak;
        }
        if (records && m->timeline && sb_run_mark_item(st, (int64_t)i, i < clamped, t0, t1, peak))
            return SPACRBENCH_ENOMEM;
        if (records)
            m->records[m->record_count++] = (spacrbench_item_record){
                sizeof(spacrbench_item_record), (int64_t)i, i < clamped, 0, t1 - t0, peak, vram};
        if (value == 0 && st->opt.progress) {
            const item_times it = {i, clamped, n_items, t0, t1, peak};
            value = call_progress(st, w, &it);
            if (sb_self_pid() != st->pid)
                return SPACRBENCH_EFORKED;
        }
        if (value != 0) {
            *stop_value = value;
            break;
        }
    }
    close_window(st, w, clamped, sampler_cpu_measure);
    return SPACRBENCH_OK;
}

/* A stopped run: EUSER, with the measurement so far on request. */
static int stopped(sb_run *st, const run_window *w, int stop_value, spacrbench_measurement **out)
{
    spacrbench_measurement *m = st->m;
    int64_t at = (int64_t)w->done_items - 1;
    spacrbench_measurement_mark_stopped(m, at, stop_value);
    sb_measurement_notef(m, "stopped at item %lld: the work or progress function returned %d",
                         (long long)at, stop_value);
    sb_set_stop(stop_value, at);
    int rc =
        sb_fail(SPACRBENCH_EUSER, "stopped at item %lld: returned %d", (long long)at, stop_value);
    /* sb_fail keeps the stop values set just above. */
    if (st->opt.flags & SPACRBENCH_FLAG_KEEP_PARTIAL) {
        *out = m;
        st->m = NULL;
    }
    return rc;
}

static int benchmark(spacrbench_work_fn work, void *const *items, size_t n_items, int stream,
                     void *payload, const spacrbench_options *opts, spacrbench_measurement **out)
{
    sb_clear_error();
    spacrbench_options opt;
    int rc = check_args(work, items, n_items, stream, opts, out, &opt);
    if (rc)
        return rc;
    int took_over = 0;
    /* The frame address, not a local's: sanitizers may keep locals on a
     * heap "fake stack", whose addresses say nothing about call depth. */
    if ((rc = sb_run_lock_acquire(__builtin_frame_address(0), &took_over)))
        return rc;
    sb_run *st = calloc(1, sizeof *st);
    if (!st) {
        sb_run_lock_release();
        return sb_fail(SPACRBENCH_ENOMEM, "cannot allocate the run's state");
    }
    st->opt = opt;
    st->stream = stream;
    st->pid = sb_self_pid();
    active = st; /* released by a later call if this run is abandoned */

    spacrbench_run_plan plan;
    spacrbench_run_plan_init(&plan, sizeof plan);
    plan.items = stream ? 1 : (int64_t)n_items; /* stream: room grows as items come */
    plan.warmup = opt.warmup;
    plan.records = opt.item_records != 0;
    /* The builder commits the record memory now, before the baseline. */
    if ((rc = spacrbench_measurement_begin(&plan, &st->m)) || (rc = sb_run_prepare(st)))
        goto done;
    if (stream) /* the warm-up as asked, clamped only when the items end */
        st->m->clamped = st->m->warmup;
    if (took_over)
        sb_measurement_notef(st->m, "an earlier benchmark in this thread was abandoned (its "
                                    "work left by longjmp or an exception); its sampler thread, "
                                    "files and memory were released before this run");
    int64_t baseline = sb_proc_rss(&st->proc);
    st->m->fig.baseline_rss_bytes = baseline > 0 ? baseline : 0;
    if (st->sampler)
        sb_sampler_take_window(st->sampler, NULL, NULL);

    run_window w;
    memset(&w, 0, sizeof w);
    int stop_value = 0;
    rc = run_loop(st, work, items, n_items, payload, &w, &stop_value);
    if (rc == SPACRBENCH_EFORKED) {
        /* A forked child came back through the runner: the run is the
         * parent's; drop this copy without touching the parent's thread. */
        sb_run_release(st, 1);
        free(st);
        sb_run_lock_release();
        return sb_fail(SPACRBENCH_EFORKED,
                       "the work forked and the child (pid %ld) returned "
                       "into spacrbench_benchmark; a forked child should "
                       "_exit()",
                       (long)sb_self_pid());
    }
    if (rc) /* ENOMEM growing a stream's records */
        goto done;
    if (stream && w.marks.ended && w.done_items == 0) {
        rc = sb_fail(SPACRBENCH_ENOITEMS, "benchmark needs at least one item to measure (the "
                                          "items ended before the first)");
        goto done;
    }
    if ((rc = finish(st, &w, opt.item_records != 0 || opt.progress)))
        goto done;
    if (stop_value != 0) {
        rc = stopped(st, &w, stop_value, out);
        goto done;
    }
    *out = st->m;
    st->m = NULL;
    rc = SPACRBENCH_OK;
done:
    sb_run_release(st, 0);
    free(st);
    sb_run_lock_release();
    return rc;
}

int spacrbench_benchmark(spacrbench_work_fn work, void *const *items, size_t n_items, void *payload,
                         const spacrbench_options *opts, spacrbench_measurement **out)
{
    return benchmark(work, items, n_items, 0, payload, opts, out);
}

int spacrbench_benchmark_stream(spacrbench_work_fn work, void *payload,
                                const spacrbench_options *opts, spacrbench_measurement **out)
{
    return benchmark(work, NULL, 0, 1, payload, opts, out);
}
