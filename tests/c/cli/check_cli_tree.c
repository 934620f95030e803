/* What one item of `spacrbench run` is (issue 41), the real binary, with a
 * cgroup of its own (_i == 0) and without (--no-cgroup): the command's
 * whole process tree until that tree has ended, bounded by --timeout,
 * orphans and background processes included, what --timeout kills named;
 * and the command's own memory only, never the spacrbench it was started
 * from (a large item list), each against GNU time where it is installed.
 * tests/nonroot/run.sh runs it as an unprivileged user too. */
#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli_test_support.h"

#define MIB (1024.0 * 1024.0)

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* GNU time's %M of argv in bytes, -1 without /usr/bin/time. */
static double gnu_time_bytes(char *const *argv)
{
    if (access("/usr/bin/time", X_OK) != 0) {
        printf("SKIP the GNU time comparison: no /usr/bin/time (Debian's time package)\n");
        return -1;
    }
    char *full[16] = {"/usr/bin/time", "-f", "%M"};
    size_t n = 3;
    for (; argv[n - 3] && n < 15; n++)
        full[n] = argv[n - 3];
    full[n] = NULL;
    cli_result t;
    cli_run(full, NULL, &t);
    ck_assert_msg(t.exited && t.code == 0, "GNU time: exit %d: %s", t.code, t.err);
    long long kib = -1; /* %M: its last line, in KiB */
    for (const char *line = t.err; line && *line;) {
        sscanf(line, "%lld", &kib);
        const char *nl = strchr(line, '\n');
        line = nl ? nl + 1 : NULL;
    }
    cli_result_free(&t);
    ck_assert_msg(kib > 0, "GNU time said nothing");
    return (double)kib * 1024.0;
}

/* The Python expression over the JSON document at path, as a number. */
static double json_num(const char *path, const char *expr)
{
    char *v = cli_json_eval(path, expr);
    ck_assert_msg(v != NULL, "JSON query failed: %s", expr);
    double x = atof(v);
    free(v);
    return x;
}

static void expect(const char *path, const char *expr)
{
    char *v = cli_json_eval(path, expr);
    ck_assert_msg(v != NULL, "JSON query failed: %s", expr);
    ck_assert_msg(strcmp(v, "True") == 0, "%s is %s", expr, v);
    free(v);
}

static const char *mode(int no_cgroup) { return no_cgroup ? "--no-cgroup" : "--quiet"; }

/* A process that outlives its parent (orphaned to spacrbench, the
 * subreaper) touches 40 MiB for 1 ms: a sample rarely sees it, its wait4
 * ru_maxrss always does. The items read 3.5-22 MiB before. */
START_TEST(an_orphan_counts_in_its_item_peak)
{
    char *const alone[] = {HELPER_ALLOC_TOUCH, "40", "1", NULL};
    double gnu = gnu_time_bytes(alone);
    char *const argv[] = {SPACRBENCH_CLI,
                          "run",
                          "--json",
                          "--quiet",
                          (char *)mode(_i),
                          "1",
                          "2",
                          "3",
                          "--",
                          "sh",
                          "-c",
                          "(\"$0\" 40 1 &); sleep 0.3",
                          HELPER_ALLOC_TOUCH,
                          NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    if (!cli_have_python()) {
        cli_result_free(&r);
        printf("SKIP an_orphan_counts_in_its_item_peak: no Python to read the JSON\n");
        return;
    }
    char *json = cli_temp_file(r.out);
    cli_result_free(&r);
    const char *rec = "d['measurement']['records']";
    char expr[300];
    snprintf(expr, sizeof expr, "min(x['tree_rss_peak_bytes'] for x in %s)", rec);
    double least = json_num(json, expr);
    printf("an orphan of 40 MiB (%s): spacrbench's items at least %.1f MiB, GNU time of the "
           "orphan alone %.1f MiB\n",
           _i ? "no cgroup" : "cgroup", least / MIB, gnu / MIB);
    ck_assert_msg(least >= 40 * MIB, "an item read %.1f MiB", least / MIB);
    if (gnu > 0)
        ck_assert_msg(least >= gnu - 2 * MIB && least <= gnu + 8 * MIB,
                      "ours %.1f MiB, GNU time %.1f MiB", least / MIB, gnu / MIB);
    if (_i == 0)
        expect(json, "d['memory_figures']['advice_uses'] != 'cgroup_charge' or "
                     "all(x['cgroup_charge_bytes'] >= 40 << 20 for x in "
                     "d['measurement']['records'])");
    unlink(json);
    free(json);
}
END_TEST

/* A background process that starts its work after the command has exited
 * is waited for: the item lasts until it ends, its memory counts, a note
 * says so. Before: 0.1 s and 3.5 MiB, and the process ran on unseen. */
START_TEST(a_background_process_is_waited_for_and_counted)
{
    char *const argv[] = {SPACRBENCH_CLI,
                          "run",
                          "--json",
                          (char *)mode(_i),
                          "a",
                          "--",
                          "sh",
                          "-c",
                          "(sleep 0.4; exec \"$0\" 40 50) & sleep 0.05",
                          HELPER_ALLOC_TOUCH,
                          NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    if (!cli_have_python()) {
        cli_result_free(&r);
        printf("SKIP a_background_process_is_waited_for_and_counted: no Python\n");
        return;
    }
    char *json = cli_temp_file(r.out);
    cli_result_free(&r);
    double seconds = json_num(json, "d['measurement']['records'][0]['seconds']");
    double peak = json_num(json, "d['measurement']['records'][0]['tree_rss_peak_bytes']");
    printf("a background process of 40 MiB, 0.4 s after (%s): %.3f s, %.1f MiB\n",
           _i ? "no cgroup" : "cgroup", seconds, peak / MIB);
    ck_assert_msg(seconds >= 0.45, "the item took %.3f s", seconds);
    ck_assert_msg(peak >= 40 * MIB, "peak %.1f MiB", peak / MIB);
    expect(json, "d['measurement']['records'][0]['cgroup_charge_bytes'] is None or "
                 "d['measurement']['records'][0]['cgroup_charge_bytes'] >= 40 << 20");
    expect(json, "any('processes outlived the command: an item lasts until its whole process "
                 "tree has ended' in n for n in d['measurement']['notes'])");
    unlink(json);
    free(json);
}
END_TEST

/* What a command leaves running past --timeout is killed and named, in
 * each item (stderr as it happens, a note in the report); the item's
 * command succeeded, so the run goes on; nothing survives spacrbench. */
START_TEST(what_the_timeout_kills_is_named)
{
    char marker[32], script[200];
    cli_sleep_marker(marker, sizeof marker, 40 + _i);
    snprintf(script, sizeof script, "sleep %s & exit 0", marker);
    char *const argv[] = {SPACRBENCH_CLI, "run", (char *)mode(_i), "--timeout", "1", "a", "b", "--",
                          "sh",           "-c",  script,           NULL};
    cli_result r;
    double t0 = now_s();
    cli_run(argv, NULL, &r);
    double took = now_s() - t0;
    int left = cli_sleep_survivors(marker);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    ck_assert_msg(left == 0, "%d sleep(s) outlived spacrbench", left);
    ck_assert_msg(took < 20, "took %.1f s", took);
    ck_assert_msg(strstr(r.err, "item 1: still running at --timeout (1 s) after the command had "
                                "exited, killed: sleep (pid ") != NULL,
                  "stderr: %s", r.err);
    ck_assert_msg(strstr(r.err, "item 2: still running at --timeout") != NULL, "stderr: %s", r.err);
    const char *flat = r.out; /* wrapped lines joined */
    ck_assert_msg(strstr(flat, "left running by their command, then killed at --timeout: item "
                               "1: sleep (pid ") != NULL,
                  "stdout: %s", r.out);
    ck_assert_msg(strstr(flat, "; item 2: sleep (pid ") != NULL, "stdout: %s", r.out);
    ck_assert_msg(strstr(flat, "items measured      2") != NULL, "stdout: %s", r.out);
    cli_result_free(&r);
}
END_TEST

/* The largest peak of `true {}` over the items of file (--sample 3), and
 * spacrbench's own resident size then, in bytes. */
static double true_peak(const char *file, int no_cgroup, double *own)
{
    char *const argv[] = {
        SPACRBENCH_CLI, "run",        "--json",   "--quiet", (char *)mode(no_cgroup),
        "--items",      (char *)file, "--sample", "3",       "--",
        "true",         "{}",         NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    char *json = cli_temp_file(r.out);
    cli_result_free(&r);
    double most = json_num(json, "max(x['tree_rss_peak_bytes'] for x in "
                                 "d['measurement']['records'])");
    *own = json_num(json, "d['spacrbench_rss_bytes']");
    unlink(json);
    free(json);
    return most;
}

static void write_items(char *path, long n)
{
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    ck_assert_ptr_nonnull(f);
    for (long i = 0; i < n; i++)
        fprintf(f, "/data/plate/well_%07ld/field_0001_channel_dapi.tif\n", i);
    ck_assert_int_eq(fclose(f), 0);
}

/* `true` started by a spacrbench holding 10^6 items (about 50 MB): the
 * figure is the command's (GNU time's for `true`), the same as beside 3
 * items, never the memory of the process it was forked from. It read 70
 * MiB before (108 MiB with 84 MB of items). */
START_TEST(a_large_item_list_is_not_in_the_command_peak)
{
    if (!cli_have_python()) {
        printf("SKIP a_large_item_list_is_not_in_the_command_peak: no Python to read the JSON\n");
        return;
    }
    char big[] = "/tmp/sbtest-items-XXXXXX", few[] = "/tmp/sbtest-items-XXXXXX";
    write_items(big, 1000000);
    write_items(few, 3);
    char *const alone[] = {"true", NULL};
    double gnu = gnu_time_bytes(alone), own_big = 0, own_few = 0;
    double most = true_peak(big, _i, &own_big), small = true_peak(few, _i, &own_few);
    unlink(big);
    unlink(few);
    printf("`true` beside 10^6 items (%s): spacrbench %.1f MiB (itself %.1f MiB), beside 3 "
           "items %.1f MiB (itself %.1f MiB), GNU time %.1f MiB\n",
           _i ? "no cgroup" : "cgroup", most / MIB, own_big / MIB, small / MIB, own_few / MIB,
           gnu / MIB);
    ck_assert_msg(own_big > own_few + 40 * MIB, "spacrbench held only %.1f MiB: no test",
                  own_big / MIB);
    ck_assert_msg(most <= small + 1 * MIB, "`true` read %.1f MiB beside 10^6 items, %.1f beside 3",
                  most / MIB, small / MIB);
#ifdef SPACRBENCH_SANITIZED
    /* The launcher carries the sanitizer's runtime (about 9 MiB resident, ASan or TSan). */
    printf("SKIP the GNU time bound of `true`: a sanitized spacrbench\n");
#else
    if (gnu > 0)
        ck_assert_msg(most <= gnu + 2 * MIB, "ours %.1f MiB, GNU time %.1f MiB", most / MIB,
                      gnu / MIB);
#endif
}
END_TEST

/* A stop signal while the item waits for what its command left running
 * ends the item as one during the command does: not counted (it counted,
 * cut short at the signal, before), the leftovers ended. */
START_TEST(a_stop_signal_while_leftovers_run_is_not_counted)
{
    char marker[32], script[200];
    cli_sleep_marker(marker, sizeof marker, 44 + _i);
    snprintf(script, sizeof script,
             "p=$PPID; (sleep 0.5; kill -TERM $p; exec sleep %s) >/dev/null 2>&1 & exit 0", marker);
    char *const argv[] = {SPACRBENCH_CLI, "run", (char *)mode(_i), "a", "b", "--",
                          "sh",           "-c",  script,           NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    int left = cli_sleep_survivors(marker);
    ck_assert_msg(r.exited && r.code == 3, "exit %d: %s", r.code, r.err);
    ck_assert_msg(left == 0, "%d sleep(s) outlived spacrbench", left);
    ck_assert_msg(strstr(r.out, "items measured      0") != NULL, "stdout: %s", r.out);
    ck_assert_msg(strstr(r.out, "stopped at item 1 (a): interrupted by signal 15") != NULL,
                  "stdout: %s", r.out);
    ck_assert_msg(strstr(r.err, "item 1 (a) interrupted by signal 15") != NULL, "stderr: %s",
                  r.err);
    cli_result_free(&r);
}
END_TEST

/* CPU seconds of argv by GNU time (%U + %S), -1 without /usr/bin/time. */
static double gnu_time_cpu(char *const *argv)
{
    if (access("/usr/bin/time", X_OK) != 0) {
        printf("SKIP the GNU time comparison: no /usr/bin/time (Debian's time package)\n");
        return -1;
    }
    char *full[16] = {"/usr/bin/time", "-f", "%U %S"};
    size_t n = 3;
    for (; argv[n - 3] && n < 15; n++)
        full[n] = argv[n - 3];
    full[n] = NULL;
    cli_result t;
    cli_run(full, NULL, &t);
    ck_assert_msg(t.exited && t.code == 0, "GNU time: exit %d: %s", t.code, t.err);
    double user = -1, sys = -1;
    const char *last = t.err;
    for (const char *nl; (nl = strchr(last, '\n')) && nl[1];)
        last = nl + 1;
    sscanf(last, "%lf %lf", &user, &sys);
    cli_result_free(&t);
    ck_assert_msg(user >= 0 && sys >= 0, "GNU time said nothing");
    return user + sys;
}

#define BUSY_LOOP "i=0; while [ $i -lt 400000 ]; do i=$((i+1)); done"

/* The CPU of a process the command left running (an orphan reaped here,
 * its rusage in wait4's answer) is the item's, as GNU time counts the same
 * loop run in the foreground. GNU time runs before and after ours, because a
 * shared machine's speed drifts between runs (CI once saw 0.51 s, then 0.83 s
 * for the same loop); ours must lie within half the lower and one and a half
 * times the higher. It read 0.00 s before; counted twice it would be 2x. */
START_TEST(an_orphan_cpu_time_counts)
{
    char *const fg[] = {"sh", "-c", BUSY_LOOP, NULL};
    double gnu = gnu_time_cpu(fg);
    char *const argv[] = {
        SPACRBENCH_CLI,      "run", "--json", "--quiet", (char *)mode(_i), "a", "--", "sh", "-c",
        "(" BUSY_LOOP ") &", NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    if (!cli_have_python()) {
        cli_result_free(&r);
        printf("SKIP an_orphan_cpu_time_counts: no Python to read the JSON\n");
        return;
    }
    char *json = cli_temp_file(r.out);
    cli_result_free(&r);
    double cpu = json_num(json, "d['measurement']['records'][0]['cpu_seconds']");
    unlink(json);
    free(json);
    double after = gnu < 0 ? -1 : gnu_time_cpu(fg);
    double lo = gnu < after ? gnu : after, hi = gnu < after ? after : gnu;
    printf("a busy orphan (%s): spacrbench %.2f s CPU, GNU time of it in the foreground %.2f s "
           "before, %.2f s after\n",
           _i ? "no cgroup" : "cgroup", cpu, gnu, after);
    if (gnu < 0)
        ck_assert_msg(cpu >= 0.1, "CPU %.2f s", cpu);
    else
        ck_assert_msg(cpu >= 0.5 * lo && cpu <= 1.5 * hi + 0.05,
                      "ours %.2f s, GNU time %.2f s before and %.2f s after", cpu, gnu, after);
}
END_TEST

/* spacrbench SIGKILLed mid-item cannot end the command: the kernel does
 * (PR_SET_PDEATHSIG), so it no longer runs on. */
START_TEST(a_killed_spacrbench_takes_its_command_along)
{
    char marker[32], script[64];
    cli_sleep_marker(marker, sizeof marker, 46 + _i);
    snprintf(script, sizeof script, "exec sleep %s", marker);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
        execl(SPACRBENCH_CLI, SPACRBENCH_CLI, "run", mode(_i), "a", "--", "sh", "-c", script, "sh",
              "{}", (char *)NULL);
        _exit(127);
    }
    int seen = 0;
    for (int i = 0; i < 200 && !(seen = cli_sleepers(marker, 0)); i++)
        usleep(50000);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    int left = cli_sleep_survivors(marker); /* kills what it finds */
    /* The next run removes the cgroup the killed one left (empty now). */
    char *const again[] = {SPACRBENCH_CLI, "run",  "--quiet", (char *)mode(_i), "a",
                           "--",           "true", NULL};
    cli_result r;
    cli_run(again, NULL, &r);
    cli_result_free(&r);
    ck_assert_msg(seen, "the command never started");
    ck_assert_msg(left == 0, "%d command(s) outlived the SIGKILLed spacrbench", left);
}
END_TEST

static Suite *tree_suite(void)
{
    Suite *s = suite_create("run tree");
    TCase *c = tcase_create("tree");
    tcase_set_timeout(c, 120);
    tcase_add_loop_test(c, an_orphan_counts_in_its_item_peak, 0, 2);
    tcase_add_loop_test(c, a_background_process_is_waited_for_and_counted, 0, 2);
    tcase_add_loop_test(c, what_the_timeout_kills_is_named, 0, 2);
    tcase_add_loop_test(c, a_large_item_list_is_not_in_the_command_peak, 0, 2);
    tcase_add_loop_test(c, a_stop_signal_while_leftovers_run_is_not_counted, 0, 2);
    tcase_add_loop_test(c, an_orphan_cpu_time_counts, 0, 2);
    tcase_add_loop_test(c, a_killed_spacrbench_takes_its_command_along, 0, 2);
    suite_add_tcase(s, c);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(tree_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
