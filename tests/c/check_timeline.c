/* The memory timeline: a real run with a held allocation, item marks equal
 * to the items' exact peaks, the bound (a long run downsampled and said
 * so), the builder API and its bad input, and the JSON member. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core.h"
#include "sb_test_memory.h"
#include "spacrbench.h"

#define HELD_BYTES (64 * SB_MIB)

static void *item_ptrs[8];
static int item_values[8];

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

/* Item 2 holds 64 MiB for 60 ms (long enough to be sampled), then frees
 * it; the others sleep 20 ms. */
static int held_work(void *item, void *payload)
{
    (void)payload;
    if (*(int *)item == 2) {
        void *p = sb_test_touch_alloc(HELD_BYTES);
        sleep_ms(60);
        sb_test_touch_free(p, HELD_BYTES);
    } else {
        sleep_ms(20);
    }
    return 0;
}

static int sleep_work(void *item, void *payload)
{
    (void)item;
    (void)payload;
    sleep_ms(*(const long *)payload);
    return 0;
}

static spacrbench_measurement *run(spacrbench_work_fn work, size_t n, int64_t interval_us,
                                   uint32_t flags, void *payload)
{
    spacrbench_options o;
    spacrbench_options_init(&o, sizeof o);
    o.warmup = 1;
    o.sample_interval_us = interval_us;
    o.flags = SPACRBENCH_FLAG_NO_GPU | flags;
    spacrbench_measurement *m = NULL;
    ck_assert_msg(spacrbench_benchmark(work, items(n), n, payload, &o, &m) == 0, "%s",
                  spacrbench_last_error_message());
    return m;
}

static spacrbench_timeline_info info_of(const spacrbench_measurement *m)
{
    spacrbench_timeline_info info = {.size = sizeof info};
    ck_assert_msg(spacrbench_measurement_timeline_info(m, &info) == 0, "%s",
                  spacrbench_last_error_message());
    return info;
}

START_TEST(items_are_marked_with_their_exact_peaks)
{
    spacrbench_measurement *m = run(held_work, 5, 1000, SPACRBENCH_FLAG_TIMELINE, NULL);
    spacrbench_timeline_info info = info_of(m);
    ck_assert_int_eq(info.max_points, SPACRBENCH_TIMELINE_MAX_POINTS);
    ck_assert_int_le(info.point_count, SPACRBENCH_TIMELINE_MAX_POINTS);
    ck_assert_int_ge(info.point_count, 20); /* 140 ms at 1 ms, sampler delays allowed */
    ck_assert_int_eq(info.interval_us, 1000);
    ck_assert_int_eq(info.item_count, 5);
    ck_assert_int_eq((int64_t)spacrbench_measurement_timeline_count(m), info.point_count);
    ck_assert_int_eq(info.downsampled, 0);

    double last = -1.0;
    int64_t highest = 0;
    for (size_t i = 0; i < (size_t)info.point_count; i++) {
        spacrbench_timeline_point p = {.size = sizeof p};
        ck_assert_int_eq(spacrbench_measurement_timeline_point(m, i, &p), 0);
        ck_assert(p.seconds >= last);
        ck_assert_int_gt(p.rss_bytes, 0);
        ck_assert_int_eq(p.cgroup_bytes, -1);
        last = p.seconds;
        if (p.rss_bytes > highest)
            highest = p.rss_bytes;
    }
    spacrbench_figures f = {.size = sizeof f};
    spacrbench_measurement_figures(m, &f);
    ck_assert_int_eq(f.sample_interval_us, 1000);
    /* The picture saw the held 64 MiB, and no sample is far above the
     * exact peak (the kernel batches its RSS counters by up to 64 pages per
     * thread, so a sample may read a little high). */
    ck_assert_int_ge(highest, f.baseline_rss_bytes + (int64_t)(HELD_BYTES * 9 / 10));
    ck_assert_int_le(highest, f.peak_rss_bytes + (int64_t)SB_MIB);

    double end = 0.0;
    for (size_t i = 0; i < 5; i++) {
        spacrbench_timeline_item it = {.size = sizeof it};
        spacrbench_item_record r = {.size = sizeof r};
        ck_assert_int_eq(spacrbench_measurement_timeline_item(m, i, &it), 0);
        ck_assert_int_eq(spacrbench_measurement_record(m, i, &r), 0);
        ck_assert_int_eq(it.index, (int64_t)i);
        ck_assert_int_eq(it.is_warmup, i == 0);
        ck_assert_int_eq(it.peak_rss_bytes, r.peak_rss_bytes); /* the exact peak */
        ck_assert(it.start_seconds >= end && it.end_seconds >= it.start_seconds);
        ck_assert(fabs((it.end_seconds - it.start_seconds) - r.seconds) < 1e-3);
        ck_assert(it.peak_seconds >= it.start_seconds && it.peak_seconds <= it.end_seconds);
        end = it.end_seconds;
    }
    spacrbench_timeline_item it = {.size = sizeof it};
    ck_assert_int_eq(spacrbench_measurement_timeline_item(m, 5, &it), SPACRBENCH_ERANGE);
    spacrbench_timeline_point p = {.size = sizeof p};
    ck_assert_int_eq(spacrbench_measurement_timeline_point(m, (size_t)info.point_count, &p),
                     SPACRBENCH_ERANGE);

    int len = spacrbench_measurement_to_json(m, NULL, 0, NULL, 0);
    ck_assert_int_gt(len, 0);
    char *json = malloc((size_t)len + 1);
    ck_assert_int_eq(spacrbench_measurement_to_json(m, NULL, 0, json, (size_t)len + 1), len);
    ck_assert_ptr_nonnull(strstr(json, "\"timeline\":{\"interval_us\":1000,"));
    ck_assert_ptr_nonnull(strstr(json, "\"downsampled\":false"));
    ck_assert_ptr_nonnull(strstr(json, "\"max_points\":2000,\"points\":[{\"seconds\":"));
    ck_assert_ptr_nonnull(strstr(json, "\"items\":[{\"index\":0,\"is_warmup\":true,"));
    free(json);
    spacrbench_measurement_free(m);
}
END_TEST

START_TEST(no_timeline_unless_asked)
{
    long ms = 1;
    spacrbench_measurement *m = run(sleep_work, 2, 0, 0, &ms);
    spacrbench_timeline_info info = {.size = sizeof info};
    ck_assert_int_eq(spacrbench_measurement_timeline_info(m, &info), SPACRBENCH_ERANGE);
    ck_assert_int_eq((int)spacrbench_measurement_timeline_count(m), 0);
    ck_assert_int_eq((int)spacrbench_measurement_timeline_item_count(m), 0);
    char json[8192];
    ck_assert_int_gt(spacrbench_measurement_to_json(m, NULL, 0, json, sizeof json), 0);
    ck_assert_ptr_nonnull(strstr(json, "\"timeline\":null}"));
    spacrbench_measurement_free(m);
}
END_TEST

/* 100 us over ~0.5 s: about 5000 samples, more than the bound holds. */
START_TEST(a_long_run_is_downsampled_to_the_bound_and_says_so)
{
    /* 2 x 250 ms at 100 us is about 5000 samples on an idle machine; a
     * busy one (valgrind, a loaded CI) takes fewer, so the run doubles its
     * length until the bound is passed (4 tries, at most 2 x 2 s). */
    long ms = 250;
    spacrbench_measurement *m = run(sleep_work, 2, 100, SPACRBENCH_FLAG_TIMELINE, &ms);
    spacrbench_timeline_info info = info_of(m);
    for (int tries = 1; tries < 4 && info.samples <= SPACRBENCH_TIMELINE_MAX_POINTS; tries++) {
        spacrbench_measurement_free(m);
        ms *= 2;
        m = run(sleep_work, 2, 100, SPACRBENCH_FLAG_TIMELINE, &ms);
        info = info_of(m);
    }
    ck_assert_int_le(info.point_count, SPACRBENCH_TIMELINE_MAX_POINTS);
    ck_assert_int_gt(info.samples, SPACRBENCH_TIMELINE_MAX_POINTS);
    ck_assert_int_eq(info.downsampled, 1);
    ck_assert_int_ge(info.stride, 2);
    /* Every sample is in a point: full points hold stride samples each. */
    ck_assert_int_le(info.samples, info.point_count * info.stride);
    ck_assert_int_gt(info.samples, (info.point_count - 1) * info.stride);
    spacrbench_figures f = {.size = sizeof f};
    spacrbench_measurement_figures(m, &f);
    int said = 0;
    for (int64_t i = 0; i < f.note_count; i++)
        said |= strstr(spacrbench_measurement_note(m, (size_t)i), "timeline downsampled: ") != NULL;
    ck_assert_msg(said, "no note says the timeline was downsampled");
    spacrbench_measurement_free(m);
}
END_TEST

START_TEST(the_downsampler_keeps_the_bound_and_the_spike)
{
    sb_timeline *tl = sb_timeline_new(10000, 0);
    ck_assert_ptr_nonnull(tl);
    const long n = 37L * SPACRBENCH_TIMELINE_MAX_POINTS + 11;
    for (long i = 0; i < n; i++) {
        sb_timeline_sample_add(tl, (double)i, i == 12345 ? INT64_C(1) << 40 : 4096 + i % 7, -1);
        ck_assert_uint_le(sb_timeline_count(tl), SPACRBENCH_TIMELINE_MAX_POINTS);
    }
    ck_assert_int_eq(tl->samples, n);
    ck_assert_int_eq(tl->stride, 64); /* 37x the bound: halved six times */
    int64_t spike = 0;
    double at = -1;
    for (size_t i = 0; i < sb_timeline_count(tl); i++) {
        sb_timeline_sample p = sb_timeline_point(tl, i);
        if (p.rss_bytes > spike) {
            spike = p.rss_bytes;
            at = p.seconds;
        }
    }
    ck_assert_int_eq(spike, INT64_C(1) << 40); /* merged points keep the highest sample */
    ck_assert(at == 12345.0);                  /* ... and its time */
    sb_timeline_free(tl);
}
END_TEST

START_TEST(builder_copies_and_refuses_bad_input)
{
    spacrbench_figures f = {.size = sizeof f, .items = 1, .seconds = 1.0, .peak_rss_bytes = 100};
    spacrbench_measurement *m = NULL;
    ck_assert_int_eq(spacrbench_measurement_create(&f, &m), 0);
    spacrbench_timeline_point p = {sizeof p, 0.5, 10, -1};
    ck_assert_int_eq(spacrbench_measurement_timeline_add_point(m, &p), SPACRBENCH_EINVAL);
    spacrbench_timeline_info info = {
        .size = sizeof info, .interval_us = 10000, .samples = 8, .stride = 4};
    ck_assert_int_eq(spacrbench_measurement_timeline_begin(m, &info), 0);
    ck_assert_int_eq(spacrbench_measurement_timeline_begin(m, &info), SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_measurement_timeline_add_point(m, &p), 0);
    p.seconds = 0.25; /* before the previous point */
    ck_assert_int_eq(spacrbench_measurement_timeline_add_point(m, &p), SPACRBENCH_EINVAL);
    p.seconds = NAN;
    ck_assert_int_eq(spacrbench_measurement_timeline_add_point(m, &p), SPACRBENCH_EINVAL);
    p.seconds = 1.0;
    p.rss_bytes = -2;
    ck_assert_int_eq(spacrbench_measurement_timeline_add_point(m, &p), SPACRBENCH_EINVAL);
    p.rss_bytes = 90;
    ck_assert_int_eq(spacrbench_measurement_timeline_add_point(m, &p), 0);
    spacrbench_timeline_info got = info_of(m);
    ck_assert_int_eq(got.samples, 8);
    ck_assert_int_eq(got.stride, 4);
    ck_assert_int_eq(got.downsampled, 1);
    ck_assert_int_eq(got.point_count, 2);

    spacrbench_timeline_item it = {sizeof it, 0, 0, 0, 0.0, 1.0, 100, NAN};
    ck_assert_int_eq(spacrbench_measurement_timeline_add_item(m, &it), 0);
    spacrbench_timeline_item back = {.size = sizeof back};
    ck_assert_int_eq(spacrbench_measurement_timeline_item(m, 0, &back), 0);
    ck_assert(back.peak_seconds == 1.0); /* NaN: marked at the highest point inside */
    it.end_seconds = -1.0;
    ck_assert_int_eq(spacrbench_measurement_timeline_add_item(m, &it), SPACRBENCH_EINVAL);
    it.end_seconds = 1.0;
    it.index = -1;
    ck_assert_int_eq(spacrbench_measurement_timeline_add_item(m, &it), SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_measurement_timeline_add_item(NULL, &it), SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_measurement_timeline_info(m, NULL), SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_measurement_timeline_point(NULL, 0, &p), SPACRBENCH_EINVAL);

    /* A copy holds at most the bound. */
    for (int i = 2; i < SPACRBENCH_TIMELINE_MAX_POINTS; i++) {
        p.seconds = 1.0 + i;
        ck_assert_int_eq(spacrbench_measurement_timeline_add_point(m, &p), 0);
    }
    p.seconds = 1e6;
    ck_assert_int_eq(spacrbench_measurement_timeline_add_point(m, &p), SPACRBENCH_ERANGE);
    spacrbench_measurement_free(m);

    ck_assert_int_eq(spacrbench_measurement_create(&f, &m), 0);
    info.stride = 0;
    ck_assert_int_eq(spacrbench_measurement_timeline_begin(m, &info), SPACRBENCH_EINVAL);
    info.stride = 1;
    info.samples = 0;
    info.size = SIZE_MAX / 2; /* absurd size */
    ck_assert_int_ne(spacrbench_measurement_timeline_begin(m, &info), 0);
    info.size = sizeof info;
    ck_assert_int_eq(spacrbench_measurement_timeline_begin(m, &info), 0);
    /* Live samples through the downsampler never exceed the bound either. */
    for (int i = 0; i < 3 * SPACRBENCH_TIMELINE_MAX_POINTS; i++) {
        p.seconds = i;
        ck_assert_int_eq(spacrbench_measurement_timeline_add_sample(m, &p), 0);
    }
    got = info_of(m);
    ck_assert_int_le(got.point_count, SPACRBENCH_TIMELINE_MAX_POINTS);
    ck_assert_int_eq(got.samples, 3 * SPACRBENCH_TIMELINE_MAX_POINTS);
    ck_assert_int_eq(got.stride, 4); /* halved at 2000 and at 4000 samples */
    spacrbench_measurement_free(m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("timeline");
    TCase *tc = tcase_create("timeline");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, items_are_marked_with_their_exact_peaks);
    tcase_add_test(tc, no_timeline_unless_asked);
    tcase_add_test(tc, a_long_run_is_downsampled_to_the_bound_and_says_so);
    tcase_add_test(tc, the_downsampler_keeps_the_bound_and_the_spike);
    tcase_add_test(tc, builder_copies_and_refuses_bad_input);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
