/* The report and hand-made measurements. */
#include <check.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spacrbench.h"

#define MIB INT64_C(1048576)
#define GIB INT64_C(1073741824)

static spacrbench_measurement *made(int64_t items, double seconds, int64_t vram)
{
    spacrbench_figures f;
    memset(&f, 0, sizeof f);
    f.size = sizeof f;
    f.items = items;
    f.seconds = seconds;
    f.peak_rss_bytes = 900 * MIB;
    f.baseline_rss_bytes = 100 * MIB;
    f.peak_vram_bytes = vram;
    f.cpu_seconds = NAN;
    spacrbench_measurement *m = NULL;
    ck_assert_int_eq(spacrbench_measurement_create(&f, &m), 0);
    return m;
}

static char *report(const spacrbench_measurement *m, const spacrbench_recommendation *r)
{
    int need = spacrbench_format_report(m, r, NULL, 0);
    ck_assert_int_gt(need, 0);
    char *buf = malloc((size_t)need + 1);
    ck_assert_int_eq(spacrbench_format_report(m, r, buf, (size_t)need + 1), need);
    ck_assert_uint_eq(strlen(buf), (size_t)need);
    return buf;
}

START_TEST(report_has_every_label_and_figure)
{
    spacrbench_measurement *m = made(4, 2.0, -1);
    ck_assert_int_eq(spacrbench_measurement_add_note(m, "1 warm-up item(s) excluded"), 0);
    for (int i = 0; i < 5; i++) {
        spacrbench_item_record rec = {sizeof rec, i, i == 0, 0, 0.1 * (i + 1), 500 * MIB, -1};
        ck_assert_int_eq(spacrbench_measurement_add_record(m, &rec), 0);
    }
    spacrbench_recommend_options o;
    spacrbench_recommend_options_init(&o, sizeof o);
    o.start_method = SPACRBENCH_START_FORK; /* Windows defaults to spawn */
    o.cores = 2;
    o.available_bytes = 16 * GIB;
    spacrbench_recommendation r;
    memset(&r, 0, sizeof r);
    r.size = sizeof r;
    ck_assert_int_eq(spacrbench_recommend(m, &o, &r), 0);
    char *text = report(m, &r);
    const char *expected[] = {"spaCR benchmark",
                              "items measured      4",
                              "throughput",
                              "2.00 item/s (0.50 s each)",
                              "median 0.350 s, max 0.500 s",
                              "\n  peak RSS            0.88 GiB (900.0 MiB, supplied)\n",
                              ("\n  attributable to it  0.78 GiB (800.0 MiB above a baseline of "
                               "100.0 MiB; the\n                      advice uses it)\n"),
                              "VRAM",
                              "not measured",
                              "recommended workers 2",
                              "because           core-bound",
                              "note                1 warm-up",
                              "usable cores        2 (given by the caller)"};
    for (size_t i = 0; i < sizeof expected / sizeof *expected; i++)
        ck_assert_msg(strstr(text, expected[i]) != NULL, "missing \"%s\" in:\n%s", expected[i],
                      text);
    ck_assert_msg(text[strlen(text) - 1] != '\n', "no trailing newline");
    free(text);
    spacrbench_measurement_free(m);
}
END_TEST

START_TEST(report_shows_measured_vram_and_works_without_recommendation)
{
    spacrbench_measurement *m = made(1, 1.0, 0);
    char *text = report(m, NULL);
    ck_assert_ptr_nonnull(strstr(text, "\n  peak VRAM           0.00 GiB (0 B, supplied)"));
    ck_assert_ptr_null(strstr(text, "recommended workers"));
    free(text);
    spacrbench_measurement_free(m);
}
END_TEST

/* A recommendation from an older caller, without the VRAM fields, reads
 * as "no VRAM rule", not as "0 workers fit". */
START_TEST(short_recommendation_struct_has_no_vram_line)
{
    spacrbench_measurement *m = made(1, 1.0, -1);
    spacrbench_recommendation r;
    memset(&r, 0, sizeof r);
    r.size = offsetof(spacrbench_recommendation, per_worker_vram_bytes);
    r.workers = 3;
    r.cores = 4;
    char *text = report(m, &r);
    ck_assert_msg(strstr(text, "recommended workers 3") != NULL, "%s", text);
    ck_assert_msg(strstr(text, "VRAM available") == NULL, "%s", text);
    free(text);
    spacrbench_measurement_free(m);
}
END_TEST

START_TEST(truncation_is_snprintf_like)
{
    spacrbench_measurement *m = made(1, 1.0, -1);
    char small[16];
    int need = spacrbench_format_report(m, NULL, small, sizeof small);
    ck_assert_int_gt(need, (int)sizeof small);
    ck_assert_str_eq(small, "spaCR benchmark");
    ck_assert_int_eq(spacrbench_format_report(NULL, NULL, small, sizeof small), SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_format_report(m, NULL, NULL, 5), SPACRBENCH_EINVAL);
    spacrbench_measurement_free(m);
}
END_TEST

START_TEST(derived_figures_are_nan_not_garbage)
{
    spacrbench_measurement *m = made(0, 0.0, -1);
    ck_assert(isnan(spacrbench_measurement_items_per_second(m)));
    ck_assert(isnan(spacrbench_measurement_per_item_seconds(m)));
    ck_assert_int_eq(spacrbench_measurement_work_rss_bytes(m), 800 * MIB);
    char *text = report(m, NULL);
    ck_assert_msg(strstr(text, "\n  throughput          nan item/s (nan s each); not measured (no "
                               "timed items)\n") != NULL,
                  "%s", text);
    ck_assert_msg(strstr(text, "-nan") == NULL, "%s", text); /* spaCR's "nan", never "-nan" */
    free(text);
    spacrbench_measurement_free(m);
    /* The warm-up's own seconds, which no reader takes for the total. */
    spacrbench_figures warm = {.size = sizeof warm};
    warm.items = 11;
    warm.seconds = 2.0;
    warm.warmup_items = 1;
    warm.warmup_seconds = 0.16;
    warm.peak_rss_bytes = warm.peak_vram_bytes = SPACRBENCH_NOT_MEASURED;
    warm.cpu_seconds = NAN;
    ck_assert_int_eq(spacrbench_measurement_create(&warm, &m), 0);
    text = report(m, NULL);
    ck_assert_msg(strstr(text, "\n  items measured      11 (+1 warm-up of 0.16 s, not counted)\n"),
                  "%s", text);
    free(text);
    spacrbench_measurement_free(m);
    /* Nothing measured at all: "not measured", never a negative size. */
    spacrbench_figures none = {.size = sizeof none};
    none.peak_rss_bytes = none.peak_vram_bytes = SPACRBENCH_NOT_MEASURED;
    none.cpu_seconds = NAN;
    ck_assert_int_eq(spacrbench_measurement_create(&none, &m), 0);
    text = report(m, NULL);
    ck_assert_msg(strstr(text, "\n  peak RSS            not measured\n"
                               "  attributable to it  not measured\n") != NULL,
                  "%s", text);
    ck_assert_msg(strstr(text, "-0.00") == NULL, "%s", text);
    free(text);
    spacrbench_measurement_free(m);
    m = made(3, 1.5, -1);
    ck_assert_double_eq_tol(spacrbench_measurement_items_per_second(m), 2.0, 1e-12);
    ck_assert_double_eq_tol(spacrbench_measurement_per_item_seconds(m), 0.5, 1e-12);
    spacrbench_measurement_free(m);
}
END_TEST

START_TEST(hand_made_figures_are_validated)
{
    spacrbench_figures f;
    memset(&f, 0, sizeof f);
    f.size = sizeof f;
    spacrbench_measurement *m = NULL;
    f.items = -1;
    ck_assert_int_eq(spacrbench_measurement_create(&f, &m), SPACRBENCH_EINVAL);
    ck_assert_ptr_null(m);
    f.items = 1;
    f.seconds = NAN;
    ck_assert_int_eq(spacrbench_measurement_create(&f, &m), SPACRBENCH_EINVAL);
    f.seconds = 1;
    f.peak_vram_bytes = -2;
    ck_assert_int_eq(spacrbench_measurement_create(&f, &m), SPACRBENCH_EINVAL);
    ck_assert_ptr_nonnull(strstr(spacrbench_last_error_message(), "peak_vram_bytes"));
    ck_assert_int_eq(spacrbench_measurement_create(NULL, &m), SPACRBENCH_EINVAL);
    f.peak_vram_bytes = -1;
    f.peak_method = 99;
    ck_assert_int_eq(spacrbench_measurement_create(&f, &m), SPACRBENCH_EINVAL);
    ck_assert_ptr_nonnull(strstr(spacrbench_last_error_message(), "peak_method"));
    f.peak_method = SPACRBENCH_PEAK_NONE;
    ck_assert_int_eq(spacrbench_measurement_create(&f, &m), 0);

    spacrbench_figures back;
    memset(&back, 0, sizeof back);
    back.size = sizeof back;
    ck_assert_int_eq(spacrbench_measurement_figures(m, &back), 0);
    ck_assert_int_eq(back.peak_method, SPACRBENCH_PEAK_SUPPLIED);
    ck_assert_int_eq(back.note_count, 0);
    ck_assert_ptr_null(spacrbench_measurement_note(m, 0));
    spacrbench_item_record rec = {sizeof rec, 0, 0, 0, -1.0, 0, 0};
    ck_assert_int_eq(spacrbench_measurement_add_record(m, &rec), SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_measurement_record(m, 0, &rec), SPACRBENCH_ERANGE);
    ck_assert_int_eq(spacrbench_measurement_add_note(m, NULL), SPACRBENCH_EINVAL);
    spacrbench_gpu_info g;
    memset(&g, 0, sizeof g);
    g.size = sizeof g;
    memset(g.name, 'x', sizeof g.name); /* unterminated: must come back terminated */
    ck_assert_int_eq(spacrbench_measurement_add_gpu(m, &g), 0);
    ck_assert_int_eq(spacrbench_measurement_gpu(m, 0, &g), 0);
    ck_assert_uint_eq(strlen(g.name), sizeof g.name - 1);
    spacrbench_measurement_free(m);
    spacrbench_measurement_free(NULL);
}
END_TEST

START_TEST(versions_and_errors)
{
    ck_assert_uint_eq(spacrbench_version_number(), SPACRBENCH_VERSION_NUMBER);
    ck_assert_str_eq(spacrbench_version_string(), SPACRBENCH_VERSION_STRING);
    ck_assert_str_eq(spacrbench_strerror(0), "success");
    ck_assert_str_eq(spacrbench_strerror(12345), "unknown error code");
    for (int code = -1; code >= SPACRBENCH_ENOSPACE; code--)
        ck_assert_str_ne(spacrbench_strerror(code), "unknown error code");
}
END_TEST

/* spaCR's report lines (spacr 1.5.1.5 benchmark.format_report) are each
 * kept with their prefix and number format; what spacrbench adds follows. */
START_TEST(upstream_lines_lead_each_line)
{
    spacrbench_figures f;
    memset(&f, 0, sizeof f);
    f.size = sizeof f;
    f.items = 4;
    f.seconds = 2.0;
    f.peak_rss_bytes = 3 * GIB;
    f.baseline_rss_bytes = GIB / 2;
    f.peak_vram_bytes = -1;
    f.cpu_seconds = NAN;
    spacrbench_measurement *m = NULL;
    ck_assert_int_eq(spacrbench_measurement_create(&f, &m), 0);
    spacrbench_recommendation r;
    memset(&r, 0, sizeof r);
    r.size = sizeof r;
    r.workers = 3;
    snprintf(r.reason, sizeof r.reason, "chosen by hand");
    char *text = report(m, &r);
    ck_assert_str_eq(text, "spaCR benchmark\n"
                           "  items measured      4\n"
                           "  throughput          2.00 item/s (0.50 s each)\n"
                           "  peak RSS            3.00 GiB (supplied)\n"
                           "  attributable to it  2.50 GiB (above a baseline of 512.0 MiB)\n"
                           "  peak VRAM           not measured (no CUDA device)\n"
                           "  recommended workers 3\n"
                           "    because           chosen by hand");
    free(text);
    spacrbench_measurement_free(m);
}
END_TEST

static char *report_with(const spacrbench_measurement *m, const spacrbench_recommendation *r,
                         const spacrbench_report_options *o)
{
    int need = spacrbench_format_report_with(m, r, o, NULL, 0);
    ck_assert_int_gt(need, 0);
    char *buf = malloc((size_t)need + 1);
    ck_assert_int_eq(spacrbench_format_report_with(m, r, o, buf, (size_t)need + 1), need);
    return buf;
}

START_TEST(a_reason_longer_than_the_field_is_reported_whole)
{
    spacrbench_measurement *m = made(4, 2.0, -1);
    spacrbench_recommendation r;
    memset(&r, 0, sizeof r);
    r.size = sizeof r;
    r.workers = 3;
    snprintf(r.reason, sizeof r.reason, "the field's own reason");
    char whole[1201];
    memset(whole, 'x', sizeof whole - 2);
    whole[0] = 'W';
    whole[sizeof whole - 2] = 'Z';
    whole[sizeof whole - 1] = '\0';
    spacrbench_report_options o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    o.reason = whole;
    char *buf = report_with(m, &r, &o);
    char *line = strstr(buf, "    because           W");
    ck_assert_ptr_nonnull(line);
    ck_assert_uint_eq(strlen(line),
                      strlen("    because           ") + strlen(whole)); /* the last line */
    ck_assert_ptr_null(strstr(buf, "the field's own reason"));
    free(buf);
    /* No options, or options with nothing set: spacrbench_format_report()'s text. */
    char *plain = report(m, &r);
    o.reason = NULL;
    char *same = report_with(m, &r, &o), *none = report_with(m, &r, NULL);
    ck_assert_str_eq(same, plain);
    ck_assert_str_eq(none, plain);
    ck_assert_ptr_nonnull(strstr(plain, "    because           the field's own reason"));
    free(plain);
    free(same);
    free(none);
    /* A size that is no struct's is refused, as for every sized struct. */
    o.size = 3;
    ck_assert_int_eq(spacrbench_format_report_with(m, &r, &o, NULL, 0), SPACRBENCH_EINVAL);
    spacrbench_measurement_free(m);
}
END_TEST

/* A caller's seconds the measurement cannot hold: spaCR's arithmetic on
 * them ("nan", a negative time per item), the value as Python writes it. */
START_TEST(a_callers_seconds_get_spacrs_arithmetic)
{
    spacrbench_measurement *m = made(4, 0.0, -1);
    spacrbench_report_options o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    o.use_seconds = 1;
    const struct {
        double seconds;
        const char *line;
    } cases[] = {
        {NAN, "throughput          nan item/s (nan s each); not measured (seconds is nan)\n"},
        {-1.0, "throughput          nan item/s (-0.25 s each); not measured (seconds is -1.0)\n"},
        {INFINITY, "throughput          0.00 item/s (inf s each); not measured (seconds is inf)\n"},
        {-0.1, "(seconds is -0.1)\n"},
        {-1e-7, "(seconds is -1e-07)\n"},
        {-1e16, "(seconds is -1e+16)\n"},
        {-123456.5, "(seconds is -123456.5)\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        o.seconds = cases[i].seconds;
        char *text = report_with(m, NULL, &o);
        ck_assert_msg(strstr(text, cases[i].line), "%s", text);
        free(text);
    }
    spacrbench_measurement_free(m);
}
END_TEST

static char *verbose_report(const spacrbench_measurement *m, const spacrbench_recommendation *r)
{
    int need = spacrbench_format_report_verbose(m, r, NULL, NULL, 0);
    ck_assert_int_gt(need, 0);
    char *buf = malloc((size_t)need + 1);
    ck_assert_int_eq(spacrbench_format_report_verbose(m, r, NULL, buf, (size_t)need + 1), need);
    return buf;
}

/* Every line of text within the terminal's 79 columns (UTF-8 counted as
 * characters). */
static void fits_79(const char *text)
{
    const char *line = text;
    while (*line) {
        size_t cols = 0;
        const char *p = line;
        for (; *p && *p != '\n'; p++)
            cols += ((unsigned char)*p & 0xC0) != 0x80;
        ck_assert_msg(cols <= 79, "%zu columns: %.*s", cols, (int)(p - line), line);
        line = *p ? p + 1 : p;
    }
}

/* The short report keeps the notes a user acts on (a caller's own, a peak
 * that is not exact) and leaves the library's notes on method to the
 * verbose one; the item lines' summary stays. */
START_TEST(notes_on_method_are_verbose_only)
{
    spacrbench_measurement *m = made(4, 2.0, -1);
    static const char *const detail[] = {
        ("peak RSS is exact: the kernel high-water mark (VmHWM) was reset through "
         "/proc/self/clear_refs, so a spike of any length counts"),
        "side effect: resetting VmHWM also lowers this process's getrusage() ru_maxrss",
        "the warm-up item(s)' memory counts toward the peak RSS",
        "workload: built-in synthetic 2048x2048 field, 4 channel(s), 3 field(s)",
        "no CUDA device, so VRAM was not measured (no NVIDIA driver: libnvidia-ml.so.1 not found)",
    };
    static const char *const shown[] = {
        "1 warm-up item(s) excluded from the timing", /* spaCR's own */
        "peak RSS was sampled every 10.0 ms (no reset): a spike shorter than that can be missed",
        "stopped at item 3: the work or progress function returned 1",
        "a note of the caller's own",
    };
    for (size_t i = 0; i < sizeof detail / sizeof *detail; i++)
        ck_assert_int_eq(spacrbench_measurement_add_note(m, detail[i]), 0);
    for (size_t i = 0; i < sizeof shown / sizeof *shown; i++)
        ck_assert_int_eq(spacrbench_measurement_add_note(m, shown[i]), 0);
    char *brief = report(m, NULL), *full = verbose_report(m, NULL);
    /* A note's first 30 bytes sit on its first line, unwrapped. */
    for (size_t i = 0; i < sizeof detail / sizeof *detail; i++) {
        char start[31];
        snprintf(start, sizeof start, "%s", detail[i]);
        ck_assert_msg(strstr(brief, start) == NULL, "%s in the short report:\n%s", start, brief);
        ck_assert_msg(strstr(full, start) != NULL, "%s not in the verbose one:\n%s", start, full);
    }
    for (size_t i = 0; i < sizeof shown / sizeof *shown; i++) {
        char start[31];
        snprintf(start, sizeof start, "%s", shown[i]);
        ck_assert_msg(strstr(brief, start) != NULL, "%s not in the short report:\n%s", start,
                      brief);
    }
    fits_79(brief);
    fits_79(full);
    free(brief);
    free(full);
    spacrbench_measurement_free(m);
}
END_TEST

static spacrbench_recommendation advice_for(int64_t need, int64_t reserve, int64_t cores)
{
    spacrbench_figures f = {.size = sizeof f};
    f.items = 2;
    f.seconds = 2.0;
    f.peak_rss_bytes = need;
    f.peak_vram_bytes = -1;
    f.cpu_seconds = NAN;
    spacrbench_measurement *m = NULL;
    ck_assert_int_eq(spacrbench_measurement_create(&f, &m), 0);
    spacrbench_recommend_options o;
    spacrbench_recommend_options_init(&o, sizeof o);
    o.cores = cores;
    o.available_bytes = 64 * GIB;
    o.reserve_bytes = reserve;
    spacrbench_recommendation r = {.size = sizeof r};
    ck_assert_int_eq(spacrbench_recommend(m, &o, &r), 0);
    spacrbench_measurement_free(m);
    return r;
}

/* The what-if line: the workers a need allows on 8, 16 and 32 GiB, after
 * the reserve the recommendation keeps (the host's 2 GiB, or the caller's),
 * and where the cores here cap them. */
START_TEST(the_what_if_line_divides_common_budgets)
{
    spacrbench_measurement *m = made(2, 2.0, -1);
    spacrbench_recommendation r = advice_for(354 * MIB, SPACRBENCH_AUTO, 4);
    char *text = report(m, &r);
    /* (8192 - 2048) / 354 = 17, (16384 - 2048) / 354 = 40, (32768 - 2048) / 354 = 86 */
    ck_assert_msg(strstr(text, "\n  what if             354.0 MiB each: 8 GiB -> 17, 16 GiB -> "
                               "40, 32 GiB -> 86\n                      (the cores here cap "
                               "it at 4)"),
                  "%s", text);
    fits_79(text);
    free(text);
    r = advice_for(354 * MIB, 512 * MIB, 64); /* the caller's reserve; the maximum caps */
    text = report(m, &r);
    /* (8192 - 512) / 354 = 21, (16384 - 512) / 354 = 44, (32768 - 512) / 354 = 91 */
    ck_assert_msg(strstr(text, "354.0 MiB each: 8 GiB -> 21, 16 GiB -> 44, 32 GiB -> 91\n"
                               "                      (the maximum caps it at 32)"),
                  "%s", text);
    ck_assert_msg(strstr(text, "cores here") == NULL, "%s", text);
    free(text);
    /* No measured need: no line. */
    text = report(m, NULL);
    ck_assert_ptr_null(strstr(text, "what if"));
    free(text);
    spacrbench_measurement_free(m);
}
END_TEST

static int count_in(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = strstr(text, what); p; p = strstr(p + 1, what))
        n++;
    return n;
}

/* Why VRAM was not measured, said once in the verbose report: on the VRAM
 * line, or in spaCR's note where there is one (it was said in both). */
START_TEST(the_vram_reason_is_said_once)
{
    for (int with_note = 0; with_note < 2; with_note++) {
        spacrbench_measurement *m = made(2, 2.0, -1);
        ck_assert_int_eq(spacrbench_measurement_set_vram_reason(
                             m, "no CUDA device: no NVIDIA driver: libnvidia-ml.so.1 not found"),
                         0);
        if (with_note)
            ck_assert_int_eq(spacrbench_measurement_add_note(
                                 m, "no CUDA device, so VRAM was not measured (no NVIDIA driver: "
                                    "libnvidia-ml.so.1 not found)"),
                             0);
        char *text = verbose_report(m, NULL);
        ck_assert_msg(count_in(text, "libnvidia-ml.so.1 not found") == 1, "%s", text);
        ck_assert_msg(strstr(text, "\n  peak VRAM           not measured (no CUDA device)"), "%s",
                      text);
        free(text);
        spacrbench_measurement_free(m);
    }
}
END_TEST

/* A measurement of need bytes above a 100 MiB baseline (0: nothing
 * measured) and vram bytes of VRAM (-1: none). */
static spacrbench_measurement *needing(int64_t need, int64_t vram)
{
    spacrbench_figures f = {.size = sizeof f};
    f.items = need ? 2 : 0;
    f.seconds = need ? 2.0 : 0.0;
    f.peak_rss_bytes = need ? need + 100 * MIB : 0;
    f.baseline_rss_bytes = need ? 100 * MIB : 0;
    f.peak_vram_bytes = vram;
    f.cpu_seconds = NAN;
    spacrbench_measurement *m = NULL;
    ck_assert_int_eq(spacrbench_measurement_create(&f, &m), 0);
    return m;
}

/* A machine inside a 3 GiB memory cgroup with 64 cores (a SLURM job). */
static spacrbench_machine in_a_job(void)
{
    spacrbench_machine mach;
    memset(&mach, 0, sizeof mach);
    mach.size = sizeof mach;
    mach.available_bytes = 3 * GIB;
    mach.host_available_bytes = 200 * GIB;
    mach.memory_source = SPACRBENCH_SOURCE_CGROUP_V2;
    mach.cores_source = SPACRBENCH_SOURCE_AFFINITY;
    mach.memory_limit_bytes = 3 * GIB;
    mach.cores = mach.affinity_cores = 64;
    mach.cpu_quota_cores = -1;
    snprintf(mach.memory_cgroup, sizeof mach.memory_cgroup, "/sys/fs/cgroup/slurm/job_4242");
    return mach;
}

/* Every "because" line wraps at 79 columns, whatever bound decided, its
 * first words (to the first ':' or ';') whole on its first line. */
START_TEST(every_reason_wraps_at_79_columns)
{
    spacrbench_machine job = in_a_job();
    struct {
        const char *first_words;
        int64_t need, vram, cores, available, free_vram, maximum;
        const spacrbench_machine *machine;
    } k_cases[] = {
        {"memory-bound", 60 * MIB, -1, 8, 2150 * MIB, SPACRBENCH_AUTO, 3, NULL},
        {"memory-bound", 60 * MIB, -1, SPACRBENCH_AUTO, SPACRBENCH_AUTO, SPACRBENCH_AUTO, 64, &job},
        {"2 core(s)", 0, -1, 2, SPACRBENCH_AUTO, SPACRBENCH_AUTO, 32, &job},
        {"one worker needs", 60 * MIB, -1, 8, GIB, SPACRBENCH_AUTO, 32, NULL},
        {"one worker needs", 3 * GIB, -1, SPACRBENCH_AUTO, SPACRBENCH_AUTO, SPACRBENCH_AUTO, 32,
         &job},
        {"one worker needs", 60 * MIB, 30 * GIB, 8, 64 * GIB, 16 * GIB, 32, NULL},
        {"VRAM-bound", 60 * MIB, 5 * GIB, 8, 64 * GIB, 16 * GIB, 32, NULL},
        {"capped at the 3-worker maximum", 60 * MIB, -1, 64, 64 * GIB, SPACRBENCH_AUTO, 3, NULL},
    };
    for (size_t i = 0; i < sizeof k_cases / sizeof *k_cases; i++) {
        spacrbench_measurement *m = needing(k_cases[i].need, k_cases[i].vram);
        spacrbench_recommend_options o;
        spacrbench_recommend_options_init(&o, sizeof o);
        o.start_method = SPACRBENCH_START_FORK; /* Windows defaults to spawn */
        o.cores = k_cases[i].cores;
        o.available_bytes = k_cases[i].available;
        o.free_vram_bytes = k_cases[i].free_vram;
        o.maximum = k_cases[i].maximum;
        spacrbench_recommendation r = {.size = sizeof r};
        ck_assert_int_eq(spacrbench_recommend_on(m, &o, k_cases[i].machine, &r), 0);
        char start[200];
        snprintf(start, sizeof start, "\n    because           %s", k_cases[i].first_words);
        char *texts[] = {report(m, &r), verbose_report(m, &r)};
        for (size_t v = 0; v < 2; v++) {
            ck_assert_msg(strstr(texts[v], start) != NULL, "case %zu: no %s in:\n%s", i, start,
                          texts[v]);
            fits_79(texts[v]);
            free(texts[v]);
        }
        spacrbench_measurement_free(m);
    }
}
END_TEST

/* The workers "N GiB -> W" of the what-if line, read from text. */
static long long what_if_workers(const char *text, int gib)
{
    char key[32];
    snprintf(key, sizeof key, " %d GiB -> ", gib);
    const char *at = strstr(text, key);
    ck_assert_msg(at != NULL, "no \"%s\" in:\n%s", key, text);
    return strtoll(at + strlen(key), NULL, 10);
}

/* A what-if budget is a budget the caller gives: "16 GiB -> N" is what
 * --available 16G (with the same --reserve, if any) advises for the same
 * measurement, inside a cgroup limit too (the limit's tenth is not the
 * reserve of a budget given by hand). */
START_TEST(the_what_if_matches_available)
{
    spacrbench_machine job = in_a_job();
    int64_t reserves[] = {SPACRBENCH_AUTO, 512 * MIB};
    const spacrbench_machine *machines[] = {NULL, &job};
    for (size_t k = 0; k < 2; k++)
        for (size_t j = 0; j < 2; j++) {
            spacrbench_measurement *m = needing(60 * MIB + 800 * 1024, -1);
            spacrbench_recommend_options o;
            spacrbench_recommend_options_init(&o, sizeof o);
            o.cores = 2;
            o.reserve_bytes = reserves[j];
            if (!machines[k])
                o.available_bytes = 64 * GIB;
            spacrbench_recommendation r = {.size = sizeof r};
            ck_assert_int_eq(spacrbench_recommend_on(m, &o, machines[k], &r), 0);
            char *text = report(m, &r);
            for (int gib = 8; gib <= 32; gib *= 2) {
                o.available_bytes = gib * GIB;
                spacrbench_recommendation given = {.size = sizeof given};
                ck_assert_int_eq(spacrbench_recommend_on(m, &o, machines[k], &given), 0);
                ck_assert_msg(what_if_workers(text, gib) == given.memory_workers,
                              "%d GiB: --available gives %lld:\n%s", gib,
                              (long long)given.memory_workers, text);
            }
            free(text);
            spacrbench_measurement_free(m);
        }
}
END_TEST

/* A figure never parts from its unit, nor a budget from its workers,
 * however many workers a tiny need allows. */
START_TEST(the_what_if_keeps_each_figure_whole)
{
    spacrbench_measurement *m = needing(800 * 1024, -1);
    spacrbench_recommend_options o;
    spacrbench_recommend_options_init(&o, sizeof o);
    o.start_method = SPACRBENCH_START_FORK; /* Windows defaults to spawn */
    o.cores = 2;
    o.available_bytes = 64 * GIB;
    spacrbench_recommendation r = {.size = sizeof r};
    ck_assert_int_eq(spacrbench_recommend(m, &o, &r), 0);
    char *text = report(m, &r);
    fits_79(text);
    static const char *const k_whole[] = {"800.0 KiB each", "8 GiB -> 7864", "16 GiB -> 18350",
                                          "32 GiB -> 39321"};
    for (size_t i = 0; i < sizeof k_whole / sizeof *k_whole; i++)
        ck_assert_msg(strstr(text, k_whole[i]) != NULL, "no %s in:\n%s", k_whole[i], text);
    free(text);
    spacrbench_measurement_free(m);
}
END_TEST

/* --brief's line of a stopped run says so before its figures. */
START_TEST(the_brief_line_of_a_stopped_run_says_it_stopped)
{
    spacrbench_measurement *m = made(2, 2.0, -1);
    char line[512];
    ck_assert_int_gt(spacrbench_format_brief(m, NULL, line, sizeof line), 0);
    ck_assert_ptr_null(strstr(line, "stopped"));
    ck_assert_int_eq(spacrbench_measurement_mark_stopped(m, 2, 1), 0);
    ck_assert_int_gt(spacrbench_format_brief(m, NULL, line, sizeof line), 0);
    ck_assert_msg(strncmp(line, "stopped", 7) == 0, "%s", line);
    spacrbench_measurement_free(m);
}
END_TEST

static Suite *report_suite(void)
{
    Suite *s = suite_create("report");
    TCase *tc = tcase_create("report");
    tcase_add_test(tc, report_has_every_label_and_figure);
    tcase_add_test(tc, report_shows_measured_vram_and_works_without_recommendation);
    tcase_add_test(tc, truncation_is_snprintf_like);
    tcase_add_test(tc, short_recommendation_struct_has_no_vram_line);
    tcase_add_test(tc, upstream_lines_lead_each_line);
    tcase_add_test(tc, a_reason_longer_than_the_field_is_reported_whole);
    tcase_add_test(tc, a_callers_seconds_get_spacrs_arithmetic);
    tcase_add_test(tc, notes_on_method_are_verbose_only);
    tcase_add_test(tc, the_what_if_line_divides_common_budgets);
    tcase_add_test(tc, every_reason_wraps_at_79_columns);
    tcase_add_test(tc, the_vram_reason_is_said_once);
    tcase_add_test(tc, the_what_if_matches_available);
    tcase_add_test(tc, the_what_if_keeps_each_figure_whole);
    tcase_add_test(tc, the_brief_line_of_a_stopped_run_says_it_stopped);
    suite_add_tcase(s, tc);
    TCase *hm = tcase_create("measurement");
    tcase_add_test(hm, derived_figures_are_nan_not_garbage);
    tcase_add_test(hm, hand_made_figures_are_validated);
    tcase_add_test(hm, versions_and_errors);
    suite_add_tcase(s, hm);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(report_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
