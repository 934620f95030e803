/* The scaling check: the knee rule on constructed points, and real forked
 * workers (sleeping work scales, the group's peak covers every worker,
 * failures are marked, nothing leaks: fds, children, cgroups). Where no
 * memory cgroup can be made the cgroup test prints "SKIP: ..." and passes. */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "os.h"
#include "sb_test_memory.h"
#include "sb_test_scale.h"
#include "spacrbench.h"

static void skip(const char *test, const char *why)
{
    printf("SKIP: check_scale %s: %s\n", test, why);
    fprintf(stderr, "SKIP: check_scale %s: %s\n", test, why);
    fflush(stdout);
}

/* The result the running case holds. Under valgrind (CK_FORK=no) a failed
 * assertion leaves its case by a longjmp: a result not freed yet would be
 * lost memory in every worker a later case forks (valgrind checks each as
 * it exits, --error-exitcode), and those cases would fail for this one.
 * The checked teardown frees what a failed case left. */
static spacrbench_scale_result *g_held;

static int held(int rc, spacrbench_scale_result *const *r)
{
    if (rc == 0)
        g_held = *r;
    return rc;
}

static void result_free(spacrbench_scale_result *r)
{
    if (r == g_held)
        g_held = NULL;
    spacrbench_scale_free(r);
}

static void free_held(void) { result_free(g_held); }

static int fail_work_any(void *item, void *payload)
{
    (void)item;
    (void)payload;
    return 1;
}

static spacrbench_scale_point pt(int64_t workers, int64_t items, double seconds, int64_t peak)
{
    spacrbench_scale_point p;
    spacrbench_scale_point_init(&p, sizeof p);
    p.workers = workers;
    p.items = items;
    p.seconds = seconds;
    p.peak_bytes = peak;
    p.peak_method = SPACRBENCH_PEAK_SUPPLIED;
    return p;
}

/* ---- the rule on constructed points ---- */

START_TEST(linear_points_choose_the_largest)
{
    spacrbench_scale_point in[] = {pt(4, 40, 1.05, -1), pt(1, 10, 1.0, -1), pt(2, 20, 1.02, -1)};
    spacrbench_scale_result *r = NULL;
    ck_assert_int_eq(held(spacrbench_scale_from_points(in, 3, sizeof in[0], -1, &r), &r), 0);
    spacrbench_scale_summary s = sb_test_summary_of(r);
    ck_assert_int_eq(s.chosen_workers, 4);
    ck_assert_int_eq(s.best_workers, 4);
    ck_assert_int_eq(s.verdict, SPACRBENCH_SCALE_LINEAR);
    ck_assert_ptr_nonnull(strstr(s.reason, "still scaling at 4"));
    spacrbench_scale_point p = sb_test_point_of(r, 1); /* sorted: 1, 2, 4 */
    ck_assert_int_eq(p.workers, 2);
    ck_assert_double_eq_tol(p.speedup, 20 / 1.02 / 10.0, 1e-9);
    ck_assert_double_eq_tol(p.efficiency, p.speedup / 2, 1e-9);
    ck_assert_int_eq(p.fits, -1);
    result_free(r);
}
END_TEST

START_TEST(saturating_points_choose_the_knee)
{
    /* 1 -> 10/s, 2 -> 19/s, 4 -> 22/s, 8 -> 23/s: 4 is within 10 % of 8. */
    spacrbench_scale_point in[] = {pt(1, 10, 1, 1 << 20), pt(2, 19, 1, 2 << 20),
                                   pt(4, 22, 1, 4 << 20), pt(8, 23, 1, 8 << 20)};
    spacrbench_scale_result *r = NULL;
    ck_assert_int_eq(
        held(spacrbench_scale_from_points(in, 4, sizeof in[0], INT64_C(1) << 30, &r), &r), 0);
    spacrbench_scale_summary s = sb_test_summary_of(r);
    ck_assert_int_eq(s.chosen_workers, 4);
    ck_assert_int_eq(s.best_workers, 8);
    ck_assert_int_eq(s.verdict, SPACRBENCH_SCALE_SATURATED);
    ck_assert_msg(strstr(s.reason, "saturates at 4: 8 workers give 1.05x of 4") != NULL, "%s",
                  s.reason);
    ck_assert_int_eq(sb_test_point_of(r, 3).fits, 1);
    /* Exactly at the 10 % line the smaller count wins; just below it loses. */
    result_free(r);
    spacrbench_scale_point edge[] = {pt(1, 100, 1, -1), pt(2, 90, 0.5, -1), pt(3, 100, 0.5, -1)};
    ck_assert_int_eq(held(spacrbench_scale_from_points(edge, 3, sizeof edge[0], -1, &r), &r), 0);
    ck_assert_int_eq(sb_test_summary_of(r).chosen_workers, 2);
    result_free(r);
    edge[1].items = 89;
    ck_assert_int_eq(held(spacrbench_scale_from_points(edge, 3, sizeof edge[0], -1, &r), &r), 0);
    ck_assert_int_eq(sb_test_summary_of(r).chosen_workers, 3);
    result_free(r);
}
END_TEST

START_TEST(memory_budget_excludes_faster_counts)
{
    const int64_t mib = 1 << 20;
    spacrbench_scale_point in[] = {pt(1, 10, 1, 300 * mib), pt(2, 20, 1, 600 * mib),
                                   pt(4, 38, 1, 1200 * mib)};
    spacrbench_scale_result *r = NULL;
    ck_assert_int_eq(held(spacrbench_scale_from_points(in, 3, sizeof in[0], 1000 * mib, &r), &r),
                     0);
    spacrbench_scale_summary s = sb_test_summary_of(r);
    ck_assert_int_eq(s.chosen_workers, 2);
    ck_assert_int_eq(s.best_workers, 2);
    ck_assert_int_eq(s.verdict, SPACRBENCH_SCALE_MEMORY);
    ck_assert_msg(strstr(s.reason, "memory-bound at 2: 4 workers would give 1.90x") != NULL, "%s",
                  s.reason);
    ck_assert_int_eq(sb_test_point_of(r, 2).fits, 0);
    ck_assert_int_eq(sb_test_point_of(r, 1).fits, 1);
    result_free(r);
}
END_TEST

START_TEST(missing_one_worker_point_leaves_speedup_unknown)
{
    spacrbench_scale_point in[] = {pt(2, 20, 1, -1), pt(4, 30, 1, -1)};
    spacrbench_scale_result *r = NULL;
    ck_assert_int_eq(held(spacrbench_scale_from_points(in, 2, sizeof in[0], -1, &r), &r), 0);
    ck_assert(isnan(sb_test_point_of(r, 0).speedup));
    ck_assert(isnan(sb_test_point_of(r, 1).efficiency));
    spacrbench_scale_summary s = sb_test_summary_of(r);
    ck_assert_int_eq(s.chosen_workers, 4);
    ck_assert_ptr_nonnull(strstr(s.reason, "no 1-worker point"));
    char json[4096];
    int len = spacrbench_scale_to_json(r, json, sizeof json);
    ck_assert_int_gt(len, 0);
    ck_assert_int_lt(len, (int)sizeof json);
    ck_assert_msg(strstr(json, "\"speedup\":null") != NULL, "%s", json);
    ck_assert_msg(strstr(json, "\"peak_bytes\":null") != NULL, "%s", json);
    ck_assert_msg(strstr(json, "\"scaling_workers\":4") != NULL, "%s", json);
    result_free(r);
}
END_TEST

START_TEST(failed_and_unusable_points)
{
    spacrbench_scale_point in[] = {pt(1, 10, 1, -1), pt(2, 40, 1, -1)};
    in[1].failed = 1;
    spacrbench_scale_result *r = NULL;
    ck_assert_int_eq(held(spacrbench_scale_from_points(in, 2, sizeof in[0], -1, &r), &r), 0);
    spacrbench_scale_summary s = sb_test_summary_of(r);
    ck_assert_int_eq(s.chosen_workers, 1); /* the faster point failed: not a candidate */
    ck_assert_ptr_nonnull(strstr(s.reason, "2 workers failed"));
    result_free(r);
    in[0].failed = 1;
    ck_assert_int_eq(held(spacrbench_scale_from_points(in, 2, sizeof in[0], -1, &r), &r), 0);
    s = sb_test_summary_of(r);
    ck_assert_int_eq(s.chosen_workers, -1);
    ck_assert_int_eq(s.verdict, SPACRBENCH_SCALE_NONE);
    result_free(r);
}
END_TEST

START_TEST(table_and_json_show_the_knee)
{
    spacrbench_scale_point in[] = {pt(1, 10, 1, 1 << 20), pt(2, 19, 1, 2 << 20),
                                   pt(4, 20, 1, 4 << 20)};
    spacrbench_scale_result *r = NULL;
    ck_assert_int_eq(held(spacrbench_scale_from_points(in, 3, sizeof in[0], -1, &r), &r), 0);
    ck_assert_int_eq(spacrbench_scale_add_note(r, "a note\nwith a newline"), 0);
    char small[8];
    int len = spacrbench_format_scaling(r, small, sizeof small);
    ck_assert_int_gt(len, (int)sizeof small);
    ck_assert_uint_eq(strlen(small), sizeof small - 1);
    char *text = malloc((size_t)len + 1);
    ck_assert_int_eq(spacrbench_format_scaling(r, text, (size_t)len + 1), len);
    ck_assert_msg(strstr(text, "        2      19.000     1.90x        95 %       2.0 MiB") != NULL,
                  "%s", text);
    ck_assert_ptr_nonnull(strstr(text, "<- knee"));
    ck_assert_ptr_nonnull(strstr(text, "verdict             2 workers: saturates at 2"));
    free(text);
    char json[4096];
    ck_assert_int_lt(spacrbench_scale_to_json(r, json, sizeof json), (int)sizeof json);
    ck_assert_msg(strstr(json, "{\"scaling\":[{\"workers\":1,") == json, "%s", json);
    ck_assert_ptr_nonnull(strstr(json, "\"scaling_workers\":2"));
    ck_assert_ptr_nonnull(strstr(json, "\"peak_bytes\":2097152"));
    ck_assert_ptr_nonnull(strstr(json, "a note\\nwith a newline"));
    ck_assert_str_eq(spacrbench_scale_note(r, 0), "a note\nwith a newline");
    ck_assert_ptr_null(spacrbench_scale_note(r, 1));
    result_free(r);
}
END_TEST

/* The copies' GPU memory: a column and a JSON member where measured, null
 * and no column where not, and a point from before the field (a smaller
 * struct) reads as not measured. */
START_TEST(vram_is_shown_only_where_measured)
{
    spacrbench_scale_point in[] = {pt(1, 10, 1, 1 << 20), pt(2, 19, 1, 2 << 20)};
    in[0].vram_peak_bytes = 300 << 20;
    in[1].vram_peak_bytes = 600 << 20;
    spacrbench_scale_result *r = NULL;
    ck_assert_int_eq(held(spacrbench_scale_from_points(in, 2, sizeof in[0], -1, &r), &r), 0);
    char text[4096], json[4096];
    ck_assert_int_lt(spacrbench_format_scaling(r, text, sizeof text), (int)sizeof text);
    ck_assert_msg(strstr(text, "per item    group VRAM\n") != NULL, "%s", text);
    ck_assert_msg(strstr(text, "     600.0 MiB") != NULL, "%s", text);
    ck_assert_int_lt(spacrbench_scale_to_json(r, json, sizeof json), (int)sizeof json);
    ck_assert_ptr_nonnull(strstr(json, "\"vram_peak_bytes\":629145600"));
    ck_assert_int_eq(sb_test_point_of(r, 1).vram_peak_bytes, 600 << 20);
    result_free(r);

    size_t old_size = offsetof(spacrbench_scale_point, vram_peak_bytes);
    in[0].size = in[1].size = old_size;
    unsigned char old[2][sizeof(spacrbench_scale_point)];
    memcpy(old[0], &in[0], old_size);
    memcpy(old[1], &in[1], old_size);
    ck_assert_int_eq(held(spacrbench_scale_from_points(old, 2, sizeof old[0], -1, &r), &r), 0);
    ck_assert_int_eq(sb_test_point_of(r, 1).vram_peak_bytes, -1);
    ck_assert_int_lt(spacrbench_format_scaling(r, text, sizeof text), (int)sizeof text);
    ck_assert_msg(strstr(text, "group VRAM") == NULL, "%s", text);
    ck_assert_int_lt(spacrbench_scale_to_json(r, json, sizeof json), (int)sizeof json);
    ck_assert_ptr_nonnull(strstr(json, "\"vram_peak_bytes\":null"));
    result_free(r);

    in[0].size = in[1].size = sizeof in[0];
    in[1].vram_peak_bytes = -7;
    ck_assert_int_eq(held(spacrbench_scale_from_points(in, 2, sizeof in[0], -1, &r), &r),
                     SPACRBENCH_EINVAL);
    ck_assert_ptr_nonnull(strstr(spacrbench_last_error_message(), "vram_peak_bytes"));
}
END_TEST

START_TEST(bad_points_are_rejected)
{
    spacrbench_scale_point in[] = {pt(1, 10, 1, -1), pt(1, 10, 1, -1)};
    spacrbench_scale_result *r = NULL;
    ck_assert_int_eq(held(spacrbench_scale_from_points(in, 2, sizeof in[0], -1, &r), &r),
                     SPACRBENCH_EINVAL);
    ck_assert_ptr_nonnull(strstr(spacrbench_last_error_message(), "appears twice"));
    ck_assert_ptr_null(r);
    in[1].workers = 0;
    ck_assert_int_eq(held(spacrbench_scale_from_points(in, 2, sizeof in[0], -1, &r), &r),
                     SPACRBENCH_EINVAL);
    ck_assert_ptr_nonnull(strstr(spacrbench_last_error_message(), "points[1].workers"));
    ck_assert_int_eq(held(spacrbench_scale_from_points(in, 0, sizeof in[0], -1, &r), &r),
                     SPACRBENCH_ENOITEMS);
    ck_assert_int_eq(held(spacrbench_scale_from_points(in, 1, sizeof in[0], -5, &r), &r),
                     SPACRBENCH_EINVAL);
    ck_assert_int_eq(held(spacrbench_scale_from_points(NULL, 1, sizeof in[0], -1, &r), &r),
                     SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_scale_from_points(in, 1, sizeof in[0], -1, NULL),
                     SPACRBENCH_EINVAL);
    /* A larger struct with a set unknown tail is refused. */
    unsigned char big[sizeof(spacrbench_scale_point) + 8];
    memset(big, 0, sizeof big);
    memcpy(big, &in[0], sizeof in[0]);
    size_t size = sizeof big;
    memcpy(big, &size, sizeof size);
    big[sizeof big - 1] = 1;
    ck_assert_int_eq(held(spacrbench_scale_from_points(big, 1, sizeof big, -1, &r), &r),
                     SPACRBENCH_EUNKNOWN_FIELDS);
}
END_TEST

/* Points with the spread between their repeats. */
static spacrbench_scale_spread spr(int64_t repeats, double spread)
{
    spacrbench_scale_spread sp;
    spacrbench_scale_spread_init(&sp, sizeof sp);
    sp.repeats = repeats;
    sp.spread = spread;
    return sp;
}

START_TEST(a_gain_within_the_noise_is_no_gain)
{
    /* 2 workers are 15 % faster than 1: beyond the 10 % tolerance, so the
     * rule without spreads takes 2 ... */
    spacrbench_scale_point in[] = {pt(1, 100, 1, -1), pt(2, 115, 1, -1)};
    spacrbench_scale_result *r = NULL;
    ck_assert_int_eq(held(spacrbench_scale_from_points(in, 2, sizeof in[0], -1, &r), &r), 0);
    ck_assert_int_eq(sb_test_summary_of(r).chosen_workers, 2);
    result_free(r);
    /* ... but each count's repeats differ by +-9 %: 15 % < 18 %, noise. */
    spacrbench_scale_spread noisy[] = {spr(3, 0.09), spr(3, 0.09)};
    ck_assert_int_eq(held(spacrbench_scale_from_points_spread(in, 2, sizeof in[0], noisy,
                                                              sizeof noisy[0], -1, &r),
                          &r),
                     0);
    spacrbench_scale_summary s = sb_test_summary_of(r);
    ck_assert_int_eq(s.chosen_workers, 1);
    ck_assert_int_eq(s.best_workers, 2);
    ck_assert_int_eq(s.verdict, SPACRBENCH_SCALE_SATURATED);
    ck_assert_msg(strstr(s.reason, "saturates at 1: 2 workers give 1.15x of 1's throughput") &&
                      strstr(s.reason, "repeats differ by up to \xc2\xb1"
                                       "9 %"),
                  "%s", s.reason);
    spacrbench_scale_spread got;
    spacrbench_scale_spread_init(&got, sizeof got);
    ck_assert_int_eq(spacrbench_scale_spread_get(r, 1, &got), 0);
    ck_assert_int_eq(got.repeats, 3);
    ck_assert_double_eq_tol(got.spread, 0.09, 1e-12);
    ck_assert_int_eq(spacrbench_scale_spread_get(r, 2, &got), SPACRBENCH_ERANGE);
    char text[4096];
    ck_assert_int_gt(spacrbench_format_scaling(r, text, sizeof text), 0);
    ck_assert_msg(strstr(text, "spread") && strstr(text, "\xc2\xb1  9.0 % (3x)") &&
                      strstr(text, "1 worker: saturates at 1"),
                  "%s", text);
    ck_assert_int_gt(spacrbench_scale_to_json(r, text, sizeof text), 0);
    ck_assert_msg(strstr(text, "\"repeats\":3") && strstr(text, "\"spread\":0.09"), "%s", text);
    result_free(r);
    /* A noisy 1-worker point, 2 workers 14 % faster, 3 no faster than 1:
     * the knee stays at 1 and the verdict names the faster count as within
     * the noise, never "falls beyond 1" with a 1.00x figure. */
    spacrbench_scale_point three[] = {pt(1, 100, 1, -1), pt(2, 114, 1, -1), pt(3, 100, 1, -1)};
    spacrbench_scale_spread loud[] = {spr(5, 0.33), spr(3, 0.025), spr(3, 0.02)};
    ck_assert_int_eq(held(spacrbench_scale_from_points_spread(three, 3, sizeof three[0], loud,
                                                              sizeof loud[0], -1, &r),
                          &r),
                     0);
    s = sb_test_summary_of(r);
    ck_assert_int_eq(s.chosen_workers, 1);
    ck_assert_msg(strstr(s.reason, "saturates at 1: 2 workers give 1.14x of 1's throughput, "
                                   "within the noise") &&
                      !strstr(s.reason, "falls"),
                  "%s", s.reason);
    result_free(r);
    /* 0.997x is printed 1.00x: it saturates, it does not fall. */
    spacrbench_scale_point flat[] = {pt(1, 1000, 1, -1), pt(2, 997, 1, -1)};
    ck_assert_int_eq(held(spacrbench_scale_from_points(flat, 2, sizeof flat[0], -1, &r), &r), 0);
    s = sb_test_summary_of(r);
    ck_assert_msg(strstr(s.reason, "saturates at 1: 2 workers give 1.00x"), "%s", s.reason);
    result_free(r);
    /* Quiet repeats (+-2 %): the 15 % gain is real again. */
    spacrbench_scale_spread quiet[] = {spr(3, 0.02), spr(3, 0.02)};
    ck_assert_int_eq(held(spacrbench_scale_from_points_spread(in, 2, sizeof in[0], quiet,
                                                              sizeof quiet[0], -1, &r),
                          &r),
                     0);
    ck_assert_int_eq(sb_test_summary_of(r).chosen_workers, 2);
    result_free(r);
    /* Spreads travel with their points when the input is unsorted. */
    spacrbench_scale_point rev[] = {pt(2, 115, 1, -1), pt(1, 100, 1, -1)};
    spacrbench_scale_spread rs[] = {spr(3, 0.0), spr(3, 0.2)};
    ck_assert_int_eq(
        held(spacrbench_scale_from_points_spread(rev, 2, sizeof rev[0], rs, sizeof rs[0], -1, &r),
             &r),
        0);
    ck_assert_int_eq(spacrbench_scale_spread_get(r, 0, &got), 0);
    ck_assert_double_eq_tol(got.spread, 0.2, 1e-12);
    ck_assert_int_eq(sb_test_summary_of(r).chosen_workers, 1);
    result_free(r);
    /* Bad spreads are named. */
    rs[1].spread = -0.5;
    ck_assert_int_eq(
        held(spacrbench_scale_from_points_spread(rev, 2, sizeof rev[0], rs, sizeof rs[0], -1, &r),
             &r),
        SPACRBENCH_EINVAL);
    ck_assert_ptr_nonnull(strstr(spacrbench_last_error_message(), "spreads[1].spread"));
    ck_assert_int_eq(
        held(spacrbench_scale_from_points_spread(rev, 2, sizeof rev[0], rs, 2, -1, &r), &r),
        SPACRBENCH_EINVAL);
}
END_TEST

START_TEST(an_oom_killed_count_is_a_memory_point)
{
    spacrbench_scale_point in[] = {pt(1, 10, 1, 100 << 20), pt(2, 19, 1, 200 << 20),
                                   pt(4, 0, 0, 300 << 20)};
    spacrbench_scale_spread sp[] = {spr(2, 0.01), spr(2, 0.01), spr(0, NAN)};
    sp[2].oom_killed = 1;
    sp[2].limit_bytes = 300 << 20;
    spacrbench_scale_result *r = NULL;
    ck_assert_int_eq(held(spacrbench_scale_from_points_spread(in, 3, sizeof in[0], sp, sizeof sp[0],
                                                              300 << 20, &r),
                          &r),
                     0);
    spacrbench_scale_summary s = sb_test_summary_of(r);
    ck_assert_int_eq(s.chosen_workers, 2);
    ck_assert_int_eq(s.verdict, SPACRBENCH_SCALE_MEMORY);
    ck_assert_msg(strstr(s.reason, "memory-bound at 2: 4 workers need more than the budget "
                                   "(OOM-killed in their group at its limit of 300.0 MiB)"),
                  "%s", s.reason);
    spacrbench_scale_point p4 = sb_test_point_of(r, 2);
    ck_assert_int_eq(p4.failed, 1);
    ck_assert_int_eq(p4.fits, 0);
    char text[4096];
    ck_assert_int_gt(spacrbench_format_scaling(r, text, sizeof text), 0);
    ck_assert_msg(strstr(text, "OOM-killed in the group (over budget)"), "%s", text);
    result_free(r);

    /* One worker OOM-killed: no usable count, said in the singular. */
    spacrbench_scale_point one[] = {pt(1, 0, 0, 300 << 20)};
    spacrbench_scale_spread one_sp[] = {spr(0, NAN)};
    one_sp[0].oom_killed = 1;
    one_sp[0].limit_bytes = 300 << 20;
    ck_assert_int_eq(held(spacrbench_scale_from_points_spread(one, 1, sizeof one[0], one_sp,
                                                              sizeof one_sp[0], 300 << 20, &r),
                          &r),
                     0);
    s = sb_test_summary_of(r);
    ck_assert_int_eq(s.verdict, SPACRBENCH_SCALE_NONE);
    ck_assert_msg(strstr(s.reason, "; 1 worker was OOM-killed in its group"), "%s", s.reason);
    ck_assert_msg(!strstr(s.reason, "1 workers"), "%s", s.reason);
    result_free(r);
}
END_TEST

static void timing_fast(spacrbench_scale_timing *t)
{
    spacrbench_scale_timing_init(t, sizeof *t);
    t->warmup_items = 0;
    t->min_seconds = 0;
    t->min_repeats = t->max_repeats = 1;
}

START_TEST(timing_defaults_and_bad_timing)
{
    spacrbench_scale_timing t;
    ck_assert_int_eq(spacrbench_scale_timing_init(&t, sizeof t), 0);
    ck_assert_int_eq(t.warmup_items, 1);
    ck_assert_int_eq(t.min_items, 3);
    ck_assert_double_eq(t.min_seconds, 1.0);
    ck_assert_int_eq(t.min_repeats, 2);
    ck_assert_int_eq(t.max_repeats, 5);
    ck_assert_double_eq(t.target_spread, 0.05);
    void *items[1] = {NULL};
    spacrbench_scale_result *r = NULL;
    t.max_repeats = 1;
    ck_assert_int_eq(held(spacrbench_scale_timed(fail_work_any, items, 1, NULL, NULL, &t, &r), &r),
                     SPACRBENCH_EINVAL);
    ck_assert_ptr_nonnull(strstr(spacrbench_last_error_message(), "max_repeats"));
    spacrbench_scale_timing_init(&t, sizeof t);
    t.min_seconds = -1;
    ck_assert_int_eq(held(spacrbench_scale_timed(fail_work_any, items, 1, NULL, NULL, &t, &r), &r),
                     SPACRBENCH_EINVAL);
    ck_assert_ptr_nonnull(strstr(spacrbench_last_error_message(), "min_seconds"));
    spacrbench_scale_timing_init(&t, sizeof t);
    t.min_items = 0;
    ck_assert_int_eq(held(spacrbench_scale_timed(fail_work_any, items, 1, NULL, NULL, &t, &r), &r),
                     SPACRBENCH_EINVAL);
    ck_assert_ptr_nonnull(strstr(spacrbench_last_error_message(), "min_items"));
    ck_assert_ptr_null(r);
}
END_TEST

/* ---- real workers ---- */

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

static int sleep_work(void *item, void *payload)
{
    (void)item;
    (void)payload;
    sleep_ms(60);
    return 0;
}

static int fail_work(void *item, void *payload)
{
    (void)payload;
    return *(int *)item == 1 ? 7 : 0;
}

static size_t touch_bytes;

/* How long touch_work holds its pages: 150 ms, long enough for a 20 ms
 * PSS sampler here; the PSS test sets it from the pace it measured. */
static long touch_hold_ms = 150;

static int touch_work(void *item, void *payload)
{
    (void)item;
    (void)payload;
    void *p = sb_test_touch_alloc(touch_bytes);
    sleep_ms(touch_hold_ms);
    sb_test_touch_free(p, touch_bytes);
    return 0;
}

/* Each worker writes its pid to fd 100 once, then sleeps per item. */
static int report_and_sleep_work(void *item, void *payload)
{
    (void)item;
    (void)payload;
    static int told;
    if (!told) {
        pid_t me = getpid();
        told = write(100, &me, sizeof me) == (ssize_t)sizeof me;
    }
    sleep_ms(50);
    return 0;
}

static int is_zombie(pid_t pid)
{
    char path[64], text[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return 1;
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    const char *close_paren = strrchr(text, ')');
    return close_paren && (close_paren[2] == 'Z' || close_paren[2] == 'X');
}

static int item_values[4] = {0, 1, 2, 3};
static void *item_ptrs[4] = {&item_values[0], &item_values[1], &item_values[2], &item_values[3]};

static int count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    ck_assert_ptr_nonnull(d);
    int n = 0;
    while (readdir(d))
        n++;
    closedir(d);
    return n;
}

/* Our cgroups left in this process's memory cgroup (0 when none can exist). */
static int groups_of(long pid)
{
    sb_group g;
    char why[256];
    if (sb_group_locate(&g, NULL, why, sizeof why) != 0)
        return 0;
    DIR *d = opendir(g.parent);
    if (!d)
        return 0;
    char prefix[64];
    snprintf(prefix, sizeof prefix, "spacrbench-group-%ld-", pid);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return n;
}

static int leftover_groups(void) { return groups_of((long)getpid()); }

static spacrbench_scale_result *scale_counts(spacrbench_work_fn work, const int64_t *counts,
                                             size_t n, int64_t per_worker, uint32_t flags)
{
    spacrbench_scale_options o;
    ck_assert_int_eq(spacrbench_scale_options_init(&o, sizeof o), 0);
    o.worker_counts = counts;
    o.n_worker_counts = n;
    o.items_per_worker = per_worker;
    o.flags = flags;
    spacrbench_scale_timing t; /* exactly per_worker items, one repeat */
    timing_fast(&t);
    spacrbench_scale_result *r = NULL;
    int rc = held(spacrbench_scale_timed(work, item_ptrs, 4, NULL, &o, &t, &r), &r);
    ck_assert_msg(rc == 0, "spacrbench_scale: %d %s", rc, spacrbench_last_error_message());
    return r;
}

START_TEST(sleeping_workers_scale_nearly_linearly)
{
    int fds = count_fds();
    const int64_t counts[] = {1, 2};
    spacrbench_scale_result *r = scale_counts(sleep_work, counts, 2, 4, 0);
    spacrbench_scale_point one = sb_test_point_of(r, 0), two = sb_test_point_of(r, 1);
    ck_assert_int_eq(one.failed, 0);
    ck_assert_int_eq(two.failed, 0);
    ck_assert_int_eq(one.items, 4);
    ck_assert_int_eq(two.items, 8);
    ck_assert_double_ge(one.seconds, 4 * 0.060);
    ck_assert_double_ge(two.mean_item_seconds, 0.060);
    ck_assert_msg(two.speedup > 1.6, "2 sleeping workers gave %.2fx", two.speedup);
    ck_assert_int_eq(sb_test_summary_of(r).chosen_workers, 2);
    result_free(r);
    ck_assert_int_eq(count_fds(), fds);
    ck_assert_int_eq(leftover_groups(), 0);
}
END_TEST

/* A process forked while another thread runs a scaling check inherits its
 * lock held by a thread it does not have: its own check must run. */
static int started_fd[2], go_fd[2];

static int wait_for_go(void *item, void *payload)
{
    (void)item;
    (void)payload;
    char c = 'x';
    if (write(started_fd[1], &c, 1) != 1 || read(go_fd[0], &c, 1) != 1)
        return 1;
    return 0;
}

static void *scale_until_go(void *arg)
{
    const int64_t one[] = {1};
    spacrbench_scale_options o;
    spacrbench_scale_options_init(&o, sizeof o);
    o.worker_counts = one;
    o.n_worker_counts = 1;
    o.items_per_worker = 1;
    spacrbench_scale_timing t;
    timing_fast(&t);
    spacrbench_scale_result *r = NULL;
    *(int *)arg = spacrbench_scale_timed(wait_for_go, item_ptrs, 1, NULL, &o, &t, &r);
    spacrbench_scale_free(r);
    return NULL;
}

START_TEST(a_child_forked_beside_a_check_can_scale)
{
    ck_assert_int_eq(pipe(started_fd), 0);
    ck_assert_int_eq(pipe(go_fd), 0);
    pthread_t t;
    int thread_rc = -1;
    ck_assert_int_eq(pthread_create(&t, NULL, scale_until_go, &thread_rc), 0);
    char c;
    ck_assert_int_eq(read(started_fd[0], &c, 1), 1); /* its worker runs: the lock is held */
    int result[2];
    ck_assert_int_eq(pipe(result), 0);
    pid_t child = fork();
    if (child == 0) {
        alarm(20);
        const int64_t one[] = {1};
        spacrbench_scale_options o;
        spacrbench_scale_options_init(&o, sizeof o);
        o.worker_counts = one;
        o.n_worker_counts = 1;
        o.items_per_worker = 1;
        spacrbench_scale_timing timing;
        timing_fast(&timing);
        spacrbench_scale_result *r = NULL;
        int rc = spacrbench_scale_timed(sleep_work, item_ptrs, 1, NULL, &o, &timing, &r);
        spacrbench_scale_free(r);
        _exit(write(result[1], &rc, sizeof rc) == (ssize_t)sizeof rc ? 0 : 1);
    }
    ck_assert_int_gt(child, 0);
    close(result[1]);
    int said = -99;
    ssize_t got = read(result[0], &said, sizeof said);
    int status = 0;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    /* Here the check still holds its lock. */
    spacrbench_scale_result *r = NULL;
    ck_assert_int_eq(held(spacrbench_scale(sleep_work, item_ptrs, 1, NULL, NULL, &r), &r),
                     SPACRBENCH_EBUSY);
    ck_assert_int_eq(write(go_fd[1], "g", 1), 1);
    pthread_join(t, NULL);
    ck_assert_int_eq(thread_rc, 0);
    /* Exited, not killed (the alarm); its exit status is not asserted:
     * under valgrind the child reports what only the parent's other
     * thread pointed to as lost, and exits 99. The pipe says how it went. */
    ck_assert_msg(WIFEXITED(status), "child status %d", status);
    ck_assert_int_eq(got, (ssize_t)sizeof said);
    ck_assert_int_eq(said, 0);
    for (int i = 0; i < 2; i++) {
        close(started_fd[i]);
        close(go_fd[i]);
    }
    close(result[0]);
}
END_TEST

START_TEST(failing_work_marks_the_point_failed)
{
    int fds = count_fds();
    const int64_t counts[] = {2};
    spacrbench_scale_result *r = scale_counts(fail_work, counts, 1, 4, 0);
    spacrbench_scale_point p = sb_test_point_of(r, 0);
    ck_assert_int_eq(p.failed, 1);
    ck_assert_int_eq(sb_test_summary_of(r).chosen_workers, -1);
    ck_assert_ptr_nonnull(sb_test_note_with(r, "returned non-zero"));
    result_free(r);
    ck_assert_int_eq(count_fds(), fds);
    ck_assert_int_eq(leftover_groups(), 0);
}
END_TEST

START_TEST(cgroup_peak_covers_every_worker)
{
    spacrbench_group *g = NULL;
    ck_assert_int_eq(spacrbench_group_open(0, &g), 0);
    int64_t bytes = 0;
    int32_t method = 0;
    ck_assert_int_eq(spacrbench_group_peak(g, &bytes, &method), 0);
    char note[1024];
    snprintf(note, sizeof note, "%s", spacrbench_group_note(g));
    ck_assert_int_eq(spacrbench_group_close(g), 0);
    if (method != SPACRBENCH_PEAK_CGROUP) {
        skip("cgroup_peak_covers_every_worker", note);
        return;
    }
    touch_bytes = 64 * SB_MIB;
    const int64_t counts[] = {2};
    spacrbench_scale_result *r = scale_counts(touch_work, counts, 1, 1, 0);
    spacrbench_scale_point p = sb_test_point_of(r, 0);
    ck_assert_int_eq(p.peak_method, SPACRBENCH_PEAK_CGROUP);
    ck_assert_int_eq(p.failed, 0);
    ck_assert_msg(p.peak_bytes >= (int64_t)(128 * SB_MIB), "peak %lld", (long long)p.peak_bytes);
    ck_assert_msg(
        p.peak_bytes <
            (int64_t)(128 * SB_MIB * (100 + SB_TEST_RSS_OVERHEAD_PERCENT) / 100 + 32 * SB_MIB),
        "peak %lld", (long long)p.peak_bytes);
    result_free(r);
    ck_assert_int_eq(leftover_groups(), 0);
}
END_TEST

/* The longest gap the group's PSS sampler leaves here, in ms: what a
 * first count's note says ("a spike shorter than N ms may be missed"); its
 * budget spaces the samples by what they cost, so a slow machine (valgrind:
 * seconds) gets fewer. -1 when no note says it. */
static long sampler_gap_ms(const spacrbench_scale_result *r)
{
    for (size_t i = 0; spacrbench_scale_note(r, i); i++) {
        const char *n = strstr(spacrbench_scale_note(r, i), "a spike shorter than ");
        long ms;
        if (n && sscanf(n, "a spike shorter than %ld ms", &ms) == 1)
            return ms;
    }
    return -1;
}

START_TEST(pss_fallback_sums_the_workers)
{
    touch_bytes = 64 * SB_MIB;
    const int64_t counts[] = {2};
    /* A first count finds the sampler's pace here; the measured one then
     * holds its pages for three of its longest gaps. */
    spacrbench_scale_result *r = scale_counts(touch_work, counts, 1, 1, SPACRBENCH_SCALE_NO_CGROUP);
    long gap = sampler_gap_ms(r);
    result_free(r);
    ck_assert_int_gt(gap, 0);
    touch_hold_ms = 150 + 3 * (gap < 20000 ? gap : 20000);
    r = scale_counts(touch_work, counts, 1, 1, SPACRBENCH_SCALE_NO_CGROUP);
    touch_hold_ms = 150;
    spacrbench_scale_point p = sb_test_point_of(r, 0);
    ck_assert_int_eq(p.peak_method, SPACRBENCH_PEAK_PSS_SUM);
    /* Both workers' pages, sampled: allow a little for a missed page. */
    const char *pace = "";
    for (size_t i = 0; spacrbench_scale_note(r, i); i++)
        if (strstr(spacrbench_scale_note(r, i), "statm sampled"))
            pace = spacrbench_scale_note(r, i);
    ck_assert_msg(p.peak_bytes >= (int64_t)(120 * SB_MIB), "peak %lld, held %ld ms (%s)",
                  (long long)p.peak_bytes, touch_hold_ms, pace);
    ck_assert_ptr_nonnull(sb_test_note_with(r, "PSS"));
    result_free(r);
}
END_TEST

/* The first item in each process pays a start-up (300 ms); later ones 20 ms. */
static int started_here;

static int cold_start_work(void *item, void *payload)
{
    (void)item;
    (void)payload;
    sleep_ms(started_here ? 20 : 300);
    started_here = 1;
    return 0;
}

START_TEST(warm_up_is_excluded_and_repeats_run_long_enough)
{
    started_here = 0;
    const int64_t counts[] = {1, 2};
    spacrbench_scale_options o;
    spacrbench_scale_options_init(&o, sizeof o);
    o.worker_counts = counts;
    o.n_worker_counts = 2;
    spacrbench_scale_timing t;
    spacrbench_scale_timing_init(&t, sizeof t);
    t.min_items = 2;
    t.min_seconds = 0.2;
    t.min_repeats = 2;
    t.max_repeats = 3;
    spacrbench_scale_result *r = NULL;
    ck_assert_int_eq(
        held(spacrbench_scale_timed(cold_start_work, item_ptrs, 4, NULL, &o, &t, &r), &r), 0);
    for (size_t i = 0; i < 2; i++) {
        spacrbench_scale_point p = sb_test_point_of(r, i);
        spacrbench_scale_spread sp;
        spacrbench_scale_spread_init(&sp, sizeof sp);
        ck_assert_int_eq(spacrbench_scale_spread_get(r, i, &sp), 0);
        ck_assert_int_eq(p.failed, 0);
        ck_assert_int_eq(sp.warmup_items, 1);
        ck_assert_int_ge(sp.repeats, 2);
        /* 0.2 s of 20 ms items: about 10 per worker and repeat, never 2. */
        ck_assert_int_ge(p.items, p.workers * sp.repeats * 8);
        ck_assert_double_ge(p.seconds, 0.2 * (double)sp.repeats);
        /* No timed item paid the 300 ms start. */
        ck_assert_msg(p.mean_item_seconds < 0.1, "mean %g", p.mean_item_seconds);
        ck_assert(isfinite(sp.spread));
    }
    ck_assert_msg(sb_test_point_of(r, 1).speedup > 1.6, "%g", sb_test_point_of(r, 1).speedup);
    ck_assert_ptr_nonnull(sb_test_note_with(r, "1 warm-up item(s) per worker untimed"));
    result_free(r);
    ck_assert_int_eq(leftover_groups(), 0);
}
END_TEST

/* ---- the group's memory limit protects its caller ---- */

static char caller_cg[SB_GROUP_PATH_MAX + 64];

static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t w = write(fd, text, strlen(text));
    close(fd);
    return w == (ssize_t)strlen(text) ? 0 : -1;
}

/* A memory cgroup with `limit` below this process's own (v1, or v2 where
 * this process's cgroup may enable the memory controller for children:
 * the qemu stage runs it from the root); its version, or -1 with why. */
static int caller_cg_version;

static int make_caller_cgroup(size_t limit, char *why, size_t cap)
{
    sb_group g;
    if (sb_group_locate(&g, NULL, why, cap) != 0)
        return -1;
    snprintf(caller_cg, sizeof caller_cg, "%s/spacrbench-test-caller-%ld", g.parent,
             (long)getpid());
    if (mkdir(caller_cg, 0755) != 0) {
        snprintf(why, cap, "cannot create %s", caller_cg);
        caller_cg[0] = '\0';
        return -1;
    }
    char file[SB_GROUP_PATH_MAX + 128], text[32];
    snprintf(file, sizeof file, "%s/%s", caller_cg,
             g.version == 1 ? "memory.limit_in_bytes" : "memory.max");
    snprintf(text, sizeof text, "%zu", limit);
    if (write_file(file, text) != 0) {
        snprintf(why, cap, "cannot limit %s", caller_cg);
        rmdir(caller_cg);
        caller_cg[0] = '\0';
        return -1;
    }
    caller_cg_version = g.version;
    return 0;
}

static void remove_caller_cgroup(void)
{
    if (!caller_cg[0])
        return;
    /* A caller the kernel killed leaves its (empty) group cgroup inside,
     * on v2 perhaps the leaf it had moved into. */
    DIR *d = opendir(caller_cg);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strncmp(e->d_name, "spacrbench-group-", 17) == 0 ||
            strncmp(e->d_name, "spacrbench-leaf-", 16) == 0) {
            char sub[sizeof caller_cg + 300];
            snprintf(sub, sizeof sub, "%s/%s", caller_cg, e->d_name);
            rmdir(sub);
        }
    if (d)
        closedir(d);
    for (int i = 0; i < 100 && rmdir(caller_cg) != 0; i++)
        sleep_ms(10);
    caller_cg[0] = '\0';
}

/* The budget tests' check: 1 and then 4 workers of 40 MiB, one item each,
 * under the budget (flags: SPACRBENCH_SCALE_NO_CGROUP or 0). */
static int over_budget_check(size_t budget, uint32_t flags, spacrbench_scale_result **r)
{
    touch_bytes = 40 * SB_MIB;
    const int64_t counts[] = {1, 4};
    spacrbench_scale_options o;
    spacrbench_scale_options_init(&o, sizeof o);
    o.worker_counts = counts;
    o.n_worker_counts = 2;
    o.items_per_worker = 1;
    o.memory_budget_bytes = (int64_t)budget;
    o.flags = flags;
    spacrbench_scale_timing t;
    timing_fast(&t);
    return spacrbench_scale_timed(touch_work, item_ptrs, 4, NULL, &o, &t, r);
}

START_TEST(an_over_budget_count_is_killed_in_its_group_not_the_caller)
{
    char why[512];
    if (SB_TEST_RSS_OVERHEAD_PERCENT > 100) {
        /* ThreadSanitizer's shadow pages make the caller alone outgrow the
         * limit: the kernel's choice cannot be shown. */
        skip("an_over_budget_count_is_killed_in_its_group_not_the_caller",
             "ThreadSanitizer's shadow memory makes the caller alone exceed the 240 MiB limit");
        return;
    }
    /* The caller holds 100 MiB of its own (not inherited by the workers:
     * MADV_DONTFORK), so it is the largest process below the 240 MiB
     * limit; 4 workers of 40 MiB exceed it. Without a limit on the group
     * the kernel kills the caller. In v2 the caller's own cgroup holds it,
     * so no group cgroup can be made below it (no internal processes):
     * then the workers' oom_score_adj is what spares the caller. */
    if (make_caller_cgroup(240 * SB_MIB, why, sizeof why) != 0) {
        skip("an_over_budget_count_is_killed_in_its_group_not_the_caller", why);
        return;
    }
    int result[2];
    ck_assert_int_eq(pipe(result), 0);
    pid_t caller = fork();
    if (caller == 0) {
        close(result[0]);
        char file[SB_GROUP_PATH_MAX + 128], text[32];
        snprintf(file, sizeof file, "%s/cgroup.procs", caller_cg);
        snprintf(text, sizeof text, "%ld", (long)getpid());
        if (write_file(file, text) != 0)
            _exit(2);
        size_t held = 100 * SB_MIB;
        char *own = mmap(NULL, held, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (own == MAP_FAILED || madvise(own, held, MADV_DONTFORK) != 0)
            _exit(3);
        memset(own, 1, held);
        spacrbench_scale_result *r = NULL;
        int rc = over_budget_check(110 * SB_MIB, 0, &r);
        int said[4] = {rc, -1, -1, -1};
        if (rc == 0) {
            spacrbench_scale_summary s = sb_test_summary_of(r);
            spacrbench_scale_spread sp;
            spacrbench_scale_spread_init(&sp, sizeof sp);
            spacrbench_scale_spread_get(r, 1, &sp);
            said[1] = (int)s.chosen_workers;
            said[2] = s.verdict;
            said[3] = sp.oom_killed;
        }
        result_free(r);
        _exit(write(result[1], said, sizeof said) == (ssize_t)sizeof said ? 0 : 4);
    }
    ck_assert_int_gt(caller, 0);
    close(result[1]);
    int said[4] = {-9, -9, -9, -9};
    ssize_t got = read(result[0], said, sizeof said);
    close(result[0]);
    int status = 0;
    ck_assert_int_eq(waitpid(caller, &status, 0), caller);
    remove_caller_cgroup();
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "the caller did not survive: status 0x%x (9 = SIGKILL, the OOM killer)", status);
    ck_assert_int_eq(got, (ssize_t)sizeof said);
    ck_assert_int_eq(said[0], 0);
    ck_assert_int_eq(said[1], 1);
    if (caller_cg_version == 1) { /* the group carried the limit */
        ck_assert_int_eq(said[2], SPACRBENCH_SCALE_MEMORY);
        ck_assert_int_eq(said[3], 1);
    }
    printf("check_scale: the caller survived an over-budget count (cgroup v%d, %s)\n",
           caller_cg_version, said[3] ? "OOM-killed inside its group" : "a worker was OOM-killed");
}
END_TEST

/* The group's limit is the budget: 4 workers of 40 MiB under a 100 MiB
 * budget are OOM-killed inside their group (v1 memory.limit_in_bytes, v2
 * memory.max with memory.oom.group) and make a memory point. */
START_TEST(the_budget_is_the_groups_limit)
{
    spacrbench_group *g = NULL;
    ck_assert_int_eq(spacrbench_group_open(0, &g), 0);
    int64_t bytes = 0;
    int32_t method = 0;
    ck_assert_int_eq(spacrbench_group_peak(g, &bytes, &method), 0);
    char note[1024];
    snprintf(note, sizeof note, "%s", spacrbench_group_note(g));
    if (method == SPACRBENCH_PEAK_CGROUP) {
        ck_assert_int_eq(spacrbench_group_set_limit(g, 0), SPACRBENCH_EINVAL);
        ck_assert_int_eq(spacrbench_group_set_limit(g, 64 << 20), 0);
        ck_assert_int_eq(spacrbench_group_oom_kills(g), 0);
    }
    ck_assert_int_eq(spacrbench_group_close(g), 0);
    if (method != SPACRBENCH_PEAK_CGROUP) {
        skip("the_budget_is_the_groups_limit", note);
        return;
    }
    spacrbench_scale_result *r = NULL;
    ck_assert_int_eq(held(over_budget_check(100 * SB_MIB, 0, &r), &r), 0);
    spacrbench_scale_spread sp;
    spacrbench_scale_spread_init(&sp, sizeof sp);
    ck_assert_int_eq(spacrbench_scale_spread_get(r, 1, &sp), 0);
    spacrbench_scale_summary s = sb_test_summary_of(r);
    ck_assert_int_eq(sp.limit_bytes, (int64_t)(100 * SB_MIB));
    ck_assert_msg(sp.oom_killed == 1, "4 workers were not OOM-killed in their group: %s", s.reason);
    ck_assert_int_eq(s.chosen_workers, 1);
    ck_assert_int_eq(s.verdict, SPACRBENCH_SCALE_MEMORY);
    ck_assert_msg(strstr(s.reason, "OOM-killed in their group at its limit of 100.0 MiB"), "%s",
                  s.reason);
    ck_assert_ptr_nonnull(
        sb_test_note_with(r, "the caller is above the group and was not touched"));
    result_free(r);
    ck_assert_int_eq(leftover_groups(), 0);
}
END_TEST

/* The longest gap the group's sampler leaves here over 4 workers of 4 MiB
 * (far under any budget, no cgroup), at the budget this process has: what
 * an over-budget count's pages must outlast to be seen. -1 when the count
 * failed or no note says it. */
static long pace_of_four_ms(void)
{
    size_t bytes = touch_bytes;
    long hold = touch_hold_ms;
    touch_bytes = 4 * SB_MIB;
    touch_hold_ms = 300;
    const int64_t counts[] = {4};
    spacrbench_scale_options o;
    spacrbench_scale_options_init(&o, sizeof o);
    o.worker_counts = counts;
    o.n_worker_counts = 1;
    o.items_per_worker = 1;
    o.flags = SPACRBENCH_SCALE_NO_CGROUP;
    spacrbench_scale_timing t;
    timing_fast(&t);
    spacrbench_scale_result *r = NULL;
    long gap = spacrbench_scale_timed(touch_work, item_ptrs, 4, NULL, &o, &t, &r) == 0
                   ? sampler_gap_ms(r)
                   : -1;
    spacrbench_scale_free(r);
    touch_bytes = bytes;
    touch_hold_ms = hold;
    return gap;
}

enum { SAID_N = 9, SAID_TOO_SLOW = -100 };

/* One watched check in a forked caller (_i = 1: it becomes nobody first),
 * under the sampler's default budget (budget NULL) or the one given; what
 * it said comes back in said[SAID_N]: rc, chosen workers, verdict, the 1-
 * and 4-worker points' oom_killed, the 4-worker point's peak method,
 * whether the words and the limit say "ended at the budget", the gap
 * measured (ms, default budget only) and how long the pages were held.
 * 0 when it was skipped (said: why), 1 when it ran and passed. */
static int watched_check(int as_nobody, const char *budget, int said[SAID_N])
{
    int result[2];
    ck_assert_int_eq(pipe(result), 0);
    pid_t caller = fork();
    if (caller == 0) {
        close(result[0]);
        /* Dumpable again after setuid, as a user's own process is (else
         * its /proc files, smaps_rollup too, stay root's). */
        if (as_nobody &&
            (setgid(65534) != 0 || setuid(65534) != 0 || prctl(PR_SET_DUMPABLE, 1) != 0))
            _exit(2);
        int out[SAID_N] = {-1, -1, -1, -1, -1, -1, -1, -1, -1};
        if (budget) {
            setenv("SPACRBENCH_SAMPLER_BUDGET", budget, 1);
            touch_hold_ms = 600;
        } else {
            /* The default keeps the sampler to 0.5 % of a core, so its gaps
             * are what its reads cost / 0.5 %: tens of ms here, seconds
             * under valgrind. The pages are held 1.5 s, or three of the
             * longest gaps a count of 4 workers left here where that is
             * more. */
            unsetenv("SPACRBENCH_SAMPLER_BUDGET");
            long gap = pace_of_four_ms();
            out[7] = (int)gap;
            touch_hold_ms = 150 + 3 * gap;
            if (touch_hold_ms < 1500)
                touch_hold_ms = 1500;
        }
        out[8] = (int)touch_hold_ms;
        spacrbench_scale_result *r = NULL;
        /* Gaps of over 10 s (valgrind on a loaded machine) would hold the
         * pages for a minute or more: said, not run. */
        out[0] = out[7] > 10000 ? SAID_TOO_SLOW
                                : over_budget_check(100 * SB_MIB,
                                                    as_nobody ? 0 : SPACRBENCH_SCALE_NO_CGROUP, &r);
        if (out[0] == 0) {
            spacrbench_scale_summary s = sb_test_summary_of(r);
            spacrbench_scale_spread one, four;
            spacrbench_scale_spread_init(&one, sizeof one);
            spacrbench_scale_spread_init(&four, sizeof four);
            spacrbench_scale_spread_get(r, 0, &one);
            spacrbench_scale_spread_get(r, 1, &four);
            out[1] = (int)s.chosen_workers;
            out[2] = s.verdict;
            out[3] = one.oom_killed;
            out[4] = four.oom_killed;
            out[5] = sb_test_point_of(r, 1).peak_method;
            out[6] = strstr(s.reason, "ended by spacrbench") != NULL &&
                     (sb_test_note_with(r, "no cgroup could hold a limit") != NULL) &&
                     four.limit_bytes == (int64_t)(100 * SB_MIB);
        }
        result_free(r);
        _exit(write(result[1], out, sizeof out) == (ssize_t)sizeof out ? 0 : 4);
    }
    ck_assert_int_gt(caller, 0);
    close(result[1]);
    for (int i = 0; i < SAID_N; i++)
        said[i] = -9;
    ssize_t got = read(result[0], said, SAID_N * sizeof said[0]);
    close(result[0]);
    int status = 0;
    ck_assert_int_eq(waitpid(caller, &status, 0), caller);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status 0x%x", status);
    ck_assert_int_eq(got, (ssize_t)(SAID_N * sizeof said[0]));
    if (said[0] == SAID_TOO_SLOW)
        return 0;
    ck_assert_int_eq(said[0], 0);
    ck_assert_int_eq(said[5], SPACRBENCH_PEAK_PSS_SUM); /* no cgroup: sampled */
    ck_assert_int_eq(said[3], 0);
    ck_assert_msg(said[4] == 3, /* ended by spacrbench at the budget */
                  "4 workers of 40 MiB over a 100 MiB budget: oom_killed %d, not 3 (ended at the "
                  "budget); sampler's longest gap %d ms, pages held %d ms",
                  said[4], said[7], said[8]);
    ck_assert_int_eq(said[1], 1);
    ck_assert_int_eq(said[2], SPACRBENCH_SCALE_MEMORY);
    ck_assert_int_eq(said[6], 1);
    return 1;
}

/* Caller safety without a cgroup (issue #34): where no group can carry the
 * budget as its limit (SPACRBENCH_SCALE_NO_CGROUP; _i = 1: an unprivileged
 * user, who cannot make one, in a forked child that became nobody), the
 * group's sampler ends the count whose PSS sum passes the budget: 4 workers
 * of 40 MiB under 100 MiB are a memory point, 1 worker is not. The
 * sampler's budget raised to a whole core (SPACRBENCH_SAMPLER_BUDGET=100)
 * puts its gaps at their floor (20 ms) even under a sanitizer or valgrind,
 * where each read is many times slower, and a 600 ms hold outlasts many. */
START_TEST(an_over_budget_count_without_a_cgroup_is_ended_at_the_budget)
{
    if (_i && geteuid() != 0) {
        skip("an_over_budget_count_without_a_cgroup_is_ended_at_the_budget (nobody)",
             "needs root to become nobody");
        return;
    }
    int said[SAID_N];
    ck_assert_int_eq(watched_check(_i, "100", said), 1);
}
END_TEST

/* The same at the sampler's default budget (0.5 % of a core), the one a
 * user gets: the stretched sampler sees pages held for 1.5 s (or three of
 * its longest gaps here) and ends the count, so the default itself
 * protects the caller, not only a budget raised for tests. */
START_TEST(the_default_sampler_budget_ends_an_over_budget_count)
{
    if (_i && geteuid() != 0) {
        skip("the_default_sampler_budget_ends_an_over_budget_count (nobody)",
             "needs root to become nobody");
        return;
    }
    int said[SAID_N];
    if (!watched_check(_i, NULL, said)) {
        char why[200];
        snprintf(why, sizeof why,
                 "the sampler's longest gap over 4 workers is %d ms here (valgrind, a loaded "
                 "machine): holding the pages for three of them would take a minute or more",
                 said[7]);
        skip(_i ? "the_default_sampler_budget_ends_an_over_budget_count (nobody)"
                : "the_default_sampler_budget_ends_an_over_budget_count",
             why);
        return;
    }
    printf("check_scale: default sampler budget%s: the sampler's longest gap over 4 workers %d ms, "
           "pages held %d ms, the 4-worker count ended at the budget\n",
           _i ? " (nobody)" : "", said[7], said[8]);
}
END_TEST

/* A count that cannot fork all its workers (pids.max) is a failed point;
 * the points before it stand. */
START_TEST(a_count_that_cannot_fork_is_a_failed_point)
{
    char cg[256];
    snprintf(cg, sizeof cg, "/sys/fs/cgroup/pids/spacrbench-test-pids-%ld", (long)getpid());
    if (access("/sys/fs/cgroup/pids/cgroup.procs", W_OK) != 0 || mkdir(cg, 0755) != 0) {
        skip("a_count_that_cannot_fork_is_a_failed_point",
             "no writable v1 pids hierarchy at /sys/fs/cgroup/pids");
        return;
    }
    char file[300];
    snprintf(file, sizeof file, "%s/pids.max", cg);
    ck_assert_int_eq(write_file(file, "6"), 0);
    int result[2];
    ck_assert_int_eq(pipe(result), 0);
    pid_t caller = fork();
    if (caller == 0) {
        close(result[0]);
        char text[32];
        snprintf(file, sizeof file, "%s/cgroup.procs", cg);
        snprintf(text, sizeof text, "%ld", (long)getpid());
        if (write_file(file, text) != 0)
            _exit(2);
        const int64_t counts[] = {1, 16};
        spacrbench_scale_options o;
        spacrbench_scale_options_init(&o, sizeof o);
        o.worker_counts = counts;
        o.n_worker_counts = 2;
        o.items_per_worker = 1;
        spacrbench_scale_timing t;
        timing_fast(&t);
        spacrbench_scale_result *r = NULL;
        int rc = spacrbench_scale_timed(sleep_work, item_ptrs, 4, NULL, &o, &t, &r);
        int said[4] = {rc, -1, -1, -1};
        if (rc != 0)
            fprintf(stderr, "check_scale: %s\n", spacrbench_last_error_message());
        if (rc == 0) {
            said[1] = sb_test_point_of(r, 0).failed;
            said[2] = sb_test_point_of(r, 1).failed;
            said[3] = (int)sb_test_summary_of(r).chosen_workers;
        }
        result_free(r);
        _exit(write(result[1], said, sizeof said) == (ssize_t)sizeof said ? 0 : 4);
    }
    ck_assert_int_gt(caller, 0);
    close(result[1]);
    int said[4] = {-9, -9, -9, -9};
    ssize_t got = read(result[0], said, sizeof said);
    close(result[0]);
    int status = 0;
    ck_assert_int_eq(waitpid(caller, &status, 0), caller);
    for (int i = 0; i < 100 && rmdir(cg) != 0; i++)
        sleep_ms(10);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status 0x%x", status);
    ck_assert_int_eq(got, (ssize_t)sizeof said);
    ck_assert_msg(said[0] == 0, "spacrbench_scale returned %d (the 1-worker point was lost)",
                  said[0]);
    ck_assert_int_eq(said[1], 0);
    ck_assert_int_eq(said[2], 1);
    ck_assert_int_eq(said[3], 1);
}
END_TEST

/* The caller SIGKILLed mid-count: its workers go with it. */
START_TEST(workers_end_with_a_killed_caller)
{
    int pids[2];
    ck_assert_int_eq(pipe(pids), 0);
    pid_t caller = fork();
    if (caller == 0) {
        close(pids[0]);
        ck_assert_int_eq(dup2(pids[1], 100), 100);
        const int64_t counts[] = {2};
        spacrbench_scale_options o;
        spacrbench_scale_options_init(&o, sizeof o);
        o.worker_counts = counts;
        o.n_worker_counts = 1;
        o.items_per_worker = 1000;
        spacrbench_scale_timing t;
        timing_fast(&t);
        spacrbench_scale_result *r = NULL;
        spacrbench_scale_timed(report_and_sleep_work, item_ptrs, 4, NULL, &o, &t, &r);
        _exit(0);
    }
    close(pids[1]);
    pid_t worker[2] = {0, 0};
    size_t got = 0;
    while (got < sizeof worker) {
        ssize_t n = read(pids[0], (char *)worker + got, sizeof worker - got);
        ck_assert_int_gt(n, 0);
        got += (size_t)n;
    }
    ck_assert_int_eq(kill(caller, SIGKILL), 0);
    int status = 0;
    ck_assert_int_eq(waitpid(caller, &status, 0), caller);
    /* The workers were the caller's children: now init's; PR_SET_PDEATHSIG
     * killed them. Wait up to 2 s for the kernel to deliver it. */
    int alive = 2;
    for (int i = 0; i < 200 && alive; i++) {
        alive = 0;
        for (int w = 0; w < 2; w++)
            alive += kill(worker[w], 0) == 0 && !is_zombie(worker[w]);
        sleep_ms(10);
    }
    close(pids[0]);
    ck_assert_msg(alive == 0, "%d workers outlived their killed caller", alive);
    /* The killed caller could not remove its group; the next group anyone
     * opens under the same parent removes it (its owner no longer runs). */
    int left = groups_of((long)caller);
    spacrbench_group *g = NULL;
    ck_assert_int_eq(spacrbench_group_open(0, &g), 0);
    ck_assert_int_eq(spacrbench_group_close(g), 0);
    if (left == 0) {
        skip("workers_end_with_a_killed_caller (stale group)",
             "the killed caller made no cgroup here");
        return;
    }
    ck_assert_msg(groups_of((long)caller) == 0, "%d groups of the killed caller %ld remain",
                  groups_of((long)caller), (long)caller);
}
END_TEST

START_TEST(bad_arguments_are_errors)
{
    spacrbench_scale_result *r = NULL;
    ck_assert_int_eq(held(spacrbench_scale(NULL, item_ptrs, 4, NULL, NULL, &r), &r),
                     SPACRBENCH_EINVAL);
    ck_assert_ptr_nonnull(strstr(spacrbench_last_error_message(), "work"));
    ck_assert_int_eq(held(spacrbench_scale(sleep_work, item_ptrs, 0, NULL, NULL, &r), &r),
                     SPACRBENCH_ENOITEMS);
    ck_assert_int_eq(held(spacrbench_scale(sleep_work, NULL, 4, NULL, NULL, &r), &r),
                     SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_scale(sleep_work, item_ptrs, 4, NULL, NULL, NULL),
                     SPACRBENCH_EINVAL);
    spacrbench_scale_options o;
    ck_assert_int_eq(spacrbench_scale_options_init(&o, sizeof o), 0);
    const int64_t zero[] = {0};
    o.worker_counts = zero;
    o.n_worker_counts = 1;
    ck_assert_int_eq(held(spacrbench_scale(sleep_work, item_ptrs, 4, NULL, &o, &r), &r),
                     SPACRBENCH_EINVAL);
    ck_assert_ptr_nonnull(strstr(spacrbench_last_error_message(), "worker_counts[0]"));
    ck_assert_int_eq(spacrbench_scale_options_init(&o, sizeof o), 0);
    o.items_per_worker = 0;
    ck_assert_int_eq(held(spacrbench_scale(sleep_work, item_ptrs, 4, NULL, &o, &r), &r),
                     SPACRBENCH_EINVAL);
    ck_assert_ptr_nonnull(strstr(spacrbench_last_error_message(), "items_per_worker"));
    ck_assert_int_eq(spacrbench_scale_options_init(&o, sizeof o), 0);
    o.flags = 0x80;
    ck_assert_int_eq(held(spacrbench_scale(sleep_work, item_ptrs, 4, NULL, &o, &r), &r),
                     SPACRBENCH_EINVAL);
    ck_assert_ptr_null(r);
    spacrbench_group *g = NULL;
    ck_assert_int_eq(spacrbench_group_open(0x80, &g), SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_group_open(SPACRBENCH_SCALE_NO_CGROUP, &g), 0);
    ck_assert_int_eq(spacrbench_group_add_process(g, 0), SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_group_close(g), 0);
}
END_TEST

/* The counts a check may measure, each problem named in the caller's
 * word for the list. */
START_TEST(worker_counts_are_checked_in_the_callers_words)
{
    const int64_t good[] = {1, 2, 1024}, zero[] = {2, 0}, big[] = {100000}, twice[] = {2, 3, 2};
    ck_assert_int_eq(spacrbench_scale_check_counts(good, 3, "workers"), 0);
    ck_assert_int_eq(spacrbench_scale_check_counts(NULL, 0, NULL), 0);
    ck_assert_int_eq(spacrbench_scale_check_counts(zero, 2, "workers"), SPACRBENCH_EINVAL);
    ck_assert_str_eq(spacrbench_last_error_message(), "workers[1] is 0; it must be >= 1");
    ck_assert_int_eq(spacrbench_scale_check_counts(big, 1, NULL), SPACRBENCH_EINVAL);
    ck_assert_ptr_nonnull(
        strstr(spacrbench_last_error_message(), "worker_counts[0] is 100000; at most 1024"));
    ck_assert_int_eq(spacrbench_scale_check_counts(twice, 3, "--workers"), SPACRBENCH_EINVAL);
    ck_assert_str_eq(spacrbench_last_error_message(), "--workers: worker count 2 appears twice");
    ck_assert_int_eq(spacrbench_scale_check_counts(NULL, 2, "workers"), SPACRBENCH_EINVAL);
    int64_t many[65];
    for (int i = 0; i < 65; i++)
        many[i] = i + 1;
    ck_assert_int_eq(spacrbench_scale_check_counts(many, 64, "workers"), 0);
    ck_assert_int_eq(spacrbench_scale_check_counts(many, 65, "workers"), SPACRBENCH_EINVAL);
    ck_assert_str_eq(spacrbench_last_error_message(), "workers has 65 counts; at most 64");
}
END_TEST

static Suite *scale_suite(void)
{
    Suite *s = suite_create("scale");
    TCase *rule = tcase_create("rule");
    tcase_add_checked_fixture(rule, NULL, free_held);
    tcase_add_test(rule, linear_points_choose_the_largest);
    tcase_add_test(rule, vram_is_shown_only_where_measured);
    tcase_add_test(rule, saturating_points_choose_the_knee);
    tcase_add_test(rule, memory_budget_excludes_faster_counts);
    tcase_add_test(rule, missing_one_worker_point_leaves_speedup_unknown);
    tcase_add_test(rule, failed_and_unusable_points);
    tcase_add_test(rule, table_and_json_show_the_knee);
    tcase_add_test(rule, bad_points_are_rejected);
    tcase_add_test(rule, a_gain_within_the_noise_is_no_gain);
    tcase_add_test(rule, an_oom_killed_count_is_a_memory_point);
    tcase_add_test(rule, timing_defaults_and_bad_timing);
    tcase_add_test(rule, worker_counts_are_checked_in_the_callers_words);
    suite_add_tcase(s, rule);
    TCase *real = tcase_create("workers");
    tcase_add_checked_fixture(real, NULL, free_held);
    tcase_set_timeout(real, 120);
    tcase_add_test(real, sleeping_workers_scale_nearly_linearly);
    tcase_add_test(real, failing_work_marks_the_point_failed);
    tcase_add_test(real, a_child_forked_beside_a_check_can_scale);
    tcase_add_test(real, cgroup_peak_covers_every_worker);
    tcase_add_test(real, pss_fallback_sums_the_workers);
    tcase_add_test(real, bad_arguments_are_errors);
    tcase_add_test(real, warm_up_is_excluded_and_repeats_run_long_enough);
    tcase_add_test(real, workers_end_with_a_killed_caller);
    tcase_add_test(real, a_count_that_cannot_fork_is_a_failed_point);
    suite_add_tcase(s, real);
    /* Its own case, so the qemu stage (cgroup v2) can run it alone. */
    TCase *limits = tcase_create("limits");
    tcase_add_checked_fixture(limits, NULL, free_held);
    tcase_set_timeout(limits, 120);
    tcase_add_test(limits, the_budget_is_the_groups_limit);
    tcase_add_test(limits, an_over_budget_count_is_killed_in_its_group_not_the_caller);
    suite_add_tcase(s, limits);
    /* The budget watched where no cgroup can hold it (the qemu stage runs
     * "limits" alone and counts its two checks). */
    TCase *watch = tcase_create("watch");
    tcase_add_checked_fixture(watch, NULL, free_held);
    tcase_set_timeout(watch, 120);
    tcase_add_loop_test(watch, an_over_budget_count_without_a_cgroup_is_ended_at_the_budget, 0, 2);
    tcase_add_loop_test(watch, the_default_sampler_budget_ends_an_over_budget_count, 0, 2);
    suite_add_tcase(s, watch);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(scale_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
