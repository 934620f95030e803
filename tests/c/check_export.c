/* The paste-ready exports: CSV parsed back (one row per item, quoting),
 * Markdown tables well formed (every row as many cells as its header),
 * text we did not write made safe, and bad input. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spacrbench.h"

static char *export_text(const spacrbench_measurement *m, const spacrbench_recommendation *rec,
                         int format, const char *const *labels, size_t n)
{
    int len = spacrbench_format_export(m, rec, format, labels, n, NULL, 0);
    ck_assert_msg(len > 0, "%s", spacrbench_last_error_message());
    char *text = malloc((size_t)len + 1);
    ck_assert_int_eq(spacrbench_format_export(m, rec, format, labels, n, text, (size_t)len + 1),
                     len);
    ck_assert_uint_eq(strlen(text), (size_t)len);
    return text;
}

/* Three items built as `spacrbench run` builds them: CPU per item known. */
static spacrbench_measurement *three_items(void)
{
    spacrbench_run_plan plan;
    spacrbench_run_plan_init(&plan, sizeof plan);
    plan.items = 3;
    plan.warmup = 1;
    plan.peak_method = SPACRBENCH_PEAK_CGROUP;
    spacrbench_measurement *m = NULL;
    ck_assert_int_eq(spacrbench_measurement_begin(&plan, &m), 0);
    for (int i = 0; i < 3; i++) {
        spacrbench_item_figures it;
        spacrbench_item_figures_init(&it, sizeof it);
        it.seconds = 0.5 + i;
        it.cpu_seconds = i == 1 ? NAN : 0.25 * (i + 1);
        it.peak_rss_bytes = (int64_t)(i + 1) << 20;
        ck_assert_int_eq(spacrbench_measurement_add_item(m, &it), 0);
    }
    ck_assert_int_eq(spacrbench_measurement_end(m), 0);
    spacrbench_measurement_add_note(m, "a note with | a pipe and *stars*");
    return m;
}

/* The fields of one CSV record starting at *p (RFC 4180); advances *p past
 * its CRLF. Returns the number of fields, copies field k into out. */
static int csv_record(const char **p, int k, char *out, size_t cap)
{
    int n = 0;
    size_t o = 0;
    const char *s = *p;
    out[0] = '\0';
    for (;;) {
        int quoted = *s == '"';
        if (quoted)
            s++;
        for (;;) {
            if (quoted && s[0] == '"' && s[1] == '"') {
                if (n == k && o + 1 < cap)
                    out[o++] = '"';
                s += 2;
            } else if (quoted && s[0] == '"') {
                s++;
                break;
            } else if (!quoted && (*s == ',' || *s == '\r' || *s == '\0')) {
                break;
            } else {
                ck_assert_int_ne(*s, '\0'); /* an unterminated quote */
                if (n == k && o + 1 < cap)
                    out[o++] = *s;
                s++;
            }
        }
        if (n == k)
            out[o] = '\0';
        n++;
        if (*s == ',') {
            s++;
            continue;
        }
        ck_assert_msg(s[0] == '\r' && s[1] == '\n', "a record must end with CRLF");
        *p = s + 2;
        return n;
    }
}

START_TEST(csv_has_one_row_per_item_and_quotes_what_needs_it)
{
    spacrbench_measurement *m = three_items();
    const char *labels[] = {"plain.tif", "comma, \"quoted\"", "line\nbreak"};
    char *csv = export_text(m, NULL, SPACRBENCH_FORMAT_CSV, labels, 3);
    const char *p = csv;
    char cell[128];
    /* The columns: the 1.2 ones where they were, then (1.3) the two memory
     * figures and the runs' count and spread. */
    ck_assert_ptr_nonnull(strstr(csv, "index,item,is_warmup,seconds,peak_rss_bytes,"
                                      "peak_vram_bytes,cpu_seconds,cgroup_charge_bytes,"
                                      "tree_rss_peak_bytes,runs,seconds_stddev,seconds_min,"
                                      "seconds_max\r\n"));
    ck_assert_int_eq(csv_record(&p, 0, cell, sizeof cell), 13);
    ck_assert_str_eq(cell, "index");
    int rows = 0;
    while (*p) {
        const char *row = p;
        ck_assert_int_eq(csv_record(&p, 1, cell, sizeof cell), 13);
        ck_assert_str_eq(cell, labels[rows]);
        const char *q = row;
        csv_record(&q, 4, cell, sizeof cell);
        ck_assert_int_eq(strtoll(cell, NULL, 10), (int64_t)(rows + 1) << 20);
        q = row;
        csv_record(&q, 6, cell, sizeof cell);
        if (rows == 1)
            ck_assert_str_eq(cell, ""); /* not measured: empty */
        else
            ck_assert(fabs(strtod(cell, NULL) - 0.25 * (rows + 1)) < 1e-9);
        q = row;
        csv_record(&q, 2, cell, sizeof cell);
        ck_assert_str_eq(cell, rows == 0 ? "1" : "0");
        rows++;
    }
    ck_assert_int_eq(rows, 3);
    free(csv);
    /* Without labels the item field is empty; the rows stay. */
    csv = export_text(m, NULL, SPACRBENCH_FORMAT_CSV, NULL, 0);
    p = csv;
    rows = -1;
    while (*p) {
        ck_assert_int_eq(csv_record(&p, 1, cell, sizeof cell), 13);
        rows++;
    }
    ck_assert_int_eq(rows, 3);
    free(csv);
    spacrbench_measurement_free(m);
}
END_TEST

/* Spreadsheet formula injection (OWASP's defence): a label that starts
 * with =, +, -, @, a tab or a carriage return (after spaces too) is shown as text (a leading
 * ' inside quotes), never evaluated, and so is one behind a separator a
 * spreadsheet may split at (a German or French locale splits at ';'); a
 * label with a separator is quoted; a plain number stays a number, as do
 * every figure's cells. */
START_TEST(csv_never_writes_a_live_formula)
{
    spacrbench_measurement *m = three_items();
    static const struct {
        const char *label, *cell, *raw;
    } k_cases[] = {
        {"=HYPERLINK(\"http://x\",\"y\")", "'=HYPERLINK(\"http://x\",\"y\")",
         "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\""},
        {"+1+2", "'+1+2", "\"'+1+2\""},
        {"-2+3", "'-2+3", "\"'-2+3\""},
        {"@SUM(A1)", "'@SUM(A1)", "\"'@SUM(A1)\""},
        {"\tx", "'\tx", "\"'\tx\""},
        {"-5", "-5", "-5"},
        {"+1.5e3", "+1.5e3", "+1.5e3"},
        {"-1e", "'-1e", "\"'-1e\""},
        {"a=b", "a=b", "a=b"},
        {" =lead", "' =lead", "\"' =lead\""},
        {"  @SUM(A1)", "'  @SUM(A1)", "\"'  @SUM(A1)\""},
        {" -5", " -5", " -5"},
        {"x;=cmd|' /C calc'!A0", "x;'=cmd|' /C calc'!A0", "\"x;'=cmd|' /C calc'!A0\""},
        {"a,@b;+c\t-d", "a,'@b;'+c\t'-d", "\"a,'@b;'+c\t'-d\""},
        {"x\n=y", "x\n'=y", "\"x\n'=y\""},
        {"a;b", "a;b", "\"a;b\""},
        {"1;-5,+2e3", "1;-5,+2e3", "\"1;-5,+2e3\""},
    };
    char cell[256];
    for (size_t i = 0; i < sizeof k_cases / sizeof k_cases[0]; i++) {
        const char *labels[] = {k_cases[i].label, "x", "y"};
        char *csv = export_text(m, NULL, SPACRBENCH_FORMAT_CSV, labels, 3);
        const char *row = strstr(csv, "\r\n") + 2;
        const char *p = row;
        ck_assert_int_eq(csv_record(&p, 1, cell, sizeof cell), 13);
        ck_assert_str_eq(cell, k_cases[i].cell);
        ck_assert_msg(strncmp(row + 2, k_cases[i].raw, strlen(k_cases[i].raw)) == 0, "%s", row);
        free(csv);
    }
    /* The Markdown's item cell, which a spreadsheet may get pasted, the same. */
    const char *labels[] = {"x;=cmd|' /C calc'!A0", "@SUM(A1)", "-5"};
    char *md = export_text(m, NULL, SPACRBENCH_FORMAT_MARKDOWN, labels, 3);
    ck_assert_msg(strstr(md, "| 1 | x;'=cmd\\|' /C calc'!A0 |") != NULL, "%s", md);
    ck_assert_msg(strstr(md, "| 2 | '@SUM(A1) |") != NULL, "%s", md);
    ck_assert_msg(strstr(md, "| 3 | -5 |") != NULL, "%s", md);
    free(md);
    spacrbench_measurement_free(m);
}
END_TEST

/* Cells of a Markdown table row: unescaped '|' separators minus one. */
static int md_cells(const char *line, size_t len)
{
    int bars = 0;
    for (size_t i = 0; i < len; i++) {
        if (line[i] == '\\') {
            i++;
            continue;
        }
        bars += line[i] == '|';
    }
    return bars - 1;
}

/* Every table: its rows have the header's cell count; returns tables seen. */
static int check_tables(const char *md)
{
    int tables = 0, want = -1;
    for (const char *line = md; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (len && line[0] == '|') {
            ck_assert_msg(line[len - 1] == '|', "a table row must end with '|': %.*s", (int)len,
                          line);
            int cells = md_cells(line, len);
            if (want < 0) {
                want = cells;
                tables++;
            }
            ck_assert_msg(cells == want, "%d cells, header has %d: %.*s", cells, want, (int)len,
                          line);
        } else {
            want = -1;
        }
        line += len + (end != NULL);
    }
    return tables;
}

START_TEST(markdown_tables_are_well_formed)
{
    spacrbench_measurement *m = three_items();
    const char *labels[] = {"a|b.tif", "new\nline", "back\\slash `code`"};
    spacrbench_recommendation rec = {.size = sizeof rec};
    spacrbench_recommend_options ro;
    spacrbench_recommend_options_init(&ro, sizeof ro);
    ro.cores = 4;
    ro.available_bytes = INT64_C(8) << 30;
    ck_assert_int_eq(spacrbench_recommend(m, &ro, &rec), 0);
    char *md = export_text(m, &rec, SPACRBENCH_FORMAT_MARKDOWN, labels, 3);
    if (getenv("SHOW_MD"))
        fputs(md, stderr);
    ck_assert_int_eq(check_tables(md), 3); /* summary, items, evidence */
    ck_assert_ptr_nonnull(strstr(md, "## spaCR benchmark\n"));
    ck_assert_ptr_nonnull(strstr(md, "\n### Items\n"));
    ck_assert_ptr_nonnull(strstr(md, "| 1 | a\\|b.tif | yes | 0.5000 | 1.0 MiB |"));
    ck_assert_ptr_nonnull(strstr(md, "| 2 | new line |  | 1.5000 | 2.0 MiB | not measured | "
                                     "not measured |"));
    ck_assert_ptr_nonnull(strstr(md, "back\\\\slash \\`code\\`"));
    ck_assert_ptr_nonnull(strstr(md, "\n### Recommendation: "));
    ck_assert_ptr_nonnull(strstr(md, "| usable cores | 4 ("));
    ck_assert_ptr_nonnull(strstr(md, "| workers the memory allows | "));
    ck_assert_ptr_nonnull(strstr(md, "- a note with \\| a pipe and \\*stars\\*\n"));
    free(md);
    /* No recommendation: no recommendation section. */
    md = export_text(m, NULL, SPACRBENCH_FORMAT_MARKDOWN, NULL, 0);
    ck_assert_int_eq(check_tables(md), 2);
    ck_assert_ptr_null(strstr(md, "Recommendation"));
    /* No labels: no item column; CPU known for some items: its column. */
    ck_assert_ptr_nonnull(strstr(md, "| # | warm-up | seconds | peak RSS | peak VRAM | CPU "
                                     "seconds |\n"));
    free(md);
    /* No CUDA device: the report's words, "(no CUDA device); <why>". */
    ck_assert_int_eq(spacrbench_measurement_set_vram_reason(m, "no CUDA device: no driver"), 0);
    md = export_text(m, NULL, SPACRBENCH_FORMAT_MARKDOWN, NULL, 0);
    ck_assert_msg(strstr(md, "| peak VRAM | not measured (no CUDA device); no driver |"), "%s", md);
    free(md);
    ck_assert_int_eq(spacrbench_measurement_set_vram_reason(m, "probing turned off"), 0);
    md = export_text(m, NULL, SPACRBENCH_FORMAT_MARKDOWN, NULL, 0);
    ck_assert_msg(strstr(md, "| peak VRAM | not measured (probing turned off) |"), "%s", md);
    free(md);
    spacrbench_measurement_free(m);
}
END_TEST

static spacrbench_measurement *one_item(int peak_method)
{
    spacrbench_run_plan plan;
    spacrbench_run_plan_init(&plan, sizeof plan);
    plan.items = 1;
    plan.warmup = 0;
    plan.peak_method = peak_method;
    spacrbench_measurement *m = NULL;
    ck_assert_int_eq(spacrbench_measurement_begin(&plan, &m), 0);
    spacrbench_item_figures it;
    spacrbench_item_figures_init(&it, sizeof it);
    it.seconds = 0.5;
    it.peak_rss_bytes = INT64_C(150) << 20;
    ck_assert_int_eq(spacrbench_measurement_add_item(m, &it), 0);
    ck_assert_int_eq(spacrbench_measurement_end(m), 0);
    return m;
}

/* The Markdown export said "| peak RSS | 150.0 MiB (hwm_reset) |": the
 * method is shown in the report's words, the same as the text report's. */
START_TEST(markdown_names_the_peak_method_in_the_reports_words)
{
    static const struct {
        int method;
        const char *words;
    } cases[] = {
        {SPACRBENCH_PEAK_HWM_RESET, "exact, "}, /* the platform's words follow */
        {SPACRBENCH_PEAK_HWM_WINDOW, "exact, "},
        {SPACRBENCH_PEAK_SAMPLED, "sampled"},
        {SPACRBENCH_PEAK_CGROUP, "exact, cgroup peak of the process tree"},
        {SPACRBENCH_PEAK_CHILD_RUSAGE, "child's high-water mark"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        spacrbench_measurement *m = one_item(cases[i].method);
        const char *words = spacrbench_measurement_peak_words(m);
        ck_assert_ptr_nonnull(strstr(words, cases[i].words));
        char *md = export_text(m, NULL, SPACRBENCH_FORMAT_MARKDOWN, NULL, 0);
        char want[160];
        snprintf(want, sizeof want, "| peak RSS | 150.0 MiB (%s) |\n", words);
        ck_assert_msg(strstr(md, want) != NULL, "no \"%s\" in:\n%s", want, md);
        const char *name = spacrbench_peak_method_name(cases[i].method);
        snprintf(want, sizeof want, "(%s)", name);
        if (strcmp(name, words) != 0) /* "sampled" is both */
            ck_assert_msg(strstr(md, want) == NULL, "the enum name %s in:\n%s", want, md);
        free(md);
        char report[4096];
        ck_assert_int_gt(spacrbench_format_report(m, NULL, report, sizeof report), 0);
        ck_assert_msg(strstr(report, words) != NULL, "the report says otherwise:\n%s", report);
        spacrbench_measurement_free(m);
    }
    ck_assert_str_eq(spacrbench_measurement_peak_words(NULL), "not measured");
    /* Nothing measured: said once, as the report says it. */
    spacrbench_measurement *m = one_item(SPACRBENCH_PEAK_NONE);
    char *md = export_text(m, NULL, SPACRBENCH_FORMAT_MARKDOWN, NULL, 0);
    ck_assert_msg(strstr(md, "| peak RSS | not measured |\n") != NULL, "%s", md);
    free(md);
    spacrbench_measurement_free(m);
}
END_TEST

START_TEST(bad_input_is_refused)
{
    spacrbench_measurement *m = three_items();
    char buf[16];
    ck_assert_int_eq(
        spacrbench_format_export(NULL, NULL, SPACRBENCH_FORMAT_CSV, NULL, 0, buf, sizeof buf),
        SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_format_export(m, NULL, 99, NULL, 0, buf, sizeof buf),
                     SPACRBENCH_EINVAL);
    ck_assert_ptr_nonnull(strstr(spacrbench_last_error_message(), "spacrbench_export_format"));
    ck_assert_int_eq(
        spacrbench_format_export(m, NULL, SPACRBENCH_FORMAT_CSV, NULL, 2, buf, sizeof buf),
        SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_format_export(m, NULL, SPACRBENCH_FORMAT_CSV, NULL, 0, NULL, 5),
                     SPACRBENCH_EINVAL);
    /* Too small a buffer: the full length, the text cut and terminated. */
    int len = spacrbench_format_export(m, NULL, SPACRBENCH_FORMAT_CSV, NULL, 0, buf, sizeof buf);
    ck_assert_int_gt(len, (int)sizeof buf);
    ck_assert_uint_eq(strlen(buf), sizeof buf - 1);
    ck_assert(isnan(spacrbench_measurement_item_cpu_seconds(m, 99)));
    ck_assert(isnan(spacrbench_measurement_item_cpu_seconds(NULL, 0)));
    ck_assert_int_eq(spacrbench_measurement_set_item_cpu_seconds(m, 0, -1.0), SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_measurement_set_item_cpu_seconds(m, 0, INFINITY),
                     SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_measurement_set_item_cpu_seconds(m, 0, 2.0), 0);
    ck_assert(spacrbench_measurement_item_cpu_seconds(m, 0) == 2.0);
    spacrbench_measurement_free(m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("export");
    TCase *tc = tcase_create("export");
    tcase_add_test(tc, csv_has_one_row_per_item_and_quotes_what_needs_it);
    tcase_add_test(tc, csv_never_writes_a_live_formula);
    tcase_add_test(tc, markdown_tables_are_well_formed);
    tcase_add_test(tc, markdown_names_the_peak_method_in_the_reports_words);
    tcase_add_test(tc, bad_input_is_refused);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
