/* Running a program (the real `spacrbench` binary, python3) from a test and
 * capturing what it printed. */
#ifndef CLI_TEST_SUPPORT_H
#define CLI_TEST_SUPPORT_H

#include <stddef.h>
#include <sys/types.h>

typedef struct cli_result {
    int exited; /* 1 when it exited (status in code) */
    int code;   /* exit status, or the signal that killed it */
    char *out;  /* stdout, NUL-terminated, the report's wrapped lines joined
                   (cli_unwrap): what a test looks for in a sentence */
    char *raw;  /* stdout as written */
    char *err;  /* stderr, NUL-terminated */
} cli_result;

/* Run argv (NULL-terminated) with stdin from stdin_path (NULL: /dev/null).
 * Aborts the test on failure to start. */
void cli_run(char *const argv[], const char *stdin_path, cli_result *r);
void cli_result_free(cli_result *r);
/* text with each report line the command wrapped at 79 columns joined
 * again: "\n" and the 22 spaces of the value column become one space
 * (malloc'd). */
char *cli_unwrap(const char *text);

/* Write text into a new temporary file; returns its malloc'd path. */
char *cli_temp_file(const char *text);
char *cli_read_file(const char *path);

/* Evaluate a Python expression over the JSON document in json_path (bound
 * to d) with python3; returns its printed value (malloc'd, newline
 * stripped), or NULL when Python is unavailable or the JSON does not parse. */
char *cli_json_eval(const char *json_path, const char *expr);
/* Is a Python interpreter available? Prints why not once. */
int cli_have_python(void);

/* Run argv; assert it is a usage error (exit 2) whose message contains
 * `expected` (e.g. "spacrbench: --scale:"). which names the case. */
void cli_expect_usage_error(char *const argv[], const char *expected, size_t which);

/* This process's v1 memory cgroup directory, "" when there is none. */
void cli_own_memory_cgroup(char *dir, size_t cap);
/* A v1 memory cgroup below ours, named name-PID, limited to 256 MiB (swap
 * included where accounted), for the OOM tests; dir is "" when the machine
 * cannot make one (the reason printed as a skip). The caller removes it. */
void cli_make_limited_cgroup(char *dir, size_t cap, const char *name);
/* spacrbench-run-PID-* cgroups in dir whose spacrbench has ended: those of
 * live runs (a parallel test, another suite on this machine) do not count. */
int cli_count_ended_groups_in(const char *dir);
/* The same beside this process, of the runs this test process started
 * (cli_run, or a fork told to cli_note_started): what a finished run left
 * behind. A parallel suite's runs share the cgroup, and one of theirs may
 * be between a deliberate kill and the next run's clean-up. */
int cli_count_leftover_cgroups(void);
/* Count pid (a process this test started that may run spacrbench) as one
 * of this test's runs for cli_count_leftover_cgroups. */
void cli_note_started(pid_t pid);

/* A sleep duration unique to this test process while it runs:
 * BASE.<pid, 7 digits> seconds (pids stay below 2^22), so two runs of a
 * suite at once (or any other `sleep` on the machine) never count or kill
 * each other's processes. */
void cli_sleep_marker(char *marker, size_t cap, int base);
/* Live `sleep MARKER` processes (exactly that command line); with
 * kill_them they are SIGKILLed by pid, so a failing test leaves none. */
int cli_sleepers(const char *marker, int kill_them);
/* How many sleepers are still alive a moment after their spacrbench
 * ended (those are killed now, so none stays). */
int cli_sleep_survivors(const char *marker);

#endif
