/* A run's cgroups are known by their owner's identity (its pid and start
 * time, in the group's name), never by the program's name: a run started
 * through a symlink, or a renamed copy of the binary, is alive, and a
 * concurrent run's clean-up of stale groups leaves its groups alone; a
 * group whose pid now belongs to another process (a reused pid: another
 * start time) is stale. The real binary, real cgroups (root; a visible
 * skip elsewhere). */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_test_support.h"

/* Field 22 of /proc/PID/stat: when pid started. */
static unsigned long long start_of(pid_t pid)
{
    char path[64], text[2048];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    char *p = strrchr(text, ')');
    ck_assert_ptr_nonnull(p);
    p += 2;
    for (int field = 3; field < 22; field++) {
        p = strchr(p, ' ');
        ck_assert_ptr_nonnull(p);
        p++;
    }
    return strtoull(p, NULL, 10);
}

/* A program to start the run through: a symlink to the binary, or a copy
 * of it under another name (comm "sbrenamed"). */
static void program(char *path, size_t cap, int renamed)
{
    snprintf(path, cap, "/tmp/sb-liveness-%ld-%s", (long)getpid(), renamed ? "sbrenamed" : "link");
    unlink(path);
    if (!renamed) {
        ck_assert_int_eq(symlink(SPACRBENCH_CLI, path), 0);
        return;
    }
    char *const cp[] = {"/bin/cp", SPACRBENCH_CLI, path, NULL};
    cli_result r;
    cli_run(cp, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "cp: %s", r.err);
    cli_result_free(&r);
}

/* A run of `sleep` through path, started in the background. */
static pid_t start_run(const char *path, const char *seconds)
{
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(null, 0), dup2(null, 1), dup2(null, 2);
        execl(path, "spacrbench", "run", seconds, "--", "sleep", "{}", (char *)NULL);
        _exit(127);
    }
    cli_note_started(pid);
    return pid;
}

/* Wait until pid's run holds a group of its own in dir (its item's). */
static int wait_for_group(const char *dir, pid_t pid)
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, "spacrbench-run-%ld-t", (long)pid);
    for (int i = 0; i < 500; i++) {
        DIR *d = opendir(dir);
        struct dirent *e;
        int found = 0;
        while (d && (e = readdir(d)) != NULL)
            found |= strncmp(e->d_name, prefix, strlen(prefix)) == 0;
        if (d)
            closedir(d);
        if (found)
            return 1;
        usleep(10000);
    }
    return 0;
}

static void cleaner_run(void)
{
    char *const argv[] = {SPACRBENCH_CLI, "run", "--quiet", "a", "--", "true", NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    cli_result_free(&r);
}

/* Through a symlink (_i 0) and a renamed copy (_i 1): an empty group of
 * the live run (as its probe or an item's group is, for a moment) stays;
 * one named for the same pid with another start time goes. */
START_TEST(a_live_run_under_another_name_keeps_its_groups)
{
    char own[1200];
    cli_own_memory_cgroup(own, sizeof own);
    char path[PATH_MAX];
    program(path, sizeof path, _i);
    pid_t live = own[0] ? start_run(path, "3") : -1;
    if (!own[0] || !wait_for_group(own, live)) {
        printf("SKIP: no memory cgroup of our own to make groups in\n");
        if (live > 0) {
            kill(live, SIGKILL);
            waitpid(live, NULL, 0);
        }
        unlink(path);
        return;
    }
    unsigned long long start = start_of(live);
    char planted[1500], reused[1500];
    snprintf(planted, sizeof planted, "%s/spacrbench-run-%ld-t%llu-planted", own, (long)live,
             start);
    snprintf(reused, sizeof reused, "%s/spacrbench-run-%ld-t%llu-reused", own, (long)live,
             start + 1);
    ck_assert_int_eq(mkdir(planted, 0755), 0);
    ck_assert_int_eq(mkdir(reused, 0755), 0);
    cleaner_run(); /* another run: it cleans stale groups when it starts */
    struct stat st;
    int planted_kept = stat(planted, &st) == 0, reused_kept = stat(reused, &st) == 0;
    rmdir(planted);
    rmdir(reused);
    int status;
    ck_assert_int_eq(waitpid(live, &status, 0), live);
    unlink(path);
    ck_assert_msg(planted_kept, "the live run's group %s was removed by another run", planted);
    ck_assert_msg(!reused_kept, "%s (its pid runs, started at another time) was kept", reused);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the live run: status %d", status);
}
END_TEST

/* The probe and the item groups of a renamed run, while other runs clean
 * stale groups all along: it measures every item in a cgroup of its own. */
START_TEST(a_renamed_run_measures_in_cgroups_while_others_clean)
{
    char own[1200];
    cli_own_memory_cgroup(own, sizeof own);
    if (!own[0]) {
        printf("SKIP: no memory cgroup of our own to make groups in\n");
        return;
    }
    char path[PATH_MAX], json[PATH_MAX];
    program(path, sizeof path, 1);
    snprintf(json, sizeof json, "/tmp/sb-liveness-%ld.json", (long)getpid());
    pid_t cleaners = fork();
    ck_assert_int_ge(cleaners, 0);
    if (cleaners == 0) { /* runs starting one after another: each cleans when it starts */
        for (int i = 0; i < 12; i++) {
            pid_t p = fork();
            if (p == 0) {
                int null = open("/dev/null", O_RDWR);
                dup2(null, 0), dup2(null, 1), dup2(null, 2);
                execl(SPACRBENCH_CLI, SPACRBENCH_CLI, "run", "--quiet", "a", "--", "true",
                      (char *)NULL);
                _exit(127);
            }
            waitpid(p, NULL, 0);
        }
        _exit(0);
    }
    char *const argv[] = {path, "run", "--quiet", "--report", json, "1",    "2",  "3", "4",
                          "5",  "6",   "7",       "8",        "--", "true", "{}", NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    waitpid(cleaners, NULL, 0);
    unlink(path);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    ck_assert_msg(strstr(r.err, "without a cgroup") == NULL, "stderr: %s", r.err);
    cli_result_free(&r);
    char *doc = cli_read_file(json);
    unlink(json);
    ck_assert_ptr_nonnull(doc);
    ck_assert_msg(strstr(doc, "\"advice_uses\": \"cgroup_charge\""),
                  "the renamed run measured without its cgroup:\n%.2000s", doc);
    free(doc);
}
END_TEST

static Suite *liveness_suite(void)
{
    Suite *s = suite_create("cli_liveness");
    TCase *t = tcase_create("identity");
    tcase_set_timeout(t, 120);
    tcase_add_loop_test(t, a_live_run_under_another_name_keeps_its_groups, 0, 2);
    tcase_add_test(t, a_renamed_run_measures_in_cgroups_while_others_clean);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *r = srunner_create(liveness_suite());
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
