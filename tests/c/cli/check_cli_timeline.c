/* `spacrbench run`'s memory timeline: the sampled RSS of each item's tree
 * and its cgroup's usage against time, each item's boundaries and exact
 * peak marked, bounded and said so when downsampled; --interval sets its
 * period. The real binary on real child processes and cgroups, and the
 * supervisor's sample listener and run_timeline directly (so that the
 * sanitizer and valgrind builds see that code run). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_test_support.h"
#include "spacrbench.h"
#include "supervisor.h"

/* An expression over the timeline t and the measurement m of document d. */
#define TL(expr) "(lambda t, m: " expr ")(d['measurement']['timeline'], d['measurement'])"

/* ---- through the command ---- */

/* Run argv, expect exit 0, and keep its JSON document in a temporary file
 * (NULL, with a visible SKIP, when there is no Python to read it). */
static char *run_json(char *const argv[])
{
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    char *path = cli_temp_file(r.out);
    cli_result_free(&r);
    if (!cli_have_python()) {
        unlink(path);
        free(path);
        return NULL;
    }
    return path;
}

/* The Python expression over the document d is True. */
static void expect(const char *json, const char *expr)
{
    char *v = cli_json_eval(json, expr);
    ck_assert_msg(v != NULL, "JSON query failed: %s", expr);
    ck_assert_msg(strcmp(v, "True") == 0, "%s is %s in %s", expr, v, json);
    free(v);
}

static int uses_cgroup(const char *json)
{
    char *v = cli_json_eval(json, "d['memory_figures']['advice_uses']");
    ck_assert_ptr_nonnull(v);
    int yes = strcmp(v, "cgroup_charge") == 0;
    free(v);
    return yes;
}

static void drop(char *json)
{
    if (!json)
        return;
    unlink(json);
    free(json);
}

/* Three items touching 64 MiB for 300 ms each: the picture has points that
 * show the 64 MiB, a mark per item whose peak is the item's record peak,
 * placed inside it; with a cgroup (_i == 0) the cgroup's usage line is
 * there too and the mark sits where the usage was highest; without one
 * (--no-cgroup) no point has a cgroup figure. */
START_TEST(items_are_marked_with_their_measured_peaks)
{
    char *const argv[] = {SPACRBENCH_CLI,
                          "run",
                          "--json",
                          "--quiet",
                          _i ? "--no-cgroup" : "--quiet",
                          "a",
                          "b",
                          "c",
                          "--",
                          HELPER_ALLOC_TOUCH,
                          "64",
                          "300",
                          NULL};
    char *json = run_json(argv);
    if (!json)
        return;
    expect(json, "isinstance(d['measurement']['timeline'], dict)");
    expect(json, TL("0 < len(t['points']) <= t['max_points'] "
                    "== 2000 and not t['downsampled'] and t['stride'] == 1 and t['samples'] == "
                    "len(t['points'])"));
    expect(json, TL("[p['seconds'] for p in t['points']] == "
                    "sorted(p['seconds'] for p in t['points'])"));
    expect(json, TL("[i['index'] for i in m['timeline']['items']] == "
                    "[r['index'] for r in m['records']] == [0, 1, 2]"));
    expect(json, TL("[i['peak_rss_bytes'] for i in m['timeline']['items']] "
                    "== [r['peak_rss_bytes'] for r in m['records']]"));
    expect(json, "all(i['start_seconds'] <= i['peak_seconds'] <= i['end_seconds'] for i in "
                 "d['measurement']['timeline']['items'])");
    expect(json, TL("all(abs(i['end_seconds'] - i['start_seconds'] - "
                    "r['seconds']) < 1e-6 for i, r in zip(m['timeline']['items'], m['records']))"));
    /* The items show their 64 MiB in the sampled RSS: every item when the
     * RSS is the sampled figure; with a cgroup the RSS scans are extra and
     * spaced to keep within their CPU budget (on a loaded machine a scan's
     * cost can space them past one 300 ms item), so at least one item. */
#define RSS_SHOWN(quantifier)                                                                      \
    TL(quantifier "(max([p['rss_bytes'] or 0 for p in t['points'] if i['start_seconds'] <= "       \
                  "p['seconds'] <= i['end_seconds']] + [0]) >= 60 * 2**20 for i in t['items'])")
    expect(json, uses_cgroup(json) ? RSS_SHOWN("any") : RSS_SHOWN("all"));
#undef RSS_SHOWN
    if (uses_cgroup(json)) {
        ck_assert_int_eq(_i, 0);
        expect(json, "d['measurement']['timeline']['interval_us'] == 10000");
        expect(json, TL("all(p['cgroup_bytes'] is not None "
                        "for p in t['points'])"));
        expect(json, TL("all(max(p['cgroup_bytes'] for p in "
                        "t['points'] if i['start_seconds'] <= p['seconds'] <= i['end_seconds']) "
                        ">= 60 * 2**20 for i in t['items'])"));
        /* The mark is at the highest usage inside the item. */
        expect(json, TL("all(max((p['cgroup_bytes'], "
                        "-p['seconds']) for p in t['points'] if i['start_seconds'] <= "
                        "p['seconds'] <= i['end_seconds'])[1] == -i['peak_seconds'] for i in "
                        "t['items'])"));
    } else {
        if (_i == 0)
            printf("SKIP: no cgroup of its own here: the cgroup_bytes line is only checked "
                   "absent\n");
        expect(json, "d['measurement']['timeline']['interval_us'] == 5000");
        expect(json, "all(p['cgroup_bytes'] is None for p in "
                     "d['measurement']['timeline']['points'])");
    }
    drop(json);
}
END_TEST

/* The `--no-cgroup --interval 1ms` run of one `sleep SECONDS`. */
static char *run_sleeping(double seconds)
{
    char script[64];
    snprintf(script, sizeof script, "sleep %.1f", seconds);
    char *const argv[] = {SPACRBENCH_CLI, "run",  "--json", "--quiet", "--no-cgroup",
                          "--interval",   "1ms",  "a",      "--",      "sh",
                          "-c",           script, "sh",     "{}",      NULL};
    return run_json(argv);
}

/* The number of samples of document json's timeline. */
static long samples_of(const char *json)
{
    char *v = cli_json_eval(json, "d['measurement']['timeline']['samples']");
    ck_assert_ptr_nonnull(v);
    long n = strtol(v, NULL, 10);
    free(v);
    return n;
}

/* A run longer than 2000 samples keeps at most 2000 points, each standing
 * for `stride` samples, and a note says so. How many samples a second
 * this machine takes now (1 ms, plus the /proc scan, slower on a busy
 * machine) is measured first, so the run is long enough wherever it runs;
 * a machine that got busier meanwhile gets a run twice as long, twice. */
START_TEST(a_long_run_is_bounded_and_says_so)
{
    /* The samplers keep to 0.5 % of a core, 30 to 100 samples a second
     * here: a run of 3000 would take a minute or more. The budget the
     * user may raise makes it seconds (SPACRBENCH_SAMPLER_BUDGET; the
     * child commands inherit it, which does not matter to `sleep`). */
    setenv("SPACRBENCH_SAMPLER_BUDGET", "100", 1);
    char *json = run_sleeping(1.0);
    if (!json)
        return;
    char *v = cli_json_eval(json, TL("t['samples'] / (t['items'][0]['end_seconds'] - "
                                     "t['items'][0]['start_seconds'])"));
    ck_assert_ptr_nonnull(v);
    double rate = strtod(v, NULL);
    free(v);
    drop(json);
    ck_assert_msg(rate >= 30, "only %g samples a second at 1 ms", rate);
    double seconds = ceil(3000 / rate);
    json = run_sleeping(seconds);
    ck_assert_ptr_nonnull(json);
    for (int again = 0; again < 2 && samples_of(json) <= 2000; again++) {
        printf("NOTE: %ld samples in %g s (expected %g a second): running %g s\n", samples_of(json),
               seconds, rate, 2 * seconds);
        drop(json);
        seconds *= 2;
        json = run_sleeping(seconds);
        ck_assert_ptr_nonnull(json);
    }
    expect(json, TL("t['samples'] > 2000 and "
                    "len(t['points']) <= 2000 and t['downsampled'] and t['stride'] >= 2"));
    expect(json, TL("len(t['points']) >= t['samples'] // t['stride'] - 1"));
    expect(json, "any(n.startswith('timeline downsampled: ') and 'every 1.0 ms' in n for n in "
                 "d['measurement']['notes'])");
    expect(json, TL("[i['peak_rss_bytes'] for i in m['timeline']['items']] "
                    "== [r['peak_rss_bytes'] for r in m['records']]"));
    drop(json);
    unsetenv("SPACRBENCH_SAMPLER_BUDGET");
}
END_TEST

/* --interval sets the period: the timeline's, the note's and, without a
 * cgroup (where the sampled tree gives the peak), the measurement's. */
START_TEST(interval_sets_the_period)
{
    static const char *const given[] = {"20ms", "0.05s", "2500us"};
    static const long long us[] = {20000, 50000, 2500};
    char interval[64], note[160];
    snprintf(interval, sizeof interval, "d['measurement']['timeline']['interval_us'] == %lld",
             us[_i]);
    snprintf(note, sizeof note,
             "any('sampled every %g ms' in n or '(%g ms at least' in n "
             "for n in d['measurement']['notes'])",
             (double)us[_i] / 1000, (double)us[_i] / 1000);
    for (int no_cgroup = 0; no_cgroup < 2; no_cgroup++) {
        char *const argv[] = {SPACRBENCH_CLI,
                              "run",
                              "--json",
                              "--quiet",
                              "--interval",
                              (char *)given[_i],
                              no_cgroup ? "--no-cgroup" : "--quiet",
                              "a",
                              "--",
                              HELPER_ALLOC_TOUCH,
                              "8",
                              "120",
                              NULL};
        char *json = run_json(argv);
        if (!json)
            return;
        expect(json, interval);
        expect(json, note);
        char sampled[96];
        snprintf(sampled, sizeof sampled, "d['measurement']['sample_interval_us'] == %lld",
                 uses_cgroup(json) ? 0LL : us[_i]);
        expect(json, sampled);
        drop(json);
    }
}
END_TEST

START_TEST(interval_rejects_bad_values)
{
    static const char *const bad[] = {"0",     "500us", "0.5ms", "11s", "abc",
                                      "10 ms", "-5ms",  "",      "1e3", "10m"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *const argv[] = {SPACRBENCH_CLI, "run",  "--interval", (char *)bad[i], "a",
                              "--",           "true", NULL};
        cli_expect_usage_error(argv, "spacrbench: --interval: expected a period from 1ms to 10s",
                               i);
    }
    char *const fine[] = {SPACRBENCH_CLI, "run",  "--quiet", "--interval=1ms", "a",
                          "--",           "true", NULL};
    cli_result r;
    cli_run(fine, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    cli_result_free(&r);
}
END_TEST

/* ---- the supervisor's listener and run_timeline, in this process ---- */

typedef struct heard {
    int n;
    double first, last;
    int64_t rss_max, cgroup_max, cgroup_min;
    int backwards;
} heard;

static void listen(void *arg, double now, int64_t rss, int64_t cgroup)
{
    heard *h = arg;
    if (h->n == 0)
        h->first = now;
    else if (now < h->last)
        h->backwards = 1;
    h->last = now;
    h->n++;
    h->rss_max = rss > h->rss_max ? rss : h->rss_max;
    h->cgroup_max = cgroup > h->cgroup_max ? cgroup : h->cgroup_max;
    h->cgroup_min = cgroup < h->cgroup_min ? cgroup : h->cgroup_min;
}

static void init_supervisor(sb_supervisor *s, int no_cgroup, int64_t interval_us)
{
    sb_supervisor_config cfg = {.no_cgroup = no_cgroup,
                                .machine_limit = -1,
                                .prefix = "sbtest-tl",
                                .interval_us = interval_us};
    sb_supervisor_init(s, &cfg);
}

/* Every sample of a running item reaches the listener, in time order and
 * inside the item: its tree's RSS now and, with a cgroup, the cgroup's
 * usage now (else -1); --interval's period is the supervisor's. */
START_TEST(the_supervisor_tells_each_sample)
{
    sb_supervisor s;
    init_supervisor(&s, _i, 0);
    ck_assert(fabs(sb_supervisor_interval(&s) - (s.use_cgroup ? 0.010 : 0.005)) < 1e-12);
    heard h = {0, 0, 0, -1, -1, INT64_MAX, 0};
    s.cfg.on_sample = listen;
    s.cfg.sample_arg = &h;
    char *argv[] = {HELPER_ALLOC_TOUCH, "32", "400", NULL};
    run_outcome o;
    ck_assert_int_eq(run_item(&s, argv, 0, &o), 0);
    ck_assert(run_outcome_ok(&o));
    /* At least one: under valgrind a sample takes so long that the budget
     * (0.5 % of a core) spaces them by hundreds of ms. The sizes are the
     * command tests' (native, many samples); here: they are there. */
    ck_assert_int_ge(h.n, 1);
    ck_assert(!h.backwards);
    ck_assert(h.first >= o.group.started_at && h.last <= o.group.started_at + o.group.seconds);
    ck_assert_int_gt(h.rss_max, 0);
    if (s.use_cgroup) {
        ck_assert_int_gt(h.cgroup_max, 0);
        ck_assert_int_ge(h.cgroup_min, 0);
    } else
        ck_assert_int_eq(h.cgroup_max, -1);
    ck_assert_int_eq(sb_supervisor_group_usage(&s), -1); /* the group is gone */
    /* Silent again without a listener. */
    s.cfg.on_sample = NULL;
    int before = h.n;
    ck_assert_int_eq(run_item(&s, argv, 1, &o), 0);
    ck_assert_int_eq(h.n, before);
    sb_supervisor_free(&s);

    init_supervisor(&s, _i, 2500);
    ck_assert(fabs(sb_supervisor_interval(&s) - 0.0025) < 1e-12);
    sb_supervisor_free(&s);
}
END_TEST

/* run_timeline over two real items: one mark per record with its exact
 * peak, placed inside it; the listener is gone after run_timeline_end. */
START_TEST(run_timeline_marks_the_records)
{
    sb_supervisor s;
    init_supervisor(&s, _i, 0);
    spacrbench_run_plan plan;
    spacrbench_run_plan_init(&plan, sizeof plan);
    plan.items = 2;
    plan.records = 1;
    plan.peak_method = s.use_cgroup ? SPACRBENCH_PEAK_CGROUP : SPACRBENCH_PEAK_CHILD_RUSAGE;
    spacrbench_measurement *m = NULL;
    ck_assert_int_eq(spacrbench_measurement_begin(&plan, &m), 0);
    run_timeline tl;
    run_timeline_begin(&tl, m, &s);
    ck_assert_ptr_nonnull(tl.m);
    char *argv[] = {HELPER_ALLOC_TOUCH, "24", "150", NULL};
    for (size_t i = 0; i < 2; i++) {
        run_outcome o;
        ck_assert_int_eq(run_item(&s, argv, i, &o), 0);
        spacrbench_item_figures it;
        spacrbench_item_figures_init(&it, sizeof it);
        it.seconds = o.group.seconds;
        it.peak_rss_bytes = o.group.peak;
        ck_assert_int_eq(spacrbench_measurement_add_item(m, &it), 0);
        run_timeline_run_done(&tl, o.copy.cpu_seconds);
        run_timeline_mark(&tl, i, o.group.started_at, o.group.seconds);
    }
    run_timeline_end(&tl);
    ck_assert(s.cfg.on_sample == NULL && s.cfg.sample_arg == NULL);
    ck_assert_int_eq(spacrbench_measurement_end(m), 0);
    spacrbench_timeline_info info = {.size = sizeof info};
    ck_assert_int_eq(spacrbench_measurement_timeline_info(m, &info), 0);
    ck_assert_int_eq(info.interval_us, s.use_cgroup ? 10000 : 5000);
    ck_assert_int_gt(info.point_count, 0);
    ck_assert_int_eq(info.item_count, 2);
    for (size_t i = 0; i < 2; i++) {
        spacrbench_timeline_item it = {.size = sizeof it};
        spacrbench_item_record rec = {.size = sizeof rec};
        ck_assert_int_eq(spacrbench_measurement_timeline_item(m, i, &it), 0);
        ck_assert_int_eq(spacrbench_measurement_record(m, i, &rec), 0);
        ck_assert_int_eq(it.index, (int64_t)i);
        ck_assert_int_eq(it.peak_rss_bytes, rec.peak_rss_bytes);
        ck_assert(it.start_seconds <= it.peak_seconds && it.peak_seconds <= it.end_seconds);
        ck_assert(fabs(it.end_seconds - it.start_seconds - rec.seconds) < 1e-6);
    }
    for (size_t i = 0; i < (size_t)info.point_count; i++) {
        spacrbench_timeline_point p = {.size = sizeof p};
        ck_assert_int_eq(spacrbench_measurement_timeline_point(m, i, &p), 0);
        ck_assert(s.use_cgroup ? p.cgroup_bytes >= 0 : p.cgroup_bytes == -1);
    }
    spacrbench_measurement_free(m);
    sb_supervisor_free(&s);
}
END_TEST

static Suite *timeline_suite(void)
{
    Suite *s = suite_create("run timeline");
    TCase *c = tcase_create("command");
    tcase_set_timeout(c, 400); /* the long run: 3000 / rate s, twice more if it must */
    tcase_add_loop_test(c, items_are_marked_with_their_measured_peaks, 0, 2);
    tcase_add_test(c, a_long_run_is_bounded_and_says_so);
    tcase_add_loop_test(c, interval_sets_the_period, 0, 3);
    tcase_add_test(c, interval_rejects_bad_values);
    suite_add_tcase(s, c);
    TCase *p = tcase_create("parts");
    tcase_set_timeout(p, 60);
    tcase_add_loop_test(p, the_supervisor_tells_each_sample, 0, 2);
    tcase_add_loop_test(p, run_timeline_marks_the_records, 0, 2);
    suite_add_tcase(s, p);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(timeline_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
