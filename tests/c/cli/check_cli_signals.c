/* Stop signals and OOM kills around the real `spacrbench` binary, serially
 * and in --scale: a stop signal ends the item's whole process tree (the
 * signal first, SIGKILL after the grace period) and never leaves a --scale
 * point looking valid; an OOM kill during --scale is named with the limit
 * the copies ran under, with and without a cgroup of their own. The
 * commands signal spacrbench themselves (their parent), so the signal
 * always lands while they run. _i = 0: a cgroup of its own where the
 * machine allows; 1: --no-cgroup. */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli_test_support.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Serially, the command dies of the stop signal spacrbench passes on, but
 * leaves a child: the child gets the signal too (a sleep dies of it), so
 * nothing outlives spacrbench, long before the sleep would end. */
START_TEST(serial_stop_signal_ends_the_whole_tree)
{
    char marker[32], body[128];
    cli_sleep_marker(marker, sizeof marker, 36);
    snprintf(body, sizeof body, "sleep %s & kill -TERM $PPID; wait", marker);
    char *const argv[] = {SPACRBENCH_CLI,
                          "run",
                          "--quiet",
                          _i ? "--no-cgroup" : "--quiet",
                          "a",
                          "b",
                          "--",
                          "sh",
                          "-c",
                          body,
                          "sh",
                          "{}",
                          NULL};
    cli_result r;
    double t0 = now_s();
    cli_run(argv, NULL, &r);
    double took = now_s() - t0;
    int left = cli_sleep_survivors(marker);
    ck_assert_msg(r.exited && r.code == 3, "exit %d: %s", r.code, r.err);
    ck_assert_msg(strstr(r.out, "interrupted by signal 15") != NULL, "stdout: %s", r.out);
    ck_assert_msg(left == 0, "%d process(es) of the item outlived spacrbench; stdout: %s", left,
                  r.out);
    ck_assert_msg(strstr(r.out, "outlived their item") == NULL, "stdout: %s", r.out);
    ck_assert_msg(took < 30, "took %.1f s", took);
    cli_result_free(&r);
    ck_assert_int_eq(cli_count_leftover_cgroups(), 0);
}
END_TEST

/* The shell script of a --scale test: the serial run (items a and b) and
 * the 1-worker point succeed (one item at a time always gets the lock
 * directory); a copy of the 2-worker point that finds the lock taken by
 * the other copy runs `body`, which signals spacrbench. */
static void scale_script(char *script, size_t cap, const char *lock, const char *body)
{
    snprintf(script, cap, "mkdir '%s' 2>/dev/null && { sleep 0.3; rmdir '%s'; exit 0; }; %s", lock,
             lock, body);
}

/* Runs spacrbench --json --scale 1,2 --scale-items 1 --scale-seconds 0 a b
 * -- sh -c SCRIPT; returns the JSON's path. */
static char *run_scale_test(int no_cgroup, const char *body, cli_result *r, double *took)
{
    char dir[] = "/tmp/sbtest-signals-lock-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char lock[64];
    snprintf(lock, sizeof lock, "%s/lock", dir);
    char script[1500];
    scale_script(script, sizeof script, lock, body);
    char *const argv[] = {SPACRBENCH_CLI,
                          "run",
                          "--json",
                          "--quiet",
                          "--scale",
                          "1,2",
                          "--scale-items=1",
                          "--scale-seconds=0",
                          no_cgroup ? "--no-cgroup" : "--quiet",
                          "a",
                          "b",
                          "--",
                          "sh",
                          "-c",
                          script,
                          "sh",
                          "{}",
                          NULL};
    double t0 = now_s();
    cli_run(argv, NULL, r);
    *took = now_s() - t0;
    rmdir(lock); /* the copy that held it was ended by the signal */
    rmdir(dir);
    return cli_temp_file(r->out);
}

static void assert_json(const char *path, const char *expr, const char *expected)
{
    char *v = cli_json_eval(path, expr);
    if (!v)
        return; /* no python3: said once */
    int same = strcmp(v, expected) == 0;
    char got[256];
    snprintf(got, sizeof got, "%s", v);
    free(v);
    ck_assert_msg(same, "%s: %s, expected %s", expr, got, expected);
}

/* Copies that ignore SIGTERM (and a child of theirs that does too): 5 s
 * after the signal, spacrbench kills the whole group instead of waiting
 * for them, the interrupted point is marked failed and the knee is the
 * point measured before; exit 3, nothing left running. */
START_TEST(scale_stop_signal_kills_the_group_after_the_grace)
{
    char marker[32], body[128];
    cli_sleep_marker(marker, sizeof marker, 37);
    snprintf(body, sizeof body, "trap '' TERM INT; sleep %s & kill -TERM $PPID; wait", marker);
    cli_result r;
    double took;
    char *path = run_scale_test(_i, body, &r, &took);
    int left = cli_sleep_survivors(marker);
    ck_assert_msg(r.exited && r.code == 3, "exit %d: %s", r.code, r.err);
    ck_assert_msg(took > 4 && took < 30, "took %.1f s", took);
    ck_assert_msg(left == 0, "%d process(es) of the copies outlived spacrbench", left);
    ck_assert_msg(strstr(r.err, "still running 5 s after signal 15") != NULL, "stderr: %s", r.err);
    ck_assert_msg(strstr(r.err, "interrupted by signal 15") != NULL, "stderr: %s", r.err);
    assert_json(path, "[p['failed'] for p in d['scaling']]", "[False, True]");
    assert_json(path, "d['scaling_workers']", "1");
    assert_json(path, "any('interrupted by signal 15' in n for n in d['scaling_notes'])", "True");
    unlink(path);
    free(path);
    cli_result_free(&r);
    ck_assert_int_eq(cli_count_leftover_cgroups(), 0);
}
END_TEST

/* Well-behaved copies: they exit 0 on SIGTERM, but leave a child that
 * does not. The point is still interrupted (marked failed, never the
 * knee), and the child gets the signal once its copy is gone. */
START_TEST(scale_stop_signal_marks_the_point_failed_and_ends_what_copies_left)
{
    char marker[32], body[128];
    cli_sleep_marker(marker, sizeof marker, 38);
    snprintf(body, sizeof body, "trap 'exit 0' TERM; sleep %s & kill -TERM $PPID; wait", marker);
    cli_result r;
    double took;
    char *path = run_scale_test(_i, body, &r, &took);
    int left = cli_sleep_survivors(marker);
    ck_assert_msg(r.exited && r.code == 3, "exit %d: %s", r.code, r.err);
    ck_assert_msg(left == 0, "%d process(es) of the copies outlived spacrbench", left);
    ck_assert_msg(took < 30, "took %.1f s", took);
    ck_assert_msg(strstr(r.err, "interrupted by signal 15") != NULL, "stderr: %s", r.err);
    assert_json(path, "[p['failed'] for p in d['scaling']]", "[False, True]");
    assert_json(path, "d['scaling_workers']", "1");
    unlink(path);
    free(path);
    cli_result_free(&r);
    ck_assert_int_eq(cli_count_leftover_cgroups(), 0);
}
END_TEST

/* spacrbench in a cgroup limited to 256 MiB: each item (150 MiB) fits
 * alone, two copies at once do not. The OOM kill is named with the limit
 * above the copies (the count's own cgroup has none), and without a
 * cgroup of its own through the oom_kill counter of spacrbench's cgroup. */
START_TEST(scale_oom_kill_is_named_with_the_limit)
{
    char dir[1300];
    cli_make_limited_cgroup(dir, sizeof dir, "spacrbench-signals-oom");
    if (!dir[0])
        return;
    char script[4096];
    /* --no-cgroup with a budget would end the count at the budget itself,
     * before the kernel (scale_over_budget_count_without_a_cgroup_is_ended_
     * at_the_budget); with the reserve taking all (no budget, nothing to
     * watch) the kernel's kill is what there is to name. */
    snprintf(script, sizeof script,
             "echo $$ > '%s/cgroup.procs' && exec '%s' run --json --quiet %s --scale 2 150 150 "
             "-- '%s' {} 300",
             dir, SPACRBENCH_CLI, _i ? "--no-cgroup --reserve 1G" : "", HELPER_ALLOC_TOUCH);
    char *const argv[] = {"/bin/sh", "-c", script, NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    int left = cli_count_ended_groups_in(dir);
    int removed = rmdir(dir);
    /* With a cgroup the count's group carries the budget (available -
     * reserve, below the 256 MiB) as its limit: the OOM kill there is the
     * check's answer, a memory point, exit 0; without one (--no-cgroup) the
     * kill happened under spacrbench's own cgroup's 256 MiB: a failed
     * copy, exit 3. */
    ck_assert_msg(r.exited && r.code == (_i ? 3 : 0), "exited %d code %d: %s", r.exited, r.code,
                  r.err);
    ck_assert_msg(
        strstr(r.err, _i ? "OOM-killed (the kernel's out-of-memory killer; memory limit "
                           "256.0 MiB)"
                         : "OOM-killed (the kernel's out-of-memory killer; memory limit ") != NULL,
        "stderr: %s", r.err);
    ck_assert_msg(strstr(r.err, _i ? "2 workers: the kernel's OOM killer ended 1 process(es) while "
                                     "they ran"
                                   : "2 workers: over the memory budget: OOM-killed in their "
                                     "group at its limit of") != NULL,
                  "stderr: %s", r.err);
    ck_assert_msg(strstr(r.err, "memory limit unknown") == NULL, "stderr: %s", r.err);
    ck_assert_int_eq(left, 0);
    ck_assert_int_eq(removed, 0);
    char *path = cli_temp_file(r.out);
    assert_json(path, "[p['failed'] for p in d['scaling']]", "[True]");
    assert_json(path,
                _i ? "any('memory limit 256.0 MiB' in n for n in d['scaling_notes'])"
                   : "d['scaling'][0]['group_limit_bytes'] == d['scaling_budget_bytes'] < "
                     "256 * 2**20 and any('at its limit of ' in n for n in d['scaling_notes'])",
                "True");
    assert_json(path, "[p['oom_killed'] for p in d['scaling']]", "[True]");
    /* Each case in its own words: the group's limit (the budget), or a
     * limit outside the check's group; one worker was never measured
     * alone, so the advice is not the one-worker one. */
    assert_json(path,
                _i ? "'2 workers were OOM-killed at a memory limit outside the check' in "
                     "d['scaling_reason']"
                   : "'2 workers were OOM-killed in their group at its limit of' in "
                     "d['scaling_reason']",
                "True");
    assert_json(path,
                "'every count measured needs more memory' in d['recommendation']['reason'] and "
                "'even one worker' not in d['recommendation']['reason']",
                "True");
    unlink(path);
    free(path);
    cli_result_free(&r);
}
END_TEST

/* The budget is each count's group limit: spacrbench in a 256 MiB v1
 * cgroup, 60 MiB copies, counts 1, 4, 2 in that order. 4 x 60 MiB is over
 * the budget (256 MiB less the 64 MiB reserve and what runs already): the
 * count is OOM-killed inside its own group (never spacrbench), its point is
 * failed, oom_killed, at the budget, the verdict is `memory`; the run goes
 * on with the 2-worker count and prints the report; exit 0. */
START_TEST(scale_over_budget_count_is_a_memory_point)
{
    char dir[1300];
    cli_make_limited_cgroup(dir, sizeof dir, "spacrbench-signals-budget");
    if (!dir[0])
        return;
    char script[4096];
    snprintf(script, sizeof script,
             "echo $$ > '%s/cgroup.procs' && exec '%s' run --json --quiet --scale 1,4,2 "
             "--scale-items 1 --scale-seconds 0 60 60 -- '%s' {} 300",
             dir, SPACRBENCH_CLI, HELPER_ALLOC_TOUCH);
    char *const argv[] = {"/bin/sh", "-c", script, NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    int left = cli_count_ended_groups_in(dir);
    int removed = rmdir(dir);
    ck_assert_msg(r.exited && r.code == 0, "exited %d code %d: %s", r.exited, r.code, r.err);
    ck_assert_msg(strstr(r.err, "4 workers: over the memory budget: OOM-killed in their group") !=
                      NULL,
                  "stderr: %s", r.err);
    ck_assert_int_eq(left, 0);
    ck_assert_int_eq(removed, 0);
    char *path = cli_temp_file(r.out);
    assert_json(path, "[p['workers'] for p in d['scaling']]", "[1, 2, 4]");
    assert_json(path, "[p['failed'] for p in d['scaling']]", "[False, False, True]");
    assert_json(path, "[p['oom_killed'] for p in d['scaling']]", "[False, False, True]");
    assert_json(path,
                "d['scaling'][2]['group_limit_bytes'] == d['scaling_budget_bytes'] < "
                "256 * 2**20",
                "True");
    assert_json(path, "d['scaling_verdict']", "memory");
    assert_json(path, "d['scaling_workers'] in (1, 2)", "True");
    assert_json(path, "d['measurement']['items']", "2");
    unlink(path);
    free(path);
    cli_result_free(&r);
}
END_TEST

/* Caller safety without a cgroup of the count's own (issue #34): no group
 * can carry the budget as its limit (--no-cgroup as root; an unprivileged
 * user, _i = 1, who cannot make one), so the check watches each count's
 * sampled memory and ends the one that passes the budget, a memory point,
 * long before the kernel's limit (512 MiB here, the budget about 250 MiB:
 * 1 copy of 150 MiB fits, 2 do not). Exit 0: the check's answer. */
START_TEST(scale_over_budget_count_without_a_cgroup_is_ended_at_the_budget)
{
    if (_i && (geteuid() != 0 || access("/usr/sbin/runuser", X_OK) != 0)) {
        printf("SKIP unprivileged --scale watch: needs root to become nobody (runuser)\n");
        return;
    }
    char dir[1300];
    cli_make_limited_cgroup(dir, sizeof dir, "spacrbench-signals-watch");
    if (!dir[0])
        return;
    /* 512 MiB: swap accounting's limit first (it may not be below the other). */
    char file[1400];
    snprintf(file, sizeof file, "%s/memory.memsw.limit_in_bytes", dir);
    FILE *f = fopen(file, "w");
    if (f) {
        fputs("536870912", f);
        fclose(f);
    }
    snprintf(file, sizeof file, "%s/memory.limit_in_bytes", dir);
    f = fopen(file, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_ge(fputs("536870912", f), 0);
    ck_assert_int_eq(fclose(f), 0);
    char script[4096];
    snprintf(script, sizeof script,
             "echo $$ > '%s/cgroup.procs' && exec %s '%s' run --json --quiet %s --reserve 256M "
             "--scale 1,2 --scale-items 1 --scale-seconds 0 150 150 -- '%s' {} 300",
             dir, _i ? "/usr/sbin/runuser -u nobody --" : "", SPACRBENCH_CLI,
             _i ? "" : "--no-cgroup", HELPER_ALLOC_TOUCH);
    char *const argv[] = {"/bin/sh", "-c", script, NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    int removed = rmdir(dir);
    ck_assert_msg(r.exited && r.code == 0, "exited %d code %d: %s", r.exited, r.code, r.err);
    ck_assert_msg(strstr(r.err, "2 workers: ended by spacrbench: the copies' memory reached ") !=
                      NULL,
                  "stderr: %s", r.err);
    ck_assert_msg(strstr(r.err, "OOM-killed") == NULL, "stderr: %s", r.err);
    ck_assert_int_eq(removed, 0);
    char *path = cli_temp_file(r.out);
    assert_json(path, "[p['peak_method'] for p in d['scaling']]",
                "['child_rusage', 'child_rusage']");
    assert_json(path, "[p['failed'] for p in d['scaling']]", "[False, True]");
    assert_json(path, "[p['oom_killed'] for p in d['scaling']]", "[False, True]");
    assert_json(path,
                "d['scaling'][1]['group_limit_bytes'] == d['scaling_budget_bytes'] < 300 * 2**20",
                "True");
    assert_json(path, "d['scaling_verdict']", "memory");
    assert_json(path, "d['scaling_workers']", "1");
    assert_json(path, "'ended by spacrbench' in d['scaling_reason']", "True");
    assert_json(path, "any('no cgroup could hold a limit' in n for n in d['scaling_notes'])",
                "True");
    unlink(path);
    free(path);
    cli_result_free(&r);
}
END_TEST

static Suite *signals_suite(void)
{
    Suite *s = suite_create("cli_signals");
    TCase *t = tcase_create("serial");
    tcase_set_timeout(t, 120);
    tcase_add_loop_test(t, serial_stop_signal_ends_the_whole_tree, 0, 2);
    suite_add_tcase(s, t);
    t = tcase_create("scale");
    tcase_set_timeout(t, 120);
    tcase_add_loop_test(t, scale_stop_signal_kills_the_group_after_the_grace, 0, 2);
    tcase_add_loop_test(t, scale_stop_signal_marks_the_point_failed_and_ends_what_copies_left, 0,
                        2);
    tcase_add_loop_test(t, scale_oom_kill_is_named_with_the_limit, 0, 2);
    tcase_add_test(t, scale_over_budget_count_is_a_memory_point);
    tcase_add_loop_test(t, scale_over_budget_count_without_a_cgroup_is_ended_at_the_budget, 0, 2);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(signals_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
