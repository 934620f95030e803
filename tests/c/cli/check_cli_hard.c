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
#include <sys/sysmacros.h>
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

/* `spacrbench run --quiet --report FILE a -- true`, expecting exit code. */
static void run_with_report(const char *file, int code, cli_result *r)
{
    char *const argv[] = {SPACRBENCH_CLI, "run",  "--quiet", "--report", (char *)file, "a",
                          "--",           "true", NULL};
    cli_run(argv, NULL, r);
    ck_assert_msg(r->exited && r->code == code, "--report %s: exit %d: %s", file, r->code, r->err);
}

/* Names in dir other than . and .. (temporary files left behind show). */
static int entries_in(const char *dir)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

START_TEST(report_follows_links_and_keeps_special_files)
{
    char dir[] = "/tmp/sbtest-hard-report-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char target[256], link[256], fifo[256], node[256], sub[256], out[256];
    snprintf(target, sizeof target, "%s/target.txt", dir);
    snprintf(link, sizeof link, "%s/link.txt", dir);
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    snprintf(node, sizeof node, "%s/null", dir);
    snprintf(sub, sizeof sub, "%s/sub", dir);
    snprintf(out, sizeof out, "%s/stdout", dir);
    cli_result r;

    /* A symlink stays a symlink; its target gets the report, keeping its mode. */
    int fd = open(target, O_WRONLY | O_CREAT, 0640);
    ck_assert_int_ge(fd, 0);
    close(fd);
    ck_assert_int_eq(chmod(target, 0640), 0);
    ck_assert_int_eq(symlink("target.txt", link), 0);
    run_with_report(link, 0, &r);
    cli_result_free(&r);
    struct stat st;
    ck_assert_int_eq(lstat(link, &st), 0);
    ck_assert_msg(S_ISLNK(st.st_mode), "the link was replaced");
    ck_assert_int_eq(stat(target, &st), 0);
    ck_assert_int_eq(st.st_mode & 07777, 0640);
    char *text = cli_read_file(target);
    ck_assert_ptr_nonnull(strstr(text, "recommended workers"));
    free(text);

    /* A device node (a copy of /dev/null) stays one. */
    ck_assert_int_eq(mknod(node, S_IFCHR | 0666, makedev(1, 3)), 0);
    run_with_report(node, 0, &r);
    cli_result_free(&r);
    ck_assert_int_eq(lstat(node, &st), 0);
    ck_assert_msg(S_ISCHR(st.st_mode), "the device node was replaced");

    /* A FIFO stays one, and its reader gets the report. */
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    char got[256];
    snprintf(got, sizeof got, "%s.got", dir);
    pid_t reader = fork();
    ck_assert_int_ge(reader, 0);
    if (reader == 0) {
        execlp("sh", "sh", "-c", "cat \"$1\" > \"$2\"", "sh", fifo, got, (char *)NULL);
        _exit(127);
    }
    run_with_report(fifo, 0, &r);
    cli_result_free(&r);
    int status;
    ck_assert_int_eq(waitpid(reader, &status, 0), reader);
    ck_assert_int_eq(lstat(fifo, &st), 0);
    ck_assert_msg(S_ISFIFO(st.st_mode), "the FIFO was replaced");
    text = cli_read_file(got);
    ck_assert_ptr_nonnull(text);
    ck_assert_ptr_nonnull(strstr(text, "recommended workers"));
    free(text);
    unlink(got);

    /* A link to our own standard output (as /dev/stdout is): the report
     * follows the one already printed there, the link stays. */
    ck_assert_int_eq(symlink("/proc/self/fd/1", out), 0);
    run_with_report(out, 0, &r);
    ck_assert_int_eq(lstat(out, &st), 0);
    ck_assert_msg(S_ISLNK(st.st_mode), "the link to stdout was replaced");
    ck_assert_int_eq(count_of(r.out, "\n  recommended workers"), 2);
    cli_result_free(&r);

    /* A directory is refused with a reason before anything is measured:
     * exit 2, no report (it could never be written after the run). */
    ck_assert_int_eq(mkdir(sub, 0700), 0);
    run_with_report(sub, 2, &r);
    ck_assert_msg(strstr(r.err, "--report: cannot write") && strstr(r.err, "Is a directory"),
                  "stderr: %s", r.err);
    ck_assert_ptr_null(strstr(r.out, "recommended workers"));
    cli_result_free(&r);
    ck_assert_int_eq(entries_in(sub), 0);

    /* The longest legal name (255 bytes) works: the temporary name fits too. */
    char longest[600];
    int n = snprintf(longest, sizeof longest, "%s/", dir);
    memset(longest + n, 'r', 255);
    longest[n + 255] = '\0';
    run_with_report(longest, 0, &r);
    cli_result_free(&r);
    ck_assert_int_eq(stat(longest, &st), 0);
    ck_assert_msg(S_ISREG(st.st_mode), "no report file");

    /* Nothing else appeared (no temporary file left). */
    ck_assert_int_eq(entries_in(dir), 7);
    unlink(longest);
    unlink(target), unlink(link), unlink(fifo), unlink(node), unlink(out);
    rmdir(sub);
    ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

enum stdout_kind { STDOUT_CLOSED, STDOUT_FULL, STDOUT_BROKEN_PIPE };

/* Run argv with stdout closed, on /dev/full, or a pipe nobody reads;
 * stderr is captured into r->err (r->out is empty). */
static void run_with_stdout(char *const argv[], enum stdout_kind kind, cli_result *r)
{
    char err_path[] = "/tmp/spacrbench-cli-err-XXXXXX";
    int err = mkstemp(err_path);
    ck_assert_int_ge(err, 0);
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    close(p[0]); /* no reader: writes get EPIPE / SIGPIPE */
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    cli_note_started(pid);
    if (pid == 0) {
        signal(SIGPIPE, SIG_DFL);
        if (dup2(err, 2) < 0)
            _exit(120);
        if (kind == STDOUT_CLOSED)
            close(1);
        else if (kind == STDOUT_BROKEN_PIPE)
            dup2(p[1], 1);
        else {
            int full = open("/dev/full", O_WRONLY);
            if (full < 0 || dup2(full, 1) < 0)
                _exit(120);
        }
        execv(argv[0], argv);
        _exit(121);
    }
    close(p[1]);
    close(err);
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    r->exited = WIFEXITED(status);
    r->code = r->exited ? WEXITSTATUS(status) : WTERMSIG(status);
    r->raw = NULL;
    r->out = strdup("");
    r->err = cli_read_file(err_path);
    unlink(err_path);
    ck_assert_ptr_nonnull(r->err);
}

START_TEST(closed_full_or_broken_stdout_exits_1_and_cleans_up)
{
    char *const argv[] = {SPACRBENCH_CLI, "run", "--json", "a", "--", "true", NULL};
    cli_result r;
    run_with_stdout(argv, STDOUT_CLOSED, &r);
    ck_assert_msg(r.exited && r.code == 1, "exited %d code %d: %s", r.exited, r.code, r.err);
    ck_assert_msg(strstr(r.err, "standard output is closed") != NULL, "stderr: %s", r.err);
    cli_result_free(&r);
    ck_assert_int_eq(cli_count_leftover_cgroups(), 0);

    for (int kind = STDOUT_FULL; kind <= STDOUT_BROKEN_PIPE; kind++) {
        char *const human[] = {SPACRBENCH_CLI, "run", "a", "--", "true", NULL};
        char *const *which = kind == STDOUT_FULL ? human : argv;
        run_with_stdout(which, (enum stdout_kind)kind, &r);
        ck_assert_msg(r.exited && r.code == 1, "kind %d: exited %d code %d: %s", kind, r.exited,
                      r.code, r.err);
        ck_assert_msg(strstr(r.err, "cannot write to standard output") != NULL, "stderr: %s",
                      r.err);
        cli_result_free(&r);
        ck_assert_int_eq(cli_count_leftover_cgroups(), 0);
    }
    /* --help and --version are checked too. */
    char *const help[] = {SPACRBENCH_CLI, "--help", NULL};
    run_with_stdout(help, STDOUT_FULL, &r);
    ck_assert_msg(r.exited && r.code == 1, "exited %d code %d: %s", r.exited, r.code, r.err);
    cli_result_free(&r);
}
END_TEST

/* A full disk is said as one, naming the file (the JSON document is
 * larger than stdout's buffer: stdio wrote it during fputs, and "I/O
 * error" was all the flush after it could say), with the exit status of
 * every output error. */
START_TEST(a_full_stdout_says_the_disk_is_full)
{
    char *const json[] = {SPACRBENCH_CLI, "run", "--json", "-q", "a", "--", "true", NULL};
    char *const csv[] = {SPACRBENCH_CLI, "run", "--export-csv", "-", "-q", "a", "--", "true", NULL};
    char *const human[] = {SPACRBENCH_CLI, "run", "a", "--", "true", NULL};
    char *const *const runs[] = {json, csv, human};
    char want[160];
    snprintf(want, sizeof want, "cannot write to standard output (/dev/full): %s",
             strerror(ENOSPC));
    for (size_t i = 0; i < 3; i++) {
        cli_result r;
        run_with_stdout(runs[i], STDOUT_FULL, &r);
        ck_assert_msg(r.exited && r.code == 1, "run %zu: exited %d code %d: %s", i, r.exited,
                      r.code, r.err);
        ck_assert_msg(strstr(r.err, want) != NULL, "run %zu: stderr: %s", i, r.err);
        ck_assert_msg(strstr(r.err, strerror(EIO)) == NULL, "run %zu: stderr: %s", i, r.err);
        cli_result_free(&r);
    }
    ck_assert_int_eq(cli_count_leftover_cgroups(), 0);
}
END_TEST

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A command that never ends (and leaves a child behind): --timeout kills
 * the whole tree, names it, prints the partial report, exit 3, with and
 * without a cgroup. */
START_TEST(timeout_kills_the_whole_tree)
{
    int no_cgroup = _i;
    char marker[32], body[200];
    cli_sleep_marker(marker, sizeof marker, 31);
    snprintf(body, sizeof body, "[ \"$1\" = ok ] && exit 0; sleep %s & sleep %s", marker, marker);
    char *const argv[] = {SPACRBENCH_CLI, "run", "--quiet", "--timeout", "0.5",
                          "--no-cgroup",  "ok",  "hang",    "--",        "sh",
                          "-c",           body,  "sh",      "{}",        NULL};
    char *argv_cg[15];
    memcpy(argv_cg, argv, sizeof argv_cg);
    if (!no_cgroup)
        memmove(argv_cg + 5, argv_cg + 6, 9 * sizeof *argv_cg); /* drop --no-cgroup */
    cli_result r;
    double t0 = now_s();
    cli_run(argv_cg, NULL, &r);
    double took = now_s() - t0;
    ck_assert_msg(r.exited && r.code == 3, "exit %d: %s", r.code, r.err);
    ck_assert_msg(took < 10, "took %.1f s", took);
    ck_assert_msg(strstr(r.err, "item 2 (hang) timed out after 0.5 s") != NULL, "stderr: %s",
                  r.err);
    ck_assert_int_eq(count_of(r.out, "items measured      1"), 1);
    ck_assert_ptr_nonnull(strstr(r.out, "stopped at item 2 (hang): timed out after 0.5 s"));
    /* One "after": the timeout's, no measured seconds repeating it. */
    ck_assert_msg(strstr(r.out, "timed out after 0.5 s (killed with all its processes), peak "),
                  "%s", r.out);
    cli_result_free(&r);
    ck_assert_int_eq(cli_count_leftover_cgroups(), 0);
    ck_assert_int_eq(cli_sleep_survivors(marker), 0);
}
END_TEST

START_TEST(bad_timeouts_exit_2)
{
    const char *bad[] = {"0",    "-1", "abc", "1x",   "1.5.2", "",        "1e3",
                         "0x10", "1.", ".5",  "1h30", "30m1h", "1:2:3:4", "0-00:00:00"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *const argv[] = {SPACRBENCH_CLI, "run",  "--timeout", (char *)bad[i], "a",
                              "--",           "true", NULL};
        cli_result r;
        cli_run(argv, NULL, &r);
        ck_assert_msg(r.exited && r.code == 2, "--timeout '%s': exit %d", bad[i], r.code);
        ck_assert_msg(strstr(r.err, "--timeout: expected a duration") != NULL, "stderr: %s", r.err);
        /* The accepted forms, SLURM's --time ones among them, and that a
         * bare number is seconds where SLURM's bare --time is minutes. */
        ck_assert_msg(strstr(r.err, "(10, 1.5; a bare number is seconds, unlike SLURM's bare "
                                    "--time, which is minutes)") != NULL,
                      "stderr: %s", r.err);
        ck_assert_msg(strstr(r.err, "(90s, 90m, 1h30m) or SLURM's --time forms with ':' or '-' "
                                    "(1:30:00, 2-00:00:00)") != NULL,
                      "stderr: %s", r.err);
        cli_result_free(&r);
    }
    const char *good[] = {"10", "1.5", "90s", "2m", "1h", "1h30m", "90m", "1:30:00", "2-00:00:00"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        char *const argv[] = {SPACRBENCH_CLI, "run",  "--quiet", "--timeout", (char *)good[i], "a",
                              "--",           "true", NULL};
        cli_result r;
        cli_run(argv, NULL, &r);
        ck_assert_msg(r.exited && r.code == 0, "--timeout '%s': exit %d: %s", good[i], r.code,
                      r.err);
        cli_result_free(&r);
    }
}
END_TEST

/* A command that ignores SIGTERM: spacrbench passes the signal on, waits
 * the grace period, then kills it (and its tree); exit 3, nothing left. */
START_TEST(sigterm_ignoring_command_is_killed_after_the_grace)
{
    char marker[32], body[200];
    cli_sleep_marker(marker, sizeof marker, 32);
    snprintf(body, sizeof body, "trap '' TERM; sleep %s & kill -TERM $PPID; wait", marker);
    char *const argv[] = {SPACRBENCH_CLI, "run", "--quiet", "a",  "--", "sh",
                          "-c",           body,  "sh",      "{}", NULL};
    cli_result r;
    double t0 = now_s();
    cli_run(argv, NULL, &r);
    double took = now_s() - t0;
    ck_assert_msg(r.exited && r.code == 3, "exit %d: %s", r.code, r.err);
    ck_assert_msg(took > 4 && took < 20, "took %.1f s", took);
    ck_assert_msg(strstr(r.err, "still running 5 s after signal 15") != NULL, "stderr: %s", r.err);
    ck_assert_msg(strstr(r.out, "interrupted by signal 15") != NULL, "stdout: %s", r.out);
    cli_result_free(&r);
    ck_assert_int_eq(cli_count_leftover_cgroups(), 0);
    ck_assert_int_eq(cli_sleep_survivors(marker), 0);
}
END_TEST

/* Without a cgroup the exit is awaited through a pidfd where the kernel
 * has one (the note says so), not a 5 ms poll. The per-item time of
 * /bin/true is printed, not asserted (a shared machine). */
START_TEST(no_cgroup_exit_is_noticed_without_polling)
{
    char *argv[40] = {SPACRBENCH_CLI, "run", "--no-cgroup", "-qv"}; /* the note is -v's */
    int n = 4;
    static char names[20][4];
    for (int i = 0; i < 20; i++) {
        snprintf(names[i], sizeof names[i], "%d", i + 1);
        argv[n++] = names[i];
    }
    argv[n++] = "--";
    argv[n++] = "/bin/true";
    argv[n] = NULL;
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    /* Where this test can open a pidfd, the command can too. Where it
     * cannot (valgrind does not know the syscall, but the command it runs
     * is not traced) either way is right, as long as it is not polling. */
    int pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
    int by_pidfd = strstr(r.out, "noticed through a pidfd, not by polling") != NULL;
    int by_sigchld = strstr(r.out, "noticed through SIGCHLD, not by polling") != NULL;
    if (pidfd >= 0)
        close(pidfd);
    int ok = pidfd >= 0 ? by_pidfd : by_pidfd || by_sigchld;
    if (!ok)
        cli_result_free(&r); /* the assertion below leaves the test */
    ck_assert_msg(ok, "the exit was polled (pidfd %s here)", pidfd >= 0 ? "works" : "fails");
    const char *line = strstr(r.out, "per item");
    printf("--no-cgroup, 20 x /bin/true: %.*s\n", line ? (int)strcspn(line, "\n") : 0,
           line ? line : "");
    cli_result_free(&r);
}
END_TEST

/* A pid that no process has now (a child that has been reaped). */
static pid_t dead_pid(void)
{
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0)
        _exit(0);
    ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
    return pid;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_ge(fputs(text, f), 0);
    ck_assert_int_eq(fclose(f), 0);
}

/* As a SIGKILLed spacrbench leaves them: an empty group and one still
 * holding its command. The next run removes the empty one, names the
 * other with its process, and kills nothing. */
START_TEST(cgroups_of_a_killed_run_are_found)
{
    char own[1200];
    cli_own_memory_cgroup(own, sizeof own);
    pid_t gone = dead_pid();
    char empty[1400], busy[1400];
    snprintf(empty, sizeof empty, "%s/spacrbench-run-%ld-0", own, (long)gone);
    snprintf(busy, sizeof busy, "%s/spacrbench-run-%ld-scale-2", own, (long)gone);
    if (!own[0] || mkdir(empty, 0755) != 0) {
        printf("SKIP: no writable memory cgroup (%s)\n", strerror(errno));
        return;
    }
    ck_assert_int_eq(mkdir(busy, 0755), 0);
    char marker[32];
    cli_sleep_marker(marker, sizeof marker, 33);
    pid_t sleeper = fork();
    ck_assert_int_ge(sleeper, 0);
    if (sleeper == 0) {
        execlp("sleep", "sleep", marker, (char *)NULL);
        _exit(127);
    }
    char procs[1500], pid_text[32];
    snprintf(procs, sizeof procs, "%s/cgroup.procs", busy);
    snprintf(pid_text, sizeof pid_text, "%ld\n", (long)sleeper);
    write_text(procs, pid_text);

    char *const argv[] = {SPACRBENCH_CLI, "run", "--quiet", "a", "--", "true", NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    char expect[200];
    snprintf(expect, sizeof expect, "spacrbench-run-%ld-0 was left by spacrbench process %ld",
             (long)gone, (long)gone);
    ck_assert_msg(strstr(r.err, expect) != NULL, "stderr: %s", r.err);
    ck_assert_ptr_nonnull(strstr(r.err, "empty, removed"));
    snprintf(expect, sizeof expect, "process(es) %ld still in it: left alone", (long)sleeper);
    ck_assert_msg(strstr(r.err, expect) != NULL, "stderr: %s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "cgroups left by earlier spacrbench runs"));
    cli_result_free(&r);
    struct stat st;
    ck_assert_int_ne(stat(empty, &st), 0);
    ck_assert_int_eq(stat(busy, &st), 0);
    ck_assert_int_eq(kill(sleeper, 0), 0); /* not killed */

    /* Clean up: end the sleeper (that empties the group), remove it. */
    kill(sleeper, SIGKILL);
    ck_assert_int_eq(waitpid(sleeper, NULL, 0), sleeper);
    int removed = -1;
    for (int i = 0; i < 100 && (removed = rmdir(busy)) != 0; i++)
        usleep(10000);
    ck_assert_int_eq(removed, 0);
}
END_TEST

/* The groups of a spacrbench that is running are not touched. */
START_TEST(cgroups_of_a_live_run_are_left_alone)
{
    char own[1200];
    cli_own_memory_cgroup(own, sizeof own);
    if (!own[0]) {
        printf("SKIP: no memory cgroup\n");
        return;
    }
    pid_t first = fork();
    ck_assert_int_ge(first, 0);
    if (first == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(null, 0), dup2(null, 1), dup2(null, 2);
        execl(SPACRBENCH_CLI, SPACRBENCH_CLI, "run", "2", "--", "sleep", "{}", (char *)NULL);
        _exit(127);
    }
    /* Its item's group: spacrbench-run-PID-tSTART-0 (the owner by identity). */
    char group[1600] = "", prefix[64];
    snprintf(prefix, sizeof prefix, "spacrbench-run-%ld-t", (long)first);
    struct stat st;
    for (int i = 0; i < 300 && (!group[0] || stat(group, &st) != 0); i++) {
        DIR *d = opendir(own);
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL)
            if (strncmp(e->d_name, prefix, strlen(prefix)) == 0 &&
                strcmp(e->d_name + strlen(e->d_name) - 2, "-0") == 0)
                snprintf(group, sizeof group, "%s/%s", own, e->d_name);
        if (d)
            closedir(d);
        if (!group[0])
            usleep(10000);
    }
    if (stat(group, &st) != 0) {
        printf("SKIP: the first run made no cgroup\n");
        waitpid(first, NULL, 0);
        return;
    }
    char *const argv[] = {SPACRBENCH_CLI, "run", "--quiet", "b", "--", "true", NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    ck_assert_msg(strstr(r.err, "was left by") == NULL, "stderr: %s", r.err);
    cli_result_free(&r);
    ck_assert_int_eq(stat(group, &st), 0);
    int status;
    ck_assert_int_eq(waitpid(first, &status, 0), first);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "first run: status %d", status);
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
    t = tcase_create("output");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, report_follows_links_and_keeps_special_files);
    tcase_add_test(t, closed_full_or_broken_stdout_exits_1_and_cleans_up);
    tcase_add_test(t, a_full_stdout_says_the_disk_is_full);
    suite_add_tcase(s, t);
    t = tcase_create("faults");
    tcase_set_timeout(t, 120);
    tcase_add_loop_test(t, timeout_kills_the_whole_tree, 0, 2);
    tcase_add_test(t, bad_timeouts_exit_2);
    tcase_add_test(t, sigterm_ignoring_command_is_killed_after_the_grace);
    tcase_add_test(t, no_cgroup_exit_is_noticed_without_polling);
    tcase_add_test(t, cgroups_of_a_killed_run_are_found);
    tcase_add_test(t, cgroups_of_a_live_run_are_left_alone);
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
