/* The real `spacrbench` binary, run as a user would: default mode, `run`
 * with real child processes (allocating, forking, failing, killed), items
 * passed verbatim, JSON that parses and agrees with the human report, and
 * the SLURM/Dask hand-off following from the measured figures. */
#include <check.h>
#include <dirent.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_test_support.h"

#define MIB (1024.0 * 1024.0)

/* The number after `label` in text, or -1. */
static long long number_after(const char *text, const char *label)
{
    const char *p = strstr(text, label);
    return p ? strtoll(p + strlen(label), NULL, 10) : -1;
}

static char *json_of(const cli_result *r) { return cli_temp_file(r->out); }

static long long json_ll(const char *path, const char *expr)
{
    char *v = cli_json_eval(path, expr);
    ck_assert_msg(v != NULL, "JSON query failed: %s", expr);
    long long x = strtoll(v, NULL, 10);
    free(v);
    return x;
}

START_TEST(default_mode_prints_report_and_recommendation)
{
    char *const argv[] = {SPACRBENCH_CLI, "--size", "256x256", "--fields", "2", NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "recommended workers"));
    ck_assert_int_ge(number_after(r.out, "recommended workers"), 1);
    ck_assert_int_eq(number_after(r.out, "items measured"), 1); /* 2 fields, 1 warm-up */
    /* The short report: no notes on method, no item lines. */
    ck_assert_ptr_null(strstr(r.out, "256x256 field, 4 channel(s), 2 field(s)"));
    ck_assert_ptr_null(strstr(r.out, "item 2"));
    ck_assert_ptr_nonnull(strstr(r.out, "\n  what if             "));
    cli_result_free(&r);
    char *const verbose[] = {SPACRBENCH_CLI, "--size", "256x256", "--fields", "2",
                             "--verbose",    NULL};
    cli_run(verbose, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "256x256 field, 4 channel(s), 2 field(s)"));
    ck_assert_ptr_nonnull(strstr(r.out, "item 2"));
    /* Not a terminal: no progress lines. */
    ck_assert_ptr_null(strstr(r.err, "item 1/2"));
    cli_result_free(&r);
}
END_TEST

START_TEST(default_mode_json_describes_the_workload)
{
    char *const argv[] = {SPACRBENCH_CLI, "--size", "300x200", "--channels", "2", "--fields", "3",
                          "--warmup",     "0",      "--json",  NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    if (!cli_have_python()) {
        cli_result_free(&r);
        return;
    }
    char *path = json_of(&r);
    char *mode = cli_json_eval(path, "d['mode']");
    ck_assert_str_eq(mode, "demo");
    free(mode);
    ck_assert_int_eq(json_ll(path, "d['workload']['width'] * 1000 + d['workload']['height']"),
                     300200);
    ck_assert_int_eq(json_ll(path, "d['measurement']['items']"), 3);
    ck_assert_int_eq(json_ll(path, "len(d['measurement']['records'])"), 3);
    ck_assert_int_ge(json_ll(path, "min(d['workload']['objects_per_field'])"), 1);
    /* The field buffers are real: the peak is at least the raw + float
     * copies of one field. */
    ck_assert_int_ge(json_ll(path, "d['measurement']['peak_rss_bytes']"), 300 * 200 * 2 * 10);
    ck_assert_int_ge(json_ll(path, "d['recommendation']['workers']"), 1);
    unlink(path);
    free(path);
    cli_result_free(&r);
}
END_TEST

START_TEST(run_measures_an_allocating_command)
{
    /* _i = 0: a cgroup of its own where possible; 1: wait4 + sampling. */
    char *const argv[] = {SPACRBENCH_CLI, "run", "--json", _i ? "--no-cgroup" : "--quiet",
                          "64",           "160", "--",     HELPER_ALLOC_TOUCH,
                          "{}",           NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    if (!cli_have_python()) {
        cli_result_free(&r);
        return;
    }
    char *path = json_of(&r);
    char *method = cli_json_eval(path, "d['measurement']['peak_method']");
    printf("run peak method: %s\n", method);
    if (_i)
        ck_assert_str_eq(method, "child_rusage");
    const long long want[2] = {64, 160};
    long long own = json_ll(path, "d['spacrbench_rss_bytes']");
    ck_assert_int_gt(own, 0);
    for (int i = 0; i < 2; i++) {
        char expr[96];
        snprintf(expr, sizeof expr, "d['measurement']['records'][%d]['peak_rss_bytes']", i);
        long long peak = json_ll(path, expr);
        printf("item %d: asked %lld MiB, measured %.1f MiB\n", i + 1, want[i], (double)peak / MIB);
        /* At least what it touched; at most 10% more (its own binary, libc,
         * and with a cgroup the page cache it read): never spacrbench's own
         * size (the commands start from a small launcher). */
        ck_assert_int_ge(peak, want[i] * 1024 * 1024);
        ck_assert_int_le(peak, (long long)((double)want[i] * 1.10 * MIB));
    }
    ck_assert_int_eq(json_ll(path, "d['measurement']['items']"), 2);
    ck_assert_int_eq(json_ll(path, "d['measurement']['baseline_rss_bytes']"), 0);
    ck_assert_int_ge(json_ll(path, "d['measurement']['peak_rss_bytes']"), 160LL * 1024 * 1024);
    /* The notes say which method was used (and, for a cgroup, that page
     * cache counts). */
    char *said = cli_json_eval(path, "any(('page cache it reads or writes counts' "
                                     "if d['measurement']['peak_method'] == 'cgroup' else "
                                     "'ms at least, more where a sample would cost') in n "
                                     "for n in d['measurement']['notes'])");
    ck_assert_str_eq(said, "True");
    free(said);
    free(method);
    unlink(path);
    free(path);
    cli_result_free(&r);
    ck_assert_int_eq(cli_count_leftover_cgroups(), 0);
}
END_TEST

START_TEST(run_counts_a_forked_child)
{
    char *const argv[] = {
        SPACRBENCH_CLI,    "run", "--json", _i ? "--no-cgroup" : "--quiet", "96", "--",
        HELPER_FORK_ALLOC, "{}",  NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    if (!cli_have_python()) {
        cli_result_free(&r);
        return;
    }
    char *path = json_of(&r);
    long long peak = json_ll(path, "d['measurement']['records'][0]['peak_rss_bytes']");
    printf("forked child of 96 MiB (%s): tree peak %.1f MiB\n", _i ? "no cgroup" : "cgroup",
           (double)peak / MIB);
    ck_assert_int_ge(peak, 96LL * 1024 * 1024);
    /* The helper's parent process counts too (a few MiB). */
    long long own = _i ? json_ll(path, "d['spacrbench_rss_bytes']") : 0;
    ck_assert_int_le(peak, (long long)(96 * 1.10 * MIB) + 8LL * 1024 * 1024 + own);
    unlink(path);
    free(path);
    cli_result_free(&r);
}
END_TEST

/* Issue 41, finding 5: resetting the high-water mark lowers this
 * process's ru_maxrss, which GNU time and a SLURM step's accounting read:
 * the report says so there (short or verbose), and nowhere else. */
START_TEST(a_parent_reading_ru_maxrss_is_told_it_reads_low)
{
    const char *note = "note                under ";
    unsetenv("SLURM_JOB_ID");
    unsetenv("SLURM_STEP_ID");
    char *const plain[] = {SPACRBENCH_CLI, "--size", "256x256", "--fields", "2", NULL};
    cli_result r;
    cli_run(plain, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    ck_assert_msg(strstr(r.out, note) == NULL, "%s", r.out);
    int reset = strstr(r.out, "exact, kernel high-water mark") != NULL;
    cli_result_free(&r);
    if (!reset) { /* no clear_refs here (gVisor, a hardened kernel): no reset to speak of */
        printf("SKIP a_parent_reading_ru_maxrss_is_told_it_reads_low: the high-water mark "
               "could not be reset here\n");
        return;
    }
    setenv("SLURM_JOB_ID", "41", 1);
    cli_run(plain, NULL, &r);
    unsetenv("SLURM_JOB_ID");
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    ck_assert_msg(strstr(r.out, "note                under a SLURM step, which reads this "
                                "process's ru_maxrss:"),
                  "%s", r.out);
    cli_result_free(&r);
    if (access("/usr/bin/time", X_OK) != 0) {
        printf("SKIP a_parent_reading_ru_maxrss_is_told_it_reads_low (GNU time): no "
               "/usr/bin/time\n");
        return;
    }
    char *const timed[] = {"/usr/bin/time", "-o", "/dev/null", SPACRBENCH_CLI, "--size", "256x256",
                           "--fields",      "2",  NULL};
    cli_run(timed, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    ck_assert_msg(strstr(r.out, "note                under GNU time, which reads"), "%s", r.out);
    cli_result_free(&r);
}
END_TEST

/* --available: the advice for another machine's memory (Python's
 * available_bytes), the what-if line beside it; a bad size exits 2. */
START_TEST(available_asks_for_another_machines_memory)
{
    char *const argv[] = {SPACRBENCH_CLI, "--size", "256x256", "--fields", "2",
                          "--available",  "3G",     "--cores", "64",       NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    ck_assert_msg(strstr(r.out, "\n  memory available    3.00 GiB (--available), reserve "
                                "2.00 GiB\n  usable cores        64 (--cores)\n"),
                  "%s", r.out);
    ck_assert_msg(strstr(r.out, " each: 8 GiB -> "), "%s", r.out);
    cli_result_free(&r);
    char *const bad[] = {SPACRBENCH_CLI, "--available", "3X", NULL};
    cli_expect_usage_error(bad, "spacrbench: --available: size '3X'", 0);
}
END_TEST

START_TEST(failing_command_stops_the_run_with_a_partial_report)
{
    char *const argv[] = {SPACRBENCH_CLI,     "run", "-v", "0", "3", "0", "--",
                          HELPER_EXIT_STATUS, "{}",  NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 3, "exit %d: %s", r.code, r.err);
    ck_assert_msg(strstr(r.err, "item 2 (3) exited with status 3") != NULL, "stderr: %s", r.err);
    ck_assert_ptr_nonnull(strstr(r.err, HELPER_EXIT_STATUS " 3"));
    /* The report of what ran: item 1 only. */
    ck_assert_int_eq(number_after(r.out, "items measured"), 1);
    ck_assert_ptr_nonnull(strstr(r.out, "item 1 "));
    ck_assert_ptr_null(strstr(r.out, "item 3 "));
    ck_assert_ptr_nonnull(strstr(r.out, "stopped at item 2"));
    cli_result_free(&r);
    ck_assert_int_eq(cli_count_leftover_cgroups(), 0);

    /* The first item failing: nothing measured, so the JSON carries the
     * fallback recommendation (docs/cli.md) and no schedule. */
    char *const first[] = {SPACRBENCH_CLI,     "run", "--json", "3", "--",
                           HELPER_EXIT_STATUS, "{}",  NULL};
    cli_run(first, NULL, &r);
    ck_assert_msg(r.exited && r.code == 3, "exit %d: %s", r.code, r.err);
    if (cli_have_python()) {
        char *path = json_of(&r);
        char *bound = cli_json_eval(path, "d['recommendation']['bound']");
        ck_assert_str_eq(bound, "fallback");
        free(bound);
        char *reason = cli_json_eval(path, "'no usable memory measurement' in "
                                           "d['recommendation']['reason']");
        ck_assert_str_eq(reason, "True");
        free(reason);
        char *sched = cli_json_eval(path, "d['schedule'] is None");
        ck_assert_str_eq(sched, "True");
        free(sched);
        unlink(path);
        free(path);
    }
    cli_result_free(&r);
}
END_TEST

START_TEST(killed_command_stops_the_run_naming_the_signal)
{
    char *const argv[] = {SPACRBENCH_CLI, "run", "0", "15", "--", HELPER_KILL_SELF, "{}", NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 3, "exit %d: %s", r.code, r.err);
    ck_assert_msg(strstr(r.err, "item 2 (15) killed by signal 15") != NULL, "stderr: %s", r.err);
    ck_assert_int_eq(number_after(r.out, "items measured"), 1);
    cli_result_free(&r);
}
END_TEST

START_TEST(sigterm_to_spacrbench_stops_the_command_and_cleans_up)
{
    /* The command signals spacrbench itself (its parent), which passes the
     * signal on, stops after this item and still reports. */
    char *const argv[] = {SPACRBENCH_CLI, "run",     "a",  "b",
                          "--",           "/bin/sh", "-c", "kill -TERM $PPID; exec sleep 30",
                          "sh",           "{}",      NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 3, "exit %d: %s", r.code, r.err);
    ck_assert_msg(strstr(r.out, "interrupted by signal 15") != NULL, "stdout: %s", r.out);
    ck_assert_msg(strstr(r.err, "item 1 (a) killed by signal 15") != NULL, "stderr: %s", r.err);
    ck_assert_int_eq(number_after(r.out, "items measured"), 0); /* b never ran */
    cli_result_free(&r);
    ck_assert_int_eq(cli_count_leftover_cgroups(), 0);
}
END_TEST

START_TEST(sigquit_to_spacrbench_stops_the_command_and_cleans_up)
{
    char *const argv[] = {SPACRBENCH_CLI, "run",     "a",  "b",
                          "--",           "/bin/sh", "-c", "kill -QUIT $PPID; exec sleep 30",
                          "sh",           "{}",      NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 3, "exited %d, code %d: %s", r.exited, r.code, r.err);
    ck_assert_msg(strstr(r.out, "interrupted by signal 3") != NULL, "stdout: %s", r.out);
    ck_assert_msg(strstr(r.err, "item 1 (a) killed by signal 3") != NULL, "stderr: %s", r.err);
    ck_assert_int_eq(number_after(r.out, "items measured"), 0);
    cli_result_free(&r);
    ck_assert_int_eq(cli_count_leftover_cgroups(), 0);
}
END_TEST

/* Started with SIGHUP ignored (nohup), spacrbench and the command keep
 * ignoring it: the run completes. */
START_TEST(ignored_sighup_stays_ignored)
{
    char *const argv[] = {SPACRBENCH_CLI,
                          "run",
                          "--quiet",
                          "a",
                          "b",
                          "--",
                          "/bin/sh",
                          "-c",
                          "kill -HUP $PPID; kill -HUP $$; exit 0",
                          "sh",
                          "{}",
                          NULL};
    struct sigaction ign, old;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    ck_assert_int_eq(sigaction(SIGHUP, &ign, &old), 0);
    cli_result r;
    cli_run(argv, NULL, &r);
    sigaction(SIGHUP, &old, NULL);
    ck_assert_msg(r.exited && r.code == 0, "exited %d, code %d: %s", r.exited, r.code, r.err);
    ck_assert_int_eq(number_after(r.out, "items measured"), 2);
    ck_assert_ptr_null(strstr(r.out, "interrupted"));
    cli_result_free(&r);
}
END_TEST

/* The human report keeps each item on one line: control characters in an
 * item are escaped there (the command still gets the item verbatim). */
START_TEST(human_report_escapes_control_characters_in_items)
{
    char *const argv[] = {SPACRBENCH_CLI, "run",       "-qv", "two\nlines", "tab\there\x01",
                          "--",           "/bin/true", "{}",  NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    ck_assert_msg(strstr(r.out, ": two\\nlines\n") != NULL, "stdout: %s", r.out);
    ck_assert_msg(strstr(r.out, ": tab\\there\\x01\n") != NULL, "stdout: %s", r.out);
    ck_assert_ptr_null(strstr(r.out, "two\nlines"));
    cli_result_free(&r);
}
END_TEST

START_TEST(unlaunchable_command_is_reported)
{
    char *const argv[] = {SPACRBENCH_CLI, "run", "x", "--", "/nonexistent/spacrbench-tool",
                          "{}",           NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 127, "exit %d: %s", r.code, r.err);
    ck_assert_msg(strstr(r.err, "cannot be started: No such file or directory") != NULL, "%s",
                  r.err);
    ck_assert_ptr_nonnull(strstr(r.err, "/nonexistent/spacrbench-tool x"));
    ck_assert_int_eq(number_after(r.out, "items measured"), 0);
    /* Nothing ran, so nothing is recommended (it said "2 workers" from
     * the core count alone), and the report says why. */
    ck_assert_ptr_null(strstr(r.out, "recommended workers"));
    ck_assert_ptr_nonnull(strstr(r.out, "no recommendation: the command could not be started"));
    /* A command that never started has no time or peak to give. */
    ck_assert_msg(strstr(r.out, "(x): cannot be started: No such file or directory; not counted"),
                  "%s", r.out);
    cli_result_free(&r);
    ck_assert_int_eq(cli_count_leftover_cgroups(), 0);
}
END_TEST

START_TEST(items_reach_the_command_verbatim)
{
    char *log = cli_temp_file("");
    char *const argv[] = {SPACRBENCH_CLI, "run", "--quiet",         "a b", "it's", "say \"hi\"",
                          "$HOME;*",      "--",  HELPER_RECORD_ARG, log,   "{}",   NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    char *got = cli_read_file(log);
    ck_assert_str_eq(got, "a b\nit's\nsay \"hi\"\n$HOME;*\n");
    free(got);
    unlink(log);
    free(log);
    cli_result_free(&r);
}
END_TEST

START_TEST(items_from_standard_input_and_from_a_file)
{
    char *list = cli_temp_file("first item\r\n\n  second\nthird\n");
    for (int from_file = 0; from_file < 2; from_file++) {
        char *log = cli_temp_file("");
        char *const with_file[] = {SPACRBENCH_CLI,    "run", "--items", list, "--",
                                   HELPER_RECORD_ARG, log,   "[{}]",    NULL};
        char *const with_stdin[] = {SPACRBENCH_CLI, "run", "--", HELPER_RECORD_ARG, log,
                                    "[{}]",         NULL};
        cli_result r;
        cli_run(from_file ? with_file : with_stdin, from_file ? NULL : list, &r);
        ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
        char *got = cli_read_file(log);
        ck_assert_str_eq(got, "[first item]\n[  second]\n[third]\n");
        ck_assert_int_eq(number_after(r.out, "items measured"), 3);
        free(got);
        unlink(log);
        free(log);
        cli_result_free(&r);
    }
    unlink(list);
    free(list);
}
END_TEST

START_TEST(empty_item_list_is_an_error)
{
    char *const from_file[] = {SPACRBENCH_CLI, "run", "--items", "/dev/null", "--", "true", NULL};
    char *const from_stdin[] = {SPACRBENCH_CLI, "run", "--", "true", NULL};
    char *const *cases[] = {from_file, from_stdin};
    for (int i = 0; i < 2; i++) {
        cli_result r;
        cli_run(cases[i], NULL, &r);
        ck_assert_msg(r.exited && r.code == 2, "exit %d", r.code);
        ck_assert_msg(strstr(r.err, "no items to run") != NULL, "stderr: %s", r.err);
        ck_assert_str_eq(r.out, "");
        cli_result_free(&r);
    }
}
END_TEST

START_TEST(json_holds_the_figures_of_the_human_report)
{
    char *report = cli_temp_file("");
    char txt[512];
    snprintf(txt, sizeof txt, "%s.txt", report);
    char *const argv[] = {SPACRBENCH_CLI, "run", "--json",           "--report", txt,
                          "--reserve",    "1G",  "--maximum",        "7",        "48",
                          "24",           "--",  HELPER_ALLOC_TOUCH, "{}",       NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    char *human = cli_read_file(txt);
    ck_assert_ptr_nonnull(human);
    if (cli_have_python()) {
        char *path = json_of(&r);
        ck_assert_int_eq(json_ll(path, "d['recommendation']['workers']"),
                         number_after(human, "recommended workers"));
        ck_assert_int_eq(json_ll(path, "d['recommendation']['reserve_bytes']"), 1LL << 30);
        ck_assert_int_eq(json_ll(path, "d['recommendation']['maximum']"), 7);
        ck_assert_int_eq(json_ll(path, "d['measurement']['items']"),
                         number_after(human, "items measured"));
        /* The same peak RSS, as the report prints it: spaCR's GiB, then the
         * exact size; the process tree's where the run measured one. */
        char *peak = cli_json_eval(path, "(lambda m: (lambda b: '%.2f GiB (%.1f MiB' % (b / 2**30, "
                                         "b / 2**20))(m['peak_rss_bytes'] if m['tree_rss_peak_"
                                         "bytes'] is None else m['tree_rss_peak_bytes']))"
                                         "(d['measurement'])");
        char line[96];
        snprintf(line, sizeof line, "peak RSS            %s", peak);
        ck_assert_msg(strstr(human, line) != NULL, "'%s' not in:\n%s", line, human);
        /* The JSON embeds the very report written to the file. */
        char expr[700];
        snprintf(expr, sizeof expr, "d['report'] == open('%s').read()", txt);
        char *same = cli_json_eval(path, expr);
        ck_assert_str_eq(same, "True");
        free(same);
        free(peak);
        unlink(path);
        free(path);
    }
    free(human);
    unlink(txt);
    unlink(report);
    free(report);
    cli_result_free(&r);
}
END_TEST

/* Check the hand-off rule from the figures in the JSON report. */
static void expect_rule(const char *json, long long *mem_mib, long long *cpus, long long *conc)
{
    long long peak = json_ll(json, "d['measurement']['peak_rss_bytes']");
    long long margin = (peak + 3) / 4 > 256LL << 20 ? (peak + 3) / 4 : 256LL << 20;
    *mem_mib = (peak + margin + (1 << 20) - 1) >> 20;
    long long cores = json_ll(json, "d['recommendation']['cores']");
    long long workers = json_ll(json, "d['recommendation']['workers']");
    char *ratio =
        cli_json_eval(json, "d['measurement']['cpu_seconds'] / d['measurement']['seconds']");
    double r = strtod(ratio, NULL);
    free(ratio);
    *cpus = (long long)ceil(r - 0.1);
    if (*cpus < 1)
        *cpus = 1;
    if (*cpus > cores)
        *cpus = cores;
    *conc = workers * *cpus > cores ? (cores / *cpus > 0 ? cores / *cpus : 1) : workers;
    long long available = json_ll(json, "d['recommendation']['available_bytes']");
    long long reserve = json_ll(json, "d['recommendation']['reserve_bytes']");
    if (available > 0) {
        long long room = available - (reserve > 0 ? reserve : 0);
        long long fit = room > 0 ? room / (*mem_mib << 20) : 0;
        if (*conc > fit)
            *conc = fit > 0 ? fit : 1;
    }
    ck_assert_int_eq(json_ll(json, "d['schedule']['mem_per_task_bytes']"), *mem_mib << 20);
}

START_TEST(emit_slurm_follows_from_the_figures)
{
    char *base = cli_temp_file("");
    char *items = cli_temp_file("40\n\n40\r\n40\n40\n");
    char json[512], out_dir[512];
    snprintf(json, sizeof json, "%s.json", base);
    snprintf(out_dir, sizeof out_dir, "%s.d/tasks", base);
    char *const argv[] = {SPACRBENCH_CLI, "run", "--emit",           "slurm", "--quiet",
                          "--report",     json,  "--items",          items,   "--slurm-output",
                          out_dir,        "--",  HELPER_ALLOC_TOUCH, "{}",    NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    ck_assert_ptr_null(strstr(r.out, "spaCR benchmark")); /* only the settings on stdout */
    ck_assert_str_eq(r.err, "");                          /* --quiet: no report */
    if (cli_have_python()) {
        long long mem, cpus, conc;
        expect_rule(json, &mem, &cpus, &conc);
        ck_assert_int_eq(number_after(r.out, "#SBATCH --mem="), mem);
        ck_assert_int_eq(number_after(r.out, "#SBATCH --cpus-per-task="), cpus);
        /* 4 items (the empty line skipped): 0-3, no %K throttle (SLURM
         * applies it to the whole array); what fits a node, in a comment. */
        ck_assert_ptr_nonnull(strstr(r.out, "\n#SBATCH --array=0-3\n"));
        char fits[64];
        snprintf(fits, sizeof fits, "\n# %lld such task(s) fit one node", conc < 4 ? conc : 4);
        ck_assert_msg(strstr(r.out, fits) != NULL, "%s not in %s", fits, r.out);
        ck_assert_ptr_nonnull(strstr(r.out, "\n#SBATCH --time=00:05:00\n"));
        /* 40 MiB peak: the 256 MiB floor applies. */
        ck_assert_int_ge(mem, 256 + 40);
    }
    /* A script that submits as is: this binary's path, the created output
     * directory, the items file. */
    ck_assert_int_eq(strncmp(r.out, "#!/bin/bash\n", 12), 0);
    char want[1024];
    struct stat st;
    ck_assert_int_eq(stat(out_dir, &st), 0);
    snprintf(want, sizeof want, "\n#SBATCH --output=%s/slurm-%%A_%%a.out\n", out_dir);
    ck_assert_msg(strstr(r.out, want) != NULL, "%s not in %s", want, r.out);
    snprintf(want, sizeof want, "\nitems_file='%s'\n", items);
    ck_assert_msg(strstr(r.out, want) != NULL, "%s not in %s", want, r.out);
    ck_assert_ptr_nonnull(strstr(r.out, "\nspacrbench='/"));
    /* The array's index and manifest beside the reports. */
    snprintf(want, sizeof want, "%s/spacrbench-items.idx", out_dir);
    ck_assert_int_eq(stat(want, &st), 0);
    ck_assert_int_eq(st.st_size, (1 + 4) * 40); /* the header and one line per item */
    unlink(want);
    snprintf(want, sizeof want, "%s/spacrbench-array.json", out_dir);
    ck_assert_int_eq(unlink(want), 0);
    snprintf(want, sizeof want, "%s/spacrbench-job.sh", out_dir);
    ck_assert_int_eq(unlink(want), 0);
    rmdir(out_dir);
    *strrchr(out_dir, '/') = '\0';
    rmdir(out_dir);
    unlink(items);
    free(items);
    unlink(json);
    unlink(base);
    free(base);
    cli_result_free(&r);
}
END_TEST

/* The report's case: a second emit into the directory of a queued job.
 * It is refused (exit 1, the first job's files untouched, the message
 * saying what to do); and when another array's index is put there by
 * hand, the first job's task stops at once (exit 65) instead of running
 * another item. */
START_TEST(a_second_emit_never_breaks_a_queued_job)
{
    char *base = cli_temp_file("");
    char *items = cli_temp_file("a\nbb\nccc\n");
    char *other = cli_temp_file("x\ny\nz\nw\nv\n");
    char dir[512], dir_b[512], job[600], idx[600], idx_b[600];
    snprintf(dir, sizeof dir, "%s.d", base);
    snprintf(dir_b, sizeof dir_b, "%s.b", base);
    snprintf(job, sizeof job, "%s.job.sh", base);
    snprintf(idx, sizeof idx, "%s/spacrbench-items.idx", dir);
    snprintf(idx_b, sizeof idx_b, "%s/spacrbench-items.idx", dir_b);
    char *const first[] = {SPACRBENCH_CLI,   "run", "-q", "--items", items, "--emit", "slurm",
                           "--slurm-output", dir,   "--", "true",    "{}",  NULL};
    cli_result r;
    cli_run(first, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    FILE *f = fopen(job, "w");
    ck_assert_ptr_nonnull(f);
    fputs(r.out, f);
    fclose(f);
    cli_result_free(&r);
    char *index_before = cli_read_file(idx);
    /* Another items file: refused before any item runs. */
    char marker[600], touch[700];
    snprintf(marker, sizeof marker, "%s.ran", base);
    snprintf(touch, sizeof touch, "touch '%s'", marker);
    char *const second[] = {
        SPACRBENCH_CLI, "run",     "-q", "--items", other, "--emit", "slurm", "--slurm-output", dir,
        "--",           "/bin/sh", "-c", touch,     "{}",  NULL};
    cli_run(second, NULL, &r);
    ck_assert_msg(r.exited && r.code == 1, "exit %d: %s", r.code, r.err);
    ck_assert_str_eq(r.out, ""); /* no script printed */
    ck_assert_ptr_nonnull(strstr(r.err, "holds another job array's files"));
    ck_assert_ptr_nonnull(strstr(r.err, "nothing was run or written"));
    ck_assert_ptr_nonnull(strstr(r.err, "--slurm-output DIR"));
    ck_assert_ptr_nonnull(strstr(r.err, dir));
    struct stat st;
    ck_assert_int_ne(stat(marker, &st), 0);
    char *index_after = cli_read_file(idx);
    ck_assert_str_eq(index_before, index_after);
    free(index_after);
    cli_result_free(&r);
    /* The same items file with other contents: refused once the run is
     * over (the library compares the index), the files untouched. */
    FILE *g = fopen(items, "w");
    ck_assert_ptr_nonnull(g);
    fputs("a\nbX\nccc\n", g);
    fclose(g);
    cli_run(first, NULL, &r);
    ck_assert_msg(r.exited && r.code == 1, "exit %d: %s", r.code, r.err);
    ck_assert_str_eq(r.out, "");
    /* The index is named whatever else differs (under TSan the re-measured
     * --mem can make the script differ too). */
    ck_assert_ptr_nonnull(strstr(r.err, "items index (the items file's contents)"));
    ck_assert_ptr_nonnull(strstr(r.err, "holds another job array's files (its "));
    index_after = cli_read_file(idx);
    ck_assert_str_eq(index_before, index_after);
    free(index_after);
    cli_result_free(&r);
    g = fopen(items, "w");
    ck_assert_ptr_nonnull(g);
    fputs("a\nbb\nccc\n", g);
    fclose(g);
    /* The same emit again is accepted only when its script is the same,
     * and a second measurement's --mem can round to the next MiB (under
     * TSan the forked child's runtime is charged before it execs): that
     * case is check_slurm_script's another_arrays_files_are_never_replaced,
     * from fixed figures. */

    /* Task 1 of the first job runs its own item. */
    char *const task[] = {"/usr/bin/env", "SLURM_ARRAY_TASK_ID=1", "bash", job, NULL};
    cli_run(task, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "\"item\": \"bb\""));
    cli_result_free(&r);

    /* Another array's index copied over it by hand: the task stops. */
    char *const elsewhere[] = {SPACRBENCH_CLI,   "run", "-q", "--items", other, "--emit", "slurm",
                               "--slurm-output", dir_b, "--", "true",    "{}",  NULL};
    cli_run(elsewhere, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    cli_result_free(&r);
    char *foreign = cli_read_file(idx_b);
    f = fopen(idx, "w");
    ck_assert_ptr_nonnull(f);
    fputs(foreign, f);
    fclose(f);
    free(foreign);
    cli_run(task, NULL, &r);
    ck_assert_msg(r.exited && r.code == 65, "exit %d: %s", r.code, r.err);
    ck_assert_str_eq(r.out, "");
    ck_assert_ptr_nonnull(strstr(r.err, "belongs to another array"));
    ck_assert_ptr_nonnull(strstr(r.err, "nothing was run"));
    cli_result_free(&r);

    /* Its own index back, but the items file edited in place (as many
     * bytes): the task's item is not the one indexed. */
    f = fopen(idx, "w");
    ck_assert_ptr_nonnull(f);
    fputs(index_before, f);
    fclose(f);
    f = fopen(items, "w");
    ck_assert_ptr_nonnull(f);
    fputs("a\nbX\nccc\n", f);
    fclose(f);
    cli_run(task, NULL, &r);
    ck_assert_msg(r.exited && r.code == 65, "exit %d: %s", r.code, r.err);
    ck_assert_ptr_nonnull(strstr(r.err, "is not the one indexed"));
    cli_result_free(&r);
    free(index_before);

    static const char *const names[] = {"spacrbench-items.idx", "spacrbench-job.sh",
                                        "spacrbench-array.json", "task-1.json"};
    char path[700];
    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
        snprintf(path, sizeof path, "%s/%s", dir_b, names[i]);
        unlink(path);
    }
    ck_assert_int_eq(rmdir(dir), 0);
    ck_assert_int_eq(rmdir(dir_b), 0);
    unlink(job);
    unlink(items);
    unlink(other);
    unlink(base);
    free(items);
    free(other);
    free(base);
}
END_TEST

START_TEST(slurm_script_needs_an_items_file)
{
    struct {
        const char *args[4];
        const char *option;
    } cases[] = {
        {{"--emit", "slurm", "a", NULL}, "--emit slurm: the job script needs the items in a file"},
        {{"--emit", "slurm", "--items", "-"}, "--emit slurm: the job script needs"},
        {{"--sbatch", "--time=5", "a", NULL}, "--sbatch: shapes the job script: needs --emit"},
        {{"--emit", "slurm", "--sbatch", "time=5"}, "--sbatch: expected an sbatch option"},
        {{"--emit", "slurm", "--job-name", "a b"}, "--job-name: no whitespace"},
        {{"--emit", "slurm", "--sbatch", "--array=0-99"},
         "--sbatch: '--array=0-99': sbatch reads '--array=0-99' as --array: the script"},
        {{"--emit", "slurm", "--sbatch", "-a0-9"}, "--array-limit N"},
        /* sbatch reads every option of the line, and abbreviations. */
        {{"--emit", "slurm", "--sbatch", "--partition=short --array=0-99"}, "as --array"},
        {{"--emit", "slurm", "--sbatch", "--arr=0-9"}, "reads '--arr=0-9' as --array"},
        {{"--emit", "slurm", "--sbatch", "-Ha1-2"}, "reads '-Ha1-2' as --array"},
        {{"--emit", "slurm", "--sbatch", "--mem-per-cpu=1G"}, "beside the script's own --mem"},
        {{"--emit", "slurm", "--sbatch", "-o x"}, "as --output or --error"},
        {{"--emit", "slurm", "--sbatch", "--ti=5"}, "ambiguous abbreviation"},
        {{"--emit", "slurm", "--sbatch", "--time=forever"}, "--time 'forever' is not a time"},
        {{"--emit", "slurm", "--array-limit", "0"}, "--array-limit: expected the most tasks"},
        {{"--array-limit", "4", "a", NULL}, "--array-limit: shapes the job script"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *argv[10] = {SPACRBENCH_CLI, "run"};
        size_t n = 2;
        for (size_t k = 0; k < 4 && cases[i].args[k]; k++)
            argv[n++] = (char *)cases[i].args[k];
        argv[n++] = "--";
        argv[n++] = "true";
        argv[n] = NULL;
        cli_expect_usage_error(argv, cases[i].option, i);
    }
}
END_TEST

/* An --slurm-output past PATH_MAX: refused before the run as every output
 * is (exit 2), and not one directory made. */
START_TEST(a_too_long_slurm_output_creates_nothing)
{
    char *items = cli_temp_file("a\n");
    char base[64], *dir = malloc(6000);
    snprintf(base, sizeof base, "/tmp/sbtest-long-%ld", (long)getpid());
    int n = snprintf(dir, 6000, "%s", base);
    while (n < 5000)
        n += snprintf(dir + n, 6000 - (size_t)n, "/%0200d", 0);
    char *const argv[] = {SPACRBENCH_CLI,   "run", "--quiet", "--emit", "slurm", "--items", items,
                          "--slurm-output", dir,   "--",      "true",   NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 2, "exit %d: %s", r.code, r.err);
    ck_assert_ptr_nonnull(strstr(r.err, "File name too long"));
    ck_assert_ptr_nonnull(strstr(r.err, "(see spacrbench run --help)"));
    struct stat st;
    ck_assert_msg(stat(base, &st) != 0, "%s was created", base);
    cli_result_free(&r);
    unlink(items);
    free(items);
    free(dir);
}
END_TEST

START_TEST(emit_dask_follows_from_the_figures)
{
    char *base = cli_temp_file("");
    char json[512];
    snprintf(json, sizeof json, "%s.json", base);
    char *const argv[] = {
        SPACRBENCH_CLI, "run", "--emit",           "dask", "--report", json, "--cores", "1",
        "40",           "--",  HELPER_ALLOC_TOUCH, "{}",   NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    ck_assert_ptr_nonnull(strstr(r.err, "recommended workers")); /* the report went to stderr */
    if (cli_have_python()) {
        long long mem, cpus, conc;
        expect_rule(json, &mem, &cpus, &conc);
        ck_assert_int_eq(conc, 1); /* --cores 1 */
        ck_assert_int_eq(number_after(r.out, "n_workers = "), conc);
        ck_assert_int_eq(number_after(r.out, "threads_per_worker = "), cpus);
        /* Dask: (peak + margin) / 0.6, distributed's default target. */
        long long limit = (long long)number_after(r.out, "memory_limit = \"");
        ck_assert_int_ge(limit * 6, mem * 10);
        ck_assert_int_le(limit * 6, mem * 10 + 6);
    }
    unlink(json);
    unlink(base);
    free(base);
    cli_result_free(&r);
}
END_TEST

START_TEST(bad_options_exit_2_naming_the_option)
{
    static const char *const cases[][6] = {
        {"--cores", "x", NULL, NULL, NULL, "--cores"},
        {"--reserve", "2Q", NULL, NULL, NULL, "--reserve"},
        {"--emit", "pbs", NULL, NULL, NULL, "--emit"},
        {"--size", "12", NULL, NULL, NULL, "--size"},
        {"--fields", "0", NULL, NULL, NULL, "--fields"},
        {"--maximum", NULL, NULL, NULL, NULL, "--maximum"},
        {"--bogus", NULL, NULL, NULL, NULL, "--bogus"},
        {"run", "a", NULL, NULL, NULL, "run"},
        {"run", "--warmup", "-1", "a", "--", "--warmup"},
        {"--json", "--emit", "slurm", NULL, NULL, "--emit"},
        {"--size", "65536x65536", "--channels", "64", NULL, "--size"},
        {"--width", "4", NULL, NULL, NULL, "--width"},
        {"--size", "64x64", "--height", "70000", NULL, "--height"},
        {"--height", "4", "--size", "64x2", NULL, "--size"},
        {"--reserve", "0x10", NULL, NULL, NULL, "--reserve"},
        {"--cores", "+4", NULL, NULL, NULL, "--cores"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *argv[8] = {SPACRBENCH_CLI};
        int n = 1;
        for (int k = 0; k < 5 && cases[i][k]; k++)
            argv[n++] = (char *)cases[i][k];
        if (i == 8)
            argv[n++] = "true";
        argv[n] = NULL;
        char want[64];
        snprintf(want, sizeof want, "spacrbench: %s:", cases[i][5]);
        cli_expect_usage_error(argv, want, i);
    }
}
END_TEST

/* One field cannot have a warm-up: the JSON says the warm-up used (0), as
 * the measurement does. */
START_TEST(default_mode_reports_the_clamped_warmup)
{
    char *const argv[] = {SPACRBENCH_CLI, "--size", "64x64", "--fields", "1", "--json", NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    if (cli_have_python()) {
        char *path = json_of(&r);
        ck_assert_int_eq(json_ll(path, "d['workload']['warmup']"),
                         json_ll(path, "d['measurement']['warmup_items']"));
        ck_assert_int_eq(json_ll(path, "d['measurement']['items']"), 1);
        unlink(path);
        free(path);
    }
    cli_result_free(&r);
}
END_TEST

START_TEST(report_file_is_written_whole)
{
    char dir[] = "/tmp/spacrbench-cli-dir-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[600];
    snprintf(path, sizeof path, "%s/report.txt", dir);
    char *const argv[] = {SPACRBENCH_CLI, "--size", "64x64",   "--fields", "2",
                          "--report",     path,     "--quiet", NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    char *text = cli_read_file(path);
    ck_assert_ptr_nonnull(text);
    ck_assert_str_eq(text, r.raw); /* the same report as on stdout */
    DIR *d = opendir(dir);
    struct dirent *e;
    int files = 0;
    while ((e = readdir(d)))
        files += e->d_name[0] != '.';
    closedir(d);
    ck_assert_int_eq(files, 1); /* no temporary file left */
    free(text);
    unlink(path);
    rmdir(dir);
    cli_result_free(&r);

    /* A directory that does not exist: refused before the run (exit 2, no
     * report, nothing measured for nothing), for every file option, each
     * under its own name. */
    static const char *const outputs[][2] = {{"--report", "/nonexistent-dir/r.txt"},
                                             {"--export-csv", "/nonexistent-dir/r.csv"},
                                             {"--export-markdown", "/nonexistent-dir/r.md"},
                                             {"--plot", "/nonexistent-dir/r.png"}};
    for (size_t i = 0; i < sizeof outputs / sizeof outputs[0]; i++) {
        char *const bad[] = {
            SPACRBENCH_CLI,        "--size", "64x64", "--fields", "1", (char *)outputs[i][0],
            (char *)outputs[i][1], NULL};
        cli_run(bad, NULL, &r);
        ck_assert_int_eq(r.code, 2);
        char want[128];
        snprintf(want, sizeof want, "%s: cannot write %s: No such file or directory", outputs[i][0],
                 outputs[i][1]);
        ck_assert_msg(strstr(r.err, want) != NULL, "stderr: %s", r.err);
        ck_assert_ptr_null(strstr(r.out, "recommended workers"));
        cli_result_free(&r);
    }
    /* A path through a file (report.txt/x) is refused before the run too. */
    char *const through[] = {SPACRBENCH_CLI,        "--size", "64x64", "--fields", "1", "--report",
                             "/proc/version/r.txt", NULL};
    cli_run(through, NULL, &r);
    ck_assert_int_eq(r.code, 2);
    ck_assert_msg(strstr(r.err, "--report: cannot write /proc/version/r.txt: Not a directory"),
                  "stderr: %s", r.err);
    cli_result_free(&r);
}
END_TEST

/* An export named '-' is standard output's, as in other commands: the
 * export alone is on stdout (the report on stderr, as next to --emit), no
 * file named '-' is made; stdout has one taker, so '-' with --json, with
 * --emit or for both exports is refused before the run (exit 2). */
START_TEST(an_export_named_dash_goes_to_stdout)
{
    char dir[] = "/tmp/sbtest-dash-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    static const char *const kinds[][2] = {{"--export-csv", "index,item,is_warmup,seconds,"},
                                           {"--export-markdown", "## spaCR benchmark\n"}};
    for (size_t i = 0; i < 2; i++) {
        char script[1200];
        /* The command writes to its stdout: that goes to stderr, never
         * into the export. */
        snprintf(script, sizeof script,
                 "cd '%s' && exec '%s' run %s - a bb -- sh -c 'echo said-by-{}' '{}'", dir,
                 SPACRBENCH_CLI, kinds[i][0]);
        char *const argv[] = {"/bin/sh", "-c", script, NULL};
        cli_result r;
        cli_run(argv, NULL, &r);
        ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
        ck_assert_msg(strncmp(r.out, kinds[i][1], strlen(kinds[i][1])) == 0, "stdout: %s", r.out);
        ck_assert_ptr_null(strstr(r.out, "\n  items measured")); /* no text report */
        ck_assert_ptr_nonnull(strstr(r.err, "spaCR benchmark\n  items measured"));
        if (i == 0)
            ck_assert_ptr_nonnull(strstr(r.out, "\r\n1,bb,0,"));
        ck_assert_ptr_null(strstr(r.out, "said-by-"));
        ck_assert_ptr_nonnull(strstr(r.err, "said-by-bb"));
        cli_result_free(&r);
        char dash[600];
        snprintf(dash, sizeof dash, "%s/-", dir);
        struct stat st;
        ck_assert_msg(stat(dash, &st) != 0, "a file named '-' was written");
    }
    static const char *const clashes[][4] = {
        {"--json", "--export-csv", "-",
         "--export-csv: '-' (stdout) cannot be combined with --json"},
        {"--emit=dask", "--export-markdown", "-",
         "--export-markdown: '-' (stdout) cannot be combined with --emit"},
        {"--export-markdown=-", "--export-csv", "-", "--export-csv: '-' (stdout) is already"},
        {"--quiet", "--report", "-", "--report: '-' would be standard output"}};
    for (size_t i = 0; i < sizeof clashes / sizeof clashes[0]; i++) {
        char *const argv[] = {SPACRBENCH_CLI,
                              "run",
                              (char *)clashes[i][0],
                              (char *)clashes[i][1],
                              (char *)clashes[i][2],
                              "a",
                              "--",
                              "true",
                              NULL};
        cli_result r;
        cli_run(argv, NULL, &r);
        ck_assert_msg(r.exited && r.code == 2, "exit %d: %s", r.code, r.err);
        ck_assert_msg(strstr(r.err, clashes[i][3]) != NULL, "stderr: %s", r.err);
        ck_assert_str_eq(r.out, "");
        cli_result_free(&r);
    }
    rmdir(dir);
}
END_TEST

START_TEST(help_and_version)
{
    char *const help[] = {SPACRBENCH_CLI, "--help", NULL};
    char *const version[] = {SPACRBENCH_CLI, "--version", NULL};
    cli_result r;
    cli_run(help, NULL, &r);
    ck_assert_int_eq(r.code, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "spacrbench run"));
    cli_result_free(&r);
    cli_run(version, NULL, &r);
    ck_assert_int_eq(r.code, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "spacrbench 1."));
    cli_result_free(&r);
}
END_TEST

/* With --json or --emit, stdout holds only spacrbench's output: the
 * command's own stdout goes to stderr. */
START_TEST(command_output_stays_out_of_machine_readable_stdout)
{
    char *const json_argv[] = {SPACRBENCH_CLI, "run", "--json",        "a",  "b",  "--",
                               "/bin/sh",      "-c",  "echo hello $1", "sh", "{}", NULL};
    cli_result r;
    cli_run(json_argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    ck_assert_msg(strstr(r.out, "hello a") == NULL, "stdout: %s", r.out);
    ck_assert_msg(strstr(r.err, "hello a\nhello b\n") != NULL, "stderr: %s", r.err);
    ck_assert_msg(r.out[0] == '{', "stdout: %s", r.out);
    if (cli_have_python()) {
        char *path = json_of(&r);
        ck_assert_int_eq(json_ll(path, "d['measurement']['items']"), 2);
        unlink(path);
        free(path);
    }
    cli_result_free(&r);

    char *const emit_argv[] = {SPACRBENCH_CLI, "run", "--emit",        "dask", "--quiet", "a", "--",
                               "/bin/sh",      "-c",  "echo hello $1", "sh",   "{}",      NULL};
    cli_run(emit_argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    ck_assert_msg(r.out[0] == '#' && strstr(r.out, "n_workers = ") != NULL, "stdout: %s", r.out);
    ck_assert_msg(strstr(r.out, "hello a") == NULL, "stdout: %s", r.out);
    ck_assert_str_eq(r.err, "hello a\n");
    cli_result_free(&r);

    /* Without them the command keeps its stdout. */
    char *const plain_argv[] = {SPACRBENCH_CLI, "run",           "--quiet", "a",  "--", "/bin/sh",
                                "-c",           "echo hello $1", "sh",      "{}", NULL};
    cli_run(plain_argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    ck_assert_msg(strncmp(r.out, "hello a\n", 8) == 0, "stdout: %s", r.out);
    cli_result_free(&r);
}
END_TEST

/* Opens of a mountinfo file in a trace written by strace -o. */
static int count_mountinfo_opens(const char *trace)
{
    char *text = cli_read_file(trace);
    ck_assert_ptr_nonnull(text);
    int n = 0;
    for (const char *p = text; (p = strstr(p, "/mountinfo\"")) != NULL; p++)
        n++;
    free(text);
    return n;
}

/* One run discovers the machine once: the recommendation, the JSON
 * "machine" and (run mode) the cgroup of its own share one reading of
 * /proc/self/mountinfo instead of one per use (7 opens for `run --json`,
 * 5 for the demo before). _i = 0: run with a cgroup; 1: demo --json. */
START_TEST(one_run_reads_mountinfo_a_bounded_number_of_times)
{
    if (STRACE[0] == '\0' || access(STRACE, X_OK) != 0) {
        printf("SKIP mountinfo count: strace not found (install strace)\n");
        return;
    }
    /* LeakSanitizer cannot work under a tracer (it ptraces itself). */
    const char *asan = getenv("ASAN_OPTIONS");
    char asan_opts[512];
    snprintf(asan_opts, sizeof asan_opts, "%s%sdetect_leaks=0", asan ? asan : "", asan ? ":" : "");
    setenv("ASAN_OPTIONS", asan_opts, 1);
    char *trace = cli_temp_file("");
    char *const run[] = {STRACE, "-f",           "-qq",       "-e",     "trace=open,openat", "-o",
                         trace,  SPACRBENCH_CLI, "run",       "--json", "--quiet",           "a",
                         "b",    "--",           "/bin/true", NULL};
    char *const demo[] = {
        STRACE,         "-f",     "-qq",    "-e",    "trace=open,openat", "-o", trace,
        SPACRBENCH_CLI, "--json", "--size", "64x64", "--fields",          "2",  NULL};
    cli_result r;
    cli_run(_i ? demo : run, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    int opens = count_mountinfo_opens(trace);
    printf("%s: /proc/self/mountinfo opened %d time(s)\n", _i ? "demo --json" : "run --json",
           opens);
    /* Run mode: once to find the cgroup its items get, once for the
     * discovery. The demo: the discovery alone. */
    ck_assert_int_ge(opens, 1);
    int bound = _i ? MOUNTINFO_OPENS_PER_DISCOVERY : MOUNTINFO_OPENS_PER_DISCOVERY + 1;
    ck_assert_int_le(opens, bound);
    unlink(trace);
    free(trace);
    cli_result_free(&r);
}
END_TEST

/* The items are the non-options of the same pass: options may sit between
 * them, and everything after "--" belongs to the command. */
START_TEST(options_and_items_are_parsed_in_one_pass)
{
    char *log = cli_temp_file("");
    char *const argv[] = {SPACRBENCH_CLI,    "run", "a",  "--quiet", "b", "--warmup=0", "c", "--",
                          HELPER_RECORD_ARG, log,   "{}", NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    char *got = cli_read_file(log);
    ck_assert_str_eq(got, "a\nb\nc\n");
    ck_assert_int_eq(number_after(r.out, "items measured"), 3);
    free(got);
    unlink(log);
    free(log);
    cli_result_free(&r);
    /* A boolean option given a value, and an unknown one, are errors
     * naming the option, never items. */
    char *const valued[] = {SPACRBENCH_CLI, "run", "--json=yes", "a", "--", "true", NULL};
    cli_run(valued, NULL, &r);
    ck_assert_msg(r.exited && r.code == 2, "exit %d", r.code);
    ck_assert_msg(strstr(r.err, "spacrbench: --json: takes no value") != NULL, "%s", r.err);
    cli_result_free(&r);
    char *const unknown[] = {SPACRBENCH_CLI, "run", "--dry-run", "a", "--", "true", NULL};
    cli_run(unknown, NULL, &r);
    ck_assert_msg(r.exited && r.code == 2, "exit %d", r.code);
    ck_assert_msg(strstr(r.err, "spacrbench: --dry-run: unknown option") != NULL, "%s", r.err);
    cli_result_free(&r);
}
END_TEST

/* "Not measured" is null in the JSON, and names are the library's. */
START_TEST(json_says_not_measured_with_null)
{
    char *const argv[] = {SPACRBENCH_CLI,     "run", "--json", "--no-cgroup", "1", "--",
                          HELPER_ALLOC_TOUCH, "{}",  NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    if (cli_have_python()) {
        char *path = json_of(&r);
        char *v = cli_json_eval(path, "(d['measurement']['peak_vram_bytes'], "
                                      "d['measurement']['records'][0]['peak_vram_bytes'], "
                                      "d['measurement']['peak_method'])");
        ck_assert_str_eq(v, "(None, None, 'child_rusage')");
        free(v);
        unlink(path);
        free(path);
    }
    cli_result_free(&r);
}
END_TEST

START_TEST(oom_killed_command_is_named_and_sizes_one_worker)
{
    char dir[1300];
    cli_make_limited_cgroup(dir, sizeof dir, "spacrbench-oom-test");
    if (!dir[0])
        return;
    /* The shell moves itself into the limited cgroup, then becomes
     * spacrbench, whose item cgroups are made under it (_i = 0), or which
     * measures without a cgroup of its own (_i = 1: the limited cgroup's
     * own oom_kill counter must still name the kill, as in a v2 job step). */
    char script[4096];
    snprintf(script, sizeof script,
             "echo $$ > '%s/cgroup.procs' && exec '%s' run --json --quiet %s 16 400 -- '%s' {}",
             dir, SPACRBENCH_CLI, _i ? "--no-cgroup" : "", HELPER_ALLOC_TOUCH);
    char *const argv[] = {"/bin/sh", "-c", script, NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    int left = cli_count_ended_groups_in(dir);
    int removed = rmdir(dir);
    ck_assert_msg(r.exited && r.code == 3, "exited %d code %d: %s", r.exited, r.code, r.err);
    ck_assert_msg(strstr(r.err, "item 2 (400) OOM-killed") != NULL, "stderr: %s", r.err);
    ck_assert_msg(strstr(r.err, "256.0 MiB") != NULL, "stderr: %s", r.err);
    ck_assert_int_eq(left, 0);
    ck_assert_int_eq(removed, 0);
    if (cli_have_python()) {
        char *path = json_of(&r);
        char *said = cli_json_eval(path, "('OOM-killed' in d['report'], "
                                         "'one worker needs more than 256.0 MiB' in d['report'], "
                                         "d['recommendation']['bound'] != 'fallback', "
                                         "d['recommendation']['reason'].startswith("
                                         "'one worker needs more than 256.0 MiB'), "
                                         "d['recommendation']['oom_limit_bytes'] == 256 << 20, "
                                         "d['recommendation']['workers'])");
        printf("OOM-killed item (%s): %s\n", _i ? "no cgroup of its own" : "own cgroup", said);
        ck_assert_str_eq(said, "(True, True, True, True, True, 1)");
        free(said);
        ck_assert_int_ge(json_ll(path, "d['measurement']['peak_rss_bytes']"), 256LL << 20);
        unlink(path);
        free(path);
    }
    cli_result_free(&r);
}
END_TEST

/* --start-method reaches the recommendation in both modes and the report
 * names it; the help states the AUTO reserve. */
START_TEST(start_method_reaches_the_recommendation)
{
    char *const demo[] = {SPACRBENCH_CLI, "--size",         "256x256", "--fields", "2",
                          "--json",       "--start-method", "spawn",   NULL};
    char *const run[] = {SPACRBENCH_CLI, "run", "--start-method=forkserver", "a", "--",
                         "true",         NULL};
    cli_result r;
    cli_run(demo, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    if (cli_have_python()) {
        char *path = json_of(&r);
        char *method = cli_json_eval(path, "d['recommendation']['start_method']");
        ck_assert_str_eq(method, "spawn");
        free(method);
        char *line = cli_json_eval(path, "'start method        spawn' in d['report']");
        ck_assert_str_eq(line, "True");
        free(line);
        unlink(path);
        free(path);
    }
    cli_result_free(&r);
    cli_run(run, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    ck_assert_msg(strstr(r.out, "start method        forkserver") != NULL, "%s", r.out);
    cli_result_free(&r);

    char *const help[] = {SPACRBENCH_CLI, "--help", NULL};
    cli_run(help, NULL, &r);
    ck_assert_ptr_nonnull(strstr(r.out, "--start-method fork|spawn|forkserver"));
    ck_assert_ptr_nonnull(strstr(r.out, "10% of a binding cgroup limit"));
    ck_assert_ptr_null(strstr(r.out, "(default 2G;"));
    cli_result_free(&r);
}
END_TEST

START_TEST(bad_scale_options_exit_2_naming_the_option)
{
    static const char *const cases[][4] = {
        {"--scale", "0", NULL, "--scale"},
        {"--scale", "1,1", NULL, "--scale"},
        {"--scale", "two", NULL, "--scale"},
        {"--scale", "1,,2", NULL, "--scale"},
        {"--scale", "2,", NULL, "--scale"},
        {"--scale", "-1", NULL, "--scale"},
        {"--scale", "1025", NULL, "--scale"},
        {"--scale", "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17", NULL, "--scale"},
        {"--scale-items", "2", NULL, "--scale-items"},
        {"--scale", "1", "--scale-items=0", "--scale-items"},
        {"--scale", "1", "--plot=a.pdf", "--plot"},
        {"--scale-seconds", "1", NULL, "--scale-seconds"},
        {"--scale", "1", "--scale-seconds=-1", "--scale-seconds"},
        {"--scale", "1", "--scale-seconds=2h", "--scale-seconds"},
        {"--scale", "1", "--scale-seconds=0..", "--scale-seconds"},
        {"--start-method", "thread", NULL, "--start-method"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *argv[10] = {SPACRBENCH_CLI, "run"};
        int n = 2;
        for (int k = 0; k < 3 && cases[i][k]; k++)
            argv[n++] = (char *)cases[i][k];
        argv[n++] = "a";
        argv[n++] = "--";
        argv[n++] = "true";
        argv[n] = NULL;
        char want[64];
        snprintf(want, sizeof want, "spacrbench: %s:", cases[i][3]);
        cli_expect_usage_error(argv, want, i);
    }
}
END_TEST

/* Sleeping items do not compete for anything: two copies at once give
 * nearly twice the throughput, and the knee is 2. The human report (the
 * --report file) carries the library's table after the item lines. */
START_TEST(scale_sleeping_copies_scale_linearly)
{
    char *txt = cli_temp_file("");
    char report[1100];
    snprintf(report, sizeof report, "--report=%s", txt);
    char *const argv[] = {
        SPACRBENCH_CLI, "run", "--json", "--quiet", "--scale", "1,2", "--scale-items", "2",
        report,         "a",   "b",      "c",       "d",       "--",  "/bin/sh",       "-c",
        "sleep 0.5",    "sh",  "{}",     NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    char *human = cli_read_file(txt);
    char *table = strstr(human, "Scaling check");
    ck_assert_msg(table != NULL && strstr(human, "item 4 ") < table, "%s", human);
    ck_assert_ptr_nonnull(strstr(table, "<- knee"));
    free(human);
    unlink(txt);
    free(txt);
    ck_assert_int_eq(cli_count_leftover_cgroups(), 0);
    if (!cli_have_python()) {
        cli_result_free(&r);
        return;
    }
    char *path = json_of(&r);
    ck_assert_int_eq(json_ll(path, "len(d['scaling'])"), 2);
    /* Under the timing rules: every timed repeat of 2 copies runs the same
     * number of items per copy, at least --scale-items (2), for at least
     * 1 s (the default --scale-seconds); 2 to 5 repeats. */
    long long repeats = json_ll(path, "d['scaling'][1]['repeats']");
    ck_assert_int_ge(repeats, 2);
    ck_assert_int_le(repeats, 5);
    ck_assert_int_eq(json_ll(path, "d['scaling'][1]['items'] % (2 * d['scaling'][1]['repeats'])"),
                     0);
    ck_assert_int_ge(json_ll(path, "d['scaling'][1]['items'] // (2 * d['scaling'][1]['repeats'])"),
                     2);
    ck_assert_int_ge(json_ll(path, "int(d['scaling'][1]['seconds'] >= d['scaling'][1]['repeats'])"),
                     1);
    ck_assert_int_eq(json_ll(path, "d['scaling'][1]['warmup_items']"), 1);
    ck_assert_int_eq(json_ll(path, "sum(p['failed'] for p in d['scaling'])"), 0);
    long long speedup = json_ll(path, "int(d['scaling'][1]['speedup'] * 1000)");
    printf("sleeping copies: speed-up at 2 = %.3f\n", (double)speedup / 1000);
    ck_assert_int_gt(speedup, 1600);
    ck_assert_int_eq(json_ll(path, "d['scaling_workers']"), 2);
    /* The serial measurement is still there, unchanged in shape. */
    ck_assert_int_eq(json_ll(path, "d['measurement']['items']"), 4);
    unlink(path);
    free(path);
    cli_result_free(&r);
}
END_TEST

/* A command whose first item of the check is slow (a cold start: 3 s,
 * then 0.05 s): the serial run's two items come first, so the third
 * execution is the 1-worker count's first item. It is the warm-up round,
 * excluded from the timing: the point's mean item time is that of the
 * steady state, and its timed items are all fast ones (run one at a time:
 * one worker, so the count of earlier executions is exact). */
START_TEST(scale_warmup_round_is_excluded_from_the_timing)
{
    char dir[] = "/tmp/sbtest-warmup-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char script[1200];
    snprintf(
        script, sizeof script,
        "n=$(ls '%s' | wc -l); mktemp '%s/run-XXXXXX' >/dev/null; [ \"$n\" -eq 2 ] && sleep 3; "
        "sleep 0.05",
        dir, dir);
    char *const argv[] = {SPACRBENCH_CLI,
                          "run",
                          "--json",
                          "--quiet",
                          "--scale",
                          "1",
                          "--scale-items",
                          "2",
                          "--scale-seconds=0",
                          "a",
                          "b",
                          "--",
                          "/bin/sh",
                          "-c",
                          script,
                          "sh",
                          "{}",
                          NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    char cleanup[1300];
    snprintf(cleanup, sizeof cleanup, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cleanup), 0);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    ck_assert_int_eq(cli_count_leftover_cgroups(), 0);
    if (!cli_have_python()) {
        cli_result_free(&r);
        return;
    }
    char *path = json_of(&r);
    ck_assert_int_eq(json_ll(path, "d['scaling'][0]['warmup_items']"), 1);
    long long mean_ms = json_ll(path, "int(d['scaling'][0]['mean_item_seconds'] * 1000)");
    long long items = json_ll(path, "d['scaling'][0]['items']");
    printf("slow first item: 1 worker, %lld timed items, mean %lld ms per item\n", items, mean_ms);
    /* Rounds are never grown (--scale-seconds=0): with the 3 s item timed,
     * the mean of at most 5 repeats of 2 items would be >= 345 ms. */
    ck_assert_int_lt(mean_ms, 250);
    ck_assert_int_ge(items, 2 * 2); /* at least 2 repeats of at least 2 items */
    unlink(path);
    free(path);
    cli_result_free(&r);
}
END_TEST

/* issue #32: a fast warm-up item (the 2nd execution: a bare shell) and
 * 0.3 s items. Sized from the warm-up's pace, every round asked for 1.2 s
 * / 1 ms of items ("up to 105 items per copy", 49 s); sized from the timed
 * rounds, --scale-items 3 (0.9 s, short of 1 s) grows to 4 at most. The
 * executions are counted, not the time. */
START_TEST(scale_rounds_are_sized_from_the_timed_rounds)
{
    char dir[] = "/tmp/sbtest-sizing-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char script[1200];
    snprintf(script, sizeof script,
             "n=$(ls '%s' | wc -l); mktemp '%s/run-XXXXXX' >/dev/null; [ \"$n\" -eq 1 ] && exit 0; "
             "sleep 0.3",
             dir, dir);
    char *const argv[] = {SPACRBENCH_CLI, "run",     "--json", "--quiet", "--scale", "1",  "a",
                          "--",           "/bin/sh", "-c",     script,    "sh",      "{}", NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    char count[1300];
    snprintf(count, sizeof count, "ls '%s' | wc -l", dir);
    FILE *p = popen(count, "r");
    long long executions = -1;
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(fscanf(p, "%lld", &executions), 1);
    pclose(p);
    char cleanup[1300];
    snprintf(cleanup, sizeof cleanup, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cleanup), 0);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    if (!cli_have_python()) {
        cli_result_free(&r);
        return;
    }
    char *path = json_of(&r);
    long long items = json_ll(path, "d['scaling'][0]['items']");
    long long repeats = json_ll(path, "d['scaling'][0]['repeats']");
    printf("sizing: %lld timed items in %lld repeats, %lld executions in all\n", items, repeats,
           executions);
    ck_assert_int_ge(repeats, 2);
    /* Each counted repeat ran 3 items, or 4 after a round of 3 came out
     * short (never more: 3 x 0.3 s >= 0.9 s; 4 x 0.3 s is never short). */
    ck_assert_msg(3 * repeats <= items && items <= 4 * repeats, "%lld items in %lld repeats", items,
                  repeats);
    /* The serial item, the warm-up, at most one short round (not counted),
     * the repeats; no growth without a short round. */
    long long redone = executions - 2 - items;
    ck_assert_msg(redone == 0 || redone == 3, "%lld executions not counted", redone);
    if (redone == 0)
        ck_assert_int_eq(items, 3 * repeats);
    unlink(path);
    free(path);
    cli_result_free(&r);
    ck_assert_int_eq(cli_count_leftover_cgroups(), 0);
}
END_TEST

/* Two copies touching 64 MiB each: the group's peak holds both. _i = 0: a
 * cgroup per group where the machine allows; 1: the VmHWM sum. */
START_TEST(scale_group_peak_holds_every_copy)
{
    char *const argv[] = {SPACRBENCH_CLI,
                          "run",
                          "--json",
                          "--quiet",
                          "--scale",
                          "2",
                          "--scale-items=1", /* one item per copy: the VmHWM sum */
                          "--scale-seconds=0",
                          _i ? "--no-cgroup" : "--quiet",
                          "64",
                          "64",
                          "--",
                          HELPER_ALLOC_TOUCH,
                          "{}",
                          "300",
                          NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    if (!cli_have_python()) {
        cli_result_free(&r);
        return;
    }
    char *path = json_of(&r);
    char *method = cli_json_eval(path, "d['scaling'][0]['peak_method']");
    if (!_i && strcmp(method, "cgroup") != 0)
        printf("SKIP group peak from a cgroup: no writable memory cgroup (%s)\n", method);
    if (_i)
        ck_assert_str_eq(method, "child_rusage");
    long long peak = json_ll(path, "d['scaling'][0]['peak_bytes']");
    printf("2 copies x 64 MiB (%s): group peak %.1f MiB\n", method, (double)peak / MIB);
    ck_assert_int_ge(peak, 128LL << 20);
    ck_assert_int_le(peak, (long long)(2 * 64 * 1.25 * MIB) + (_i ? 2 * (64LL << 20) : 0));
    /* The note names the method the point was measured with: without a
     * writable cgroup (a user's) _i = 0 falls back too. */
    int cgroup = strcmp(method, "cgroup") == 0;
    char *said =
        cli_json_eval(path, cgroup ? "any('memory cgroup' in n for n in d['scaling_notes'])"
                                   : "any('VmHWM' in n for n in d['scaling_notes'])");
    ck_assert_str_eq(said, "True");
    free(said);
    free(method);
    unlink(path);
    free(path);
    cli_result_free(&r);
    ck_assert_int_eq(cli_count_leftover_cgroups(), 0);
}
END_TEST

/* Copies that contend for one lock directory: alone it always succeeds,
 * two at once make one fail. The point is marked failed, the copy named,
 * the run still reports, and the knee falls back to 1. */
START_TEST(scale_failing_copy_marks_its_point_failed)
{
    char dir[] = "/tmp/sbtest-lock-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char script[1200];
    snprintf(script, sizeof script,
             "mkdir '%s/lock' 2>/dev/null || exit 3; sleep 0.4; rmdir '%s/lock'", dir, dir);
    /* Not about timing: the shortest check (one item per copy, no
     * minimum time per count). */
    char *const argv[] = {SPACRBENCH_CLI,
                          "run",
                          "--json",
                          "--quiet",
                          "--scale",
                          "1,2",
                          "--scale-items=1",
                          "--scale-seconds=0",
                          "a",
                          "b",
                          "--",
                          "/bin/sh",
                          "-c",
                          script,
                          "sh",
                          "{}",
                          NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    rmdir(dir);
    ck_assert_msg(r.exited && r.code == 3, "exit %d: %s", r.code, r.err);
    ck_assert_msg(strstr(r.err, "spacrbench: --scale: 2 workers: copy ") != NULL &&
                      strstr(r.err, "exited with status 3") != NULL,
                  "stderr: %s", r.err);
    ck_assert_int_eq(cli_count_leftover_cgroups(), 0);
    if (cli_have_python()) {
        char *path = json_of(&r);
        char *failed = cli_json_eval(path, "[p['failed'] for p in d['scaling']]");
        ck_assert_str_eq(failed, "[False, True]");
        free(failed);
        ck_assert_int_eq(json_ll(path, "d['scaling_workers']"), 1);
        ck_assert_int_eq(json_ll(path, "d['measurement']['items']"), 2);
        unlink(path);
        free(path);
    }
    cli_result_free(&r);
}
END_TEST

/* Sixteen counts whose failing copies each leave a process behind: two
 * notes per failed count, more than the result keeps for failures. The
 * notes past that are said on stderr only (and counted in a note); the
 * method notes still close the result. */
START_TEST(scale_failure_notes_never_push_out_the_method_notes)
{
    char dir[] = "/tmp/sbtest-lock-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char script[1200];
    snprintf(script, sizeof script,
             "mkdir '%s/lock' 2>/dev/null || { sleep 0.3 >/dev/null 2>&1 & exit 3; }; sleep 0.05; "
             "rmdir '%s/lock'",
             dir, dir);
    char *const argv[] = {SPACRBENCH_CLI,
                          "run",
                          "--json",
                          "--quiet",
                          "--scale",
                          "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16",
                          "--scale-items=1",
                          "--scale-seconds=0",
                          "a",
                          "--",
                          "/bin/sh",
                          "-c",
                          script,
                          NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    rmdir(dir);
    ck_assert_msg(r.exited && r.code == 3, "exit %d: %s", r.code, r.err);
    ck_assert_ptr_nonnull(strstr(r.err, "16 workers: copy "));
    if (cli_have_python()) {
        char *path = json_of(&r);
        char *v = cli_json_eval(path, "[n.split(':')[0] for n in d['scaling_notes'] if "
                                      "'outlived' in n][:3]");
        ck_assert_str_eq(v, "['2 workers', '3 workers', '4 workers']");
        free(v);
        v = cli_json_eval(path, "[n for n in d['scaling_notes'] if n.endswith('more note(s) of "
                                "failed copies were said on stderr only')][0].split()[0]");
        ck_assert_ptr_nonnull(v);
        ck_assert_int_gt(atoi(v), 0);
        free(v);
        v = cli_json_eval(path, "any(n.startswith('each count k ran') for n in "
                                "d['scaling_notes'])");
        ck_assert_str_eq(v, "True");
        free(v);
        unlink(path);
        free(path);
    }
    cli_result_free(&r);
    ck_assert_int_eq(cli_count_leftover_cgroups(), 0);
}
END_TEST

/* SIGTERM to spacrbench while copies run: they get it, the check stops
 * with the points so far, the report is printed and no cgroup is left. */
START_TEST(scale_interrupted_cleans_up)
{
    char marker[] = "/tmp/sbtest-marker-XXXXXX";
    int fd = mkstemp(marker);
    ck_assert_int_ge(fd, 0);
    close(fd);
    unlink(marker);
    char script[1200];
    snprintf(script, sizeof script,
             "if [ -e '%s' ]; then kill -TERM $PPID; exec sleep 30; fi; touch '%s'", marker,
             marker);
    char *const argv[] = {
        SPACRBENCH_CLI, "run", "--scale", "1,2", "--scale-seconds=0", "a", "--", "/bin/sh", "-c",
        script,         "sh",  "{}",      NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    unlink(marker);
    ck_assert_msg(r.exited && r.code == 3, "exited %d code %d: %s", r.exited, r.code, r.err);
    ck_assert_msg(strstr(r.err, "interrupted by signal 15") != NULL, "stderr: %s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "Scaling check"));
    ck_assert_ptr_nonnull(strstr(r.out, "interrupted by signal 15"));
    ck_assert_int_eq(number_after(r.out, "items measured"), 1);
    cli_result_free(&r);
    ck_assert_int_eq(cli_count_leftover_cgroups(), 0);
}
END_TEST

/* A Python for --plot (SPACRBENCH_PYTHON): a script that runs
 * /usr/bin/python3 -s with PYTHONPATH=pythonpath (NULL: none), made in
 * dir. */
static void write_python(const char *path, const char *pythonpath)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "#!/bin/sh\nexec env %s%s /usr/bin/python3 -s \"$@\"\n",
            pythonpath ? "PYTHONPATH=" : "-u PYTHONPATH", pythonpath ? pythonpath : "");
    fclose(f);
    ck_assert_int_eq(chmod(path, 0755), 0);
}

/* 1 when python finds module (find_spec), 0 when not. */
static int python_finds(const char *python, const char *module)
{
    char code[160];
    snprintf(code, sizeof code,
             "import importlib.util, sys; sys.exit(0 if "
             "importlib.util.find_spec('%s') else 1)",
             module);
    char *const argv[] = {(char *)python, "-c", code, NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    int found = r.exited && r.code == 0;
    cli_result_free(&r);
    return found;
}

/* --plot that cannot be drawn is refused before anything runs (exit 1, no
 * report, the item's command never started), saying what is missing and
 * how to get it: no Python, no spacrbench package, no matplotlib. With
 * the python3 on PATH: a PNG when spacrbench and matplotlib are
 * importable, else the same kind of refusal. */
START_TEST(plot_names_what_is_missing)
{
    char *png = cli_temp_file("");
    char out[1100], marker[1100], touch[1200], py_bare[1100], py_no_mpl[1100], fake[1100],
        pkg[1200], py_broken[1100], broken[1100], mpl[1200];
    snprintf(out, sizeof out, "%s.png", png);
    snprintf(marker, sizeof marker, "%s.ran", png);
    snprintf(touch, sizeof touch, "touch '%s'", marker);
    snprintf(py_bare, sizeof py_bare, "%s.bare-python", png);
    snprintf(py_no_mpl, sizeof py_no_mpl, "%s.no-mpl-python", png);
    snprintf(fake, sizeof fake, "%s.path", png);
    snprintf(py_broken, sizeof py_broken, "%s.broken-mpl-python", png);
    snprintf(broken, sizeof broken, "%s.broken", png);
    write_python(py_bare, NULL);
    write_python(py_no_mpl, fake);
    /* A matplotlib that is found but does not import (first on the path,
     * beside the spacrbench package that is only found). */
    char both[2300];
    snprintf(both, sizeof both, "%s:%s", broken, fake);
    write_python(py_broken, both);
    ck_assert_int_eq(mkdir(broken, 0700), 0);
    snprintf(mpl, sizeof mpl, "%s/matplotlib", broken);
    ck_assert_int_eq(mkdir(mpl, 0700), 0);
    snprintf(mpl, sizeof mpl, "%s/matplotlib/__init__.py", broken);
    FILE *b = fopen(mpl, "w");
    ck_assert_ptr_nonnull(b);
    fputs("raise RuntimeError('a broken install')\n", b);
    fclose(b);
    /* A spacrbench package that is only found, never imported. */
    ck_assert_int_eq(mkdir(fake, 0700), 0);
    snprintf(pkg, sizeof pkg, "%s/spacrbench", fake);
    ck_assert_int_eq(mkdir(pkg, 0700), 0);
    snprintf(pkg, sizeof pkg, "%s/spacrbench/__init__.py", fake);
    FILE *f = fopen(pkg, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    struct {
        const char *python, *said, *skip_if_found;
    } cases[] = {
        {"/nonexistent/python3", "--plot needs Python 3: '/nonexistent/python3' cannot be run",
         NULL},
        {py_bare, "--plot needs the spacrbench package in '", "spacrbench"},
        {py_no_mpl, "--plot needs matplotlib in '", "matplotlib"},
        {py_broken, "RuntimeError a broken install", NULL},
    };
    cli_result r;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        if (cases[c].skip_if_found && python_finds(cases[c].python, cases[c].skip_if_found)) {
            printf("SKIP --plot refusal %zu: /usr/bin/python3 has %s system-wide\n", c,
                   cases[c].skip_if_found);
            continue;
        }
        for (int demo = 0; demo < 2; demo++) {
            char *const run_argv[] = {SPACRBENCH_CLI, "run", "--quiet", "--plot", out,  "a", "--",
                                      "/bin/sh",      "-c",  touch,     "sh",     "{}", NULL};
            char *const demo_argv[] = {SPACRBENCH_CLI, "--plot", out, NULL};
            setenv("SPACRBENCH_PYTHON", cases[c].python, 1);
            cli_run(demo ? demo_argv : run_argv, NULL, &r);
            unsetenv("SPACRBENCH_PYTHON");
            /* Refused before the run: a usage error, as every output's. */
            ck_assert_msg(r.exited && r.code == 2, "exit %d: %s", r.code, r.err);
            ck_assert_msg(strstr(r.err, cases[c].said) != NULL, "stderr: %s", r.err);
            ck_assert_msg(strstr(r.err, demo ? "(see spacrbench --help)"
                                             : "(see spacrbench run --help)") != NULL,
                          "stderr: %s", r.err);
            ck_assert_str_eq(r.out, ""); /* refused before the run: no report */
            struct stat st;
            ck_assert_int_ne(stat(marker, &st), 0);
            ck_assert_int_ne(stat(out, &st), 0);
            if (c > 0)
                ck_assert_ptr_nonnull(strstr(r.err, "pip install 'spacrbench[plot]' (from a "
                                                    "clone: pip install '.[plot]')"));
            cli_result_free(&r);
        }
    }
    unlink(mpl);
    snprintf(mpl, sizeof mpl, "%s/matplotlib", broken);
    rmdir(mpl);
    rmdir(broken);
    unlink(py_broken);
    unlink(pkg);
    snprintf(pkg, sizeof pkg, "%s/spacrbench", fake);
    rmdir(pkg);
    rmdir(fake);
    unlink(py_bare);
    unlink(py_no_mpl);

    char *const argv[] = {SPACRBENCH_CLI,      "run", "--quiet", "--scale", "1", "--plot", out,
                          "--scale-seconds=0", "a",   "--",      "true",    NULL};
    cli_run(argv, NULL, &r);
    if (r.code == 0) {
        ck_assert_ptr_nonnull(strstr(r.out, "Scaling check"));
        char *img = cli_read_file(out);
        ck_assert_ptr_nonnull(img);
        ck_assert_int_eq(memcmp(img, "\x89PNG", 4), 0);
        free(img);
        printf("--plot wrote %s\n", out);
    } else { /* refused before the run */
        ck_assert_msg(r.exited && r.code == 2, "exit %d: %s", r.code, r.err);
        ck_assert_msg(strstr(r.err, "pip install 'spacrbench[plot]' (from a clone: pip install "
                                    "'.[plot]')") != NULL ||
                          strstr(r.err, "needs Python 3") != NULL,
                      "stderr: %s", r.err);
        printf("--plot with the system python3: %s", r.err);
    }
    cli_result_free(&r);
    unlink(out);
    unlink(png);
    free(png);
}
END_TEST

static Suite *cli_suite(void)
{
    Suite *s = suite_create("cli");
    TCase *t = tcase_create("default");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, default_mode_prints_report_and_recommendation);
    tcase_add_test(t, a_parent_reading_ru_maxrss_is_told_it_reads_low);
    tcase_add_test(t, available_asks_for_another_machines_memory);
    tcase_add_test(t, default_mode_json_describes_the_workload);
    tcase_add_test(t, default_mode_reports_the_clamped_warmup);
    tcase_add_test(t, report_file_is_written_whole);
    tcase_add_test(t, an_export_named_dash_goes_to_stdout);
    tcase_add_test(t, help_and_version);
    tcase_add_test(t, bad_options_exit_2_naming_the_option);
    suite_add_tcase(s, t);
    t = tcase_create("run");
    tcase_set_timeout(t, 120);
    tcase_add_loop_test(t, run_measures_an_allocating_command, 0, 2);
    tcase_add_loop_test(t, run_counts_a_forked_child, 0, 2);
    tcase_add_test(t, failing_command_stops_the_run_with_a_partial_report);
    tcase_add_test(t, killed_command_stops_the_run_naming_the_signal);
    tcase_add_test(t, unlaunchable_command_is_reported);
    tcase_add_test(t, sigterm_to_spacrbench_stops_the_command_and_cleans_up);
    tcase_add_test(t, sigquit_to_spacrbench_stops_the_command_and_cleans_up);
    tcase_add_test(t, ignored_sighup_stays_ignored);
    tcase_add_test(t, human_report_escapes_control_characters_in_items);
    tcase_add_test(t, items_reach_the_command_verbatim);
    tcase_add_test(t, items_from_standard_input_and_from_a_file);
    tcase_add_test(t, empty_item_list_is_an_error);
    tcase_add_test(t, options_and_items_are_parsed_in_one_pass);
    tcase_add_loop_test(t, oom_killed_command_is_named_and_sizes_one_worker, 0, 2);
    suite_add_tcase(s, t);
    t = tcase_create("scale");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, start_method_reaches_the_recommendation);
    tcase_add_test(t, bad_scale_options_exit_2_naming_the_option);
    tcase_add_test(t, scale_sleeping_copies_scale_linearly);
    tcase_add_test(t, scale_warmup_round_is_excluded_from_the_timing);
    tcase_add_test(t, scale_rounds_are_sized_from_the_timed_rounds);
    tcase_add_loop_test(t, scale_group_peak_holds_every_copy, 0, 2);
    tcase_add_test(t, scale_failing_copy_marks_its_point_failed);
    tcase_add_test(t, scale_failure_notes_never_push_out_the_method_notes);
    tcase_add_test(t, scale_interrupted_cleans_up);
    tcase_add_test(t, plot_names_what_is_missing);
    suite_add_tcase(s, t);
    t = tcase_create("output");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, json_holds_the_figures_of_the_human_report);
    tcase_add_test(t, emit_slurm_follows_from_the_figures);
    tcase_add_test(t, a_second_emit_never_breaks_a_queued_job);
    tcase_add_test(t, slurm_script_needs_an_items_file);
    tcase_add_test(t, a_too_long_slurm_output_creates_nothing);
    tcase_add_test(t, emit_dask_follows_from_the_figures);
    tcase_add_test(t, command_output_stays_out_of_machine_readable_stdout);
    tcase_add_test(t, json_says_not_measured_with_null);
    tcase_add_loop_test(t, one_run_reads_mountinfo_a_bounded_number_of_times, 0, 2);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(cli_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
