/* What `spacrbench run` answers a user who checks it against GNU time and
 * hyperfine (issue 35), the real binary on real commands: both memory
 * figures in the report and the JSON, every report line in 79 columns,
 * --runs (each item N times: the mean, the spread, the runs kept),
 * --brief (one line), and the CPU the items used on the timeline. With a
 * cgroup of its own (_i == 0) and without (--no-cgroup). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_test_support.h"
#include "sb_test_text.h"

/* The Python expression over the document d at json is True. */
static void expect(const char *json, const char *expr)
{
    char *v = cli_json_eval(json, expr);
    ck_assert_msg(v != NULL, "JSON query failed: %s", expr);
    ck_assert_msg(strcmp(v, "True") == 0, "%s is %s", expr, v);
    free(v);
}

/* Every line of the report as printed fits 79 columns, the reason's too. */
static void report_fits(const char *raw)
{
    size_t n = 0;
    const char *wide = sb_test_wide_line(raw, 79, NULL, &n);
    ck_assert_msg(!wide, "%zu columns: %.*s", wide ? sb_test_columns(wide, n) : 0, (int)n,
                  wide ? wide : "");
}

/* Three items touching 16 MiB for 40 ms, the first a warm-up, each other
 * run three times: the warm-up once, the others' records their runs' mean
 * and largest peaks, the runs kept; the report in 79 columns with both
 * figures where there are two. */
START_TEST(runs_repeat_each_measured_item)
{
    char *const argv[] = {SPACRBENCH_CLI,
                          "run",
                          "-qv",
                          "--warmup",
                          "1",
                          "--runs",
                          "3",
                          "--report",
                          NULL, /* the JSON, below */
                          _i ? "--no-cgroup" : "--quiet",
                          "40",
                          "40",
                          "40",
                          "--",
                          HELPER_ALLOC_TOUCH,
                          "16",
                          "{}",
                          NULL};
    char json[] = "/tmp/spacrbench-figures-XXXXXX.json";
    int fd = mkstemps(json, 5);
    ck_assert_int_ge(fd, 0);
    close(fd);
    ((char **)argv)[8] = json;
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    report_fits(r.raw);
    ck_assert_ptr_nonnull(strstr(r.out, "\n  runs                6 timed, "));
    ck_assert_ptr_nonnull(strstr(r.out, "mean of 3 runs \xc2\xb1 "));
    ck_assert_ptr_nonnull(strstr(r.out, "each measured item ran 3 times (--runs; the warm-up "
                                        "items once)"));
    int charged = strstr(r.out, "\n  memory charged      ") != NULL;
    ck_assert_int_eq(charged, strstr(r.out, " charged; the advice and --mem use it)\n") != NULL);
    if (_i)
        ck_assert_int_eq(charged, 0);
    cli_result_free(&r);
    if (!cli_have_python()) {
        unlink(json);
        return;
    }
    expect(json, "[x['runs'] for x in d['measurement']['records']] == [1, 3, 3]");
    expect(json, "d['measurement']['records'][0]['run_records'] == []");
    expect(json, "all(len(x['run_records']) == 3 for x in d['measurement']['records'][1:])");
    expect(json, "all(abs(x['seconds'] - sum(u['seconds'] for u in x['run_records']) / 3) < 1e-9 "
                 "for x in d['measurement']['records'][1:])");
    expect(json, "all(x['peak_rss_bytes'] == max(u['peak_rss_bytes'] for u in x['run_records']) "
                 "for x in d['measurement']['records'][1:])");
    expect(json, "all(u['seconds'] >= 0.04 and u['peak_rss_bytes'] >= 16 << 20 for x in "
                 "d['measurement']['records'][1:] for u in x['run_records'])");
    expect(json, "all(x['seconds_min'] <= x['seconds'] <= x['seconds_max'] and "
                 "x['seconds_stddev'] >= 0 for x in d['measurement']['records'][1:])");
    expect(json, "d['measurement']['runs'] == 6 and d['measurement']['seconds_stddev'] >= 0");
    /* The figure the advice divides by is the record's peak: the charge
     * with a cgroup, else the tree's RSS peak; both named in the JSON. */
    expect(json,
           "all(x['peak_rss_bytes'] == (x['cgroup_charge_bytes'] if x['cgroup_charge_bytes']"
           " is not None else x['tree_rss_peak_bytes']) for x in d['measurement']['records'])");
    expect(json, "(d['measurement']['cgroup_charge_bytes'] is None) == "
                 "(d['measurement']['peak_method'] != 'cgroup')");
    /* The timeline marks each item across all its runs. */
    expect(json, "all(i['end_seconds'] - i['start_seconds'] >= 3 * 0.04 for i in "
                 "d['measurement']['timeline']['items'][1:])");
    unlink(json);
}
END_TEST

/* --brief: the one line, and nothing else on stdout; refused with what
 * else would want stdout. */
START_TEST(brief_answers_in_one_line)
{
    char *const argv[] = {SPACRBENCH_CLI, "run",  "--brief", "--runs", "2", "a", "b",
                          "--",           "true", NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    size_t n = strlen(r.raw);
    ck_assert_msg(n > 1 && strchr(r.raw, '\n') == r.raw + n - 1, "not one line: %s", r.raw);
    ck_assert_msg(strncmp(r.raw, "peak RSS ", 9) == 0 && strstr(r.raw, " s per item, ") &&
                      !strstr(r.raw, "\xc2\xb1") &&
                      (strstr(r.raw, " worker\n") || strstr(r.raw, " workers\n")),
                  "%s", r.raw);
    ck_assert_uint_le(sb_test_columns(r.raw, n - 1), 79);
    cli_result_free(&r);
    /* Nothing measured: the full report's core-count fallback, named as
     * such (not passed off as an answer, nor denied). */
    char *const failing[] = {SPACRBENCH_CLI, "run", "--brief", "a", "--", "false", NULL};
    cli_run(failing, NULL, &r);
    ck_assert_msg(r.exited && r.code == 3, "exit %d: %s", r.code, r.err);
    char *brief_workers = strstr(r.raw, "no item timed, ");
    ck_assert_msg(brief_workers && strstr(r.raw, " (core-count fallback)\n"), "%s", r.raw);
    long long fallback = strtoll(brief_workers + strlen("no item timed, "), NULL, 10);
    ck_assert_uint_le(sb_test_columns(r.raw, strlen(r.raw) - 1), 79);
    cli_result_free(&r);
    char *const full[] = {SPACRBENCH_CLI, "run", "a", "--", "false", NULL};
    cli_run(full, NULL, &r);
    ck_assert_msg(r.exited && r.code == 3, "exit %d: %s", r.code, r.err);
    const char *workers = strstr(r.out, "recommended workers ");
    ck_assert_msg(workers, "%s", r.out);
    ck_assert_int_eq(strtoll(workers + strlen("recommended workers "), NULL, 10), fallback);
    static const char *const k_never[] = {"0 B, not measured", "baseline of 0 B"};
    for (size_t i = 0; i < sizeof k_never / sizeof *k_never; i++)
        ck_assert_msg(!strstr(r.out, k_never[i]), "%s in:\n%s", k_never[i], r.out);
    ck_assert_msg(strstr(r.out, "\n  peak RSS            not measured\n"
                                "  attributable to it  not measured\n"),
                  "%s", r.out);
    cli_result_free(&r);
    /* A run that stopped after an item: its line says so first (exit 3). */
    char *const stopped[] = {SPACRBENCH_CLI, "run", "--brief",     "0",  "3", "--",
                             "sh",           "-c",  "exit \"$0\"", "{}", NULL};
    cli_run(stopped, NULL, &r);
    ck_assert_msg(r.exited && r.code == 3, "exit %d: %s", r.code, r.err);
    ck_assert_msg(strncmp(r.raw, "stopped: peak RSS ", 18) == 0 && strstr(r.raw, " worker"), "%s",
                  r.raw);
    cli_result_free(&r);
    char *const with_json[] = {SPACRBENCH_CLI, "run", "--brief", "--json", "a", "--", "true", NULL};
    cli_run(with_json, NULL, &r);
    ck_assert_msg(r.exited && r.code == 2, "exit %d", r.code);
    ck_assert_ptr_nonnull(strstr(r.err, "spacrbench: --brief: prints its line on stdout"));
    cli_result_free(&r);
}
END_TEST

/* The report's `peak RSS` of one process is GNU time's %M for the same
 * command (both the kernel's ru_maxrss of it), with a cgroup of its own
 * (_i == 0) and without; the charge is beside it, never above it by more
 * than the page cache a 100 MiB allocation does not have. */
START_TEST(peak_rss_agrees_with_gnu_time)
{
    if (access("/usr/bin/time", X_OK) != 0) {
        printf("SKIP peak_rss_agrees_with_gnu_time: no /usr/bin/time (Debian's time package; "
               ".ci/run installs it)\n");
        return;
    }
    char *const gnu[] = {"/usr/bin/time", "-f", "%M", HELPER_ALLOC_TOUCH, "100", "300", NULL};
    cli_result t;
    cli_run(gnu, NULL, &t);
    ck_assert_msg(t.exited && t.code == 0, "GNU time: exit %d: %s", t.code, t.err);
    long long kib = -1; /* %M: its last line, in KiB */
    for (const char *line = t.err; line && *line;) {
        sscanf(line, "%lld", &kib);
        const char *nl = strchr(line, '\n');
        line = nl ? nl + 1 : NULL;
    }
    ck_assert_msg(kib > 100 * 1024, "GNU time said: %s", t.err);
    cli_result_free(&t);
    char *const argv[] = {SPACRBENCH_CLI,
                          "run",
                          "--json",
                          _i ? "--no-cgroup" : "--quiet",
                          "a",
                          "--",
                          "sh",
                          "-c",
                          "exec \"$0\" 100 300",
                          HELPER_ALLOC_TOUCH,
                          NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    if (cli_have_python()) {
        char *json = cli_temp_file(r.out);
        char expr[400];
        double gnu_bytes = (double)kib * 1024.0;
        snprintf(expr, sizeof expr,
                 "(lambda ours, gnu: abs(ours - gnu) <= max(2 * 2**20, 0.03 * gnu))"
                 "(d['measurement']['records'][0]['tree_rss_peak_bytes'], %.0f)",
                 gnu_bytes);
        expect(json, expr);
        /* The report's head line shows that figure, named for what it is. */
        expect(json, "\"the process tree's summed RSS\" in d['report']");
        if (_i == 0)
            expect(json, "d['memory_figures']['advice_uses'] != 'cgroup_charge' or "
                         "d['measurement']['records'][0]['cgroup_charge_bytes'] <= "
                         "d['measurement']['records'][0]['tree_rss_peak_bytes'] + 2 * 2**20");
        char *ours = cli_json_eval(json, "d['measurement']['records'][0]['tree_rss_peak_bytes']");
        printf("peak RSS of `alloc 100 MiB` (%s): GNU time %.1f MiB, spacrbench %.1f MiB\n",
               _i ? "no cgroup" : "cgroup", gnu_bytes / 1048576.0,
               ours ? atof(ours) / 1048576.0 : -1.0);
        free(ours);
        unlink(json);
        free(json);
    }
    cli_result_free(&r);
}
END_TEST

/* A shell spinning for a while: its tree's CPU is on the timeline, never
 * falling, near what wait4 says it used by the last sample. */
START_TEST(the_timeline_carries_the_cpu_used)
{
    /* _i & 1: --no-cgroup; _i & 2: the spin in a thread while the main
     * thread waits for it (a process's CPU is every thread's: the main
     * thread's own would show nothing until the exit). */
    const int threaded = _i & 2;
    char *const argv[] = {SPACRBENCH_CLI,
                          "run",
                          "--json",
                          "--quiet",
                          _i & 1 ? "--no-cgroup" : "--quiet",
                          "x",
                          "--",
                          threaded ? "python3" : "sh",
                          "-c",
                          threaded ? "import threading, time\n"
                                     "def spin():\n"
                                     "    t = time.time()\n"
                                     "    while time.time() - t < 0.6: pass\n"
                                     "w = threading.Thread(target=spin)\n"
                                     "w.start(); w.join()\n"
                                   : "i=0; while [ $i -lt 400000 ]; do i=$((i+1)); done",
                          NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    char *json = cli_temp_file(r.out);
    cli_result_free(&r);
    if (!cli_have_python()) {
        unlink(json);
        free(json);
        return;
    }
    char *busy = cli_json_eval(json, "'%.3f s of CPU in %.3f s, %d points' % "
                                     "(d['measurement']['records'][0]['cpu_seconds'], "
                                     "d['measurement']['records'][0]['seconds'], "
                                     "len(d['measurement']['timeline']['points']))");
    printf("spinning %s%s: %s\n", threaded ? "thread" : "shell", _i & 1 ? " (no cgroup)" : "",
           busy);
    free(busy);
    /* The spin takes well over 100 ms of CPU, sampled at least twice. */
    expect(json, "d['measurement']['records'][0]['cpu_seconds'] > 0.1 and len([p for p in "
                 "d['measurement']['timeline']['points'] if p['cpu_seconds'] is not None]) >= 2");
    expect(json, "(lambda c: all(a <= b for a, b in zip(c, c[1:])))([p['cpu_seconds'] for p in "
                 "d['measurement']['timeline']['points'] if p['cpu_seconds'] is not None])");
    /* What the last sample saw, against wait4's figure for the whole item:
     * never more, and at least half of the share of the item's time that
     * had passed by then (a spin uses its CPU evenly; the samples may be
     * spaced out on a busy machine, to keep within their budget). */
    expect(json, "(lambda m: (lambda last, it, cpu: 0.5 * cpu * (last['seconds'] - "
                 "it['start_seconds']) / (it['end_seconds'] - it['start_seconds']) <= "
                 "last['cpu_seconds'] <= cpu * 1.05 + 0.02)([p for p in m['timeline']['points'] if "
                 "p['cpu_seconds'] is not None][-1], m['timeline']['items'][0], "
                 "m['records'][0]['cpu_seconds']))(d['measurement'])");
    unlink(json);
    free(json);
}
END_TEST

/* Under GNU time (the direct parent), the note says what the peak's reset
 * does to GNU time's figure, and that ours is the benchmark's since the
 * reset (it said "the peak RSS here is the true one"). */
START_TEST(under_gnu_time_the_note_says_what_the_reset_lowers)
{
    if (access("/usr/bin/time", X_OK) != 0) {
        printf("SKIP under_gnu_time_the_note_says_what_the_reset_lowers: no /usr/bin/time "
               "(Debian's time package; .ci/run installs it)\n");
        return;
    }
    char *const argv[] = {"/usr/bin/time", "-f", "%M", SPACRBENCH_CLI, "--size", "64x64",
                          "--fields",      "2",  NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    /* The note unwrapped: each line break and the indent after it a space. */
    char *flat = strdup(r.out), *w = flat;
    for (const char *p = r.out; *p; p++) {
        if (*p == '\n' && p[1] == ' ') {
            while (p[1] == ' ')
                p++;
            *w++ = ' ';
        } else
            *w++ = *p;
    }
    *w = '\0';
    ck_assert_msg(strstr(flat, "under GNU time, which reads this process's ru_maxrss: the reset "
                               "lowers what it reads; the peak RSS here is the benchmark's since "
                               "the reset, not the process's lifetime peak"),
                  "%s", r.out);
    free(flat);
    cli_result_free(&r);
}
END_TEST

static Suite *figures_suite(void)
{
    Suite *s = suite_create("run figures");
    TCase *c = tcase_create("command");
    tcase_set_timeout(c, 120);
    tcase_add_loop_test(c, runs_repeat_each_measured_item, 0, 2);
    tcase_add_test(c, brief_answers_in_one_line);
    tcase_add_loop_test(c, peak_rss_agrees_with_gnu_time, 0, 2);
    tcase_add_test(c, under_gnu_time_the_note_says_what_the_reset_lowers);
    tcase_add_loop_test(c, the_timeline_carries_the_cpu_used, 0, 4);
    suite_add_tcase(s, c);
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
