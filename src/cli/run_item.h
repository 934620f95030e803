/* ONE item of `spacrbench run`: the process supervisor's N=1 case (one
 * copy, one command line, in a group of its own), and what its outcome
 * means for the measurement: the time, CPU, peak, VRAM, and whether the
 * kernel's OOM killer, --timeout or a stop signal ended it. */
#ifndef SPACRBENCH_CLI_RUN_ITEM_H
#define SPACRBENCH_CLI_RUN_ITEM_H

#include <stddef.h>
#include <stdint.h>

#include "supervisor.h"

/* An item's end: the supervisor's own records of the command (its copy)
 * and of its group (time, peaks, VRAM, OOM kills, limit, leftovers, the
 * timeout), and what they mean. */
typedef struct run_outcome {
    sb_copy copy;     /* the command: its wait status, exec errno, CPU seconds */
    sb_outcome group; /* started_at, seconds, peak, rss_peak, hugetlb_peak, vram_peak,
                          left_behind, limit (-1 unless a cgroup of its own or an OOM kill),
                          timed_out, killed_after_grace */
    int oom_killed;   /* the kernel's OOM killer ended it (oom_verdict.h) */
    double timeout_s;
} run_outcome;

/* The supervisor of `spacrbench run` (its groups are spacrbench-run-PID-...),
 * its copies started by launcher (NULL: one of its own, forked now; the
 * command's, with cli_stdio_reset_in_child, is forked before the items are
 * read). Cgroups a killed spacrbench left are named on stderr and in
 * *stale_note (malloc'd, NULL when none). Free with sb_supervisor_free. */
void run_supervisor_init(sb_supervisor *sup, sb_launcher *launcher, int no_cgroup,
                         int stdout_is_output, int64_t machine_limit, double timeout_s,
                         char **stale_note);

/* Run argv as item `index`. 0 when the command ran (whatever its status),
 * -1 with a message printed when spacrbench could not do its part. */
int run_item(sb_supervisor *sup, char **argv, size_t index, run_outcome *o);

/* Did the command succeed (exit status 0, no stop signal while its tree ran)? */
int run_outcome_ok(const run_outcome *o);
/* "exited with status 3", "OOM-killed (limit 256.0 MiB)", ... */
void run_outcome_describe(const run_outcome *o, char *buf, size_t cap);
/* What the work "returned", for the measurement: the exit status, minus
 * the signal number, or 127 when it could not be started. */
int run_outcome_result(const run_outcome *o);
/* The item's CPU seconds: the command's (and what it waited for) and its
 * orphans', reaped here as their subreaper. */
double run_outcome_cpu(const run_outcome *o);
/* The exit status of a command that could not be started, as env, timeout
 * and xargs use them: 127 not found, 126 found but not executable. 0 when
 * it was started. */
int run_outcome_start_failure(const run_outcome *o);

#endif
