/* Stop signals around the real `spacrbench` binary: a stop signal ends the
 * item's whole process tree (the signal first, SIGKILL after the grace
 * period). The commands signal spacrbench themselves (their parent), so
 * the signal always lands while they run. _i = 0: a cgroup of its own
 * where the machine allows; 1: --no-cgroup. */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli_test_support.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Live `sleep MARKER` processes (the marker is unique to one test); with
 * kill_them, they are SIGKILLed by pid, so a failing test leaves none. */
static int sleepers(const char *marker, int kill_them)
{
    DIR *d = opendir("/proc");
    ck_assert_ptr_nonnull(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char path[300], buf[512], state[600];
        long pid = strtol(e->d_name, NULL, 10);
        if (pid <= 0)
            continue;
        snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
        int fd = open(path, O_RDONLY);
        if (fd < 0)
            continue;
        ssize_t k = read(fd, buf, sizeof buf - 1);
        close(fd);
        for (ssize_t i = 0; i < k; i++)
            if (buf[i] == '\0')
                buf[i] = ' ';
        buf[k > 0 ? k : 0] = '\0';
        if (k <= 0 || strstr(buf, "sleep") != buf || !strstr(buf, marker))
            continue;
        /* A zombie has an empty cmdline, so this one is alive. */
        snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        fd = open(path, O_RDONLY);
        ssize_t s = fd >= 0 ? read(fd, state, sizeof state - 1) : -1;
        if (fd >= 0)
            close(fd);
        state[s > 0 ? s : 0] = '\0';
        const char *paren = strrchr(state, ')');
        if (paren && paren[1] == ' ' && paren[2] == 'Z')
            continue;
        n++;
        if (kill_them)
            kill((pid_t)pid, SIGKILL);
    }
    closedir(d);
    return n;
}

/* How many sleepers outlived spacrbench (killed now, so none stays). */
static int survivors(const char *marker)
{
    usleep(100000); /* a SIGKILLed process may take a moment to go */
    return sleepers(marker, 1);
}

/* Serially, the command dies of the stop signal spacrbench passes on, but
 * leaves a child: the child gets the signal too (a sleep dies of it), so
 * nothing outlives spacrbench, long before the sleep would end. */
START_TEST(serial_stop_signal_ends_the_whole_tree)
{
    char *const argv[] = {SPACRBENCH_CLI,
                          "run",
                          "--quiet",
                          _i ? "--no-cgroup" : "--quiet",
                          "a",
                          "b",
                          "--",
                          "sh",
                          "-c",
                          "sleep 36.1357 & kill -TERM $PPID; wait",
                          "sh",
                          "{}",
                          NULL};
    cli_result r;
    double t0 = now_s();
    cli_run(argv, NULL, &r);
    double took = now_s() - t0;
    int left = survivors("36.1357");
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

static Suite *signals_suite(void)
{
    Suite *s = suite_create("cli_signals");
    TCase *t = tcase_create("serial");
    tcase_set_timeout(t, 120);
    tcase_add_loop_test(t, serial_stop_signal_ends_the_whole_tree, 0, 2);
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
