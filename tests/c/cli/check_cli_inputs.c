/* What the user hands the real `spacrbench` binary (item lists, options,
 * report targets, job script paths, the items themselves), checked before
 * it can do harm or lose information. Real files, real processes. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli_test_support.h"

/* How to start spacrbench beyond cli_run: a working directory, another
 * user, a smaller stack (ARG_MAX is a quarter of it, at least 128 KiB),
 * stdin from a descriptor, stderr on a terminal. */
typedef struct run_how {
    const char *cwd;
    uid_t uid; /* 0: as the test runs */
    rlim_t stack;
    int stdin_fd;   /* -1: /dev/null */
    int stderr_fd;  /* -1: captured */
    int deadline_s; /* killed after this long (a bug must not run forever) */
} run_how;

#define RUN_HOW_DEFAULT                                                                            \
    {                                                                                              \
        NULL, 0, 0, -1, -1, 60                                                                     \
    }

static void run_with(char *const argv[], const run_how *how, cli_result *r)
{
    char out_path[] = "/tmp/sbtest-inputs-out-XXXXXX";
    char err_path[] = "/tmp/sbtest-inputs-err-XXXXXX";
    int out = mkstemp(out_path), err = mkstemp(err_path);
    ck_assert_int_ge(out, 0);
    ck_assert_int_ge(err, 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int in = how->stdin_fd >= 0 ? how->stdin_fd : open("/dev/null", O_RDONLY);
        int e = how->stderr_fd >= 0 ? how->stderr_fd : err;
        if (in < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(e, 2) < 0)
            _exit(120);
        if (how->cwd && chdir(how->cwd) != 0)
            _exit(122);
        if (how->uid && (setgroups(0, NULL) != 0 || setgid(how->uid) != 0 || setuid(how->uid) != 0))
            _exit(124);
        if (how->stack) {
            /* Through the shell's ulimit: under valgrind this process's own
             * setrlimit(RLIMIT_STACK) is virtualised and never reaches exec. */
            char script[64];
            snprintf(script, sizeof script, "ulimit -s %lu && exec \"$@\"",
                     (unsigned long)(how->stack >> 10));
            char *shell[16] = {"/bin/sh", "-c", script, "sh"};
            size_t n = 4;
            for (size_t i = 0; argv[i] && n < 15; i++)
                shell[n++] = argv[i];
            shell[n] = NULL;
            execv(shell[0], shell);
            _exit(123);
        }
        execv(argv[0], argv);
        _exit(121);
    }
    if (how->stdin_fd >= 0)
        close(how->stdin_fd);
    int status = 0;
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        ck_assert_int_ge(w, 0);
        if (w == pid)
            break;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - start.tv_sec > how->deadline_s)
            kill(pid, SIGKILL);
        usleep(10000);
    }
    close(out);
    close(err);
    r->exited = WIFEXITED(status);
    r->code = r->exited ? WEXITSTATUS(status) : WTERMSIG(status);
    r->raw = cli_read_file(out_path);
    r->out = r->raw ? cli_unwrap(r->raw) : NULL;
    r->err = cli_read_file(err_path);
    unlink(out_path);
    unlink(err_path);
    ck_assert_ptr_nonnull(r->out);
    ck_assert_ptr_nonnull(r->err);
    ck_assert_msg(!r->exited || r->code < 120 || r->code > 124, "could not start %s (%d)", argv[0],
                  r->code);
}

/* A pipe whose writer (a child) writes `total` bytes of `byte`, then
 * closes; returns the read end, and in *writer the child, which exits 0
 * when everything was written, non-zero when the reader closed early. The
 * writer is a shell pipeline, not this program: under valgrind a forked
 * copy of the test would report the parent's memory as lost at its exit
 * and exit 99 whatever happened. */
static int feeding_pipe(char byte, size_t total, pid_t *writer)
{
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    *writer = fork();
    ck_assert_int_ge(*writer, 0);
    if (*writer == 0) {
        close(p[0]);
        if (dup2(p[1], 1) < 0)
            _exit(120);
        close(p[1]);
        char size[32], octal[8];
        snprintf(size, sizeof size, "%zu", total);
        snprintf(octal, sizeof octal, "\\%03o", (unsigned)(unsigned char)byte);
        execl("/bin/sh", "sh", "-c", "head -c \"$1\" /dev/zero | tr '\\000' \"$2\" 2>/dev/null",
              "sh", size, octal, (char *)NULL);
        _exit(121);
    }
    close(p[1]);
    return p[0];
}

static int writer_status(pid_t writer)
{
    int status = 0;
    ck_assert_int_eq(waitpid(writer, &status, 0), writer);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

/* Item lists: bounded as the bytes arrive. */

/* An endless stream without newlines (here 256 MiB of 'a' on a pipe) is
 * refused once a line passes ARG_MAX: with a 512 KiB stack that is the
 * 128 KiB floor. spacrbench stops reading then, so the writer finds the
 * pipe closed long before its 256 MiB are out. */
START_TEST(a_list_without_newlines_stops_at_arg_max)
{
    pid_t writer;
    run_how how = RUN_HOW_DEFAULT;
    how.stdin_fd = feeding_pipe('a', (size_t)256 << 20, &writer);
    how.stack = 512 << 10;
    char *const argv[] = {SPACRBENCH_CLI, "run", "--quiet", "--no-cgroup", "--", "true", NULL};
    cli_result r;
    run_with(argv, &how, &r);
    int w = writer_status(writer);
    ck_assert_msg(r.exited && r.code == 2, "exit %d: %.300s", r.code, r.err);
    ck_assert_msg(strstr(r.err, "stdin: line 1 of standard input is longer than 131072 bytes "
                                "(ARG_MAX") != NULL,
                  "stderr: %.300s", r.err);
    ck_assert_msg(w != 0, "the writer was not cut off (status %d): the list was read whole", w);
    cli_result_free(&r);

    /* A file: named, and the line counted. */
    char *path = cli_temp_file("first\nsecond\n");
    FILE *f = fopen(path, "a");
    ck_assert_ptr_nonnull(f);
    for (int i = 0; i < 200000; i++)
        fputc('x', f);
    fclose(f);
    char *const file_argv[] = {SPACRBENCH_CLI, "run", "--quiet", "--items",
                               path,           "--",  "true",    NULL};
    how.stdin_fd = -1;
    run_with(file_argv, &how, &r);
    char want[512];
    snprintf(want, sizeof want, "--items: line 3 of '%s' is longer than 131072 bytes", path);
    ck_assert_msg(r.exited && r.code == 2, "exit %d: %.300s", r.code, r.err);
    ck_assert_msg(strstr(r.err, want) != NULL, "stderr: %.300s", r.err);
    cli_result_free(&r);
    unlink(path);
    free(path);
}
END_TEST

/* ARG_MAX bounds a line, MAX_ARG_STRLEN each argument: an item of 200 KiB
 * (within the default 2 MiB ARG_MAX) can never be passed to a command, so
 * it is refused before anything runs, not started to fail with 126; one
 * that fits is run, {} inside a longer argument counted. */
START_TEST(an_item_beyond_one_argument_is_refused_before_it_runs)
{
    char *path = cli_temp_file("short\n");
    FILE *f = fopen(path, "a");
    ck_assert_ptr_nonnull(f);
    for (int i = 0; i < 200 << 10; i++)
        fputc('y', f);
    fputc('\n', f);
    fclose(f);
    char *marker = cli_temp_file("");
    char script[600];
    snprintf(script, sizeof script, "echo ran >> '%s'", marker);
    char *const argv[] = {SPACRBENCH_CLI, "run", "--quiet", "--no-cgroup", "--items", path, "--",
                          "sh",           "-c",  script,    "x",           "{}",      NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 2, "exit %d: %.300s", r.code, r.err);
    ck_assert_msg(strstr(r.err, "--items: item 2 (") &&
                      strstr(r.err, "makes an argument of the command 204800 bytes long, more "
                                    "than the 131071 that Linux passes in one argument"),
                  "stderr: %.400s", r.err);
    cli_result_free(&r);
    char *ran = cli_read_file(marker);
    ck_assert_str_eq(ran, ""); /* nothing ran, the short item neither */
    free(ran);
    /* 131066 bytes inside "--in={}": 131071, the most one argument takes. */
    f = fopen(path, "w");
    for (int i = 0; i < 131066; i++)
        fputc('z', f);
    fputc('\n', f);
    fclose(f);
    char *const fits[] = {SPACRBENCH_CLI, "run", "--quiet", "--no-cgroup", "--items", path, "--",
                          "sh",           "-c",  script,    "x",           "--in={}", NULL};
    cli_run(fits, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %.300s", r.code, r.err);
    cli_result_free(&r);
    ran = cli_read_file(marker);
    ck_assert_str_eq(ran, "ran\n");
    free(ran);
    unlink(marker);
    free(marker);
    unlink(path);
    free(path);
}
END_TEST

/* A NUL byte is refused where it arrives, not after a whole "line": zeros
 * (like /dev/zero, but 256 MiB and then an end) stop the reading at once. */
START_TEST(nul_bytes_stop_the_reading_at_once)
{
    pid_t writer;
    run_how how = RUN_HOW_DEFAULT;
    how.stdin_fd = feeding_pipe('\0', (size_t)256 << 20, &writer);
    char *const argv[] = {SPACRBENCH_CLI, "run", "--quiet", "--items", "-", "--", "true", NULL};
    cli_result r;
    run_with(argv, &how, &r);
    int w = writer_status(writer);
    ck_assert_msg(r.exited && r.code == 2, "exit %d: %.300s", r.code, r.err);
    ck_assert_msg(strstr(r.err, "--items: line 1 holds a NUL byte") != NULL, "stderr: %.300s",
                  r.err);
    ck_assert_msg(w != 0, "the writer was not cut off (status %d)", w);
    cli_result_free(&r);

    /* /dev/zero itself, named. */
    char *const zero[] = {SPACRBENCH_CLI, "run", "--quiet", "--items",
                          "/dev/zero",    "--",  "true",    NULL};
    how.stdin_fd = -1;
    how.deadline_s = 20;
    run_with(zero, &how, &r);
    ck_assert_msg(r.exited && r.code == 2, "exit %d: %.300s", r.code, r.err);
    ck_assert_msg(strstr(r.err, "line 1 holds a NUL byte, which no item can contain "
                                "('/dev/zero')") != NULL,
                  "stderr: %.300s", r.err);
    cli_result_free(&r);
}
END_TEST

/* Range errors state the range. */

START_TEST(range_errors_state_the_range)
{
    static const struct {
        const char *args[3];
        const char *want;
    } cases[] = {
        {{"--cores", "2147483648"}, "--cores: expected a whole number from 1 to 2147483647"},
        {{"--maximum", "0"}, "--maximum: expected a whole number from 1 to 2147483647"},
        {{"--warmup", "99999999999"}, "--warmup: expected a whole number from 0 to 2147483647"},
        {{"--timeout", "999999999h"}, "at most 10000000 s (about 115 days)"},
        {{"--timeout", "0"}, "--timeout: expected a duration above 0 and at most 10000000 s"},
        {{"--reserve", "9223372036854775808"},
         "size '9223372036854775808' is too large (the largest size is 8 EiB - 1 byte)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *const argv[] = {
            SPACRBENCH_CLI, "run", (char *)cases[i].args[0], (char *)cases[i].args[1], "a", "--",
            "true",         NULL};
        cli_expect_usage_error(argv, cases[i].want, i);
    }
    /* The largest plain byte count is exact, not rounded up past the range. */
    char *const max_reserve[] = {
        SPACRBENCH_CLI,        "run", "--quiet", "--no-cgroup", "--reserve",
        "9223372036854775807", "a",   "--",      "true",        NULL};
    cli_result r;
    run_how how = RUN_HOW_DEFAULT;
    run_with(max_reserve, &how, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    cli_result_free(&r);
}
END_TEST

static char *temp_dir(const char *pattern)
{
    char *dir = strdup(pattern);
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(chmod(dir, 0755), 0);
    return dir;
}

static void remove_tree(const char *dir)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

/* --report: the temporary file, and the kernel's files. */

START_TEST(report_falls_back_to_writing_in_place)
{
    if (geteuid() != 0) {
        printf("SKIP: report_falls_back_to_writing_in_place needs root to become another user\n");
        return;
    }
    /* A directory only root may write, a file anyone may. */
    char *dir = temp_dir("/tmp/sbtest-inputs-ro-XXXXXX");
    char path[1200], created[1200];
    snprintf(path, sizeof path, "%s/report.txt", dir);
    snprintf(created, sizeof created, "%s/new.txt", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("an old report that is longer than nothing\n", f);
    fclose(f);
    ck_assert_int_eq(chmod(path, 0666), 0);
    run_how how = RUN_HOW_DEFAULT;
    how.uid = 65534;
    char *const argv[] = {SPACRBENCH_CLI, "run", "--quiet", "--no-cgroup", "--report",
                          path,           "a",   "--",      "true",        NULL};
    cli_result r;
    run_with(argv, &how, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    char *text = cli_read_file(path);
    ck_assert_ptr_nonnull(text);
    ck_assert_str_eq(text, r.raw); /* the whole report, nothing of the old one */
    free(text);
    cli_result_free(&r);

    /* A new file there cannot be made: refused before the run (exit 2),
     * the directory named. */
    char *const fresh[] = {SPACRBENCH_CLI, "run", "--quiet", "--no-cgroup", "--report",
                           created,        "a",   "--",      "true",        NULL};
    run_with(fresh, &how, &r);
    ck_assert_msg(r.exited && r.code == 2, "exit %d: %s", r.code, r.err);
    char want[2600];
    snprintf(want, sizeof want,
             "--report: cannot write %s: no file can be created in %s: "
             "Permission denied",
             created, dir);
    ck_assert_msg(strstr(r.err, want) != NULL, "stderr: %s", r.err);
    ck_assert_str_eq(r.out, "");
    cli_result_free(&r);

    /* Neither a temporary nor the file itself: refused before the run,
     * both named. */
    ck_assert_int_eq(chmod(path, 0644), 0);
    run_with(argv, &how, &r);
    ck_assert_msg(r.exited && r.code == 2, "exit %d: %s", r.code, r.err);
    snprintf(want, sizeof want,
             "--report: cannot write %s: Permission denied, and no file can be "
             "created in %s to replace it: Permission denied",
             path, dir);
    ck_assert_msg(strstr(r.err, want) != NULL, "stderr: %s", r.err);
    ck_assert_str_eq(r.out, "");
    cli_result_free(&r);
    remove_tree(dir);
    free(dir);
}
END_TEST

static char *marker_path(void)
{
    char *m = strdup("/tmp/sbtest-inputs-marker-XXXXXX");
    int fd = mkstemp(m);
    ck_assert_int_ge(fd, 0);
    close(fd);
    unlink(m);
    return m;
}

/* Every output that cannot be made where it will be written is refused
 * before the first item runs (exit 2, the option and the reason named,
 * the command never started), not lost after the run: a directory the
 * user may not write, one the user may not even search (another user's
 * home), and, for root too, one of a file system that takes no new file
 * (/sys). --emit slurm's directory likewise. */
static void expect_refused_before_the_run(const run_how *how, const char *option, const char *path,
                                          const char *words)
{
    char *marker = marker_path();
    char touch[256], items[] = "/tmp/sbtest-inputs-items-XXXXXX";
    snprintf(touch, sizeof touch, "touch '%s'", marker);
    int fd = mkstemp(items);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, "a\n", 2), 2);
    close(fd);
    ck_assert_int_eq(chmod(items, 0644), 0);
    int emit = strcmp(option, "--slurm-output") == 0;
    char *const argv[] = {SPACRBENCH_CLI, "run",     "--quiet", "--no-cgroup", (char *)option,
                          (char *)path,   "--items", items,     "--",          "sh",
                          "-c",           touch,     NULL};
    char *const emit_argv[] = {
        SPACRBENCH_CLI, "run",          "--quiet",    "--no-cgroup", "--emit",
        "slurm",        (char *)option, (char *)path, "--items",     items,
        "--",           "sh",           "-c",         touch,         NULL};
    cli_result r;
    run_with(emit ? emit_argv : argv, how, &r);
    ck_assert_msg(r.exited && r.code == 2, "%s %s: exit %d: %s", option, path, r.code, r.err);
    char want[1300];
    snprintf(want, sizeof want, "%s: %s", option, words);
    ck_assert_msg(strstr(r.err, want) != NULL, "want '%s' in stderr: %s", want, r.err);
    ck_assert_msg(strstr(r.err, "(see spacrbench run --help)") != NULL, "stderr: %s", r.err);
    struct stat st;
    ck_assert_msg(stat(marker, &st) != 0, "%s %s: the command ran", option, path);
    ck_assert_str_eq(r.out, "");
    cli_result_free(&r);
    unlink(items);
    free(marker);
}

START_TEST(an_output_that_cannot_be_made_is_refused_before_the_run)
{
    static const char *const options[][2] = {{"--report", "r.json"},
                                             {"--export-csv", "r.csv"},
                                             {"--export-markdown", "r.md"},
                                             {"--plot", "r.png"}};
    char path[1400], words[2800];
    run_how how = RUN_HOW_DEFAULT;
    struct stat st;
    /* A file system that takes no new file, for root and user alike. */
    if (stat("/sys/kernel", &st) == 0) {
        for (size_t i = 0; i < 4; i++) {
            snprintf(path, sizeof path, "/sys/sbtest-%s", options[i][1]);
            snprintf(words, sizeof words,
                     "cannot write %s: no file can be created in /sys: ", path);
            expect_refused_before_the_run(&how, options[i][0], path, words);
        }
        expect_refused_before_the_run(&how, "--slurm-output", "/sys/kernel",
                                      "no file can be created in /sys/kernel: ");
    } else
        printf("SKIP: the /sys case of an_output_that_cannot_be_made_is_refused_before_the_run: "
               "no /sys/kernel here\n");
    /* As a user: a directory only root writes (as root: run as nobody). */
    if (geteuid() == 0)
        how.uid = 65534;
    char *dir = temp_dir("/tmp/sbtest-inputs-ro-XXXXXX");
    ck_assert_int_eq(chmod(dir, geteuid() == 0 ? 0755 : 0555), 0);
    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, options[i][1]);
        snprintf(words, sizeof words,
                 "cannot write %s: no file can be created in %s: Permission denied", path, dir);
        expect_refused_before_the_run(&how, options[i][0], path, words);
    }
    snprintf(words, sizeof words, "no file can be created in %s: Permission denied", dir);
    expect_refused_before_the_run(&how, "--slurm-output", dir, words);
    /* One the user may not search: the reviewer's /root/x.csv. */
    ck_assert_int_eq(chmod(dir, 0), 0);
    snprintf(path, sizeof path, "%s/x.csv", dir);
    snprintf(words, sizeof words, "cannot write %s: Permission denied", path);
    if (geteuid() == 0 || access(dir, X_OK) != 0) {
        expect_refused_before_the_run(&how, "--export-csv", path, words);
        /* --emit slurm's directory there: exit 2 too (it was 1). */
        snprintf(path, sizeof path, "%s/sj", dir);
        snprintf(words, sizeof words, "cannot create '%s': Permission denied", path);
        expect_refused_before_the_run(&how, "--slurm-output", path, words);
    }
    ck_assert_int_eq(chmod(dir, 0755), 0);
    remove_tree(dir);
    free(dir);
}
END_TEST

/* Runs spacrbench run ARGS... -- sh -c 'touch MARKER' in dir as how says;
 * asserts that it is refused (exit 2, want on stderr, the help named)
 * before the command ran. */
static void expect_apart(const run_how *how, const char *const *args, const char *want)
{
    char *marker = marker_path();
    char touch[256];
    snprintf(touch, sizeof touch, "touch '%s'", marker);
    char *argv[24] = {SPACRBENCH_CLI, "run", "--quiet", "--no-cgroup"};
    size_t n = 4;
    while (*args)
        argv[n++] = (char *)*args++;
    char *const tail[] = {"--", "sh", "-c", touch, NULL};
    memcpy(argv + n, tail, sizeof tail);
    cli_result r;
    run_with(argv, how, &r);
    ck_assert_msg(r.exited && r.code == 2, "exit %d: %s", r.code, r.err);
    ck_assert_msg(strstr(r.err, want) != NULL, "want '%s' in stderr: %s", want, r.err);
    ck_assert_msg(strstr(r.err, "(see spacrbench run --help)") != NULL, "stderr: %s", r.err);
    struct stat st;
    ck_assert_msg(stat(marker, &st) != 0, "the command ran: %s", r.err);
    cli_result_free(&r);
    free(marker);
}

/* Two outputs on one file, or an output on the items file: one would
 * overwrite the other after the run, so both are refused before it; by
 * name, by another spelling, through a link, a hard link, and --emit
 * slurm's files. As root and as a user alike. */
START_TEST(outputs_that_are_one_file_are_refused_before_the_run)
{
    char *dir = temp_dir("/tmp/sbtest-inputs-apart-XXXXXX");
    ck_assert_int_eq(chmod(dir, 0777), 0);
    char items[1200], soft[1200], hard[1200], job[1200], same[1200];
    snprintf(items, sizeof items, "%s/fields.txt", dir);
    snprintf(soft, sizeof soft, "%s/link.txt", dir);
    snprintf(same, sizeof same, "%s/same.txt", dir);
    snprintf(hard, sizeof hard, "%s/hard.txt", dir);
    snprintf(job, sizeof job, "%s/job", dir);
    FILE *f = fopen(items, "w");
    ck_assert_ptr_nonnull(f);
    fputs("a\n", f);
    fclose(f);
    ck_assert_int_eq(chmod(items, 0666), 0);
    ck_assert_int_eq(symlink("fields.txt", soft), 0);
    ck_assert_int_eq(link(items, hard), 0);
    ck_assert_int_eq(mkdir(job, 0777), 0);
    ck_assert_int_eq(chmod(job, 0777), 0);
    for (int as_user = 0; as_user < 2; as_user++) {
        run_how how = RUN_HOW_DEFAULT;
        how.cwd = dir;
        if (as_user) {
            if (geteuid() != 0)
                break; /* this run is the user's already */
            how.uid = 65534;
        }
        const char *csv_items[] = {"--export-csv", "fields.txt", "--items", "fields.txt", NULL};
        expect_apart(&how, csv_items,
                     "--export-csv: fields.txt is --items's file too (fields.txt): writing it "
                     "would replace the items");
        const char *report_csv[] = {"--report",   "same.txt", "--export-csv",
                                    "./same.txt", "a",        NULL};
        expect_apart(&how, report_csv,
                     "--export-csv: ./same.txt is --report's file too (same.txt): each output "
                     "needs a file of its own");
        const char *through_link[] = {"--items", "fields.txt", "--export-markdown", "link.txt",
                                      NULL};
        expect_apart(&how, through_link, "--export-markdown: link.txt is --items's file too");
        const char *hard_link[] = {"--items", "hard.txt", "--report", items, NULL};
        expect_apart(&how, hard_link, "--report: ");
        const char *plot_md[] = {"--export-markdown", "p.png", "--plot", "p.png", "a", NULL};
        expect_apart(&how, plot_md, "--plot: p.png is --export-markdown's file too");
        const char *slurm[] = {
            "--emit",  "slurm",      "--slurm-output", "job",
            "--items", "fields.txt", "--report",       "job/spacrbench-array.json",
            NULL};
        expect_apart(&how, slurm,
                     "--report: job/spacrbench-array.json is --slurm-output's file too");
        /* A device is no file to replace: /dev/null twice is fine. */
        char *const both_null[] = {
            SPACRBENCH_CLI, "run",       "--quiet", "--no-cgroup", "--report", "/dev/null",
            "--export-csv", "/dev/null", "a",       "--",          "true",     NULL};
        cli_result r;
        run_with(both_null, &how, &r);
        ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
        cli_result_free(&r);
    }
    char *text = cli_read_file(items);
    ck_assert_str_eq(text, "a\n"); /* never replaced */
    free(text);
    struct stat st;
    ck_assert_int_ne(stat(same, &st), 0);
    remove_tree(dir);
    free(dir);
}
END_TEST

START_TEST(report_refuses_the_kernels_files_saying_why)
{
    char *const argv[] = {SPACRBENCH_CLI, "run", "--quiet", "--no-cgroup", "--report",
                          "/proc/1/mem",  "a",   "--",      "true",        NULL};
    cli_result r;
    run_how how = RUN_HOW_DEFAULT;
    run_with(argv, &how, &r);
    ck_assert_msg(r.exited && r.code == 2, "exit %d: %s", r.code, r.err); /* before the run */
    ck_assert_msg(strstr(r.err, "/proc/1/mem is a file of the kernel's proc file system") != NULL,
                  "stderr: %s", r.err);
    ck_assert_msg(strstr(r.err, "No such file or directory") == NULL, "stderr: %s", r.err);
    ck_assert_str_eq(r.out, "");
    cli_result_free(&r);
}
END_TEST

/* A long item keeps the reason of its failure. */

START_TEST(long_failing_item_keeps_the_reason)
{
    char item[1101];
    memset(item, 'x', 1096);
    memcpy(item + 1096, ".tif", 5); /* 1100 bytes */
    char report[] = "/tmp/sbtest-inputs-report-XXXXXX.json";
    int fd = mkstemps(report, 5);
    ck_assert_int_ge(fd, 0);
    close(fd);
    char *const argv[] = {SPACRBENCH_CLI, "run", "--quiet", "--no-cgroup", "--report", report, item,
                          "--",           "sh",  "-c",      "exit 3",      "sh",       NULL};
    cli_result r;
    run_how how = RUN_HOW_DEFAULT;
    run_with(argv, &how, &r);
    ck_assert_msg(r.exited && r.code == 3, "exit %d: %.400s", r.code, r.err);
    /* The start, "...", the end (the extension) and the length, then the
     * whole sentence: the reason and what was counted. */
    const char *tail = "x.tif (1100 bytes)): exited with status 3 after ";
    const char *p = strstr(r.out, "stopped at item 1 (xxxx");
    ck_assert_msg(p != NULL, "stdout: %.400s", r.out);
    const char *end = strstr(p, tail);
    ck_assert_msg(end != NULL && strstr(p, "...") < end, "stdout: %.600s", p);
    ck_assert_msg(end - p < 260, "the item takes %td bytes of the note", end - p);
    ck_assert_msg(strstr(end, "; not counted\n") != NULL, "stdout: %.600s", p);
    ck_assert_msg(strstr(r.err, "x.tif (1100 bytes)) exited with status 3: sh -c") != NULL,
                  "stderr: %.600s", r.err);
    /* The --report JSON holds the same whole note. */
    char *json = cli_read_file(report);
    ck_assert_ptr_nonnull(json);
    ck_assert_msg(strstr(json, tail) != NULL && strstr(json, "; not counted\"") != NULL,
                  "report: %.600s", json);
    free(json);
    cli_result_free(&r);
    unlink(report);
}
END_TEST

/* C1 control characters: U+009B (CSI) as UTF-8, and a raw 0x9b. */

#define C1_ITEM                                                                                    \
    "a\xc2\x9b"                                                                                    \
    "31mb\x9b"                                                                                     \
    "c"
#define C1_SHOWN "a\\xc2\\x9b31mb\\x9bc"

START_TEST(c1_controls_are_escaped_in_notes_and_on_stderr)
{
    char *const argv[] = {SPACRBENCH_CLI, "run", "--quiet", "--no-cgroup", C1_ITEM, "--",
                          "sh",           "-c",  "exit 3",  "sh",          "{}",    NULL};
    cli_result r;
    run_how how = RUN_HOW_DEFAULT;
    run_with(argv, &how, &r);
    ck_assert_msg(r.exited && r.code == 3, "exit %d: %s", r.code, r.err);
    ck_assert_msg(strchr(r.out, '\x9b') == NULL, "stdout holds 0x9b: %s", r.out);
    ck_assert_msg(strchr(r.err, '\x9b') == NULL, "stderr holds 0x9b: %s", r.err);
    ck_assert_msg(strstr(r.out, "stopped at item 1 (" C1_SHOWN ")") != NULL, "stdout: %s", r.out);
    ck_assert_msg(strstr(r.err, "item 1 (" C1_SHOWN
                                ") exited with status 3: sh -c 'exit 3' sh '" C1_SHOWN "'") != NULL,
                  "stderr: %s", r.err);
    cli_result_free(&r);
}
END_TEST

/* Progress lines appear when stderr is a terminal: one is given. */
START_TEST(c1_controls_are_escaped_in_progress_lines)
{
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    ck_assert_int_ge(master, 0);
    ck_assert_int_eq(grantpt(master), 0);
    ck_assert_int_eq(unlockpt(master), 0);
    int slave = open(ptsname(master), O_RDWR | O_NOCTTY);
    ck_assert_int_ge(slave, 0);
    run_how how = RUN_HOW_DEFAULT;
    how.stderr_fd = slave;
    char *const argv[] = {SPACRBENCH_CLI, "run", "--no-cgroup", C1_ITEM, "--", "true", NULL};
    cli_result r;
    run_with(argv, &how, &r);
    close(slave);
    char buf[8192];
    size_t len = 0;
    ssize_t n;
    int flags = fcntl(master, F_GETFL);
    fcntl(master, F_SETFL, flags | O_NONBLOCK);
    while (len < sizeof buf - 1 && (n = read(master, buf + len, sizeof buf - 1 - len)) > 0)
        len += (size_t)n;
    buf[len] = '\0';
    close(master);
    ck_assert_msg(r.exited && r.code == 0, "exit %d", r.code);
    ck_assert_msg(strstr(buf, "item 1/1 done") != NULL, "terminal: %s", buf);
    ck_assert_msg(memchr(buf, '\x9b', len) == NULL, "the terminal got 0x9b: %s", buf);
    ck_assert_msg(strstr(buf, C1_SHOWN) != NULL, "terminal: %s", buf);
    cli_result_free(&r);
}
END_TEST

static int exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* --emit slurm: the job script is checked before any item runs. */

START_TEST(slurm_job_is_checked_before_any_item_runs)
{
    char *dir = temp_dir("/tmp/sbtest inputs XXXXXX"); /* a space */
    char items[1200], marker_cmd[256];
    snprintf(items, sizeof items, "%s/items.txt", dir);
    FILE *f = fopen(items, "w");
    ck_assert_ptr_nonnull(f);
    fputs("a\nb\n", f);
    fclose(f);
    char *marker = marker_path();
    snprintf(marker_cmd, sizeof marker_cmd, "touch '%s'", marker);
    char default_dir[1300], link[1300], through_link[1400];
    snprintf(default_dir, sizeof default_dir, "%s/spacrbench-job", dir);
    snprintf(link, sizeof link, "/tmp/sbtest-inputs-link-%ld", (long)getpid());
    snprintf(through_link, sizeof through_link, "%s/new/job", link);
    unlink(link);
    ck_assert_int_eq(symlink(dir, link), 0);

    /* The default directory under a current directory with a space. */
    run_how how = RUN_HOW_DEFAULT;
    how.cwd = dir;
    char *const by_default[] = {SPACRBENCH_CLI, "run", "--quiet", "--emit", "slurm",    "--items",
                                "items.txt",    "--",  "sh",      "-c",     marker_cmd, NULL};
    cli_result r;
    run_with(by_default, &how, &r);
    ck_assert_msg(r.exited && r.code == 2, "exit %d: %s", r.code, r.err);
    ck_assert_msg(strstr(r.err, "--emit slurm: the default output directory") != NULL &&
                      strstr(r.err, "--slurm-output DIR") != NULL,
                  "stderr: %s", r.err);
    ck_assert_msg(!exists(default_dir), "%s was created", default_dir);
    ck_assert_msg(!exists(marker), "an item ran");
    ck_assert_str_eq(r.out, "");
    cli_result_free(&r);

    /* Given directories: a '%', and a link into the directory with a space. */
    const char *bad[] = {"/tmp/sbtest-inputs-100%", through_link};
    for (size_t i = 0; i < 2; i++) {
        char *const given[] = {
            SPACRBENCH_CLI,   "run",          "--quiet", "--emit", "slurm", "--items",  items,
            "--slurm-output", (char *)bad[i], "--",      "sh",     "-c",    marker_cmd, NULL};
        run_with(given, &how, &r);
        ck_assert_msg(r.exited && r.code == 2, "case %zu: exit %d: %s", i, r.code, r.err);
        ck_assert_msg(strstr(r.err, "--slurm-output: '") != NULL &&
                          strstr(r.err, "cannot be written in an #SBATCH --output line") != NULL,
                      "case %zu: stderr: %s", i, r.err);
        ck_assert_msg(!exists(bad[i]), "case %zu: %s was created", i, bad[i]);
        ck_assert_msg(!exists(marker), "case %zu: an item ran", i);
        cli_result_free(&r);
    }
    char new_dir[1300];
    snprintf(new_dir, sizeof new_dir, "%s/new", dir);
    ck_assert_msg(!exists(new_dir), "%s was created", new_dir);

    /* A good directory is created and the script written. */
    char good[64];
    snprintf(good, sizeof good, "/tmp/sbtest-inputs-job-%ld/x", (long)getpid());
    char *const fine[] = {SPACRBENCH_CLI, "run",     "--quiet", "--no-cgroup",    "--emit",
                          "slurm",        "--items", items,     "--slurm-output", good,
                          "--",           "true",    NULL};
    run_with(fine, &how, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "#SBATCH --array=0-1\n"));
    ck_assert(exists(good));
    cli_result_free(&r);
    good[strlen(good) - 2] = '\0';
    remove_tree(good);
    unlink(link);
    remove_tree(dir);
    free(dir);
    free(marker);
}
END_TEST

/* More items than SLURM's default MaxArraySize (1001) allows. */

START_TEST(slurm_array_beyond_the_default_max_array_size_is_flagged)
{
    for (int n = 1001; n <= 1002; n++) {
        char *items = cli_temp_file("");
        FILE *f = fopen(items, "w");
        ck_assert_ptr_nonnull(f);
        for (int i = 0; i < n; i++)
            fprintf(f, "item-%d\n", i);
        fclose(f);
        char out_dir[64];
        snprintf(out_dir, sizeof out_dir, "/tmp/sbtest-inputs-array-%ld", (long)getpid());
        char *const argv[] = {SPACRBENCH_CLI, "run",     "--quiet", "--no-cgroup",    "--emit",
                              "slurm",        "--items", items,     "--slurm-output", out_dir,
                              "--",           "true",    NULL};
        cli_result r;
        run_how how = RUN_HOW_DEFAULT;
        how.deadline_s = 240;
        run_with(argv, &how, &r);
        ck_assert_msg(r.exited && r.code == 0, "%d items: exit %d: %s", n, r.code, r.err);
        if (n == 1001) {
            ck_assert_ptr_nonnull(strstr(r.out, "#SBATCH --array=0-1000\n"));
            ck_assert_msg(strstr(r.err, "MaxArraySize") == NULL, "stderr: %s", r.err);
            ck_assert_msg(strstr(r.out, "MaxArraySize") == NULL, "script: %s", r.out);
        } else {
            ck_assert_ptr_nonnull(strstr(r.out, "#SBATCH --array=0-1001\n"));
            const char *say = "1002 items make --array=0-1001, beyond SLURM's default "
                              "MaxArraySize of 1001";
            ck_assert_msg(strstr(r.err, "--emit slurm: warning: ") != NULL &&
                              strstr(r.err, say) != NULL,
                          "stderr: %s", r.err);
            const char *comment = strstr(r.out, "\n# NOTE (spacrbench): ");
            ck_assert_msg(comment != NULL && strstr(comment, say) != NULL &&
                              strstr(comment, "split -l 1001") != NULL,
                          "script: %s", r.out);
        }
        cli_result_free(&r);
        remove_tree(out_dir);
        unlink(items);
        free(items);
    }
}
END_TEST

static Suite *inputs_suite(void)
{
    Suite *s = suite_create("cli_inputs");
    TCase *t = tcase_create("inputs");
    tcase_set_timeout(t, 300);
    tcase_add_test(t, a_list_without_newlines_stops_at_arg_max);
    tcase_add_test(t, nul_bytes_stop_the_reading_at_once);
    tcase_add_test(t, an_item_beyond_one_argument_is_refused_before_it_runs);
    tcase_add_test(t, range_errors_state_the_range);
    tcase_add_test(t, report_falls_back_to_writing_in_place);
    tcase_add_test(t, report_refuses_the_kernels_files_saying_why);
    tcase_add_test(t, an_output_that_cannot_be_made_is_refused_before_the_run);
    tcase_add_test(t, outputs_that_are_one_file_are_refused_before_the_run);
    tcase_add_test(t, long_failing_item_keeps_the_reason);
    tcase_add_test(t, c1_controls_are_escaped_in_notes_and_on_stderr);
    tcase_add_test(t, c1_controls_are_escaped_in_progress_lines);
    tcase_add_test(t, slurm_job_is_checked_before_any_item_runs);
    tcase_add_test(t, slurm_array_beyond_the_default_max_array_size_is_flagged);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(inputs_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
