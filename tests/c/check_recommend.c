/* The recommendation rule, its reason words and its evidence. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "spacrbench.h"

#define GIB INT64_C(1073741824)
#define MIB INT64_C(1048576)

/* A measurement whose work footprint is `work` bytes (NOT_MEASURED: none). */
static spacrbench_measurement *footprint(int64_t work, int64_t vram)
{
    spacrbench_figures f;
    memset(&f, 0, sizeof f);
    f.size = sizeof f;
    f.items = 3;
    f.seconds = 1.5;
    f.baseline_rss_bytes = 100 * MIB;
    f.peak_rss_bytes = work < 0 ? -1 : f.baseline_rss_bytes + work;
    f.peak_vram_bytes = vram;
    f.cpu_seconds = 1.0;
    spacrbench_measurement *m = NULL;
    ck_assert_int_eq(spacrbench_measurement_create(&f, &m), 0);
    return m;
}

static spacrbench_recommendation recommend(const spacrbench_measurement *m, int64_t cores,
                                           int64_t available, int64_t maximum)
{
    spacrbench_recommend_options o;
    ck_assert_int_eq(spacrbench_recommend_options_init(&o, sizeof o), 0);
    o.cores = cores;
    o.available_bytes = available;
    o.maximum = maximum;
    /* Upstream's cases are forked workers (they share the baseline); the
     * default is spawn on Windows and macOS, and spawn has its own tests. */
    o.start_method = SPACRBENCH_START_FORK;
    spacrbench_recommendation r;
    memset(&r, 0, sizeof r);
    r.size = sizeof r;
    ck_assert_int_eq(spacrbench_recommend(m, &o, &r), 0);
    return r;
}

/* Workers start as Python's multiprocessing starts them by default there:
 * fork on Linux, spawn on Windows (its only method) and macOS. */
START_TEST(default_start_method_is_the_platforms)
{
    spacrbench_recommend_options o;
    ck_assert_int_eq(spacrbench_recommend_options_init(&o, sizeof o), 0);
#if defined(_WIN32) || defined(__APPLE__)
    ck_assert_int_eq(o.start_method, SPACRBENCH_START_SPAWN);
#else
    ck_assert_int_eq(o.start_method, SPACRBENCH_START_FORK);
#endif
    const spacrbench_recommend_options init = SPACRBENCH_RECOMMEND_OPTIONS_INIT;
    ck_assert_int_eq(init.start_method, o.start_method);
}
END_TEST

START_TEST(memory_bound)
{
    spacrbench_measurement *m = footprint(1 * GIB, -1);
    spacrbench_recommendation r = recommend(m, 16, 8 * GIB, 32);
    ck_assert_int_eq(r.workers, 6); /* (8 - 2 reserve) / 1 */
    ck_assert_int_eq(r.bound, SPACRBENCH_BOUND_MEMORY);
    ck_assert_int_eq(r.memory_workers, 6);
    ck_assert_int_eq(r.per_worker_bytes, 1 * GIB);
    ck_assert_int_eq(r.cores, 16);
    ck_assert_int_eq(r.available_bytes, 8 * GIB);
    ck_assert_int_eq(r.memory_source, SPACRBENCH_SOURCE_CALLER);
    ck_assert_msg(strncmp(r.reason, "memory-bound", 12) == 0, "reason: %s", r.reason);
    ck_assert_msg(strstr(r.reason, "16 cores available") != NULL, "reason: %s", r.reason);
    spacrbench_measurement_free(m);
}
END_TEST

START_TEST(core_bound)
{
    spacrbench_measurement *m = footprint(100 * MIB, -1);
    spacrbench_recommendation r = recommend(m, 4, 64 * GIB, 32);
    ck_assert_int_eq(r.workers, 4);
    ck_assert_int_eq(r.bound, SPACRBENCH_BOUND_CORES);
    ck_assert_msg(strncmp(r.reason, "core-bound: 4 core(s), and memory would allow 634", 49) == 0,
                  "reason: %s", r.reason);
    spacrbench_measurement_free(m);
}
END_TEST

START_TEST(capped_at_maximum)
{
    spacrbench_measurement *m = footprint(100 * MIB, -1);
    spacrbench_recommendation r = recommend(m, 64, 64 * GIB, 8);
    ck_assert_int_eq(r.workers, 8);
    ck_assert_int_eq(r.bound, SPACRBENCH_BOUND_MAXIMUM);
    ck_assert_str_eq(r.reason, "capped at the 8-worker maximum");
    spacrbench_measurement_free(m);
}
END_TEST

START_TEST(no_measurement_falls_back_to_cores)
{
    spacrbench_recommendation r = recommend(NULL, 6, 8 * GIB, 32);
    ck_assert_int_eq(r.workers, 6);
    ck_assert_int_eq(r.bound, SPACRBENCH_BOUND_FALLBACK);
    ck_assert_int_eq(r.per_worker_bytes, -1);
    ck_assert_int_eq(r.memory_workers, -1);
    ck_assert_ptr_nonnull(strstr(r.reason, "no usable memory measurement"));

    /* A zero footprint is kept as evidence but falls back the same way. */
    spacrbench_measurement *m = footprint(0, -1);
    r = recommend(m, 6, 8 * GIB, 4);
    ck_assert_int_eq(r.workers, 4);
    ck_assert_int_eq(r.per_worker_bytes, 0);
    ck_assert_int_eq(r.bound, SPACRBENCH_BOUND_FALLBACK);
    ck_assert_ptr_nonnull(strstr(r.reason, "no usable memory measurement"));
    spacrbench_measurement_free(m);
}
END_TEST

START_TEST(one_worker_when_nothing_fits)
{
    spacrbench_measurement *m = footprint(4 * GIB, -1);
    spacrbench_recommendation r = recommend(m, 8, 3 * GIB, 32);
    ck_assert_int_eq(r.workers, 1);
    ck_assert_int_eq(r.bound, SPACRBENCH_BOUND_ONE);
    ck_assert_int_eq(r.memory_workers, 0);
    ck_assert_ptr_nonnull(strstr(r.reason, "one worker at a time"));
    /* Available below the reserve: the budget is 0, not negative. */
    r = recommend(m, 8, 1 * GIB, 32);
    ck_assert_int_eq(r.workers, 1);
    /* spaCR's sentence and number format, exactly. */
    ck_assert_str_eq(r.reason, "one worker needs 4.00 GiB and only 0.00 GiB is free after the "
                               "reserve; one worker at a time is what fits");
    spacrbench_measurement_free(m);
}
END_TEST

START_TEST(fallback_says_when_the_maximum_binds_and_why)
{
    spacrbench_recommendation r = recommend(NULL, 64, 8 * GIB, 32);
    ck_assert_int_eq(r.workers, 32);
    ck_assert_int_eq(r.bound, SPACRBENCH_BOUND_FALLBACK);
    ck_assert_msg(strstr(r.reason, "no usable memory measurement") != NULL, "%s", r.reason);
    ck_assert_msg(strstr(r.reason, "capped at the 32-worker maximum") != NULL, "%s", r.reason);
    spacrbench_measurement *m = footprint(0, -1);
    r = recommend(m, 4, 8 * GIB, 32);
    ck_assert_str_eq(r.reason, "4 core(s); no usable memory measurement, so the core count is "
                               "the only bound; the work measured 0 B above its baseline");
    ck_assert_ptr_null(strstr(r.reason, "capped"));
    spacrbench_measurement_free(m);
}
END_TEST

/* Each GPU the work used is its own budget: free memory on a device the
 * work never touched does not make room for more workers. */
START_TEST(vram_bound_is_per_device)
{
    spacrbench_measurement *m = footprint(100 * MIB, 10 * GIB);
    spacrbench_gpu_info used = {sizeof used, 0, "used", 80 * GIB, 21 * GIB, 10 * GIB};
    spacrbench_gpu_info idle = {sizeof idle, 1, "idle", 80 * GIB, 80 * GIB, 0};
    ck_assert_int_eq(spacrbench_measurement_add_gpu(m, &used), 0);
    ck_assert_int_eq(spacrbench_measurement_add_gpu(m, &idle), 0);
    spacrbench_recommendation r = recommend(m, 16, 64 * GIB, 32);
    ck_assert_int_eq(r.vram_workers, 2); /* (21 - 1) / 10, not (101 - 1) / 10 */
    ck_assert_int_eq(r.free_vram_bytes, 21 * GIB);
    ck_assert_int_eq(r.workers, 2);
    ck_assert_int_eq(r.bound, SPACRBENCH_BOUND_VRAM);
    spacrbench_measurement_free(m);
}
END_TEST

START_TEST(cores_below_one_clamp_to_one)
{
    spacrbench_recommendation r = recommend(NULL, 0, 8 * GIB, 32);
    ck_assert_int_eq(r.cores, 1);
    ck_assert_int_eq(r.workers, 1);
    r = recommend(NULL, -7, 8 * GIB, 32);
    ck_assert_int_eq(r.cores, 1);
}
END_TEST

START_TEST(vram_bound_applies_only_with_a_figure)
{
    spacrbench_measurement *m = footprint(100 * MIB, 10 * GIB);
    spacrbench_recommend_options o;
    spacrbench_recommend_options_init(&o, sizeof o);
    o.cores = 16;
    o.available_bytes = 64 * GIB;
    o.free_vram_bytes = 41 * GIB; /* (41 - 1 reserve) / 10 = 4 */
    spacrbench_recommendation r = {sizeof r, 0, 0, 0,  0,  0,  0,   0, 0, 0, 0, 0, 0, 0,
                                   0,        0, 0, "", "", "", 0.0, 0, 0, 0, 0, 0, 0, 0};
    ck_assert_int_eq(spacrbench_recommend(m, &o, &r), 0);
    ck_assert_int_eq(r.workers, 4);
    ck_assert_int_eq(r.bound, SPACRBENCH_BOUND_VRAM);
    ck_assert_int_eq(r.vram_workers, 4);
    ck_assert_msg(strncmp(r.reason, "VRAM-bound", 10) == 0, "reason: %s", r.reason);

    o.free_vram_bytes = 5 * GIB;
    ck_assert_int_eq(spacrbench_recommend(m, &o, &r), 0);
    ck_assert_int_eq(r.workers, 1);
    ck_assert_int_eq(r.bound, SPACRBENCH_BOUND_ONE);
    ck_assert_ptr_nonnull(strstr(r.reason, "of VRAM"));
    spacrbench_measurement_free(m);

    /* Without a VRAM figure the rule is absent, not zero. */
    m = footprint(100 * MIB, -1);
    o.free_vram_bytes = 40 * GIB;
    ck_assert_int_eq(spacrbench_recommend(m, &o, &r), 0);
    ck_assert_int_eq(r.vram_workers, -1);
    ck_assert_int_eq(r.per_worker_vram_bytes, -1);
    ck_assert_int_eq(r.workers, 16);
    spacrbench_measurement_free(m);
}
END_TEST

START_TEST(discovers_the_machine_when_asked)
{
    spacrbench_measurement *m = footprint(1 * MIB, -1);
    spacrbench_recommendation r = recommend(m, SPACRBENCH_AUTO, SPACRBENCH_AUTO, 32);
    ck_assert_int_ge(r.cores, 1);
    ck_assert_int_ne(r.cores_source, SPACRBENCH_SOURCE_CALLER);
    ck_assert_int_ne(r.memory_source, SPACRBENCH_SOURCE_CALLER);
    ck_assert_int_gt(r.available_bytes, 0);
    ck_assert_str_ne(r.memory_where, "");
    ck_assert_str_ne(r.cores_where, "");
    spacrbench_measurement_free(m);
}
END_TEST

START_TEST(bad_options_are_rejected)
{
    spacrbench_recommend_options o;
    spacrbench_recommendation r;
    memset(&r, 0, sizeof r);
    r.size = sizeof r;
    spacrbench_recommend_options_init(&o, sizeof o);
    o.reserve_bytes = -2; /* -1 is SPACRBENCH_AUTO */
    ck_assert_int_eq(spacrbench_recommend(NULL, &o, &r), SPACRBENCH_EINVAL);
    ck_assert_ptr_nonnull(strstr(spacrbench_last_error_message(), "reserve_bytes"));
    spacrbench_recommend_options_init(&o, sizeof o);
    o.maximum = 0;
    ck_assert_int_eq(spacrbench_recommend(NULL, &o, &r), SPACRBENCH_EINVAL);
    ck_assert_ptr_nonnull(strstr(spacrbench_last_error_message(), "maximum"));
    spacrbench_recommend_options_init(&o, sizeof o);
    o.available_bytes = -5;
    ck_assert_int_eq(spacrbench_recommend(NULL, &o, &r), SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_recommend(NULL, &o, NULL), SPACRBENCH_EINVAL);
    r.size = 2;
    spacrbench_recommend_options_init(&o, sizeof o);
    ck_assert_int_eq(spacrbench_recommend(NULL, &o, &r), SPACRBENCH_EINVAL);
}
END_TEST

/* An older caller's smaller output struct gets just the prefix it knows. */
START_TEST(smaller_output_struct_gets_its_prefix)
{
    struct {
        spacrbench_recommendation r;
        unsigned char guard[64];
    } out;
    memset(&out, 0xab, sizeof out);
    out.r.size = offsetof(spacrbench_recommendation, reason);
    spacrbench_recommend_options o;
    spacrbench_recommend_options_init(&o, sizeof o);
    o.cores = 3;
    o.available_bytes = 8 * GIB;
    ck_assert_int_eq(spacrbench_recommend(NULL, &o, &out.r), 0);
    ck_assert_int_eq(out.r.workers, 3);
    ck_assert_uint_eq((unsigned char)out.r.reason[0], 0xab);
}
END_TEST

/* ---- one answer: the scaling check's knee is the recommendation ---- */

static spacrbench_scale_result *scaled(const int64_t *workers, const int64_t *items, size_t n,
                                       int64_t peak, int64_t budget)
{
    spacrbench_scale_point pts[8];
    for (size_t i = 0; i < n; i++) {
        spacrbench_scale_point_init(&pts[i], sizeof pts[i]);
        pts[i].workers = workers[i];
        pts[i].items = items[i];
        pts[i].seconds = items[i] ? 1.0 : 0.0;
        pts[i].peak_bytes = peak * workers[i];
        pts[i].failed = items[i] == 0;
    }
    spacrbench_scale_result *r = NULL;
    ck_assert_int_eq(spacrbench_scale_from_points(pts, n, sizeof pts[0], budget, &r), 0);
    return r;
}

START_TEST(the_measured_knee_is_the_recommendation)
{
    spacrbench_measurement *m = footprint(100 * MIB, -1);
    /* core-bound 4, but 2 workers give only 1.02x of 1: the knee is 1. */
    spacrbench_recommendation r = recommend(m, 4, 64 * GIB, 32);
    ck_assert_int_eq(r.workers, 4);
    const int64_t k[] = {1, 2}, items[] = {100, 102};
    spacrbench_scale_result *sc = scaled(k, items, 2, 100 * MIB, -1);
    ck_assert_int_eq(spacrbench_recommend_apply_scaling(&r, sc), 0);
    ck_assert_int_eq(r.workers, 1);
    ck_assert_int_eq(r.bound, SPACRBENCH_BOUND_CORES); /* the serial rule's bound stays */
    ck_assert_msg(strncmp(r.reason,
                          "measured: 1 worker, the scaling check's knee (saturates at 1: 2 "
                          "workers give 1.02x",
                          80) == 0 &&
                      strstr(r.reason, "the serial rule said 4 (core-bound: 4 core(s)"),
                  "reason: %s", r.reason);
    spacrbench_scale_free(sc);
    /* A serial bound below the knee binds: upstream's words lead. */
    r = recommend(m, 64, 64 * GIB, 3);
    const int64_t k8[] = {1, 8}, i8[] = {10, 80};
    sc = scaled(k8, i8, 2, 100 * MIB, -1);
    ck_assert_int_eq(spacrbench_recommend_apply_scaling(&r, sc), 0);
    ck_assert_int_eq(r.workers, 3);
    ck_assert_str_eq(r.reason,
                     "capped at the 3-worker maximum; the scaling check's knee (8) is above "
                     "this bound");
    spacrbench_scale_free(sc);
    /* No usable count: one worker over the budget. The number follows the
     * advice (one at a time), and the reason says what to do, naming the
     * verdict's words once. */
    r = recommend(m, 4, 64 * GIB, 32);
    const int64_t k1[] = {1}, i1[] = {10};
    sc = scaled(k1, i1, 1, 900 * MIB, 500 * MIB);
    ck_assert_int_eq(spacrbench_recommend_apply_scaling(&r, sc), 0);
    ck_assert_int_eq(r.workers, 1);
    ck_assert_msg(strstr(r.reason, "; the scaling check found no usable worker count (1 worker "
                                   "needs 900.0 MiB") &&
                      strstr(r.reason, "run one at a time") &&
                      strstr(r.reason, "give the job more memory"),
                  "reason: %s", r.reason);
    spacrbench_scale_free(sc);
    /* No usable count, and no 1-worker count measured: the 3 workers over
     * the budget cap the number below 3, and the advice is not the one for
     * a single worker (the check never ran one alone). */
    r = recommend(m, 4, 64 * GIB, 32);
    const int64_t k3[] = {3}, i3[] = {30};
    sc = scaled(k3, i3, 1, 300 * MIB, 500 * MIB);
    ck_assert_int_eq(spacrbench_recommend_apply_scaling(&r, sc), 0);
    ck_assert_int_eq(r.workers, 2);
    ck_assert_msg(strstr(r.reason, "every count measured needs more memory than the budget: "
                                   "measure fewer workers (include 1 among the counts)") &&
                      strstr(r.reason, "; so at most 2, below the 3 workers that did not fit") &&
                      !strstr(r.reason, "even one worker"),
                  "reason: %s", r.reason);
    spacrbench_scale_free(sc);
    /* No usable count for another reason (the work failed at every count):
     * the serial count stays. */
    r = recommend(m, 4, 64 * GIB, 32);
    const int64_t kf[] = {1, 2}, iff[] = {0, 0};
    sc = scaled(kf, iff, 2, 100 * MIB, -1);
    ck_assert_int_eq(spacrbench_recommend_apply_scaling(&r, sc), 0);
    ck_assert_int_eq(r.workers, 4);
    ck_assert_msg(strstr(r.reason, "fix the failure"), "reason: %s", r.reason);
    spacrbench_scale_free(sc);
    ck_assert_int_eq(spacrbench_recommend_apply_scaling(NULL, sc), SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_recommend_apply_scaling(&r, NULL), SPACRBENCH_EINVAL);
    spacrbench_measurement_free(m);
}
END_TEST

/* The report's what-if arithmetic reads each budget as --available reads
 * a size: the caller's reserve if given, else the host's 2 GiB, inside a
 * cgroup limit too (a limit's tenth is a discovered limit's reserve, not
 * that of a budget given by hand). */
START_TEST(what_if_budgets_keep_the_rules_reserve)
{
    const int64_t mib = INT64_C(1) << 20, gib = INT64_C(1) << 30;
    spacrbench_recommendation r = {.size = sizeof r};
    r.per_worker_bytes = 354 * mib;
    r.reserve_rule = SPACRBENCH_RESERVE_LIMIT;
    /* (8192 - 2048) / 354, (16384 - 2048) / 354, (32768 - 2048) / 354 */
    ck_assert_int_eq(sb_memory_workers_within(&r, 8 * gib), 17);
    ck_assert_int_eq(sb_memory_workers_within(&r, 16 * gib), 40);
    ck_assert_int_eq(sb_memory_workers_within(&r, 32 * gib), 86);
    r.reserve_rule = SPACRBENCH_RESERVE_HOST;
    ck_assert_int_eq(sb_memory_workers_within(&r, 8 * gib), 17);
    r.reserve_rule = SPACRBENCH_RESERVE_CALLER;
    r.reserve_bytes = 0;
    ck_assert_int_eq(sb_memory_workers_within(&r, 8 * gib), 23);
    r.reserve_bytes = 16 * gib; /* nothing left */
    ck_assert_int_eq(sb_memory_workers_within(&r, 8 * gib), 0);
    r.per_worker_bytes = -1; /* no need measured */
    ck_assert_int_eq(sb_memory_workers_within(&r, 8 * gib), -1);
}
END_TEST

static Suite *recommend_suite(void)
{
    Suite *s = suite_create("recommend");
    TCase *rule = tcase_create("rule");
    tcase_add_test(rule, default_start_method_is_the_platforms);
    tcase_add_test(rule, memory_bound);
    tcase_add_test(rule, core_bound);
    tcase_add_test(rule, capped_at_maximum);
    tcase_add_test(rule, no_measurement_falls_back_to_cores);
    tcase_add_test(rule, one_worker_when_nothing_fits);
    tcase_add_test(rule, cores_below_one_clamp_to_one);
    tcase_add_test(rule, fallback_says_when_the_maximum_binds_and_why);
    tcase_add_test(rule, vram_bound_is_per_device);
    tcase_add_test(rule, vram_bound_applies_only_with_a_figure);
    tcase_add_test(rule, discovers_the_machine_when_asked);
    tcase_add_test(rule, the_measured_knee_is_the_recommendation);
    suite_add_tcase(s, rule);
    TCase *input = tcase_create("input");
    tcase_add_test(input, bad_options_are_rejected);
    tcase_add_test(input, smaller_output_struct_gets_its_prefix);
    tcase_add_test(input, what_if_budgets_keep_the_rules_reserve);
    suite_add_tcase(s, input);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(recommend_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
