/* Running ONE item of `spacrbench run`: fork, hold the child until it sits
 * in its own memory cgroup (or, without one, sample its process tree),
 * exec, wait, and read the item's time, CPU, peak, VRAM and whether the
 * kernel's OOM killer ended it. */
#ifndef SPACRBENCH_CLI_RUN_ITEM_H
#define SPACRBENCH_CLI_RUN_ITEM_H

#include <stddef.h>
#include <stdint.h>

#include "group.h"
#include "run_vram.h"
#include "tree_sampler.h"

#define RUN_SAMPLE_INTERVAL_NS 5000000L /* fallback sampling period: 5 ms */

typedef struct run_outcome {
    int exec_errno; /* non-zero: the command could not be started */
    int status;     /* wait status */
    double seconds;
    double cpu_seconds;
    int64_t peak;      /* bytes, -1 unknown */
    int64_t vram_peak; /* the tree's GPU memory (NVML), -1 not measured */
    int left_behind;   /* processes that outlived the item */
    int oom_killed;    /* the kernel's OOM killer ended it */
    int64_t limit;     /* the memory limit it ran under (nearest above), -1 none */
    int timed_out;     /* --timeout ended it (its whole tree was killed) */
    double timeout_s;
    int killed_after_grace; /* still running RUN_KILL_GRACE_S after a stop signal */
} run_outcome;

typedef struct runner {
    int use_cgroup;
    int stdout_is_output;  /* stdout carries JSON or settings: the command writes to stderr */
    int64_t machine_limit; /* discovery's binding limit, -1 none: the limit above all else */
    double timeout_s;      /* --timeout per item, 0 none */
    int exit_by_pidfd;     /* the last wait used a pidfd (else SIGCHLD) */
    char *stale_note;      /* cgroups of killed spacrbench runs found, or NULL */
    sb_group cg;
    char why_no_cgroup[600];
    tree_sampler tree;
    run_vram vram;
} runner;

/* Decide once per run how peaks are measured (a cgroup of its own unless
 * no_cgroup or impossible). Free with runner_free. */
void runner_init(runner *r, int no_cgroup, int stdout_is_output, int64_t machine_limit,
                 double timeout_s);
void runner_free(runner *r);

/* Run argv as item `index`. 0 when the command ran (whatever its status),
 * -1 with a message printed when spacrbench could not do its part. */
int run_item(runner *r, char **argv, size_t index, run_outcome *o);

/* The memory limit a group of processes in the cgroup g ran under, the
 * nearest above them: g's own (when g->dir is set), else its parent's (the
 * cgroup spacrbench runs in), else machine_limit (discovery's binding
 * one, -1 none). */
int64_t run_limit_above(const sb_group *g, int64_t machine_limit);

/* Without a cgroup of its own (a v2 leaf that holds spacrbench itself, the
 * usual job step or container, or --no-cgroup), an OOM kill still shows in
 * the oom_kill counter of the cgroup spacrbench runs in (cg located:
 * cg->parent); -1 when it cannot be read. */
int64_t run_own_oom_kills(const sb_group *cg);

/* Did the command succeed (exit status 0)? */
int run_outcome_ok(const run_outcome *o);
/* "exited with status 3", "OOM-killed (limit 256.0 MiB)", ... */
void run_outcome_describe(const run_outcome *o, char *buf, size_t cap);
/* What the work "returned", for the measurement: the exit status, minus
 * the signal number, or 127 when it could not be started. */
int run_outcome_result(const run_outcome *o);

#endif
