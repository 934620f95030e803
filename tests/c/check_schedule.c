/* The cluster hand-off rule (docs/scheduler-handoff.md): memory = peak +
 * max(25%, 256 MiB) rounded up to a MiB; cpus = CPU seconds per wall
 * second rounded up (10% tolerance), 1..cores; concurrency = recommended
 * workers lowered to fit the cores and, when the available memory is known,
 * the per-task requests into available - reserve. Figures go in through the
 * public API; every expectation is recomputed from them here. */
#include <check.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spacrbench.h"

#define MIB INT64_C(1048576)

static spacrbench_measurement *measured(int64_t peak, double seconds, double cpu_seconds)
{
    spacrbench_figures f;
    memset(&f, 0, sizeof f);
    f.size = sizeof f;
    f.items = 4;
    f.seconds = seconds;
    f.peak_rss_bytes = peak;
    f.peak_vram_bytes = SPACRBENCH_NOT_MEASURED;
    f.cpu_seconds = cpu_seconds;
    f.peak_method = peak >= 0 ? SPACRBENCH_PEAK_CGROUP : SPACRBENCH_PEAK_NONE;
    f.stopped_item = -1;
    spacrbench_measurement *m = NULL;
    ck_assert_int_eq(spacrbench_measurement_create(&f, &m), 0);
    return m;
}

static spacrbench_recommendation recommendation(int64_t workers, int64_t cores)
{
    spacrbench_recommendation r;
    memset(&r, 0, sizeof r);
    r.size = sizeof r;
    r.workers = workers;
    r.cores = cores;
    return r;
}

static int64_t expected_mem(int64_t peak)
{
    int64_t margin = (int64_t)ceil((double)peak * 0.25);
    if (margin < 256 * MIB)
        margin = 256 * MIB;
    return (peak + margin + MIB - 1) / MIB * MIB;
}

static spacrbench_schedule compute(const spacrbench_measurement *m,
                                   const spacrbench_recommendation *r)
{
    spacrbench_schedule s;
    memset(&s, 0xff, sizeof s);
    s.size = sizeof s;
    ck_assert_int_eq(spacrbench_schedule_compute(m, r, &s), 0);
    return s;
}

START_TEST(memory_is_peak_plus_quarter_rounded_to_mib)
{
    const int64_t peaks[] = {3 * 1024 * MIB + 12345, 2 * 1024 * MIB, 1025 * MIB - 1};
    for (size_t i = 0; i < sizeof peaks / sizeof peaks[0]; i++) {
        spacrbench_measurement *m = measured(peaks[i], 10.0, 9.0);
        spacrbench_recommendation r = recommendation(3, 8);
        spacrbench_schedule s = compute(m, &r);
        ck_assert_int_eq(s.mem_per_task_bytes, expected_mem(peaks[i]));
        /* Dask: the peak + margin at most 0.6 (distributed's target) of the limit. */
        ck_assert_int_ge(s.memory_limit_bytes * 6, s.mem_per_task_bytes * 10);
        ck_assert_int_lt(s.memory_limit_bytes * 6, s.mem_per_task_bytes * 10 + 6 * MIB);
        ck_assert_int_eq(s.memory_limit_bytes % MIB, 0);
        ck_assert_int_eq(s.mem_per_task_bytes % MIB, 0);
        ck_assert_int_ge(s.mem_per_task_bytes, peaks[i] + peaks[i] / 4);
        ck_assert(s.margin == 0.25);
        ck_assert_int_eq(s.margin_floor_bytes, 256 * MIB);
        spacrbench_measurement_free(m);
    }
}
END_TEST

START_TEST(small_peaks_get_the_256_mib_floor)
{
    spacrbench_measurement *m = measured(100 * MIB + 1, 1.0, 1.0);
    spacrbench_recommendation r = recommendation(2, 4);
    spacrbench_schedule s = compute(m, &r);
    ck_assert_int_eq(s.mem_per_task_bytes, 100 * MIB + 256 * MIB + MIB); /* +1 byte rounds up */
    spacrbench_measurement_free(m);
}
END_TEST

START_TEST(cpus_follow_measured_parallelism)
{
    /* {cpu seconds per wall second, cores, expected cpus} */
    const double cases[][3] = {{1.05, 8, 1}, {0.3, 8, 1}, {1.5, 8, 2},  {3.4, 8, 3},
                               {3.05, 8, 3}, {3.6, 8, 4}, {12.0, 4, 4}, {NAN, 8, 1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        spacrbench_measurement *m = measured(512 * MIB, 2.0, cases[i][0] * 2.0);
        spacrbench_recommendation r = recommendation(1, (int64_t)cases[i][1]);
        spacrbench_schedule s = compute(m, &r);
        ck_assert_msg(s.cpus_per_task == (int64_t)cases[i][2], "case %zu: cpus %lld", i,
                      (long long)s.cpus_per_task);
        ck_assert_int_eq(s.threads_per_worker, s.cpus_per_task);
        spacrbench_measurement_free(m);
    }
}
END_TEST

START_TEST(concurrency_is_the_recommendation_within_the_cores)
{
    /* {workers, cores, cpu ratio, expected concurrency} */
    const double cases[][4] = {{5, 8, 1.0, 5}, {8, 8, 1.0, 8}, {6, 8, 2.0, 4},
                               {3, 8, 2.0, 3}, {4, 3, 3.0, 1}, {1, 1, 1.0, 1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        spacrbench_measurement *m = measured(512 * MIB, 1.0, cases[i][2]);
        spacrbench_recommendation r = recommendation((int64_t)cases[i][0], (int64_t)cases[i][1]);
        spacrbench_schedule s = compute(m, &r);
        ck_assert_msg(s.array_concurrency == (int64_t)cases[i][3], "case %zu: %lld", i,
                      (long long)s.array_concurrency);
        ck_assert_int_eq(s.n_workers, s.array_concurrency);
        ck_assert_int_le(s.array_concurrency * s.cpus_per_task,
                         (int64_t)cases[i][1] > s.cpus_per_task ? (int64_t)cases[i][1]
                                                                : s.cpus_per_task);
        spacrbench_measurement_free(m);
    }
}
END_TEST

/* Each task requests peak + margin, so the concurrency must fit those
 * requests into available - reserve, not only the bare peaks. */
START_TEST(concurrency_fits_the_requested_memory)
{
    /* {peak GiB, available GiB, reserve GiB, workers, cores, expected} */
    const int64_t cases[][6] = {{4, 16, 2, 3, 16, 2},
                                {4, 16, 0, 4, 16, 3},
                                {1, 64, 2, 8, 8, 8},
                                {4, 3, 2, 1, 8, 1},
                                {4, 2, 4, 2, 8, 1}};
    const int64_t gib = 1024 * MIB;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        spacrbench_measurement *m = measured(cases[i][0] * gib, 1.0, 1.0);
        spacrbench_recommendation r = recommendation(cases[i][3], cases[i][4]);
        r.available_bytes = cases[i][1] * gib;
        r.reserve_bytes = cases[i][2] * gib;
        spacrbench_schedule s = compute(m, &r);
        int64_t mem = expected_mem(cases[i][0] * gib);
        ck_assert_int_eq(s.mem_per_task_bytes, mem);
        ck_assert_msg(s.array_concurrency == cases[i][5], "case %zu: %lld", i,
                      (long long)s.array_concurrency);
        ck_assert_int_eq(s.n_workers, s.array_concurrency);
        if (s.array_concurrency > 1)
            ck_assert_int_le(s.array_concurrency * mem, r.available_bytes - r.reserve_bytes);
        spacrbench_measurement_free(m);
    }
    /* Unknown available memory (0): only the cores bound applies. */
    spacrbench_measurement *m = measured(4 * gib, 1.0, 1.0);
    spacrbench_recommendation r = recommendation(3, 16);
    r.reserve_bytes = 2 * gib;
    ck_assert_int_eq(compute(m, &r).array_concurrency, 3);
    spacrbench_measurement_free(m);
}
END_TEST

START_TEST(bad_input_is_rejected)
{
    spacrbench_measurement *m = measured(512 * MIB, 1.0, 1.0);
    spacrbench_measurement *unmeasured = measured(-1, 1.0, 1.0);
    spacrbench_recommendation r = recommendation(2, 4);
    spacrbench_schedule s = {.size = sizeof s};
    ck_assert_int_eq(spacrbench_schedule_compute(NULL, &r, &s), SPACRBENCH_EINVAL);
    ck_assert_ptr_nonnull(strstr(spacrbench_last_error_message(), "measurement"));
    ck_assert_int_eq(spacrbench_schedule_compute(m, NULL, &s), SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_schedule_compute(m, &r, NULL), SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_schedule_compute(unmeasured, &r, &s), SPACRBENCH_EINVAL);
    ck_assert_ptr_nonnull(strstr(spacrbench_last_error_message(), "peak"));
    spacrbench_recommendation zero = recommendation(0, 4);
    ck_assert_int_eq(spacrbench_schedule_compute(m, &zero, &s), SPACRBENCH_EINVAL);
    ck_assert_ptr_nonnull(strstr(spacrbench_last_error_message(), "workers"));
    spacrbench_recommendation no_cores = recommendation(1, 0);
    ck_assert_int_eq(spacrbench_schedule_compute(m, &no_cores, &s), SPACRBENCH_EINVAL);
    spacrbench_recommendation truncated = recommendation(2, 4);
    truncated.size = offsetof(spacrbench_recommendation, workers);
    ck_assert_int_eq(spacrbench_schedule_compute(m, &truncated, &s), SPACRBENCH_EINVAL);
    ck_assert_ptr_nonnull(strstr(spacrbench_last_error_message(), "too small"));
    /* A huge worker count is capped by the cores, not overflowed. */
    spacrbench_recommendation huge = recommendation(INT64_MAX, 4);
    ck_assert_int_eq(spacrbench_schedule_compute(m, &huge, &s), 0);
    ck_assert_int_le(s.array_concurrency, 4);
    spacrbench_schedule tiny = {.size = 2};
    ck_assert_int_eq(spacrbench_schedule_compute(m, &r, &tiny), SPACRBENCH_EINVAL);
    char buf[8];
    ck_assert_int_eq(spacrbench_format_slurm(m, &r, NULL, 10), SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_format_dask(unmeasured, &r, buf, sizeof buf), SPACRBENCH_EINVAL);
    spacrbench_measurement_free(m);
    spacrbench_measurement_free(unmeasured);
}
END_TEST

START_TEST(older_smaller_output_struct_gets_its_prefix)
{
    spacrbench_measurement *m = measured(1024 * MIB, 1.0, 1.0);
    spacrbench_recommendation r = recommendation(2, 4);
    struct {
        spacrbench_schedule s;
        char canary[16];
    } big;
    memset(&big, 0x7e, sizeof big);
    big.s.size = offsetof(spacrbench_schedule, mem_per_task_bytes) + sizeof(int64_t);
    ck_assert_int_eq(spacrbench_schedule_compute(m, &r, &big.s), 0);
    ck_assert_int_eq(big.s.mem_per_task_bytes, expected_mem(1024 * MIB));
    /* Bytes past the caller's size are untouched. */
    ck_assert_int_eq((unsigned char)((char *)&big.s)[big.s.size], 0x7e);
    spacrbench_measurement_free(m);
}
END_TEST

START_TEST(slurm_text_carries_the_computed_settings)
{
    spacrbench_measurement *m = measured(3 * 1024 * MIB, 2.0, 4.0);
    spacrbench_recommendation r = recommendation(3, 16);
    spacrbench_schedule s = compute(m, &r);
    int len = spacrbench_format_slurm(m, &r, NULL, 0);
    ck_assert_int_gt(len, 0);
    char *text = malloc((size_t)len + 1);
    ck_assert_int_eq(spacrbench_format_slurm(m, &r, text, (size_t)len + 1), len);
    ck_assert_int_eq((int)strlen(text), len);
    char want[96];
    snprintf(want, sizeof want, "#SBATCH --mem=%lldM\n", (long long)(s.mem_per_task_bytes / MIB));
    ck_assert_msg(strstr(text, want) != NULL, "%s not in\n%s", want, text);
    snprintf(want, sizeof want, "#SBATCH --cpus-per-task=%lld\n", (long long)s.cpus_per_task);
    ck_assert_ptr_nonnull(strstr(text, want));
    /* No %K throttle (SLURM applies it to the whole array); the count that
     * fits a node is a comment; a --time. */
    ck_assert_ptr_nonnull(strstr(text, "\n#SBATCH --array=0-ITEMS\n"));
    ck_assert_ptr_null(strstr(text, "ITEMS%"));
    snprintf(want, sizeof want, "# %lld such tasks fit one node", (long long)s.array_concurrency);
    ck_assert_msg(strstr(text, want) != NULL, "%s not in\n%s", want, text);
    ck_assert_ptr_nonnull(strstr(text, "\n#SBATCH --time=00:05:00\n"));
    /* snprintf semantics: truncated, NUL-terminated, full length returned. */
    char small[10];
    ck_assert_int_eq(spacrbench_format_slurm(m, &r, small, sizeof small), len);
    ck_assert_int_eq((int)strlen(small), 9);
    ck_assert_int_eq(strncmp(small, text, 9), 0);
    free(text);
    spacrbench_measurement_free(m);
}
END_TEST

START_TEST(dask_text_carries_the_computed_settings)
{
    spacrbench_measurement *m = measured(700 * MIB, 1.0, 1.0);
    spacrbench_recommendation r = recommendation(5, 8);
    spacrbench_schedule s = compute(m, &r);
    char text[2048], want[96];
    int len = spacrbench_format_dask(m, &r, text, sizeof text);
    ck_assert_int_gt(len, 0);
    ck_assert_int_lt(len, (int)sizeof text);
    snprintf(want, sizeof want, "n_workers = %lld\n", (long long)s.n_workers);
    ck_assert_ptr_nonnull(strstr(text, want));
    snprintf(want, sizeof want, "threads_per_worker = %lld\n", (long long)s.threads_per_worker);
    ck_assert_ptr_nonnull(strstr(text, want));
    snprintf(want, sizeof want, "memory_limit = \"%lldMiB\"\n",
             (long long)(s.memory_limit_bytes / MIB));
    ck_assert_ptr_nonnull(strstr(text, want));
    spacrbench_measurement_free(m);
}
END_TEST

START_TEST(time_limit_is_twice_the_slowest_item_in_whole_minutes)
{
    int64_t min = -1;
    ck_assert_int_eq(spacrbench_time_limit_minutes(0, 0, &min), 0);
    ck_assert_int_eq(min, 5); /* the floor */
    ck_assert_int_eq(spacrbench_time_limit_minutes(150, 0, &min), 0);
    ck_assert_int_eq(min, 5);
    ck_assert_int_eq(spacrbench_time_limit_minutes(151, 0, &min), 0);
    ck_assert_int_eq(min, 6); /* 302 s: rounded up */
    ck_assert_int_eq(spacrbench_time_limit_minutes(3600, 0, &min), 0);
    ck_assert_int_eq(min, 120);
    ck_assert_int_eq(spacrbench_time_limit_minutes(1, 600, &min), 0);
    ck_assert_int_eq(min, 11); /* the item timeout + 1 minute */
    min = -1;
    ck_assert_int_eq(spacrbench_time_limit_minutes(1e308, 0, &min), SPACRBENCH_ERANGE);
    ck_assert_int_eq(spacrbench_time_limit_minutes(-1, 0, &min), SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_time_limit_minutes(NAN, 0, &min), SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_time_limit_minutes(INFINITY, 0, &min), SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_time_limit_minutes(1, NAN, &min), SPACRBENCH_EINVAL);
    ck_assert_int_eq(min, -1);
    ck_assert_int_eq(spacrbench_time_limit_minutes(1, 0, NULL), SPACRBENCH_EINVAL);
}
END_TEST

/* The --time as sbatch and SLURMCluster take it, from a measurement of 4
 * items (no records: each took a quarter of the seconds). */
START_TEST(time_limit_text_is_what_sbatch_takes)
{
    static const struct {
        double seconds;
        const char *want;
    } cases[] = {
        {10.0, "00:05:00"},          /* the floor */
        {4 * 3600.0, "02:00:00"},    /* 2 x 1 h */
        {4 * 43230.0, "1-00:01:00"}, /* 2 x (12 h + 30 s): a day and a minute */
    };
    char buf[32], small[4];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        spacrbench_measurement *m = measured(MIB, cases[i].seconds, 1.0);
        ck_assert_int_eq(spacrbench_format_time_limit(m, buf, sizeof buf),
                         (int)strlen(cases[i].want));
        ck_assert_str_eq(buf, cases[i].want);
        if (i == 2) { /* snprintf-style: the full length, the text cut */
            ck_assert_int_eq(spacrbench_format_time_limit(m, small, sizeof small), 10);
            ck_assert_str_eq(small, "1-0");
        }
        spacrbench_measurement_free(m);
    }
    ck_assert_int_eq(spacrbench_format_time_limit(NULL, buf, sizeof buf), SPACRBENCH_EINVAL);
}
END_TEST

START_TEST(dask_limit_keeps_the_peak_below_the_fraction)
{
    int64_t limit = 0;
    /* A 1.5 GiB peak: + 25 % = 1920 MiB; / 0.6 = 3200 MiB; the peak at 0.47. */
    ck_assert_int_eq(spacrbench_dask_memory_limit(1920 * MIB, 0.6, &limit), 0);
    ck_assert_int_eq(limit, 3200 * MIB);
    ck_assert_int_eq(spacrbench_dask_memory_limit(1920 * MIB, 1.0, &limit), 0);
    ck_assert_int_eq(limit, 1920 * MIB);
    ck_assert_int_eq(spacrbench_dask_memory_limit(1000 * MIB + 1, 0.7, &limit), 0);
    ck_assert((double)limit * 0.7 >= 1000.0 * MIB + 1);
    ck_assert_int_eq(limit % MIB, 0);
    ck_assert_int_eq(spacrbench_dask_memory_limit(MIB, 0, &limit), SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_dask_memory_limit(MIB, 1.5, &limit), SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_dask_memory_limit(MIB, NAN, &limit), SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_dask_memory_limit(0, 0.6, &limit), SPACRBENCH_ERANGE);
    ck_assert_int_eq(spacrbench_dask_memory_limit(INT64_MAX, 0.6, &limit), SPACRBENCH_ERANGE);
}
END_TEST

static Suite *schedule_suite(void)
{
    Suite *s = suite_create("schedule");
    TCase *t = tcase_create("rule");
    tcase_add_test(t, memory_is_peak_plus_quarter_rounded_to_mib);
    tcase_add_test(t, small_peaks_get_the_256_mib_floor);
    tcase_add_test(t, cpus_follow_measured_parallelism);
    tcase_add_test(t, concurrency_is_the_recommendation_within_the_cores);
    tcase_add_test(t, concurrency_fits_the_requested_memory);
    tcase_add_test(t, time_limit_is_twice_the_slowest_item_in_whole_minutes);
    tcase_add_test(t, time_limit_text_is_what_sbatch_takes);
    tcase_add_test(t, dask_limit_keeps_the_peak_below_the_fraction);
    suite_add_tcase(s, t);
    t = tcase_create("contract");
    tcase_add_test(t, bad_input_is_rejected);
    tcase_add_test(t, older_smaller_output_struct_gets_its_prefix);
    suite_add_tcase(s, t);
    t = tcase_create("text");
    tcase_add_test(t, slurm_text_carries_the_computed_settings);
    tcase_add_test(t, dask_text_carries_the_computed_settings);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(schedule_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
