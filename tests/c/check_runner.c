/* The serial runner: real allocations, real spikes, stops, clamping and
 * bad input. */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "os.h"
#include "sb_test_memory.h"
#include "spacrbench.h"

#define SPIKE_BYTES (256 * SB_MIB)

static void *item_ptrs[16];
static int item_values[16];

static void *const *items(size_t n)
{
    for (size_t i = 0; i < n; i++) {
        item_values[i] = (int)i;
        item_ptrs[i] = &item_values[i];
    }
    return item_ptrs;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static int64_t figure_items(const spacrbench_measurement *m, spacrbench_figures *f)
{
    memset(f, 0, sizeof *f);
    f->size = sizeof *f;
    ck_assert_int_eq(spacrbench_measurement_figures(m, f), 0);
    return f->items;
}

/* Item 2 of 5 allocates, touches and frees 256 MiB; the rest idle. */
static int spike_work(void *item, void *payload)
{
    (void)payload;
    if (*(int *)item == 2) {
        void *p = sb_test_touch_alloc(SPIKE_BYTES);
        sb_test_touch_free(p, SPIKE_BYTES);
    } else {
        sleep_ms(2);
    }
    return 0;
}

START_TEST(short_spike_is_captured_exactly)
{
    spacrbench_measurement *m = NULL;
    ck_assert_int_eq(spacrbench_benchmark(spike_work, items(5), 5, NULL, NULL, &m), 0);
    spacrbench_figures f;
    figure_items(m, &f);
    ck_assert_int_eq(f.peak_method, SPACRBENCH_PEAK_HWM_RESET);
    /* The whole spike counts; the freed pages are gone again by the end. */
    ck_assert_int_ge(spacrbench_measurement_work_rss_bytes(m), (int64_t)(SPIKE_BYTES * 98 / 100));
    spacrbench_item_record r = {sizeof r, 0, 0, 0, 0, 0, 0};
    ck_assert_int_eq(spacrbench_measurement_record(m, 2, &r), 0);
    ck_assert_int_ge(r.peak_rss_bytes - f.baseline_rss_bytes, (int64_t)(SPIKE_BYTES * 98 / 100));
    ck_assert_int_eq(spacrbench_measurement_record(m, 4, &r), 0);
    ck_assert_int_lt(r.peak_rss_bytes - f.baseline_rss_bytes, (int64_t)(64 * SB_MIB));
    spacrbench_measurement_free(m);
}
END_TEST

/* Work that runs a process of its own (a subprocess, a shell): a child
 * that spins 50 ms and touches 64 MiB, waited for. */
static int child_work(void *item, void *payload)
{
    (void)item, (void)payload;
    pid_t pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0) {
        size_t n = 64 * SB_MIB;
        char *p = malloc(n);
        if (p)
            memset(p, 1, n);
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        do
            clock_gettime(CLOCK_MONOTONIC, &t1);
        while ((t1.tv_sec - t0.tv_sec) * 1000000000L + (t1.tv_nsec - t0.tv_nsec) < 50000000L);
        _exit(p ? 0 : 1);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        ;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}

static const char *note_with(const spacrbench_measurement *m, const char *text)
{
    for (size_t i = 0; spacrbench_measurement_note(m, i); i++)
        if (strstr(spacrbench_measurement_note(m, i), text))
            return spacrbench_measurement_note(m, i);
    return NULL;
}

/* The in-process peak is this process's own: work that ran processes of
 * its own is told so (their CPU and the largest one's peak), with the way
 * to count the whole tree; work that ran none is not. */
START_TEST(children_of_the_work_are_named_as_not_counted)
{
    spacrbench_measurement *m = NULL;
    ck_assert_int_eq(spacrbench_benchmark(child_work, items(2), 2, NULL, NULL, &m), 0);
    const char *said = note_with(m, "the work started processes of its own (");
    ck_assert_msg(said != NULL, "no note of the children");
    ck_assert_ptr_nonnull(strstr(said, "their memory is not in the peak RSS"));
    ck_assert_ptr_nonnull(strstr(said, "`spacrbench run`"));
    ck_assert_ptr_nonnull(strstr(said, "the largest child ever waited for here peaked at "));
    spacrbench_measurement_free(m);
    ck_assert_int_eq(spacrbench_benchmark(spike_work, items(2), 2, NULL, NULL, &m), 0);
    ck_assert_ptr_null(note_with(m, "processes of its own"));
    spacrbench_measurement_free(m);
}
END_TEST

/* Without the kernel reset, a fresh process whose high-water mark rises
 * during the run still gets an exact peak (the H0/H1 rule). */
START_TEST(fallback_uses_rising_high_water_mark)
{
    spacrbench_options o;
    ck_assert_int_eq(spacrbench_options_init(&o, sizeof o), 0);
    o.flags = SPACRBENCH_FLAG_NO_HWM_RESET;
    spacrbench_measurement *m = NULL;
    ck_assert_int_eq(spacrbench_benchmark(spike_work, items(5), 5, NULL, &o, &m), 0);
    spacrbench_figures f;
    figure_items(m, &f);
    ck_assert_int_eq(f.peak_method, SPACRBENCH_PEAK_HWM_WINDOW);
    ck_assert_int_ge(spacrbench_measurement_work_rss_bytes(m), (int64_t)(SPIKE_BYTES * 98 / 100));
    ck_assert_int_eq(f.sample_interval_us, 10000);
    spacrbench_measurement_free(m);
}
END_TEST

/* Held for 60 ms, a 256 MiB allocation is seen by a 1 ms sampler even when
 * the high-water mark is already higher from earlier work. */
static int held_work(void *item, void *payload)
{
    (void)item;
    (void)payload;
    void *p = sb_test_touch_alloc(SPIKE_BYTES);
    sleep_ms(60);
    sb_test_touch_free(p, SPIKE_BYTES);
    return 0;
}

START_TEST(fallback_samples_when_mark_cannot_tell)
{
    /* Raise the lifetime mark first, so H1 == H0 and only sampling can tell. */
    void *big = sb_test_touch_alloc(2 * SPIKE_BYTES);
    sb_test_touch_free(big, 2 * SPIKE_BYTES);
    spacrbench_options o;
    spacrbench_options_init(&o, sizeof o);
    o.flags = SPACRBENCH_FLAG_NO_HWM_RESET;
    o.sample_interval_us = 1000;
    o.warmup = 0;
    spacrbench_measurement *m = NULL;
    ck_assert_int_eq(spacrbench_benchmark(held_work, items(1), 1, NULL, &o, &m), 0);
    spacrbench_figures f;
    figure_items(m, &f);
    ck_assert_int_eq(f.peak_method, SPACRBENCH_PEAK_SAMPLED);
    ck_assert_int_ge(spacrbench_measurement_work_rss_bytes(m), (int64_t)(SPIKE_BYTES * 95 / 100));
    int found = 0;
    for (size_t i = 0; i < (size_t)f.note_count; i++)
        found |= strstr(spacrbench_measurement_note(m, i), "sampled every 1.0 ms") != NULL;
    ck_assert_msg(found, "the notes must say the peak was sampled and how often");
    spacrbench_measurement_free(m);
}
END_TEST

/* Every item allocates 128 MiB and frees it. After a warm-up item the
 * baseline is the current RSS, not a lifetime peak, so the footprint is
 * the allocation, not ~0. */
static int transient_work(void *item, void *payload)
{
    (void)item;
    (void)payload;
    size_t n = 128 * SB_MIB;
    void *p = sb_test_touch_alloc(n);
    sb_test_touch_free(p, n);
    return 0;
}

START_TEST(warmup_does_not_hide_transient_footprint)
{
    spacrbench_measurement *m = NULL;
    ck_assert_int_eq(spacrbench_benchmark(transient_work, items(4), 4, NULL, NULL, &m), 0);
    spacrbench_figures f;
    ck_assert_int_eq(figure_items(m, &f), 3);
    ck_assert_int_eq(f.warmup_items, 1);
    int64_t work = spacrbench_measurement_work_rss_bytes(m);
    ck_assert_int_ge(work, (int64_t)(128 * SB_MIB * 98 / 100));
    ck_assert_int_le(work, (int64_t)(128 * SB_MIB * (100 + SB_TEST_RSS_OVERHEAD_PERCENT) / 100));
    ck_assert_int_eq(f.record_count, 4);
    spacrbench_item_record r = {sizeof r, 0, 0, 0, 0, 0, 0};
    spacrbench_measurement_record(m, 0, &r);
    ck_assert_int_eq(r.is_warmup, 1);
    spacrbench_measurement_record(m, 1, &r);
    ck_assert_int_eq(r.is_warmup, 0);
    int found = 0;
    for (size_t i = 0; i < (size_t)f.note_count; i++)
        found |= strstr(spacrbench_measurement_note(m, i), "warm-up") != NULL;
    ck_assert(found);
    spacrbench_measurement_free(m);
}
END_TEST

static int order[16];
static size_t order_len;

static int record_order(void *item, void *payload)
{
    ck_assert_ptr_eq(payload, &order_len);
    order[order_len++] = *(int *)item;
    return 0;
}

START_TEST(items_run_once_in_order_and_warmup_clamps)
{
    spacrbench_options o;
    spacrbench_options_init(&o, sizeof o);
    o.warmup = 10;
    order_len = 0;
    spacrbench_measurement *m = NULL;
    ck_assert_int_eq(spacrbench_benchmark(record_order, items(3), 3, &order_len, &o, &m), 0);
    ck_assert_uint_eq(order_len, 3);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(order[i], i);
    spacrbench_figures f;
    ck_assert_int_eq(figure_items(m, &f), 1);
    ck_assert_int_eq(f.warmup_items, 2);
    ck_assert(f.seconds >= 0.0);
    ck_assert(!isnan(spacrbench_measurement_per_item_seconds(m)));
    spacrbench_measurement_free(m);
}
END_TEST

static int stop_at_two(void *item, void *payload)
{
    (void)payload;
    return *(int *)item == 2 ? 42 : 0;
}

START_TEST(stop_returns_euser_with_the_work_value)
{
    spacrbench_measurement *m = (spacrbench_measurement *)&order; /* must be cleared */
    ck_assert_int_eq(spacrbench_benchmark(stop_at_two, items(5), 5, NULL, NULL, &m),
                     SPACRBENCH_EUSER);
    ck_assert_ptr_null(m);
    ck_assert_int_eq(spacrbench_last_work_result(), 42);
    ck_assert_int_eq(spacrbench_last_stopped_item(), 2);
    /* The library is clean: the next run works. */
    ck_assert_int_eq(spacrbench_benchmark(record_order, items(2), 2, &order_len, NULL, &m), 0);
    ck_assert_int_eq(spacrbench_last_work_result(), 0);
    spacrbench_measurement_free(m);
}
END_TEST

START_TEST(stop_keeps_partial_measurement_on_request)
{
    spacrbench_options o;
    spacrbench_options_init(&o, sizeof o);
    o.flags = SPACRBENCH_FLAG_KEEP_PARTIAL;
    spacrbench_measurement *m = NULL;
    ck_assert_int_eq(spacrbench_benchmark(stop_at_two, items(5), 5, NULL, &o, &m),
                     SPACRBENCH_EUSER);
    ck_assert_ptr_nonnull(m);
    spacrbench_figures f;
    ck_assert_int_eq(figure_items(m, &f), 2); /* items 1 and 2 after one warm-up */
    ck_assert_int_eq(f.stopped, 1);
    ck_assert_int_eq(f.work_result, 42);
    ck_assert_int_eq(f.stopped_item, 2);
    ck_assert_int_eq(f.record_count, 3);
    spacrbench_measurement_free(m);
}
END_TEST

typedef struct progress_log {
    int calls;
    int64_t last_index, total;
    int stop_at;
} progress_log;

static int log_progress(const spacrbench_progress *p, void *payload)
{
    progress_log *log = payload;
    log->calls++;
    log->last_index = p->index;
    log->total = p->total;
    ck_assert(p->item_seconds >= 0.0);
    ck_assert_int_eq(p->is_warmup, p->index == 0);
    return p->index == log->stop_at ? 7 : 0;
}

START_TEST(progress_is_called_after_each_item_and_can_stop)
{
    progress_log log = {0, -1, 0, -1};
    spacrbench_options o;
    spacrbench_options_init(&o, sizeof o);
    o.progress = log_progress;
    o.progress_payload = &log;
    spacrbench_measurement *m = NULL;
    ck_assert_int_eq(spacrbench_benchmark(record_order, items(4), 4, &order_len, &o, &m), 0);
    ck_assert_int_eq(log.calls, 4);
    ck_assert_int_eq(log.last_index, 3);
    ck_assert_int_eq(log.total, 4);
    spacrbench_measurement_free(m);

    log = (progress_log){0, -1, 0, 1};
    ck_assert_int_eq(spacrbench_benchmark(record_order, items(4), 4, &order_len, &o, &m),
                     SPACRBENCH_EUSER);
    ck_assert_int_eq(log.calls, 2);
    ck_assert_int_eq(spacrbench_last_work_result(), 7);
}
END_TEST

START_TEST(records_off_still_measures_peak)
{
    spacrbench_options o;
    spacrbench_options_init(&o, sizeof o);
    o.item_records = 0;
    spacrbench_measurement *m = NULL;
    ck_assert_int_eq(spacrbench_benchmark(spike_work, items(5), 5, NULL, &o, &m), 0);
    spacrbench_figures f;
    figure_items(m, &f);
    ck_assert_int_eq(f.record_count, 0);
    ck_assert_int_ge(spacrbench_measurement_work_rss_bytes(m), (int64_t)(SPIKE_BYTES * 98 / 100));
    spacrbench_measurement_free(m);
}
END_TEST

START_TEST(zero_items_and_null_arguments_are_errors)
{
    spacrbench_measurement *m = NULL;
    ck_assert_int_eq(spacrbench_benchmark(record_order, items(1), 0, NULL, NULL, &m),
                     SPACRBENCH_ENOITEMS);
    ck_assert_ptr_null(m);
    ck_assert(strstr(spacrbench_last_error_message(), "at least one item") != NULL);
    ck_assert_int_eq(spacrbench_benchmark(NULL, items(1), 1, NULL, NULL, &m), SPACRBENCH_EINVAL);
    ck_assert(strstr(spacrbench_last_error_message(), "work") != NULL);
    ck_assert_int_eq(spacrbench_benchmark(record_order, NULL, 1, NULL, NULL, &m),
                     SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_benchmark(record_order, items(1), 1, NULL, NULL, NULL),
                     SPACRBENCH_EINVAL);
    ck_assert_str_ne(spacrbench_strerror(SPACRBENCH_EINVAL), "unknown error code");
}
END_TEST

START_TEST(bad_options_are_rejected)
{
    spacrbench_measurement *m = NULL;
    spacrbench_options o;
    spacrbench_options_init(&o, sizeof o);
    o.warmup = -1;
    ck_assert_int_eq(spacrbench_benchmark(record_order, items(2), 2, &order_len, &o, &m),
                     SPACRBENCH_EINVAL);
    ck_assert(strstr(spacrbench_last_error_message(), "warmup") != NULL);
    spacrbench_options_init(&o, sizeof o);
    o.size = 3;
    ck_assert_int_eq(spacrbench_benchmark(record_order, items(2), 2, &order_len, &o, &m),
                     SPACRBENCH_EINVAL);
    spacrbench_options_init(&o, sizeof o);
    o.flags = 0x80;
    ck_assert_int_eq(spacrbench_benchmark(record_order, items(2), 2, &order_len, &o, &m),
                     SPACRBENCH_EINVAL);
    spacrbench_options_init(&o, sizeof o);
    o.sample_interval_us = -5;
    ck_assert_int_eq(spacrbench_benchmark(record_order, items(2), 2, &order_len, &o, &m),
                     SPACRBENCH_EINVAL);
    ck_assert_ptr_null(m);
}
END_TEST

/* A newer caller's larger struct is fine while its extra bytes are zero;
 * an older caller's smaller struct gets defaults for what it lacks. */
START_TEST(options_struct_versions)
{
    struct {
        spacrbench_options known;
        uint64_t future_field;
    } newer;
    memset(&newer, 0, sizeof newer);
    ck_assert_int_eq(spacrbench_options_init(&newer.known, sizeof newer), 0);
    ck_assert_uint_eq(newer.known.size, sizeof newer);
    spacrbench_measurement *m = NULL;
    ck_assert_int_eq(spacrbench_benchmark(record_order, items(2), 2, &order_len, &newer.known, &m),
                     0);
    spacrbench_measurement_free(m);
    newer.future_field = 1;
    ck_assert_int_eq(spacrbench_benchmark(record_order, items(2), 2, &order_len, &newer.known, &m),
                     SPACRBENCH_EUNKNOWN_FIELDS);

    /* An old caller that only knew size and warmup: warmup 0 is honoured and
     * per-item records take their default (on). */
    spacrbench_options older;
    memset(&older, 0xff, sizeof older);
    older.size = offsetof(spacrbench_options, sample_interval_us);
    older.warmup = 0;
    order_len = 0;
    ck_assert_int_eq(spacrbench_benchmark(record_order, items(2), 2, &order_len, &older, &m), 0);
    spacrbench_figures f;
    ck_assert_int_eq(figure_items(m, &f), 2);
    ck_assert_int_eq(f.record_count, 2);
    spacrbench_measurement_free(m);
}
END_TEST

static int idle_work(void *item, void *payload)
{
    (void)item;
    (void)payload;
    sleep_ms(5);
    return 0;
}

/* A progress function that is slow and memory-hungry. */
static int heavy_progress(const spacrbench_progress *p, void *payload)
{
    (void)p;
    (void)payload;
    void *q = sb_test_touch_alloc(SPIKE_BYTES);
    sleep_ms(40);
    sb_test_touch_free(q, SPIKE_BYTES);
    return 0;
}

/* What the progress function costs is not the work's: neither its time
 * (the measured seconds stay the items' own, not + 40 ms each) nor its
 * memory. */
START_TEST(progress_cost_is_not_charged_to_the_work)
{
    for (int flags = 0; flags <= 1; flags++) {
        spacrbench_options o;
        spacrbench_options_init(&o, sizeof o);
        o.progress = heavy_progress;
        o.flags = flags ? SPACRBENCH_FLAG_NO_HWM_RESET : 0;
        o.sample_interval_us = 1000;
        spacrbench_measurement *m = NULL;
        ck_assert_int_eq(spacrbench_benchmark(idle_work, items(4), 4, NULL, &o, &m), 0);
        spacrbench_figures f;
        ck_assert_int_eq(figure_items(m, &f), 3);
        double items_seconds = 0.0;
        for (size_t i = 1; i < 4; i++) {
            spacrbench_item_record r = {sizeof r, 0, 0, 0, 0, 0, 0};
            spacrbench_measurement_record(m, i, &r);
            items_seconds += r.seconds;
            ck_assert_int_lt(r.peak_rss_bytes - f.baseline_rss_bytes, (int64_t)(64 * SB_MIB));
        }
        /* The gap is harness bookkeeping (microseconds); three 40 ms
         * progress calls would make it >= 120 ms. */
        ck_assert_msg(f.seconds - items_seconds < 0.06, "seconds %.3f vs items %.3f", f.seconds,
                      items_seconds);
        if (!flags)
            ck_assert_int_lt(spacrbench_measurement_work_rss_bytes(m), (int64_t)(64 * SB_MIB));
        spacrbench_measurement_free(m);
    }
}
END_TEST

/* A count no allocation can hold fails cleanly before any work runs. */
START_TEST(impossible_item_count_is_out_of_memory)
{
    order_len = 0;
    spacrbench_measurement *m = NULL;
    ck_assert_int_eq(
        spacrbench_benchmark(record_order, items(1), (size_t)1 << 62, &order_len, NULL, &m),
        SPACRBENCH_ENOMEM);
    ck_assert_int_eq(spacrbench_benchmark(record_order, items(1), SIZE_MAX, &order_len, NULL, &m),
                     SPACRBENCH_ENOMEM);
    ck_assert_ptr_null(m);
    ck_assert_uint_eq(order_len, 0);
}
END_TEST

static int nested_result;

static int nested_work(void *item, void *payload)
{
    (void)item;
    (void)payload;
    spacrbench_measurement *inner = NULL;
    nested_result = spacrbench_benchmark(record_order, items(1), 1, &order_len, NULL, &inner);
    spacrbench_measurement_free(inner);
    return 0;
}

START_TEST(nested_benchmark_is_refused)
{
    spacrbench_measurement *m = NULL;
    void *one[1] = {&order_len};
    ck_assert_int_eq(spacrbench_benchmark(nested_work, one, 1, NULL, NULL, &m), 0);
    ck_assert_int_eq(nested_result, SPACRBENCH_EBUSY);
    spacrbench_measurement_free(m);
}
END_TEST

static int sleepy_work(void *item, void *payload)
{
    (void)item;
    (void)payload;
    sleep_ms(20);
    return 0;
}

static void *run_in_thread(void *arg)
{
    int *rc = arg;
    spacrbench_measurement *m = NULL;
    void *its[3] = {NULL, NULL, NULL};
    *rc = spacrbench_benchmark(sleepy_work, its, 3, NULL, NULL, &m);
    spacrbench_measurement_free(m);
    return NULL;
}

/* Two threads at once: each either succeeds or is refused with EBUSY. */
START_TEST(concurrent_benchmarks_are_refused_not_corrupted)
{
    pthread_t a, b;
    int rc_a = 1, rc_b = 1;
    pthread_create(&a, NULL, run_in_thread, &rc_a);
    pthread_create(&b, NULL, run_in_thread, &rc_b);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    ck_assert(rc_a == 0 || rc_a == SPACRBENCH_EBUSY);
    ck_assert(rc_b == 0 || rc_b == SPACRBENCH_EBUSY);
    ck_assert(rc_a == 0 || rc_b == 0);
}
END_TEST

/* The records of a long run are the harness's memory, not the work's: an
 * empty work over a million items must not report them as its footprint. */
static int do_nothing(void *item, void *payload)
{
    (void)item;
    (void)payload;
    return 0;
}

START_TEST(record_memory_is_not_the_works_footprint)
{
    const size_t n = 1000000;
    void **many = calloc(n, sizeof *many);
    ck_assert_ptr_nonnull(many);
    spacrbench_measurement *m = NULL;
    ck_assert_int_eq(spacrbench_benchmark(do_nothing, many, n, NULL, NULL, &m), 0);
    int64_t work = spacrbench_measurement_work_rss_bytes(m);
    spacrbench_figures f = {.size = sizeof f};
    ck_assert_int_eq(spacrbench_measurement_figures(m, &f), 0);
    printf("empty work over %zu items: footprint %lld bytes (records %zu MiB)\n", n,
           (long long)work, n * sizeof(spacrbench_item_record) >> 20);
    ck_assert_int_eq(f.record_count, (int64_t)n);
#if SB_TEST_RSS_OVERHEAD_PERCENT > 100
    /* ThreadSanitizer writes shadow memory for the records as the loop
     * fills them: that much, and no more, may show. */
    ck_assert_int_lt(work, (int64_t)(n * sizeof(spacrbench_item_record)));
#elif defined(__SANITIZE_ADDRESS__)
    /* AddressSanitizer's shadow is an eighth of the memory it covers. */
    ck_assert_int_lt(work, (1 << 20) + (int64_t)(n * sizeof(spacrbench_item_record) / 8));
#else
    ck_assert_int_lt(work, 1 << 20);
#endif
    spacrbench_measurement_free(m);
    free(many);
}
END_TEST

/* Blocks from malloc (8 MiB, below glibc's largest mmap threshold): once
 * one was freed, glibc serves the next from its heap and keeps them
 * resident after free. Each item needs its size in fresh pages, and so
 * does the same work measured again in this process: the allocator's
 * free memory is handed back before the baseline and each item, so it is
 * never what the next item "needs" for nothing. */
#define HEAP_BLOCK (8 * SB_MIB)

static int heap_work(void *item, void *payload)
{
    (void)payload;
    size_t n = HEAP_BLOCK * (size_t)(1 + *(int *)item % 2);
    volatile unsigned char *p = malloc(n);
    ck_assert_ptr_nonnull((void *)p);
    for (size_t i = 0; i < n; i += 4096)
        p[i] = 1;
    free((void *)p);
    return 0;
}

/* Whether malloc is glibc's own here: valgrind's (preloaded) and
 * ThreadSanitizer's allocators keep freed blocks by their own rules,
 * which malloc_trim does not reach. */
static int glibc_malloc(void)
{
#if defined(__SANITIZE_THREAD__)
    return 0;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
    return 0;
#endif
#endif
    const char *preload = getenv("LD_PRELOAD"); /* valgrind preloads its vgpreload_*.so */
#if defined(__GLIBC__)
    return !(preload && strstr(preload, "vgpreload"));
#else
    (void)preload;
    return 0;
#endif
}

START_TEST(a_measurement_repeated_in_one_process_counts_each_items_pages)
{
    if (!glibc_malloc()) {
        printf("SKIP repeated measurement: malloc is not glibc's here (valgrind, TSan or "
               "another C library), whose freed blocks the test is about\n");
        return;
    }
    for (int run = 0; run < 3; run++) {
        spacrbench_measurement *m = NULL;
        ck_assert_int_eq(spacrbench_benchmark(heap_work, items(4), 4, NULL, NULL, &m), 0);
        spacrbench_figures f;
        figure_items(m, &f);
        if (f.peak_method != SPACRBENCH_PEAK_HWM_RESET) {
            printf("SKIP repeated measurement: no resettable high-water mark here\n");
            spacrbench_measurement_free(m);
            return;
        }
        /* Items 1 and 3 need 16 MiB, 0 and 2 need 8 MiB, in every run
         * (the largest first in none: item 0 runs after run 0's items). */
        for (size_t i = 0; i < 4; i++) {
            spacrbench_item_record r = {.size = sizeof r};
            ck_assert_int_eq(spacrbench_measurement_record(m, i, &r), 0);
            int64_t need = (int64_t)HEAP_BLOCK * (int64_t)(1 + i % 2);
            ck_assert_msg(r.peak_rss_bytes - f.baseline_rss_bytes >= need * 95 / 100,
                          "run %d item %zu: %lld bytes above the baseline, needs %lld", run, i,
                          (long long)(r.peak_rss_bytes - f.baseline_rss_bytes), (long long)need);
        }
        spacrbench_measurement_free(m);
    }
}
END_TEST

/* A work that forks, where the child returns into the runner: the child
 * gets SPACRBENCH_EFORKED at once (it must not join the parent's sampler
 * thread, which does not exist in it), and the parent's run is untouched.
 * The sampler runs (no HWM reset) because that is where the hang was. */
static pid_t fork_parent, fork_child;

static int fork_on_first(void *item, void *payload)
{
    (void)payload;
    if (item == NULL && getpid() == fork_parent) {
        pid_t pid = fork();
        if (pid > 0)
            fork_child = pid;
    }
    return 0;
}

START_TEST(forked_child_returning_gets_eforked)
{
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    fork_parent = getpid();
    fork_child = 0;
    void *list[3] = {NULL, (void *)1, (void *)2};
    spacrbench_options o;
    spacrbench_options_init(&o, sizeof o);
    o.flags = SPACRBENCH_FLAG_NO_HWM_RESET | SPACRBENCH_FLAG_NO_GPU;
    o.sample_interval_us = 1000;
    spacrbench_measurement *m = NULL;
    int rc = spacrbench_benchmark(fork_on_first, list, 3, NULL, &o, &m);
    if (getpid() != fork_parent) {
        /* The child: report what the runner said, then leave at once. */
        int said[2] = {rc, m == NULL};
        ssize_t w = write(fds[1], said, sizeof said);
        _exit(w == (ssize_t)sizeof said ? 0 : 1);
    }
    close(fds[1]);
    int said[2] = {0, 0};
    ssize_t got = read(fds[0], said, sizeof said);
    close(fds[0]);
    int status = 0;
    ck_assert_int_eq(waitpid(fork_child, &status, 0), fork_child);
    ck_assert_int_eq(rc, 0);
    ck_assert_ptr_nonnull(m);
    ck_assert_int_eq(got, (ssize_t)sizeof said);
    ck_assert_int_eq(said[0], SPACRBENCH_EFORKED);
    ck_assert_int_eq(said[1], 1);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    spacrbench_figures f = {.size = sizeof f};
    ck_assert_int_eq(spacrbench_measurement_figures(m, &f), 0);
    ck_assert_int_eq(f.items, 2);
    spacrbench_measurement_free(m);
}
END_TEST

/* A process forked while another thread is inside a benchmark inherits
 * the run lock held by a thread it does not have: its own benchmarks must
 * run (they used to block for good, e.g. in multiprocessing fork pools). */
static int started_fd[2], go_fd[2];
static int run_once(spacrbench_work_fn work, spacrbench_measurement **m);

static int wait_for_go(void *item, void *payload)
{
    (void)item;
    (void)payload;
    char c = 'x';
    if (write(started_fd[1], &c, 1) != 1 || read(go_fd[0], &c, 1) != 1)
        return 1;
    return 0;
}

static void *run_until_go(void *arg)
{
    int *rc = arg;
    spacrbench_measurement *m = NULL;
    void *its[1] = {NULL};
    spacrbench_options o;
    spacrbench_options_init(&o, sizeof o);
    o.flags = SPACRBENCH_FLAG_NO_HWM_RESET | SPACRBENCH_FLAG_NO_GPU; /* a sampler thread too */
    *rc = spacrbench_benchmark(wait_for_go, its, 1, NULL, &o, &m);
    spacrbench_measurement_free(m);
    return NULL;
}

START_TEST(a_child_forked_beside_a_run_can_benchmark)
{
    ck_assert_int_eq(pipe(started_fd), 0);
    ck_assert_int_eq(pipe(go_fd), 0);
    pthread_t t;
    int thread_rc = -1;
    ck_assert_int_eq(pthread_create(&t, NULL, run_until_go, &thread_rc), 0);
    char c;
    ck_assert_int_eq(read(started_fd[0], &c, 1), 1); /* the thread holds the lock now */
    int result[2];
    ck_assert_int_eq(pipe(result), 0);
    pid_t child = fork();
    if (child == 0) {
        alarm(20); /* a hang fails the test instead of stalling it */
        int said[2];
        /* No GPU and the exact high-water mark: no sampler thread, which
         * TSan forbids in a child of a threaded process. */
        spacrbench_options o;
        spacrbench_options_init(&o, sizeof o);
        o.flags = SPACRBENCH_FLAG_NO_GPU;
        void *two[2] = {NULL, NULL};
        for (int i = 0; i < 2; i++) {
            spacrbench_measurement *m = NULL;
            said[i] = spacrbench_benchmark(do_nothing, two, 2, NULL, &o, &m);
            spacrbench_measurement_free(m);
        }
        _exit(write(result[1], said, sizeof said) == (ssize_t)sizeof said ? 0 : 1);
    }
    ck_assert_int_gt(child, 0);
    close(result[1]);
    int said[2] = {-99, -99};
    ssize_t got = read(result[0], said, sizeof said);
    int status = 0;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    /* The parent's lock is untouched: a second run here is still refused. */
    spacrbench_measurement *m = NULL;
    ck_assert_int_eq(run_once(do_nothing, &m), SPACRBENCH_EBUSY);
    ck_assert_int_eq(write(go_fd[1], "g", 1), 1);
    pthread_join(t, NULL);
    ck_assert_int_eq(thread_rc, 0);
    /* Exited, not killed (the alarm); its exit status is not asserted:
     * under valgrind the child reports what only the parent's other
     * thread pointed to as lost, and exits 99. The pipe says how it went. */
    ck_assert_msg(WIFEXITED(status), "child status %d", status);
    ck_assert_int_eq(got, (ssize_t)sizeof said);
    ck_assert_int_eq(said[0], 0);
    ck_assert_int_eq(said[1], 0);
    for (int i = 0; i < 2; i++) {
        close(started_fd[i]);
        close(go_fd[i]);
    }
    close(result[0]);
}
END_TEST

/* Leaving the work by longjmp abandons the run; the next call from the
 * same place releases it (thread, files) and runs, with a note. */
static jmp_buf escape;

static int jump_out(void *item, void *payload)
{
    (void)item;
    (void)payload;
    longjmp(escape, 1);
}

/* Not inlined into the test that calls setjmp: its locals would then be
 * "clobbered by longjmp" to GCC at -O2 (-Werror=clobbered). */
__attribute__((noinline)) static int count_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    for (struct dirent *e; d && (e = readdir(d));)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

static int run_once(spacrbench_work_fn work, spacrbench_measurement **m)
{
    void *list[2] = {NULL, NULL};
    spacrbench_options o;
    spacrbench_options_init(&o, sizeof o);
    o.flags = SPACRBENCH_FLAG_NO_HWM_RESET | SPACRBENCH_FLAG_NO_GPU; /* a sampler thread runs */
    return spacrbench_benchmark(work, list, 2, NULL, &o, m);
}

START_TEST(abandoned_run_is_released_by_the_next_call)
{
    int fds_before = count_fds();
    spacrbench_measurement *m = NULL;
    volatile int jumped = 0;
    if (setjmp(escape) == 0)
        run_once(jump_out, &m);
    else
        jumped = 1;
    ck_assert_int_eq(jumped, 1);
    ck_assert_int_gt(count_fds(), fds_before); /* the abandoned run still holds its files */
    int rc = run_once(do_nothing, &m);
    ck_assert_msg(rc == 0, "%d: %s", rc, spacrbench_last_error_message());
    ck_assert_int_eq(count_fds(), fds_before);
    int noted = 0;
    for (size_t i = 0; spacrbench_measurement_note(m, i); i++)
        noted |= strstr(spacrbench_measurement_note(m, i), "abandoned") != NULL;
    ck_assert(noted);
    spacrbench_measurement_free(m);
    /* And the lock is free again for the next run. */
    ck_assert_int_eq(run_once(do_nothing, &m), 0);
    spacrbench_measurement_free(m);
}
END_TEST

/* A size no struct of any version has is refused before anything is read. */
START_TEST(absurd_struct_sizes_are_refused)
{
    spacrbench_options o;
    spacrbench_options_init(&o, sizeof o);
    void *list[1] = {NULL};
    spacrbench_measurement *m = NULL;
    const size_t sizes[] = {(size_t)1 << 40, SIZE_MAX};
    for (size_t i = 0; i < 2; i++) {
        o.size = sizes[i];
        ck_assert_int_eq(spacrbench_benchmark(do_nothing, list, 1, NULL, &o, &m),
                         SPACRBENCH_EINVAL);
        ck_assert_ptr_nonnull(strstr(spacrbench_last_error_message(), "options.size"));
        spacrbench_recommend_options ro;
        spacrbench_recommend_options_init(&ro, sizeof ro);
        ro.size = sizes[i];
        spacrbench_recommendation r = {.size = sizeof r};
        ck_assert_int_eq(spacrbench_recommend(NULL, &ro, &r), SPACRBENCH_EINVAL);
        r.size = sizes[i];
        ck_assert_int_eq(spacrbench_recommend(NULL, NULL, &r), SPACRBENCH_EINVAL);
    }
}
END_TEST

/* A reset the kernel accepts but does not do (seen through a bind mount):
 * clear_refs pointed at /dev/null takes the write and changes nothing, so
 * a spike from before stays in VmHWM. The check must catch it. */
START_TEST(unverified_hwm_reset_is_not_trusted)
{
    sb_proc p;
    ck_assert_int_eq(sb_proc_open(&p, 1), 0);
    if (p.clear_refs_fd < 0) {
        printf("SKIP unverified_hwm_reset: /proc/self/clear_refs is not writable here\n");
        sb_proc_close(&p);
        return;
    }
    ck_assert_int_eq(sb_proc_reset_hwm_verified(&p), 0); /* the real reset works */
    void *spike = sb_test_touch_alloc(64 * SB_MIB);
    sb_test_touch_free(spike, 64 * SB_MIB); /* the mark keeps it */
    close(p.clear_refs_fd);
    p.clear_refs_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    ck_assert_int_ge(p.clear_refs_fd, 0);
    ck_assert_int_eq(sb_proc_reset_hwm(&p), 0);           /* the write is accepted... */
    ck_assert_int_eq(sb_proc_reset_hwm_verified(&p), -1); /* ...but did nothing */
    sb_proc_close(&p);
}
END_TEST

/* Free VRAM summed over GPUs with absurd figures saturates instead of
 * overflowing (UBSan caught the signed overflow). */
START_TEST(vram_sums_saturate)
{
    spacrbench_figures f = {.size = sizeof f};
    f.items = 1;
    f.seconds = 1.0;
    f.peak_rss_bytes = 100 << 20;
    f.peak_vram_bytes = 1 << 30;
    f.cpu_seconds = 1.0;
    spacrbench_measurement *m = NULL;
    ck_assert_int_eq(spacrbench_measurement_create(&f, &m), 0);
    for (int i = 0; i < 3; i++) {
        spacrbench_gpu_info g = {.size = sizeof g};
        g.free_bytes = INT64_MAX / 2;
        g.total_bytes = INT64_MAX / 2;
        g.process_peak_bytes = -1; /* no per-device figure: the sums are compared */
        ck_assert_int_eq(spacrbench_measurement_add_gpu(m, &g), 0);
    }
    spacrbench_recommend_options o;
    spacrbench_recommend_options_init(&o, sizeof o);
    o.cores = 4;
    o.available_bytes = INT64_C(64) << 30;
    spacrbench_recommendation r = {.size = sizeof r};
    ck_assert_int_eq(spacrbench_recommend(m, &o, &r), 0);
    ck_assert_int_eq(r.free_vram_bytes, INT64_MAX);
    ck_assert_int_eq(r.workers, 4);
    spacrbench_measurement_free(m);
}
END_TEST

static Suite *runner_suite(void)
{
    Suite *s = suite_create("runner");
    TCase *peaks = tcase_create("peaks");
    tcase_set_timeout(peaks, 120);
    tcase_add_test(peaks, short_spike_is_captured_exactly);
    tcase_add_test(peaks, children_of_the_work_are_named_as_not_counted);
    tcase_add_test(peaks, fallback_uses_rising_high_water_mark);
    tcase_add_test(peaks, fallback_samples_when_mark_cannot_tell);
    tcase_add_test(peaks, warmup_does_not_hide_transient_footprint);
    tcase_add_test(peaks, records_off_still_measures_peak);
    tcase_add_test(peaks, progress_cost_is_not_charged_to_the_work);
    tcase_add_test(peaks, record_memory_is_not_the_works_footprint);
    tcase_add_test(peaks, a_measurement_repeated_in_one_process_counts_each_items_pages);
    suite_add_tcase(s, peaks);
    TCase *flow = tcase_create("flow");
    tcase_set_timeout(flow, 60);
    tcase_add_test(flow, items_run_once_in_order_and_warmup_clamps);
    tcase_add_test(flow, stop_returns_euser_with_the_work_value);
    tcase_add_test(flow, stop_keeps_partial_measurement_on_request);
    tcase_add_test(flow, progress_is_called_after_each_item_and_can_stop);
    tcase_add_test(flow, nested_benchmark_is_refused);
    tcase_add_test(flow, concurrent_benchmarks_are_refused_not_corrupted);
    suite_add_tcase(s, flow);
    TCase *input = tcase_create("input");
    tcase_add_test(input, zero_items_and_null_arguments_are_errors);
    tcase_add_test(input, bad_options_are_rejected);
    tcase_add_test(input, options_struct_versions);
    tcase_add_test(input, impossible_item_count_is_out_of_memory);
    tcase_add_test(input, absurd_struct_sizes_are_refused);
    tcase_add_test(input, vram_sums_saturate);
    tcase_add_test(peaks, unverified_hwm_reset_is_not_trusted);
    tcase_add_test(flow, forked_child_returning_gets_eforked);
    tcase_add_test(flow, a_child_forked_beside_a_run_can_benchmark);
    tcase_add_test(flow, abandoned_run_is_released_by_the_next_call);
    suite_add_tcase(s, input);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(runner_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
