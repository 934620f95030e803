/* The "task" member of the run document: how a `spacrbench run` ended,
 * as fields (docs/spacrbench.schema.json, "task"), so that `spacrbench
 * summarize` reads fields and never the sentences of the notes: the
 * outcome (ok, exit, signal, oom, timeout, not_started, interrupted) with
 * its exit status, signal, OOM limit or timeout; the item that ended it;
 * the SLURM array job and task; what the job requested (mem, cpus, time).
 * Plain inputs, so the run's own structures stay the run's. */
#ifndef SPACRBENCH_CLI_TASK_RECORD_H
#define SPACRBENCH_CLI_TASK_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "json_writer.h"

typedef struct task_end {
    size_t items;        /* items given */
    size_t completed;    /* items measured (warm-up included) */
    int failed;          /* an item failed: the fields below describe it */
    size_t failed_index; /* 0-based */
    const char *item;    /* the failed item's text, else the first item's; NULL none */
    int exec_errno;      /* could not be started */
    int wait_status;     /* waitpid's status */
    int oom_killed;
    int64_t oom_limit_bytes; /* -1 unknown */
    int timed_out;
    double timeout_seconds;
    double failed_seconds;  /* wall time of the failed item */
    int64_t failed_peak;    /* peak of the failed item, -1 unknown */
    int interrupted_by;     /* a stop signal spacrbench received, 0 none */
    double elapsed_seconds; /* every item's wall time, the failed one included */
} task_end;

/* Writes "task": {...}; the SLURM fields come from the environment
 * (SLURM_ARRAY_JOB_ID, SLURM_ARRAY_TASK_ID, SLURM_JOB_ID,
 * SLURM_MEM_PER_NODE or SLURM_MEM_PER_CPU x SLURM_CPUS_PER_TASK,
 * SLURM_CPUS_PER_TASK, and SPACRBENCH_TIME_LIMIT_MINUTES, which the job
 * script sets to its --time unless the submission exported another). */
void task_record_describe(json_writer *w, const task_end *end);

#endif
