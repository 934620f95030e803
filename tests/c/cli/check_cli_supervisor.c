/* The process supervisor (src/os/supervisor/supervisor.h) directly, and
 * what `spacrbench run` gains from it: --scale copies built one copy at a
 * time, a fork failure under pids.max that keeps the measured points,
 * --timeout for --scale copies, exit 127/126 for a command that cannot be
 * started, both memory figures in the report, and the cleanup of the
 * library's groups left by a killed caller. Real child processes, real
 * cgroups (v1 memory and pids controllers where writable), unique names. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_test_support.h"
#include "spacrbench.h"
#include "supervisor.h"

/* ---- the supervisor itself ---- */

typedef struct lines_seen {
    int live, most, built;
} lines_seen;

static char **one_line(void *arg, int64_t copy, int64_t line)
{
    lines_seen *seen = arg;
    char text[64];
    snprintf(text, sizeof text, "exit $(( %lld * 0 + %lld * 0 ))", (long long)copy,
             (long long)line);
    char **argv = calloc(4, sizeof *argv);
    ck_assert_ptr_nonnull(argv);
    argv[0] = strdup("sh");
    argv[1] = strdup("-c");
    argv[2] = strdup(text);
    seen->built++;
    if (++seen->live > seen->most)
        seen->most = seen->live;
    return argv;
}

static lines_seen *g_seen;

static void free_line(char **argv)
{
    for (char **p = argv; *p; p++)
        free(*p);
    free(argv);
    g_seen->live--;
}

static void init_supervisor(sb_supervisor *s, int no_cgroup, double timeout_s)
{
    sb_supervisor_config cfg = {.no_cgroup = no_cgroup,
                                .machine_limit = -1,
                                .timeout_s = timeout_s,
                                .prefix = "sbtest-sup"};
    sb_supervisor_init(s, &cfg);
}

/* k copies of m lines: every line runs, and only one copy's lines exist at
 * a time (the argv of a 64 x 100000 check is never built all at once). */
START_TEST(copies_build_their_lines_when_they_start)
{
    sb_supervisor s;
    init_supervisor(&s, _i, 0);
    lines_seen seen = {0, 0, 0};
    g_seen = &seen;
    char name[32];
    snprintf(name, sizeof name, "lines-%d", _i);
    sb_launch l = {.copies = 4,
                   .lines = 3,
                   .argv_for = one_line,
                   .argv_free = free_line,
                   .arg = &seen,
                   .name = name};
    sb_copy copies[4];
    sb_outcome o;
    char why[1200];
    int rc = sb_supervisor_run(&s, &l, copies, &o, why, sizeof why);
    sb_supervisor_free(&s);
    ck_assert_msg(rc == 0, "%s", why);
    ck_assert_int_eq(seen.built, 12);
    ck_assert_int_eq(seen.live, 0);
    ck_assert_int_le(seen.most, 3);
    ck_assert_int_eq(o.started, 4);
    for (int i = 0; i < 4; i++) {
        ck_assert(copies[i].done);
        ck_assert_msg(WIFEXITED(copies[i].status) && WEXITSTATUS(copies[i].status) == 0,
                      "copy %d: status %d", i, copies[i].status);
    }
    ck_assert_int_ge(o.rss_peak, 0);
    ck_assert_int_ge(o.peak, 0);
}
END_TEST

static char **given(void *arg, int64_t copy, int64_t line)
{
    (void)copy;
    (void)line;
    return arg;
}

/* The timeout ends a group whose copies never exit, with everything they
 * started; the copies read as SIGKILLed, nothing is left. */
START_TEST(the_timeout_kills_the_whole_group)
{
    sb_supervisor s;
    init_supervisor(&s, _i, 0.3);
    char marker[32], body[200];
    cli_sleep_marker(marker, sizeof marker, 42);
    snprintf(body, sizeof body, "sleep %s & sleep %s; wait", marker, marker);
    char *argv[] = {"sh", "-c", body, NULL};
    sb_launch l = {.copies = 2, .lines = 1, .argv_for = given, .arg = argv, .name = "timeout"};
    sb_copy copies[2];
    sb_outcome o;
    char why[1200];
    int rc = sb_supervisor_run(&s, &l, copies, &o, why, sizeof why);
    sb_supervisor_free(&s);
    ck_assert_msg(rc == 0, "%s", why);
    ck_assert(o.timed_out);
    for (int i = 0; i < 2; i++)
        ck_assert(copies[i].done && WIFSIGNALED(copies[i].status) &&
                  WTERMSIG(copies[i].status) == SIGKILL);
    ck_assert_int_eq(o.left_behind, 0);
    ck_assert_int_eq(cli_sleep_survivors(marker), 0);
}
END_TEST

/* An exec failure is the copy's own, told through the CLOEXEC pipe. */
START_TEST(a_command_that_cannot_start_is_named)
{
    sb_supervisor s;
    init_supervisor(&s, 1, 0);
    char *argv[] = {"/nonexistent/sbtest-supervisor-tool", NULL};
    sb_launch l = {.copies = 1, .lines = 1, .argv_for = given, .arg = argv, .name = "exec"};
    sb_copy c;
    sb_outcome o;
    char why[1200];
    int rc = sb_supervisor_run(&s, &l, &c, &o, why, sizeof why);
    sb_supervisor_free(&s);
    ck_assert_msg(rc == 0, "%s", why);
    ck_assert_int_eq(c.exec_errno, ENOENT);
    ck_assert_msg(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 127, "status %#x", c.status);
}
END_TEST

/* ---- the command ---- */

START_TEST(a_command_that_is_not_executable_exits_126)
{
    char *path = cli_temp_file("#!/bin/sh\nexit 0\n");
    ck_assert_int_eq(chmod(path, 0644), 0);
    char *const argv[] = {SPACRBENCH_CLI, "run", "--quiet", "x", "--", path, NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    unlink(path);
    free(path);
    ck_assert_msg(r.exited && r.code == 126, "exit %d: %s", r.code, r.err);
    ck_assert_ptr_nonnull(strstr(r.err, "cannot be started: Permission denied"));
    cli_result_free(&r);
}
END_TEST

/* The report carries both figures, each named for what it is, and says
 * in one line which one the advice divides by; the JSON has them under
 * their own names, per item and for the run; the hand-off says which one
 * --mem / memory_limit comes from. */
START_TEST(both_memory_figures_are_reported)
{
    char *const argv[] = {
        SPACRBENCH_CLI, "run", "--json", "--quiet", _i ? "--no-cgroup" : "--quiet", "a", "--",
        "sh",           "-c",  "exit 0", NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    char *json = cli_temp_file(r.out);
    char *head = cli_json_eval(json, "\"\\n  peak RSS            \" in d['report'] and "
                                     "\"the process tree's summed RSS\" in d['report']");
    /* One memory line names the advice's figure: the charge, with a cgroup. */
    char *charged = cli_json_eval(json, "' charged; the advice and --mem use it)' in d['report']");
    /* Without one, the line says there is none; --verbose says how it was sampled. */
    char *sampled = cli_json_eval(json, "', no cgroup; the advice uses it)' in d['report'] and "
                                        "'peak memory = ' not in d['report']");
    char *uses = cli_json_eval(json, "d['memory_figures']['advice_uses']");
    char *rss = cli_json_eval(json, "d['memory_figures']['tree_rss_peak_bytes'] > 0 and "
                                    "d['memory_figures']['tree_rss_peak_bytes'] == "
                                    "d['measurement']['tree_rss_peak_bytes'] == "
                                    "d['measurement']['records'][0]['tree_rss_peak_bytes']");
    char *charge = cli_json_eval(json, "d['measurement']['cgroup_charge_bytes'] is None");
    /* The figure the advice divides by is the record's peak: the charge
     * with a cgroup, the tree's RSS peak without. */
    char *same = cli_json_eval(json, "(lambda r: r['peak_rss_bytes'] == (r['cgroup_charge_bytes'] "
                                     "if r['cgroup_charge_bytes'] is not None else "
                                     "r['tree_rss_peak_bytes']))(d['measurement']['records'][0])");
    char *cgroup = cli_json_eval(json, "d['measurement']['peak_method'] == 'cgroup'");
    if (uses) {
        int with = strcmp(cgroup, "True") == 0;
        ck_assert_str_eq(head, "True");
        ck_assert_str_eq(charged, with ? "True" : "False");
        ck_assert_str_eq(sampled, with ? "False" : "True");
        ck_assert_str_eq(uses, with ? "cgroup_charge" : "tree_rss_peak");
        ck_assert_str_eq(rss, "True");
        ck_assert_str_eq(charge, with ? "False" : "True");
        ck_assert_str_eq(same, "True");
        if (_i)
            ck_assert_int_eq(with, 0);
    }
    free(head);
    free(charged);
    free(sampled);
    free(uses);
    free(rss);
    free(charge);
    free(same);
    free(cgroup);
    unlink(json);
    free(json);
    cli_result_free(&r);

    char *const emit[] = {SPACRBENCH_CLI, "run",  "--emit", "dask", "--quiet", "a",
                          "--",           "true", NULL};
    cli_run(emit, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    ck_assert_msg(strstr(r.out, "# NOTE (spacrbench): memory_limit is built from the measured "
                                "peak per item") != NULL,
                  "%s", r.out);
    cli_result_free(&r);
}
END_TEST

/* `run --json --scale 1,2,64 a b` in a pids cgroup with pids.max=40: the
 * 1- and 2-worker points are kept, the 64 point is failed, exit 3. Not
 * about timing: the shortest check (--scale-items 1 --scale-seconds 0). */
START_TEST(a_fork_failure_under_pids_max_fails_only_its_point)
{
    char dir[256];
    snprintf(dir, sizeof dir, "/sys/fs/cgroup/pids/sbtest-supervisor-%ld", (long)getpid());
    if (mkdir(dir, 0755) != 0) {
        printf("SKIP: no writable pids cgroup (%s)\n", strerror(errno));
        return;
    }
    char file[300], script[1200];
    snprintf(file, sizeof file, "%s/pids.max", dir);
    FILE *f = fopen(file, "w");
    int wrote = f && fputs("40\n", f) >= 0;
    if (f)
        wrote &= fclose(f) == 0;
    snprintf(script, sizeof script,
             "echo $$ > %s/cgroup.procs && exec %s run --json --quiet --scale 1,2,64 "
             "--scale-items=1 --scale-seconds=0 a b -- true",
             dir, SPACRBENCH_CLI);
    char *const argv[] = {"/bin/sh", "-c", script, NULL};
    cli_result r = {0};
    if (wrote)
        cli_run(argv, NULL, &r);
    for (int i = 0; i < 100 && rmdir(dir) != 0; i++)
        usleep(10000);
    ck_assert_msg(wrote, "cannot set %s", file);
    ck_assert_msg(r.exited && r.code == 3, "exit %d: %s", r.code, r.err);
    ck_assert_msg(strstr(r.err, "64 workers: only") != NULL, "stderr: %s", r.err);
    ck_assert_ptr_nonnull(strstr(r.err, "could be started (fork: Resource temporarily"));
    char *json = cli_temp_file(r.out);
    char *failed = cli_json_eval(json, "[p['failed'] for p in d['scaling']]");
    char *workers = cli_json_eval(json, "[p['workers'] for p in d['scaling']]");
    if (failed) {
        ck_assert_str_eq(failed, "[False, False, True]");
        ck_assert_str_eq(workers, "[1, 2, 64]");
    }
    free(failed);
    free(workers);
    unlink(json);
    free(json);
    cli_result_free(&r);
    ck_assert_int_eq(cli_count_leftover_cgroups(), 0);
}
END_TEST

/* A --scale copy that never exits is killed at --timeout (x its items):
 * its point fails, the run goes on to the report, nothing is left. */
START_TEST(timeout_applies_to_scale_copies)
{
    /* One item at a time (the serial run, the 1-worker point) always gets
     * the lock; the 2-worker copy that finds it taken never exits. */
    char dir[] = "/tmp/sbtest-supervisor-lock-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char marker[32], script[600];
    cli_sleep_marker(marker, sizeof marker, 43);
    snprintf(script, sizeof script,
             "mkdir '%s/lock' 2>/dev/null && { sleep 0.3; rmdir '%s/lock'; exit 0; }; "
             "exec sleep %s",
             dir, dir, marker);
    char *const argv[] = {SPACRBENCH_CLI,
                          "run",
                          "--json",
                          "--quiet",
                          "--timeout",
                          "3", /* the 0.3 s items pass it even on a loaded machine */
                          "--scale",
                          "1,2",
                          "--scale-items=1",
                          "--scale-seconds=0",
                          _i ? "--no-cgroup" : "--quiet",
                          "a",
                          "b",
                          "--",
                          "sh",
                          "-c",
                          script,
                          "sh",
                          "{}",
                          NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    char lock[64];
    snprintf(lock, sizeof lock, "%s/lock", dir);
    rmdir(lock); /* the holder was killed with its count */
    rmdir(dir);
    int left = cli_sleep_survivors(marker); /* killed by pid, if any */
    ck_assert_msg(r.exited && r.code == 3, "exit %d: %s", r.code, r.err);
    ck_assert_msg(!left, "a copy outlived spacrbench");
    ck_assert_msg(strstr(r.err, "2 workers: timed out after 3 s") != NULL, "stderr: %s", r.err);
    char *json = cli_temp_file(r.out);
    char *failed = cli_json_eval(json, "[p['failed'] for p in d['scaling']]");
    if (failed)
        ck_assert_str_eq(failed, "[False, True]");
    free(failed);
    unlink(json);
    free(json);
    cli_result_free(&r);
    ck_assert_int_eq(cli_count_leftover_cgroups(), 0);
}
END_TEST

/* ---- the library's groups ---- */

static pid_t dead_pid(void)
{
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0)
        _exit(0);
    ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
    return pid;
}

/* A group a killed caller left is removed when the next one is opened. */
START_TEST(a_library_group_of_a_dead_caller_is_removed)
{
    char own[1200], stale[1400];
    cli_own_memory_cgroup(own, sizeof own);
    pid_t gone = dead_pid();
    snprintf(stale, sizeof stale, "%s/spacrbench-group-%ld-0", own, (long)gone);
    if (!own[0] || mkdir(stale, 0755) != 0) {
        printf("SKIP: no writable memory cgroup (%s)\n", strerror(errno));
        return;
    }
    spacrbench_group *g = NULL;
    int rc = spacrbench_group_open(0, &g);
    struct stat st;
    int still = stat(stale, &st) == 0;
    if (still)
        rmdir(stale);
    ck_assert_int_eq(spacrbench_group_close(g), 0);
    ck_assert_int_eq(rc, 0);
    ck_assert_msg(!still, "%s was not removed", stale);
}
END_TEST

static Suite *supervisor_suite(void)
{
    Suite *s = suite_create("supervisor");
    TCase *t = tcase_create("supervisor");
    tcase_set_timeout(t, 120);
    tcase_add_loop_test(t, copies_build_their_lines_when_they_start, 0, 2);
    tcase_add_loop_test(t, the_timeout_kills_the_whole_group, 0, 2);
    tcase_add_test(t, a_command_that_cannot_start_is_named);
    suite_add_tcase(s, t);
    TCase *c = tcase_create("command");
    tcase_set_timeout(c, 300);
    tcase_add_test(c, a_command_that_is_not_executable_exits_126);
    tcase_add_loop_test(c, both_memory_figures_are_reported, 0, 2);
    tcase_add_test(c, a_fork_failure_under_pids_max_fails_only_its_point);
    tcase_add_loop_test(c, timeout_applies_to_scale_copies, 0, 2);
    tcase_add_test(c, a_library_group_of_a_dead_caller_is_removed);
    suite_add_tcase(s, c);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(supervisor_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
