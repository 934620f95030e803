/* The figures a user checks against GNU time and hyperfine (issue 35): an
 * item's two memory figures (the cgroup's charge, the process tree's RSS
 * peak) and its repeated runs, kept by the builder, written and read back
 * by the JSON, shown by the report (whose lines fit 79 columns), the
 * exports, the item lines and the one-line answer; the timeline's CPU. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sb_test_text.h"
#include "spacrbench.h"
#include "util.h"

#define MIB INT64_C(1048576)

/* ---- the wrapping ---- */

static char *wrapped(const char *line, size_t keep)
{
    sb_text t = {0};
    sb_text_wrapped(&t, line, keep, SB_WRAP_WIDTH, SB_WRAP_INDENT);
    ck_assert(!t.failed);
    return sb_text_take(&t);
}

/* Every line of text is at most 79 columns, unless it starts with one of
 * the allowed prefixes (NULL-terminated). */
static void lines_fit(const char *text, const char *const *allowed)
{
    size_t n = 0;
    const char *wide = sb_test_wide_line(text, SB_WRAP_WIDTH, allowed, &n);
    ck_assert_msg(!wide, "%zu columns: %.*s", wide ? sb_test_columns(wide, n) : 0, (int)n,
                  wide ? wide : "");
}

START_TEST(a_long_line_goes_on_under_the_value_column)
{
    char *t = wrapped("  short               fits", 7);
    ck_assert_str_eq(t, "  short               fits");
    free(t);
    const char *note = "  note                each item ran as its own process, serially; baseline "
                       "0 (the whole peak counts as the worker's)";
    t = wrapped(note, SB_WRAP_INDENT);
    ck_assert_str_eq(
        t, "  note                each item ran as its own process, serially; baseline 0\n"
           "                      (the whole peak counts as the worker's)");
    lines_fit(t, NULL);
    char *flat = sb_test_unwrap(t);
    ck_assert_str_eq(flat, note); /* nothing lost, nothing added */
    free(flat);
    free(t);
    /* A detail in parentheses that then fits one line goes there whole. */
    t = wrapped("  peak VRAM           not measured (no NVIDIA driver: libnvidia-ml.so.1 not "
                "found)",
                34);
    ck_assert_str_eq(t, "  peak VRAM           not measured\n"
                        "                      (no NVIDIA driver: libnvidia-ml.so.1 not found)");
    free(t);
    /* The first keep bytes are never broken, however long. */
    const char *kept = "  because             aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj "
                       "kkkk llll; ours";
    t = wrapped(kept, strlen(kept) - 6);
    ck_assert_str_eq(t, "  because             aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj "
                        "kkkk llll;\n                      ours");
    free(t);
    /* A word longer than a line stands alone; "±" is one column. */
    char longword[200], line[300];
    memset(longword, 'x', 70);
    longword[70] = '\0';
    snprintf(line, sizeof line, "  note                see %s then \xc2\xb1 more", longword);
    t = wrapped(line, SB_WRAP_INDENT);
    char want[300];
    snprintf(want, sizeof want,
             "  note                see\n                      %s\n"
             "                      then \xc2\xb1 more",
             longword);
    ck_assert_str_eq(t, want);
    free(t);
    char plus[120];
    snprintf(plus, sizeof plus, "%-76s\xc2\xb1 s", "  x"); /* 79 columns, 80 bytes */
    t = wrapped(plus, 3);
    ck_assert_str_eq(t, plus);
    free(t);
}
END_TEST

/* ---- the builder, the runs and their spread ---- */

static spacrbench_measurement *begin(int64_t items, int64_t warmup, int32_t method)
{
    spacrbench_run_plan plan;
    spacrbench_run_plan_init(&plan, sizeof plan);
    plan.items = items;
    plan.warmup = warmup;
    plan.records = 1;
    plan.peak_method = method;
    spacrbench_measurement *m = NULL;
    ck_assert_int_eq(spacrbench_measurement_begin(&plan, &m), 0);
    return m;
}

static spacrbench_item_run run(double seconds, double cpu, int64_t charge, int64_t rss)
{
    return (spacrbench_item_run){
        sizeof(spacrbench_item_run), seconds, cpu, charge, -1, charge, rss};
}

/* What `spacrbench run --warmup 1 --runs 3` builds of three items, the
 * warm-up run once. */
static spacrbench_measurement *three_items_run_three_times(void)
{
    spacrbench_measurement *m = begin(3, 1, SPACRBENCH_PEAK_CGROUP);
    spacrbench_item_run warm[] = {run(2.0, 1.0, 70 * MIB, 75 * MIB)};
    spacrbench_item_run a[] = {run(0.95, 0.4, 100 * MIB, 104 * MIB),
                               run(1.0, 0.5, 102 * MIB, 110 * MIB),
                               run(1.05, 0.6, 101 * MIB, 106 * MIB)};
    spacrbench_item_run b[] = {run(1.0, 0.5, 200 * MIB, 210 * MIB),
                               run(1.5, NAN, 205 * MIB, 209 * MIB),
                               run(2.0, 0.5, 203 * MIB, 212 * MIB)};
    ck_assert_int_eq(spacrbench_measurement_add_item_runs(m, warm, 1, sizeof warm[0]), 0);
    ck_assert_int_eq(spacrbench_measurement_add_item_runs(m, a, 3, sizeof a[0]), 0);
    ck_assert_int_eq(spacrbench_measurement_add_item_runs(m, b, 3, sizeof b[0]), 0);
    ck_assert_int_eq(spacrbench_measurement_end(m), 0);
    return m;
}

START_TEST(an_items_runs_give_its_mean_and_its_largest_peaks)
{
    spacrbench_measurement *m = three_items_run_three_times();
    spacrbench_item_record r = {.size = sizeof r};
    ck_assert_int_eq(spacrbench_measurement_record(m, 1, &r), 0);
    ck_assert(fabs(r.seconds - 1.0) < 1e-12);
    ck_assert_int_eq(r.peak_rss_bytes, 102 * MIB); /* the largest charge */
    ck_assert(fabs(spacrbench_measurement_item_cpu_seconds(m, 1) - 0.5) < 1e-12);
    ck_assert(isnan(spacrbench_measurement_item_cpu_seconds(m, 2))); /* a run's is unknown */
    spacrbench_memory_figures f = {.size = sizeof f};
    ck_assert_int_eq(spacrbench_measurement_item_memory(m, 1, &f), 0);
    ck_assert_int_eq(f.cgroup_charge_bytes, 102 * MIB);
    ck_assert_int_eq(f.tree_rss_peak_bytes, 110 * MIB);
    ck_assert_int_eq(spacrbench_measurement_memory(m, &f), 0);
    ck_assert_int_eq(f.cgroup_charge_bytes, 205 * MIB);
    ck_assert_int_eq(f.tree_rss_peak_bytes, 212 * MIB);
    /* The warm-up's one run is the record itself: none kept. */
    ck_assert_uint_eq(spacrbench_measurement_item_run_count(m, 0), 0);
    ck_assert_uint_eq(spacrbench_measurement_item_run_count(m, 2), 3);
    spacrbench_item_run got = {.size = sizeof got};
    ck_assert_int_eq(spacrbench_measurement_item_run(m, 2, 1, &got), 0);
    ck_assert(fabs(got.seconds - 1.5) < 1e-12 && isnan(got.cpu_seconds));
    ck_assert_int_eq(spacrbench_measurement_item_run(m, 2, 3, &got), SPACRBENCH_ERANGE);
    /* The measurement sums the measured items' means, as one run each. */
    spacrbench_figures fig = {.size = sizeof fig};
    ck_assert_int_eq(spacrbench_measurement_figures(m, &fig), 0);
    ck_assert_int_eq(fig.items, 2);
    ck_assert(fabs(fig.seconds - 2.5) < 1e-12);
    ck_assert_int_eq(fig.peak_rss_bytes, 205 * MIB);
    spacrbench_measurement_free(m);
}
END_TEST

START_TEST(the_spread_is_the_sample_deviation_and_its_rule)
{
    spacrbench_measurement *m = three_items_run_three_times();
    spacrbench_run_stats st = {.size = sizeof st};
    /* Item 2: 0.95, 1.0, 1.05: sd 0.05, 5 % of the mean, not over 10 %. */
    ck_assert_int_eq(spacrbench_measurement_item_run_stats(m, 1, &st), 0);
    ck_assert_int_eq(st.runs, 3);
    ck_assert(fabs(st.mean - 1.0) < 1e-12 && fabs(st.stddev - 0.05) < 1e-12);
    ck_assert(st.min == 0.95 && st.max == 1.05);
    ck_assert_int_eq(st.spread, 0);
    /* Item 3: 1.0, 1.5, 2.0: sd 0.5, 33 % of the mean: flagged. */
    ck_assert_int_eq(spacrbench_measurement_item_run_stats(m, 2, &st), 0);
    ck_assert(fabs(st.stddev - 0.5) < 1e-12);
    ck_assert_int_eq(st.spread, 1);
    /* The warm-up: its one time, no deviation. */
    ck_assert_int_eq(spacrbench_measurement_item_run_stats(m, 0, &st), 0);
    ck_assert(st.runs == 1 && st.mean == 2.0 && isnan(st.stddev) && st.spread == 0);
    /* Overall: the six timed runs of the measured items, the warm-up not. */
    ck_assert_int_eq(spacrbench_measurement_run_stats(m, &st), 0);
    double v[] = {0.95, 1.0, 1.05, 1.0, 1.5, 2.0}, mean = 7.5 / 6, ss = 0;
    for (int i = 0; i < 6; i++)
        ss += (v[i] - mean) * (v[i] - mean);
    ck_assert_int_eq(st.runs, 6);
    ck_assert(fabs(st.mean - mean) < 1e-12 && fabs(st.stddev - sqrt(ss / 5)) < 1e-12);
    ck_assert(st.min == 0.95 && st.max == 2.0);
    spacrbench_measurement_free(m);
}
END_TEST

START_TEST(bad_runs_and_figures_are_refused)
{
    spacrbench_measurement *m = begin(2, 0, SPACRBENCH_PEAK_CGROUP);
    spacrbench_item_run ok = run(1.0, 0.1, MIB, MIB), bad = run(-1.0, 0.1, MIB, MIB);
    ck_assert_int_eq(spacrbench_measurement_add_item_runs(m, &ok, 0, sizeof ok), SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_measurement_add_item_runs(m, &bad, 1, sizeof bad),
                     SPACRBENCH_EINVAL);
    ck_assert_ptr_nonnull(strstr(spacrbench_last_error_message(), "run 0: seconds"));
    ck_assert_int_eq(spacrbench_measurement_add_item_runs(m, &ok, 1, sizeof ok + 8),
                     SPACRBENCH_EINVAL); /* its size is not the one given */
    ck_assert_int_eq(spacrbench_measurement_add_item_runs(m, NULL, 1, sizeof ok),
                     SPACRBENCH_EINVAL);
    ck_assert_int_eq(
        spacrbench_measurement_add_item_runs(m, &ok, SPACRBENCH_RUNS_MAX + 1, sizeof ok),
        SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_measurement_add_item_runs(m, &ok, 1, sizeof ok), 0);
    spacrbench_memory_figures f = {sizeof f, -2, 0};
    ck_assert_int_eq(spacrbench_measurement_set_item_memory(m, 0, &f), SPACRBENCH_EINVAL);
    f.cgroup_charge_bytes = 0;
    ck_assert_int_eq(spacrbench_measurement_set_item_memory(m, 1, &f), SPACRBENCH_ERANGE);
    ck_assert_int_eq(spacrbench_measurement_set_item_runs(m, 1, &ok, 1, sizeof ok),
                     SPACRBENCH_ERANGE);
    ck_assert_int_eq(spacrbench_measurement_item_memory(m, 5, &f), SPACRBENCH_ERANGE);
    ck_assert_int_eq(spacrbench_measurement_memory(NULL, &f), SPACRBENCH_EINVAL);
    spacrbench_measurement_free(m);
    /* Without records there is nothing to hold the runs: the mean is added. */
    spacrbench_run_plan plan;
    spacrbench_run_plan_init(&plan, sizeof plan);
    plan.items = 1;
    plan.records = 0;
    ck_assert_int_eq(spacrbench_measurement_begin(&plan, &m), 0);
    spacrbench_item_run two[] = {ok, run(3.0, 0.1, MIB, MIB)};
    ck_assert_int_eq(spacrbench_measurement_add_item_runs(m, two, 2, sizeof two[0]), 0);
    ck_assert_int_eq(spacrbench_measurement_end(m), 0);
    spacrbench_figures fig = {.size = sizeof fig};
    ck_assert_int_eq(spacrbench_measurement_figures(m, &fig), 0);
    ck_assert(fig.record_count == 0 && fabs(fig.seconds - 2.0) < 1e-12);
    spacrbench_measurement_free(m);
}
END_TEST

/* ---- the JSON, the report, the exports ---- */

static char *text_of(int (*format)(const spacrbench_measurement *,
                                   const spacrbench_recommendation *, char *, size_t),
                     const spacrbench_measurement *m, const spacrbench_recommendation *r)
{
    int need = format(m, r, NULL, 0);
    ck_assert_int_gt(need, 0);
    char *buf = malloc((size_t)need + 1);
    ck_assert_int_eq(format(m, r, buf, (size_t)need + 1), need);
    return buf;
}

static int verbose_report(const spacrbench_measurement *m, const spacrbench_recommendation *r,
                          char *buf, size_t cap)
{
    return spacrbench_format_report_verbose(m, r, NULL, buf, cap);
}

static int to_json(const spacrbench_measurement *m, const spacrbench_recommendation *r, char *buf,
                   size_t cap)
{
    (void)r;
    return spacrbench_measurement_to_json(m, NULL, 0, buf, cap);
}

static char *json_of(const spacrbench_measurement *m) { return text_of(to_json, m, NULL); }

START_TEST(the_json_names_each_figure_and_reads_back_the_same)
{
    spacrbench_measurement *m = three_items_run_three_times();
    spacrbench_timeline_info info = {.size = sizeof info, .interval_us = 10000, .stride = 1};
    ck_assert_int_eq(spacrbench_measurement_timeline_begin(m, &info), 0);
    for (int i = 0; i < 4; i++) {
        spacrbench_timeline_point p = {sizeof p, 0.5 * i, 10 * MIB, 9 * MIB};
        ck_assert_int_eq(spacrbench_measurement_timeline_add_sample_cpu(m, &p, 0.25 * i), 0);
    }
    spacrbench_timeline_point p = {sizeof p, 3.0, 10 * MIB, -1};
    ck_assert_int_eq(spacrbench_measurement_timeline_add_sample_cpu(m, &p, -1.0),
                     SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_measurement_timeline_add_sample(m, &p), 0);
    ck_assert(fabs(spacrbench_measurement_timeline_point_cpu(m, 2) - 0.5) < 1e-12);
    ck_assert(isnan(spacrbench_measurement_timeline_point_cpu(m, 4)));
    ck_assert(isnan(spacrbench_measurement_timeline_point_cpu(m, 99)));
    char *json = json_of(m);
    static const char *const k_want[] = {
        "\"cgroup_charge_bytes\":214958080,\"tree_rss_peak_bytes\":222298112",
        "\"runs\":6,\"seconds_stddev\":",
        "\"cpu_seconds\":1,\"cgroup_charge_bytes\":73400320,\"tree_rss_peak_bytes\":78643200,"
        "\"runs\":1,\"seconds_stddev\":null,\"seconds_min\":null,\"seconds_max\":null,"
        "\"run_records\":[]",
        "\"runs\":3,\"seconds_stddev\":0.05",
        "\"run_records\":[{\"seconds\":0.95,\"cpu_seconds\":0.4,\"peak_rss_bytes\":104857600",
        "\"cgroup_bytes\":9437184,\"cpu_seconds\":0.5}",
    };
    for (size_t i = 0; i < sizeof k_want / sizeof k_want[0]; i++)
        ck_assert_msg(strstr(json, k_want[i]) != NULL, "no %s in %s", k_want[i], json);
    spacrbench_measurement *back = NULL;
    ck_assert_int_eq(spacrbench_measurement_from_json(json, strlen(json), "data", 0, &back), 0);
    char *again = json_of(back);
    ck_assert_str_eq(again, json);
    /* A run that is not one is named where it is. */
    char *bad = strdup(json);
    char *at = strstr(bad, "\"run_records\":[{\"seconds\":0.95");
    memcpy(at + strlen("\"run_records\":[{\"seconds\":"), "-1.5", 4);
    spacrbench_measurement *none = NULL;
    ck_assert_int_lt(spacrbench_measurement_from_json(bad, strlen(bad), "data", 0, &none), 0);
    ck_assert_ptr_null(none);
    ck_assert_msg(
        strstr(spacrbench_last_error_message(), "data['records'][1]['run_records'][0]['seconds']"),
        "%s", spacrbench_last_error_message());
    free(bad);
    free(again);
    free(json);
    spacrbench_measurement_free(back);
    spacrbench_measurement_free(m);
}
END_TEST

static spacrbench_recommendation recommended(const spacrbench_measurement *m)
{
    spacrbench_recommend_options o;
    spacrbench_recommend_options_init(&o, sizeof o);
    o.cores = 2;
    o.available_bytes = INT64_C(16) << 30;
    spacrbench_recommendation r = {.size = sizeof r};
    ck_assert_int_eq(spacrbench_recommend(m, &o, &r), 0);
    return r;
}

START_TEST(the_report_head_names_both_figures_in_79_columns)
{
    spacrbench_measurement *m = three_items_run_three_times();
    ck_assert_int_eq(spacrbench_measurement_add_note(
                         m, "a note of the command's that goes on far longer than one line of "
                            "a terminal holds, so it is wrapped under the value column"),
                     0);
    spacrbench_recommendation r = recommended(m);
    char *text = text_of(spacrbench_format_report, m, &r);
    static const char *const k_lines[] = {
        "\n  runs                6 timed, 0.950-2.000 s (mean 1.250 s)\n",
        "\n  peak RSS            0.21 GiB (212.0 MiB, the process tree's summed RSS)\n",
        "\n  attributable to it  0.20 GiB (205.0 MiB charged; the advice and --mem use it)\n",
    };
    for (size_t i = 0; i < sizeof k_lines / sizeof k_lines[0]; i++)
        ck_assert_msg(strstr(text, k_lines[i]) != NULL, "no %s in:\n%s", k_lines[i], text);
    /* One memory line names the advice's figure: the charge's own line is
     * the verbose report's. */
    ck_assert_msg(strstr(text, "memory charged") == NULL, "%s", text);
    ck_assert_msg(strstr(text, "advice divides by") == NULL, "%s", text);
    lines_fit(text, NULL);
    char *verbose = text_of(verbose_report, m, &r);
    ck_assert_msg(strstr(verbose, "\n  memory charged      0.20 GiB (205.0 MiB, exact, as --mem "
                                  "counts it)\n"),
                  "%s", verbose);
    lines_fit(verbose, NULL);
    free(verbose);
    /* The recommendation divides by the charge, the footprint above. */
    ck_assert_int_eq(r.per_worker_bytes, 205 * MIB);
    free(text);
    /* Item lines: the charge and the RSS, the runs' spread below. */
    char line[512];
    ck_assert_int_gt(spacrbench_measurement_format_item(m, 2, "b.tif", line, sizeof line), 0);
    ck_assert_str_eq(line,
                     "  item 3              1.500 s, charged 205.0 MiB, RSS 212.0 MiB: b.tif\n"
                     "                      mean of 3 runs \xc2\xb1 0.500 s, min 1.000 s, "
                     "max 2.000 s");
    ck_assert_int_gt(spacrbench_measurement_format_item(m, 0, NULL, line, sizeof line), 0);
    ck_assert_str_eq(line, "  item 1              2.000 s, charged 70.0 MiB, RSS 75.0 MiB "
                           "(warm-up)");
    ck_assert_int_eq(spacrbench_measurement_format_item(m, 3, NULL, line, sizeof line),
                     SPACRBENCH_ERANGE);
    /* GNU time's question in one line. */
    char *brief = text_of(spacrbench_format_brief, m, &r);
    /* The range of every item's runs: not a "±" that reads as run-to-run
     * noise. */
    ck_assert_str_eq(brief, "peak RSS 212.0 MiB (205.0 MiB charged), 0.950-2.000 s per item, "
                            "2 workers");
    free(brief);
    brief = text_of(spacrbench_format_brief, m, NULL);
    ck_assert_ptr_nonnull(strstr(brief, ", no recommendation"));
    free(brief);
    spacrbench_measurement_free(m);
}
END_TEST

START_TEST(one_figure_reports_as_before)
{
    /* The in-process runner's one figure, its high-water mark: no charge,
     * no line on which figure the advice uses. */
    spacrbench_measurement *m = begin(2, 0, SPACRBENCH_PEAK_HWM_RESET);
    spacrbench_item_figures it;
    spacrbench_item_figures_init(&it, sizeof it);
    it.seconds = 0.5;
    it.peak_rss_bytes = 50 * MIB;
    ck_assert_int_eq(spacrbench_measurement_add_item(m, &it), 0);
    ck_assert_int_eq(spacrbench_measurement_add_item(m, &it), 0);
    ck_assert_int_eq(spacrbench_measurement_end(m), 0);
    spacrbench_recommendation r = recommended(m);
    char *text = text_of(spacrbench_format_report, m, &r);
    /* In the platform's words (Linux: "exact, kernel high-water mark"). */
    char want[160];
    snprintf(want, sizeof want, "\n  peak RSS            0.05 GiB (50.0 MiB, %s)\n",
             spacrbench_measurement_peak_words(m));
    ck_assert_msg(strstr(text, want) != NULL, "%s not in\n%s", want, text);
    ck_assert_ptr_null(strstr(text, "memory charged"));
    ck_assert_ptr_null(strstr(text, "advice divides by"));
    ck_assert_ptr_null(strstr(text, "\n  runs "));
    free(text);
    char line[256];
    ck_assert_int_gt(spacrbench_measurement_format_item(m, 1, NULL, line, sizeof line), 0);
    spacrbench_item_record rec = {.size = sizeof rec};
    ck_assert_int_eq(spacrbench_measurement_record(m, 1, &rec), 0);
    char old[256];
    ck_assert_int_gt(spacrbench_format_item_line(&rec, NULL, old, sizeof old), 0);
    ck_assert_str_eq(line, old); /* the 1.1 line, unchanged */
    char *brief = text_of(spacrbench_format_brief, m, &r);
    ck_assert_str_eq(brief, "peak RSS 50.0 MiB, 0.500 s per item, 2 workers");
    free(brief);
    spacrbench_measurement_free(m);
}
END_TEST

START_TEST(the_exports_carry_both_figures_and_the_spread)
{
    spacrbench_measurement *m = three_items_run_three_times();
    int need = spacrbench_format_export(m, NULL, SPACRBENCH_FORMAT_CSV, NULL, 0, NULL, 0);
    ck_assert_int_gt(need, 0);
    char *csv = malloc((size_t)need + 1);
    ck_assert_int_eq(
        spacrbench_format_export(m, NULL, SPACRBENCH_FORMAT_CSV, NULL, 0, csv, (size_t)need + 1),
        need);
    /* peak_rss_bytes is what its name says, the tree's RSS, where both
     * figures were measured; the charge is cgroup_charge_bytes. */
    ck_assert_ptr_nonnull(strstr(csv, "\r\n2,,0,1.500000,222298112,,,214958080,222298112,3,"
                                      "0.500000,1.000000,2.000000\r\n"));
    ck_assert_ptr_nonnull(strstr(csv, "\r\n0,,1,2.000000,78643200,,1.000000,73400320,78643200,1,"
                                      ",,\r\n"));
    free(csv);
    need = spacrbench_format_export(m, NULL, SPACRBENCH_FORMAT_MARKDOWN, NULL, 0, NULL, 0);
    char *md = malloc((size_t)need + 1);
    ck_assert_int_eq(spacrbench_format_export(m, NULL, SPACRBENCH_FORMAT_MARKDOWN, NULL, 0, md,
                                              (size_t)need + 1),
                     need);
    static const char *const k_want[] = {
        "| peak RSS | 212.0 MiB (the process tree's summed RSS) |",
        "| runs | 6 timed, 0.950-2.000 s (mean 1.250 s) |",
        "| memory charged | 205.0 MiB (exact, as --mem counts it) |",
        "| footprint (peak - baseline) | 205.0 MiB (the advice divides by the charge) |",
        /* No "peak RSS" column: the peak is the charge, which has its own. */
        "| # | warm-up | seconds | peak VRAM | CPU seconds | charged | tree RSS | "
        "\xc2\xb1 s | min s | max s |",
        "| 3 |  | 1.5000 | not measured | not measured | 205.0 MiB | 212.0 MiB | "
        "0.5000 | 1.0000 | 2.0000 |",
        "| 1 | yes | 2.0000 | not measured | 1.0000 | 70.0 MiB | 75.0 MiB | - | - | - |",
    };
    for (size_t i = 0; i < sizeof k_want / sizeof k_want[0]; i++)
        ck_assert_msg(strstr(md, k_want[i]) != NULL, "no %s in:\n%s", k_want[i], md);
    free(md);
    spacrbench_measurement_free(m);
}
END_TEST

static Suite *figures_suite(void)
{
    Suite *s = suite_create("figures");
    TCase *tc = tcase_create("figures");
    tcase_add_test(tc, a_long_line_goes_on_under_the_value_column);
    tcase_add_test(tc, an_items_runs_give_its_mean_and_its_largest_peaks);
    tcase_add_test(tc, the_spread_is_the_sample_deviation_and_its_rule);
    tcase_add_test(tc, bad_runs_and_figures_are_refused);
    tcase_add_test(tc, the_json_names_each_figure_and_reads_back_the_same);
    tcase_add_test(tc, the_report_head_names_both_figures_in_79_columns);
    tcase_add_test(tc, one_figure_reports_as_before);
    tcase_add_test(tc, the_exports_carry_both_figures_and_the_spread);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(figures_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
