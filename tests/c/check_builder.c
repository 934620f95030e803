/* The library's single source of truth: the measurement builder (warm-up
 * clamp, sums, notes), names, the VRAM reason, bulk record copies, the text
 * formatters and the JSON objects. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spacrbench.h"

#define MIB INT64_C(1048576)

static spacrbench_measurement *begin(int64_t items, int64_t warmup, int64_t baseline)
{
    spacrbench_run_plan plan;
    ck_assert_int_eq(spacrbench_run_plan_init(&plan, sizeof plan), 0);
    plan.items = items;
    plan.warmup = warmup;
    plan.peak_method = SPACRBENCH_PEAK_CGROUP;
    plan.baseline_rss_bytes = baseline;
    spacrbench_measurement *m = NULL;
    ck_assert_int_eq(spacrbench_measurement_begin(&plan, &m), 0);
    return m;
}

static void add(spacrbench_measurement *m, double seconds, double cpu, int64_t peak)
{
    spacrbench_item_figures f;
    spacrbench_item_figures_init(&f, sizeof f);
    f.seconds = seconds;
    f.cpu_seconds = cpu;
    f.peak_rss_bytes = peak;
    ck_assert_msg(spacrbench_measurement_add_item(m, &f) == 0, "%s",
                  spacrbench_last_error_message());
}

static int has_note(const spacrbench_measurement *m, const char *text)
{
    for (size_t i = 0; spacrbench_measurement_note(m, i); i++)
        if (strstr(spacrbench_measurement_note(m, i), text))
            return 1;
    return 0;
}

START_TEST(builder_sums_measured_items_and_clamps_the_warmup)
{
    spacrbench_measurement *m = begin(3, 1, 0);
    add(m, 1.0, 0.5, 100 * MIB); /* warm-up */
    add(m, 2.0, 1.5, 300 * MIB);
    add(m, 4.0, 3.5, 200 * MIB);
    ck_assert_int_eq(spacrbench_measurement_end(m), 0);
    spacrbench_figures f = {.size = sizeof f};
    ck_assert_int_eq(spacrbench_measurement_figures(m, &f), 0);
    ck_assert_int_eq(f.items, 2);
    ck_assert_int_eq(f.warmup_items, 1);
    ck_assert(f.seconds == 6.0 && f.warmup_seconds == 1.0 && f.cpu_seconds == 5.0);
    ck_assert_int_eq(f.peak_rss_bytes, 300 * MIB);
    ck_assert_int_eq(f.peak_method, SPACRBENCH_PEAK_CGROUP);
    ck_assert_int_eq(f.record_count, 3);
    spacrbench_item_record r = {.size = sizeof r};
    ck_assert_int_eq(spacrbench_measurement_record(m, 0, &r), 0);
    ck_assert_int_eq(r.is_warmup, 1);
    ck_assert(has_note(m, "1 warm-up item(s) excluded from the timing"));
    ck_assert(!has_note(m, "clamped"));
    /* Ended: no more items. */
    spacrbench_item_figures extra;
    spacrbench_item_figures_init(&extra, sizeof extra);
    ck_assert_int_eq(spacrbench_measurement_add_item(m, &extra), SPACRBENCH_EINVAL);
    spacrbench_measurement_free(m);

    /* A warm-up as long as the run is clamped so the last item is measured,
     * with the one wording every front end now shares. */
    m = begin(2, 5, 0);
    add(m, 1.0, NAN, 10 * MIB);
    add(m, 1.0, NAN, 20 * MIB);
    ck_assert_int_eq(spacrbench_measurement_end(m), 0);
    ck_assert_int_eq(spacrbench_measurement_figures(m, &f), 0);
    ck_assert_int_eq(f.items, 1);
    ck_assert(isnan(f.cpu_seconds)); /* unknown CPU stays unknown, not 0 */
    ck_assert(has_note(m, "warm-up of 5 clamped to 1 so the last item is measured"));
    spacrbench_measurement_free(m);
}
END_TEST

START_TEST(builder_refuses_impossible_figures)
{
    spacrbench_measurement *m = begin(1, 0, 0);
    spacrbench_item_figures f;
    spacrbench_item_figures_init(&f, sizeof f);
    f.seconds = INFINITY;
    ck_assert_int_eq(spacrbench_measurement_add_item(m, &f), SPACRBENCH_EINVAL);
    ck_assert_ptr_nonnull(strstr(spacrbench_last_error_message(), "seconds"));
    f.seconds = 1.0;
    f.cpu_seconds = -0.5;
    ck_assert_int_eq(spacrbench_measurement_add_item(m, &f), SPACRBENCH_EINVAL);
    ck_assert_ptr_nonnull(strstr(spacrbench_last_error_message(), "cpu_seconds"));
    f.cpu_seconds = 1.0;
    f.peak_rss_bytes = -7;
    ck_assert_int_eq(spacrbench_measurement_add_item(m, &f), SPACRBENCH_EINVAL);
    f.peak_rss_bytes = 5;
    ck_assert_int_eq(spacrbench_measurement_add_item(m, &f), 0);
    ck_assert_int_eq(spacrbench_measurement_add_item(m, &f), SPACRBENCH_ERANGE); /* past the plan */
    ck_assert_int_eq(spacrbench_measurement_end(m), 0);
    spacrbench_measurement_free(m);

    spacrbench_run_plan plan;
    spacrbench_run_plan_init(&plan, sizeof plan);
    plan.items = 0;
    ck_assert_int_eq(spacrbench_measurement_begin(&plan, &m), SPACRBENCH_ENOITEMS);
    ck_assert_ptr_null(m);
    plan.items = 1;
    plan.warmup = -1;
    ck_assert_int_eq(spacrbench_measurement_begin(&plan, &m), SPACRBENCH_EINVAL);

    spacrbench_figures fig = {.size = sizeof fig};
    fig.peak_rss_bytes = 1;
    fig.seconds = NAN;
    ck_assert_int_eq(spacrbench_measurement_create(&fig, &m), SPACRBENCH_EINVAL);
    fig.seconds = 1.0;
    fig.cpu_seconds = -1.0;
    ck_assert_int_eq(spacrbench_measurement_create(&fig, &m), SPACRBENCH_EINVAL);
    ck_assert_ptr_nonnull(strstr(spacrbench_last_error_message(), "cpu_seconds"));
    fig.cpu_seconds = NAN;
    fig.items = INT64_MAX;
    ck_assert_int_eq(spacrbench_measurement_create(&fig, &m), SPACRBENCH_EINVAL);
    ck_assert_ptr_nonnull(strstr(spacrbench_last_error_message(), "items"));
}
END_TEST

START_TEST(names_have_one_spelling)
{
    ck_assert_str_eq(spacrbench_peak_method_name(SPACRBENCH_PEAK_HWM_RESET), "hwm_reset");
    ck_assert_str_eq(spacrbench_peak_method_name(SPACRBENCH_PEAK_CHILD_RUSAGE), "child_rusage");
    ck_assert_str_eq(spacrbench_source_name(SPACRBENCH_SOURCE_CGROUP_V1), "cgroup_v1");
    ck_assert_str_eq(spacrbench_source_name(SPACRBENCH_SOURCE_TORCH), "torch");
    ck_assert_str_eq(spacrbench_bound_name(SPACRBENCH_BOUND_VRAM), "vram");
    ck_assert_str_eq(spacrbench_start_method_name(SPACRBENCH_START_FORKSERVER), "forkserver");
    ck_assert_str_eq(spacrbench_reserve_rule_name(SPACRBENCH_RESERVE_LIMIT), "limit");
    ck_assert_str_eq(spacrbench_error_name(SPACRBENCH_EBUSY), "EBUSY");
    ck_assert_str_eq(spacrbench_error_name(SPACRBENCH_OK), "OK");
    ck_assert_str_eq(spacrbench_error_name(-999), "EUNKNOWN");
    ck_assert_str_eq(spacrbench_source_name(-1), "unknown");
    ck_assert_str_eq(spacrbench_bound_name(1000), "unknown");
}
END_TEST

START_TEST(vram_reason_survives_a_rebuild)
{
    spacrbench_figures fig = {.size = sizeof fig};
    fig.items = 1;
    fig.seconds = 1.0;
    fig.peak_rss_bytes = 10 * MIB;
    fig.peak_vram_bytes = -1;
    fig.cpu_seconds = NAN;
    spacrbench_measurement *m = NULL;
    ck_assert_int_eq(spacrbench_measurement_create(&fig, &m), 0);
    ck_assert_str_eq(spacrbench_measurement_vram_reason(m), "");
    ck_assert_int_eq(
        spacrbench_measurement_set_vram_reason(m, "no NVIDIA driver: libnvidia-ml.so.1 not found"),
        0);
    char report[4096];
    ck_assert_int_gt(spacrbench_format_report(m, NULL, report, sizeof report), 0);
    /* The short report: the reason's first words. */
    ck_assert_ptr_nonnull(strstr(report, "peak VRAM           not measured (no NVIDIA driver)"));
    /* Verbose, wider than 79 columns: the reason in parentheses on the next line. */
    ck_assert_int_gt(spacrbench_format_report_verbose(m, NULL, NULL, report, sizeof report), 0);
    ck_assert_ptr_nonnull(strstr(report, "peak VRAM           not measured\n"
                                         "                      (no NVIDIA driver: "
                                         "libnvidia-ml.so.1 not found)"));
    char json[4096];
    ck_assert_int_gt(spacrbench_measurement_to_json(m, NULL, 0, json, sizeof json), 0);
    ck_assert_ptr_nonnull(strstr(json, "\"vram_reason\":\"no NVIDIA driver"));
    ck_assert_ptr_nonnull(strstr(json, "\"peak_vram_bytes\":null"));
    spacrbench_measurement_free(m);
}
END_TEST

/* A reason said while building drops the items' VRAM: a figure summed
 * over PIDs NVML does not use would be a false 0. */
START_TEST(vram_reason_while_building_drops_the_items_vram)
{
    spacrbench_run_plan plan;
    ck_assert_int_eq(spacrbench_run_plan_init(&plan, sizeof plan), 0);
    plan.items = 2;
    plan.records = 1;
    plan.vram_source = SPACRBENCH_SOURCE_NVML;
    for (int say_it = 0; say_it < 2; say_it++) {
        spacrbench_measurement *m = NULL;
        ck_assert_int_eq(spacrbench_measurement_begin(&plan, &m), 0);
        spacrbench_item_figures f;
        spacrbench_item_figures_init(&f, sizeof f);
        f.seconds = 1.0;
        f.peak_vram_bytes = 0;
        ck_assert_int_eq(spacrbench_measurement_add_item(m, &f), 0);
        f.peak_vram_bytes = 5 * MIB;
        ck_assert_int_eq(spacrbench_measurement_add_item(m, &f), 0);
        if (say_it)
            ck_assert_int_eq(spacrbench_measurement_set_vram_reason(m, "sandboxed PIDs"), 0);
        ck_assert_int_eq(spacrbench_measurement_end(m), 0);
        spacrbench_figures fig = {.size = sizeof fig};
        ck_assert_int_eq(spacrbench_measurement_figures(m, &fig), 0);
        ck_assert_int_eq(fig.peak_vram_bytes, say_it ? -1 : 5 * MIB);
        ck_assert_int_eq(fig.vram_source,
                         say_it ? SPACRBENCH_SOURCE_UNKNOWN : SPACRBENCH_SOURCE_NVML);
        for (size_t i = 0; i < 2; i++) {
            spacrbench_item_record r = {.size = sizeof r};
            ck_assert_int_eq(spacrbench_measurement_record(m, i, &r), 0);
            ck_assert_int_eq(r.peak_vram_bytes, say_it ? -1 : (int64_t)i * 5 * MIB);
        }
        /* Said after the end, it is a label only: the figures stand. */
        ck_assert_int_eq(spacrbench_measurement_set_vram_reason(m, "late"), 0);
        ck_assert_int_eq(spacrbench_measurement_figures(m, &fig), 0);
        ck_assert_int_eq(fig.peak_vram_bytes, say_it ? -1 : 5 * MIB);
        spacrbench_measurement_free(m);
    }
}
END_TEST

START_TEST(records_are_copied_in_one_call)
{
    spacrbench_measurement *m = begin(4, 1, 0);
    for (int i = 0; i < 4; i++)
        add(m, 0.5 * (i + 1), NAN, (i + 1) * MIB);
    ck_assert_int_eq(spacrbench_measurement_end(m), 0);
    spacrbench_item_record out[4];
    ck_assert_int_eq(spacrbench_measurement_copy_records(m, 1, 3, out, sizeof out[0]), 0);
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(out[i].size, sizeof out[0]);
        ck_assert_int_eq(out[i].index, i + 1);
        ck_assert_int_eq(out[i].peak_rss_bytes, (i + 2) * MIB);
        ck_assert_int_eq(out[i].is_warmup, 0);
    }
    ck_assert_int_eq(spacrbench_measurement_copy_records(m, 2, 3, out, sizeof out[0]),
                     SPACRBENCH_ERANGE);
    /* A caller with a larger (newer) record gets a zeroed tail. */
    unsigned char wide[2][sizeof(spacrbench_item_record) + 8];
    memset(wide, 0xff, sizeof wide);
    ck_assert_int_eq(spacrbench_measurement_copy_records(m, 0, 2, wide, sizeof wide[0]), 0);
    ck_assert_int_eq(wide[1][sizeof(spacrbench_item_record)], 0);
    spacrbench_measurement_free(m);
}
END_TEST

START_TEST(text_has_one_format)
{
    char b[64];
    ck_assert_int_eq(spacrbench_format_bytes(3 * 1024 * MIB, b, sizeof b), 8);
    ck_assert_str_eq(b, "3.00 GiB");
    spacrbench_format_bytes(1536 * 1024, b, sizeof b);
    ck_assert_str_eq(b, "1.5 MiB");
    spacrbench_format_bytes(-1, b, sizeof b);
    ck_assert_str_eq(b, "not measured");
    /* snprintf-style: the full length even when cut. */
    ck_assert_int_eq(spacrbench_format_bytes(3 * 1024 * MIB, b, 4), 8);
    ck_assert_str_eq(b, "3.0");

    spacrbench_progress p = {sizeof p, 1, 5, 1, 0, 0.3531, 1.0, 198 * MIB};
    char line[256];
    spacrbench_format_progress(&p, "a\nb\x1b[31m", line, sizeof line);
    ck_assert_str_eq(line, "item 2/5 (warm-up) done in 0.353 s, peak 198.0 MiB: a\\nb\\x1b[31m");
    p.item_peak_rss_bytes = -1;
    p.is_warmup = 0;
    spacrbench_format_progress(&p, NULL, line, sizeof line);
    ck_assert_str_eq(line, "item 2/5 done in 0.353 s");

    spacrbench_item_record r = {sizeof r, 2, 0, 0, 0.25, 64 * MIB, -1};
    spacrbench_format_item_line(&r, "x.tif", line, sizeof line);
    ck_assert_str_eq(line, "  item 3              0.250 s, peak 64.0 MiB: x.tif");
    /* C1 controls (U+009B is CSI), bytes that are not UTF-8 and a cut
     * sequence are escaped byte by byte; real UTF-8 text stays. */
    spacrbench_format_item_line(&r,
                                "\xc2\x9b"
                                "2J|\x9b|\xff|caf\xc3\xa9|\xe2\x82",
                                line, sizeof line);
    ck_assert_str_eq(line, "  item 3              0.250 s, peak 64.0 MiB: "
                           "\\xc2\\x9b2J|\\x9b|\\xff|caf\xc3\xa9|\\xe2\\x82");
    ck_assert_int_eq(spacrbench_format_item_line(NULL, NULL, line, sizeof line), SPACRBENCH_EINVAL);
}
END_TEST

START_TEST(json_objects_spell_names_and_null)
{
    spacrbench_measurement *m = begin(2, 1, 5 * MIB);
    add(m, 1.0, 1.0, 10 * MIB);
    add(m, 2.0, 1.0, -1);
    ck_assert_int_eq(spacrbench_measurement_end(m), 0);
    const char *labels[] = {"a \"q\".tif", "b.tif"};
    int len = spacrbench_measurement_to_json(m, labels, 2, NULL, 0);
    ck_assert_int_gt(len, 0);
    char *json = malloc((size_t)len + 1);
    ck_assert_int_eq(spacrbench_measurement_to_json(m, labels, 2, json, (size_t)len + 1), len);
    ck_assert_ptr_nonnull(strstr(json, "\"peak_method\":\"cgroup\""));
    ck_assert_ptr_nonnull(strstr(json, "\"item\":\"a \\\"q\\\".tif\""));
    ck_assert_ptr_nonnull(
        strstr(json, "\"peak_rss_bytes\":null,\"peak_vram_bytes\":null,")); /* item 2 */
    ck_assert_ptr_nonnull(strstr(json, "\"stopped_item\":null"));
    ck_assert_ptr_nonnull(strstr(json, "\"vram_source\":null"));
    free(json);

    spacrbench_recommend_options o;
    spacrbench_recommend_options_init(&o, sizeof o);
    o.cores = 4;
    o.available_bytes = 8 * 1024 * MIB;
    spacrbench_recommendation r = {.size = sizeof r};
    ck_assert_int_eq(spacrbench_recommend(m, &o, &r), 0);
    char text[4096];
    ck_assert_int_gt(spacrbench_recommendation_to_json(&r, text, sizeof text), 0);
    ck_assert_ptr_nonnull(strstr(text, "\"cores_source\":\"caller\""));
    ck_assert_ptr_nonnull(strstr(text, "\"reserve_rule\":\"host\""));
    char start[64]; /* the platform's default start method (fork on Linux) */
    snprintf(start, sizeof start, "\"start_method\":\"%s\"",
             spacrbench_start_method_name(SPACRBENCH_START_DEFAULT));
    ck_assert_ptr_nonnull(strstr(text, start));
    ck_assert_ptr_nonnull(strstr(text, "\"memory_limit_bytes\":null"));
    spacrbench_machine mc = {.size = sizeof mc};
    ck_assert_int_eq(spacrbench_discover(&mc), 0);
    ck_assert_int_gt(spacrbench_machine_to_json(&mc, text, sizeof text), 0);
    ck_assert_ptr_nonnull(strstr(text, "\"cores\":"));
    spacrbench_schedule s = {.size = sizeof s};
    ck_assert_int_eq(spacrbench_schedule_compute(m, &r, &s), 0);
    ck_assert_int_gt(spacrbench_schedule_to_json(&s, text, sizeof text), 0);
    ck_assert_ptr_nonnull(strstr(text, "\"cpus_per_task\":1"));
    ck_assert_int_eq(spacrbench_schedule_to_json(NULL, text, sizeof text), SPACRBENCH_EINVAL);
    spacrbench_measurement_free(m);
}
END_TEST

/* A VRAM peak from torch where the run measured none: set on the
 * measurement itself, and the note and reason of "not measured" go. */
START_TEST(vram_from_another_source_replaces_the_reason)
{
    spacrbench_figures fig = {.size = sizeof fig};
    fig.items = 1;
    fig.seconds = 1.0;
    fig.peak_rss_bytes = 10 * MIB;
    fig.peak_vram_bytes = -1;
    fig.cpu_seconds = NAN;
    spacrbench_measurement *m = NULL;
    ck_assert_int_eq(spacrbench_measurement_create(&fig, &m), 0);
    ck_assert_int_eq(spacrbench_measurement_add_note(m, "warm-up excluded"), 0);
    ck_assert_int_eq(spacrbench_measurement_set_vram_reason(m, "no CUDA device: no driver"), 0);
    ck_assert_int_eq(
        spacrbench_measurement_add_note(m, "no CUDA device, so VRAM was not measured (no driver)"),
        0);
    ck_assert_int_eq(spacrbench_measurement_set_vram(m, -1, SPACRBENCH_SOURCE_TORCH),
                     SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_measurement_set_vram(m, MIB, SPACRBENCH_SOURCE_NVML),
                     SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_measurement_set_vram(NULL, MIB, SPACRBENCH_SOURCE_TORCH),
                     SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_measurement_set_vram(m, 3 * MIB, SPACRBENCH_SOURCE_TORCH), 0);
    spacrbench_figures got = {.size = sizeof got};
    ck_assert_int_eq(spacrbench_measurement_figures(m, &got), 0);
    ck_assert_int_eq(got.peak_vram_bytes, 3 * MIB);
    ck_assert_int_eq(got.vram_source, SPACRBENCH_SOURCE_TORCH);
    ck_assert_int_eq(got.note_count, 1);
    ck_assert_str_eq(spacrbench_measurement_note(m, 0), "warm-up excluded");
    ck_assert_str_eq(spacrbench_measurement_vram_reason(m), "");
    /* Measured now: a second figure is refused, the first stays. */
    ck_assert_int_eq(spacrbench_measurement_set_vram(m, MIB, SPACRBENCH_SOURCE_CALLER),
                     SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_measurement_figures(m, &got), 0);
    ck_assert_int_eq(got.peak_vram_bytes, 3 * MIB);
    spacrbench_measurement_free(m);
}
END_TEST

/* A run's recommendation read back as written, alone or as a document's
 * member; none is 0; a wrong type names the member. */
START_TEST(recommendation_reads_back_from_its_json)
{
    spacrbench_measurement *m = begin(2, 0, 5 * MIB);
    add(m, 1.0, 1.0, 10 * MIB);
    add(m, 2.0, 1.0, 20 * MIB);
    ck_assert_int_eq(spacrbench_measurement_end(m), 0);
    spacrbench_recommend_options o;
    spacrbench_recommend_options_init(&o, sizeof o);
    o.cores = 4;
    o.available_bytes = 8 * 1024 * MIB;
    spacrbench_recommendation r = {.size = sizeof r}, back = {.size = sizeof back};
    ck_assert_int_eq(spacrbench_recommend(m, &o, &r), 0);
    spacrbench_measurement_free(m);
    char text[4096], doc[4200];
    int len = spacrbench_recommendation_to_json(&r, text, sizeof text);
    ck_assert_int_gt(len, 0);
    ck_assert_int_eq(spacrbench_recommendation_from_json(text, (size_t)len, NULL, &back), 1);
    ck_assert_int_eq(back.workers, r.workers);
    ck_assert_int_eq(back.bound, r.bound);
    ck_assert_int_eq(back.available_bytes, r.available_bytes);
    ck_assert_int_eq(back.memory_limit_bytes, r.memory_limit_bytes);
    ck_assert_str_eq(back.reason, r.reason);
    int n = snprintf(doc, sizeof doc, "{\"measurement\":{},\"recommendation\":%s}", text);
    memset(&back, 0, sizeof back);
    back.size = sizeof back;
    ck_assert_int_eq(spacrbench_recommendation_from_json(doc, (size_t)n, NULL, &back), 1);
    ck_assert_int_eq(back.workers, r.workers);
    const char *none[] = {"{\"measurement\":{}}", "{\"recommendation\":null}"};
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(spacrbench_recommendation_from_json(none[i], strlen(none[i]), NULL, &back),
                         0);
    const char *bad = "{\"recommendation\":{\"workers\":2,\"memory_workers\":\"many\"}}";
    ck_assert_int_eq(spacrbench_recommendation_from_json(bad, strlen(bad), NULL, &back),
                     SPACRBENCH_ETYPE);
    ck_assert_ptr_nonnull(
        strstr(spacrbench_last_error_message(), "\"data.recommendation.memory_workers\""));
    ck_assert_int_eq(spacrbench_recommendation_from_json("{", 1, "doc", &back), SPACRBENCH_EINVAL);
    ck_assert_ptr_nonnull(strstr(spacrbench_last_error_message(), "doc is not JSON"));
    ck_assert_int_eq(spacrbench_recommendation_from_json(text, (size_t)len, NULL, NULL),
                     SPACRBENCH_EINVAL);
}
END_TEST

START_TEST(report_of_a_bare_recommendation_has_no_empty_evidence)
{
    spacrbench_measurement *m = begin(1, 0, 0);
    add(m, 1.0, 1.0, 10 * MIB);
    ck_assert_int_eq(spacrbench_measurement_end(m), 0);
    spacrbench_recommendation r;
    memset(&r, 0, sizeof r);
    r.size = sizeof r;
    r.workers = 3;
    snprintf(r.reason, sizeof r.reason, "chosen by hand");
    char report[4096];
    ck_assert_int_gt(spacrbench_format_report(m, &r, report, sizeof report), 0);
    ck_assert_ptr_null(strstr(report, "memory available"));
    ck_assert_ptr_nonnull(
        strstr(report, "  recommended workers 3\n    because           chosen by hand"));
    /* Evidence without its where-strings says so. */
    r.cores = 4;
    ck_assert_int_gt(spacrbench_format_report(m, &r, report, sizeof report), 0);
    ck_assert_ptr_nonnull(strstr(report, "usable cores        4 (not given)"));
    spacrbench_measurement_free(m);
}
END_TEST

static Suite *builder_suite(void)
{
    Suite *s = suite_create("builder");
    TCase *t = tcase_create("core");
    tcase_add_test(t, builder_sums_measured_items_and_clamps_the_warmup);
    tcase_add_test(t, builder_refuses_impossible_figures);
    tcase_add_test(t, names_have_one_spelling);
    tcase_add_test(t, vram_reason_survives_a_rebuild);
    tcase_add_test(t, vram_reason_while_building_drops_the_items_vram);
    tcase_add_test(t, records_are_copied_in_one_call);
    tcase_add_test(t, text_has_one_format);
    tcase_add_test(t, json_objects_spell_names_and_null);
    tcase_add_test(t, report_of_a_bare_recommendation_has_no_empty_evidence);
    tcase_add_test(t, vram_from_another_source_replaces_the_reason);
    tcase_add_test(t, recommendation_reads_back_from_its_json);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(builder_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
