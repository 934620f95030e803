/* spacrbench_benchmark_stream: items of unknown count. The work takes its
 * own items and says SPACRBENCH_ITEMS_END; the measurement must mean what
 * a counted run's does (warm-up, the last item measured, records, notes). */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "spacrbench.h"

/* A source of `n` items (n < 0: endless), counting the calls. */
typedef struct source {
    int64_t n, taken, calls;
    int64_t stop_at; /* the item whose work returns 9; -1 never */
} source;

static int take(void *item, void *payload)
{
    source *s = payload;
    ck_assert_ptr_null(item); /* the work takes its own items */
    s->calls++;
    if (s->n >= 0 && s->taken == s->n)
        return SPACRBENCH_ITEMS_END;
    int64_t index = s->taken++;
    return index == s->stop_at ? 9 : 0;
}

static spacrbench_figures figures(const spacrbench_measurement *m)
{
    spacrbench_figures f;
    memset(&f, 0, sizeof f);
    f.size = sizeof f;
    ck_assert_int_eq(spacrbench_measurement_figures(m, &f), 0);
    return f;
}

static int has_note(const spacrbench_measurement *m, const char *part)
{
    const char *note;
    for (size_t i = 0; (note = spacrbench_measurement_note(m, i)) != NULL; i++)
        if (strstr(note, part))
            return 1;
    return 0;
}

static int64_t run(source *s, int64_t warmup, uint32_t flags, spacrbench_measurement **m)
{
    spacrbench_options o;
    spacrbench_options_init(&o, sizeof o);
    o.warmup = warmup;
    o.flags = flags;
    return spacrbench_benchmark_stream(take, s, &o, m);
}

START_TEST(items_are_counted_as_they_come)
{
    source s = {5, 0, 0, -1};
    spacrbench_measurement *m = NULL;
    ck_assert_int_eq(run(&s, 1, 0, &m), 0);
    ck_assert_int_eq(s.calls, 6); /* five items and the call that said the end */
    spacrbench_figures f = figures(m);
    ck_assert_int_eq(f.items, 4);
    ck_assert_int_eq(f.warmup_items, 1);
    ck_assert_int_eq(f.record_count, 5);
    for (size_t i = 0; i < 5; i++) {
        spacrbench_item_record r;
        memset(&r, 0, sizeof r);
        r.size = sizeof r;
        ck_assert_int_eq(spacrbench_measurement_record(m, i, &r), 0);
        ck_assert_int_eq(r.index, (int64_t)i);
        ck_assert_int_eq(r.is_warmup, i == 0);
    }
    ck_assert(f.seconds >= 0.0 && f.warmup_seconds >= 0.0);
    ck_assert(!isnan(f.cpu_seconds));
    ck_assert(has_note(m, "1 warm-up item(s) excluded from the timing"));
    ck_assert(!has_note(m, "clamped"));
    spacrbench_measurement_free(m);
}
END_TEST

START_TEST(many_items_grow_the_records)
{
    source s = {1000, 0, 0, -1};
    spacrbench_measurement *m = NULL;
    ck_assert_int_eq(run(&s, 0, SPACRBENCH_FLAG_TIMELINE, &m), 0);
    spacrbench_figures f = figures(m);
    ck_assert_int_eq(f.items, 1000);
    ck_assert_int_eq(f.record_count, 1000);
    ck_assert_uint_eq(spacrbench_measurement_timeline_item_count(m), 1000);
    spacrbench_item_record r;
    memset(&r, 0, sizeof r);
    r.size = sizeof r;
    ck_assert_int_eq(spacrbench_measurement_record(m, 999, &r), 0);
    ck_assert_int_eq(r.index, 999);
    ck_assert(!isnan(spacrbench_measurement_item_cpu_seconds(m, 999)));
    spacrbench_measurement_free(m);
}
END_TEST

START_TEST(items_ending_in_the_warmup_measure_the_last)
{
    source s = {3, 0, 0, -1};
    spacrbench_measurement *m = NULL;
    ck_assert_int_eq(run(&s, 10, SPACRBENCH_FLAG_TIMELINE, &m), 0);
    spacrbench_figures f = figures(m);
    ck_assert_int_eq(f.items, 1);
    ck_assert_int_eq(f.warmup_items, 2);
    ck_assert(f.seconds >= 0.0 && f.warmup_seconds >= 0.0);
    spacrbench_item_record r;
    memset(&r, 0, sizeof r);
    r.size = sizeof r;
    ck_assert_int_eq(spacrbench_measurement_record(m, 2, &r), 0);
    ck_assert_int_eq(r.is_warmup, 0);
    ck_assert_int_eq(spacrbench_measurement_record(m, 1, &r), 0);
    ck_assert_int_eq(r.is_warmup, 1);
    spacrbench_timeline_item it;
    memset(&it, 0, sizeof it);
    it.size = sizeof it;
    ck_assert_int_eq(spacrbench_measurement_timeline_item(m, 2, &it), 0);
    ck_assert_int_eq(it.is_warmup, 0);
    /* The counted run's words. */
    ck_assert(has_note(m, "2 warm-up item(s) excluded from the timing"));
    ck_assert(has_note(m, "warm-up of 10 clamped to 2 so the last item is measured"));
    spacrbench_measurement_free(m);

    source one = {1, 0, 0, -1};
    ck_assert_int_eq(run(&one, 1, 0, &m), 0);
    f = figures(m);
    ck_assert_int_eq(f.items, 1);
    ck_assert_int_eq(f.warmup_items, 0);
    spacrbench_measurement_free(m);
}
END_TEST

START_TEST(no_item_at_all_is_enoitems)
{
    source s = {0, 0, 0, -1};
    spacrbench_measurement *m = (spacrbench_measurement *)&s; /* must be cleared */
    ck_assert_int_eq(run(&s, 1, 0, &m), SPACRBENCH_ENOITEMS);
    ck_assert_ptr_null(m);
    ck_assert_int_eq(s.calls, 1);
    ck_assert_ptr_nonnull(strstr(spacrbench_last_error_message(), "at least one item"));
    /* The library is clean: the next run works. */
    source t = {2, 0, 0, -1};
    ck_assert_int_eq(run(&t, 1, 0, &m), 0);
    spacrbench_measurement_free(m);
}
END_TEST

START_TEST(a_stop_is_euser_with_the_partial_run)
{
    source s = {-1, 0, 0, 2}; /* endless; item 2 stops */
    spacrbench_measurement *m = NULL;
    ck_assert_int_eq(run(&s, 1, SPACRBENCH_FLAG_KEEP_PARTIAL, &m), SPACRBENCH_EUSER);
    ck_assert_int_eq(s.calls, 3);
    ck_assert_int_eq(spacrbench_last_work_result(), 9);
    ck_assert_int_eq(spacrbench_last_stopped_item(), 2);
    spacrbench_figures f = figures(m);
    ck_assert_int_eq(f.stopped, 1);
    ck_assert_int_eq(f.items, 2);
    ck_assert_int_eq(f.warmup_items, 1);
    ck_assert_int_eq(f.record_count, 3);
    spacrbench_measurement_free(m);
}
END_TEST

typedef struct progress_log {
    int calls;
    int64_t total;
    int warm[8];
} progress_log;

static int log_progress(const spacrbench_progress *p, void *payload)
{
    progress_log *log = payload;
    log->total = p->total;
    if (log->calls < 8)
        log->warm[log->calls] = p->is_warmup;
    log->calls++;
    return 0;
}

START_TEST(progress_has_no_total_and_says_so)
{
    progress_log log;
    memset(&log, 0, sizeof log);
    source s = {3, 0, 0, -1};
    spacrbench_options o;
    spacrbench_options_init(&o, sizeof o);
    o.warmup = 1;
    o.progress = log_progress;
    o.progress_payload = &log;
    spacrbench_measurement *m = NULL;
    ck_assert_int_eq(spacrbench_benchmark_stream(take, &s, &o, &m), 0);
    ck_assert_int_eq(log.calls, 3);
    ck_assert_int_eq(log.total, -1);
    ck_assert_int_eq(log.warm[0], 1);
    ck_assert_int_eq(log.warm[1], 0);
    spacrbench_measurement_free(m);

    spacrbench_progress p = {sizeof p, 1, -1, 0, 0, 0.5, 1.0, -1};
    char line[128];
    ck_assert_int_gt(spacrbench_format_progress(&p, NULL, line, sizeof line), 0);
    ck_assert_str_eq(line, "item 2/? done in 0.500 s");
    p.total = 5;
    ck_assert_int_gt(spacrbench_format_progress(&p, NULL, line, sizeof line), 0);
    ck_assert_str_eq(line, "item 2/5 done in 0.500 s");
}
END_TEST

START_TEST(bad_arguments_are_errors)
{
    spacrbench_measurement *m = NULL;
    source s = {1, 0, 0, -1};
    ck_assert_int_eq(spacrbench_benchmark_stream(NULL, &s, NULL, &m), SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_benchmark_stream(take, &s, NULL, NULL), SPACRBENCH_EINVAL);
    spacrbench_options o;
    spacrbench_options_init(&o, sizeof o);
    o.warmup = -1;
    ck_assert_int_eq(spacrbench_benchmark_stream(take, &s, &o, &m), SPACRBENCH_EINVAL);
    ck_assert_int_eq(s.calls, 0);
    /* NULL options are the defaults (one warm-up item). */
    ck_assert_int_eq(spacrbench_benchmark_stream(take, &s, NULL, &m), 0);
    ck_assert_int_eq(figures(m).items, 1);
    spacrbench_measurement_free(m);
}
END_TEST

/* The records, CPU seconds and timeline marks grow as the items come; the
 * memory is the run's own, never the work's: a counted run commits it
 * before the baseline (the timeline's marks too: their pages written, not
 * only calloc'ed), a stream adds it to the baseline as it grows. */
/* ASan's quarantine, TSan's shadow and its allocator's caches, and
 * valgrind's freed-block queue keep what the runner frees per item
 * resident, a few MiB over 40000 items (TSan: 8.3 MiB in CI). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SB_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SB_TEST_SANITIZED 1
#endif
#endif
static int keeps_freed_memory(void)
{
#if defined(SB_TEST_SANITIZED)
    return 1;
#else
    const char *preload = getenv("LD_PRELOAD"); /* valgrind preloads its vgpreload_*.so */
    return preload && strstr(preload, "vgpreload") != NULL;
#endif
}

static int64_t work_bytes(const spacrbench_measurement *m)
{
    spacrbench_figures f = figures(m);
    ck_assert_int_eq(f.record_count, 40000);
    return f.peak_rss_bytes - f.baseline_rss_bytes;
}

START_TEST(grown_records_are_not_the_works_memory)
{
    enum { N = 40000 };
    void **items = calloc(N, sizeof *items); /* NULL: take() takes its own */
    ck_assert_ptr_nonnull(items);
    source counted = {-1, 0, 0, -1};
    spacrbench_options o;
    spacrbench_options_init(&o, sizeof o);
    o.warmup = 0;
    o.flags = SPACRBENCH_FLAG_TIMELINE;
    spacrbench_measurement *m = NULL;
    ck_assert_int_eq(spacrbench_benchmark(take, items, N, &counted, &o, &m), 0);
    int64_t counted_work = work_bytes(m);
    spacrbench_measurement_free(m);
    free(items);

    source s = {N, 0, 0, -1};
    ck_assert_int_eq(run(&s, 0, SPACRBENCH_FLAG_TIMELINE, &m), 0);
    int64_t work = work_bytes(m);
    spacrbench_measurement_free(m);
    int64_t grown = N * (int64_t)(sizeof(spacrbench_item_record) + sizeof(double) +
                                  sizeof(spacrbench_timeline_item));
    int64_t allowance = 0;
    if (keeps_freed_memory()) /* the same in both runs: only the comparison holds */
        allowance = counted_work;
    else
        ck_assert_msg(counted_work < grown / 4,
                      "counted, a work that allocates nothing has %lld bytes above the "
                      "baseline (the records and marks: %lld)",
                      (long long)counted_work, (long long)grown);
    ck_assert_msg(work < allowance + grown / 4,
                  "a work that allocates nothing has %lld bytes above the baseline, counted "
                  "%lld (the records and marks grown meanwhile: %lld)",
                  (long long)work, (long long)counted_work, (long long)grown);
}
END_TEST

static Suite *stream_suite(void)
{
    Suite *s = suite_create("stream");
    TCase *tc = tcase_create("stream");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, items_are_counted_as_they_come);
    tcase_add_test(tc, many_items_grow_the_records);
    tcase_add_test(tc, grown_records_are_not_the_works_memory);
    tcase_add_test(tc, items_ending_in_the_warmup_measure_the_last);
    tcase_add_test(tc, no_item_at_all_is_enoitems);
    tcase_add_test(tc, a_stop_is_euser_with_the_partial_run);
    tcase_add_test(tc, progress_has_no_total_and_says_so);
    tcase_add_test(tc, bad_arguments_are_errors);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(stream_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
