/*
 * Hand-off to a cluster scheduler: SLURM job arrays, Dask
 *
 * Compute the settings once (spacrbench_schedule_compute), then write them
 * as text: directives (format_slurm), a Dask cluster (format_dask), either
 * from a schedule already computed (format_schedule), or a whole job
 * script that submits as is (format_slurm_script).
 */
/* First spacrbench.h, outside the guard: whichever header a program
 * includes, every header is then read in spacrbench.h's order. */
#include "../spacrbench.h"

#ifndef SPACRBENCH_PUBLIC_CLUSTER_H
#define SPACRBENCH_PUBLIC_CLUSTER_H

#ifdef __cplusplus
extern "C" {
#endif

/* SPACRBENCH_CDEF_BEGIN */

/* Settings to take a measurement to a cluster scheduler (SLURM job array,
 * Dask cluster); the margin rule is documented in docs/scheduler-handoff.md. */
typedef struct spacrbench_schedule {
    size_t size;
    int64_t cpus_per_task;      /* SLURM --cpus-per-task */
    int64_t mem_per_task_bytes; /* SLURM --mem, margin included */
    int64_t array_concurrency;  /* SLURM array %N that fits one node like this one */
    int64_t n_workers;          /* Dask */
    int64_t threads_per_worker; /* Dask */
    int64_t memory_limit_bytes; /* Dask memory_limit per worker, margin included */
    double margin;              /* fraction added to the measured peak, e.g. 0.25 */
    int64_t margin_floor_bytes; /* smallest absolute margin added */
} spacrbench_schedule;

/* Cluster hand-off: compute the settings, or format them as text
 * (snprintf-style like spacrbench_format_report). */
SPACRBENCH_EXTERN int spacrbench_schedule_compute(const spacrbench_measurement *m,
                                                  const spacrbench_recommendation *rec,
                                                  spacrbench_schedule *out);
SPACRBENCH_EXTERN int spacrbench_format_slurm(const spacrbench_measurement *m,
                                              const spacrbench_recommendation *rec, char *buf,
                                              size_t cap);
SPACRBENCH_EXTERN int spacrbench_format_dask(const spacrbench_measurement *m,
                                             const spacrbench_recommendation *rec, char *buf,
                                             size_t cap);

/* Since 1.1.
 * The hand-off text of a schedule already computed (spacrbench_schedule_compute),
 * so a front end that also prints the schedule does not compute it twice. */
typedef enum spacrbench_handoff {
    SPACRBENCH_HANDOFF_SLURM = 1,
    SPACRBENCH_HANDOFF_DASK = 2
} spacrbench_handoff;
/* Since 1.1. kind: spacrbench_handoff. */
SPACRBENCH_EXTERN int spacrbench_format_schedule(const spacrbench_measurement *m,
                                                 const spacrbench_schedule *schedule, int kind,
                                                 char *buf, size_t cap);

/* Since 1.1.
 * A job script that submits as is: `sbatch job.sh` runs one array task per
 * item of items_file (its non-empty lines, a trailing CR dropped, as
 * `spacrbench run --items` reads them). Each task picks its item, runs the
 * command on it under `spacrbench run --json --report
 * output_dir/task-<index>.json` (the item reaches the command as one
 * argument, never through a shell), so every task records what it really
 * used; `spacrbench summarize output_dir` reads the reports. Initialise
 * with spacrbench_slurm_job_init. Strings are UTF-8, NUL-terminated. */
typedef struct spacrbench_slurm_job {
    size_t size;
    const char *items_file;        /* required; best absolute (tasks start elsewhere) */
    int64_t n_items;               /* items in it, >= 1: the array is 0..n_items-1 */
    const char *output_dir;        /* required: task reports and SLURM logs; must exist
                                   at submission; no whitespace, quotes, % or backslash */
    const char *job_name;          /* NULL: "spacrbench"; no whitespace or quotes */
    const char *const *command;    /* the command, {} for the item (appended when absent) */
    size_t command_len;            /* >= 1 */
    const char *spacrbench;        /* how tasks call spacrbench: a path, or NULL for
                                   "spacrbench" from PATH */
    const char *const *directives; /* extra "#SBATCH " lines, e.g. "--partition=short",
                                      read as sbatch reads them (every option of a line,
                                      abbreviations): EINVAL for one sbatch reads as --array,
                                      --mem-per-cpu/--mem-per-gpu, --output/--error, or an
                                      ambiguous abbreviation; a --time, --mem or
                                      --cpus-per-task there is the script's own (since 1.3) */
    size_t n_directives;
} spacrbench_slurm_job;

/* Since 1.1. */
SPACRBENCH_EXTERN int spacrbench_slurm_job_init(spacrbench_slurm_job *job, size_t size);
/* Since 1.1.
 * The script, snprintf-style, from a schedule (spacrbench_schedule_compute):
 * --mem, --cpus-per-task and --array=0-(n_items-1)%K with K the schedule's
 * concurrency (at most n_items). EINVAL for a missing or unusable field
 * (the message names it). */
SPACRBENCH_EXTERN int spacrbench_format_slurm_script(const spacrbench_measurement *m,
                                                     const spacrbench_schedule *schedule,
                                                     const spacrbench_slurm_job *job, char *buf,
                                                     size_t cap);

/* --- Since 1.2: wall time, Dask memory, the array's tasks and files ----- */

/* The SLURM --time of a task whose slowest item took slowest_seconds:
 * twice that, rounded up to whole minutes, at least 5 minutes; at least
 * the per-item timeout + 1 minute when timeout_seconds > 0 (the task then
 * still writes its report). ERANGE beyond 365 days; EINVAL for a negative
 * or non-finite time. docs/scheduler-handoff.md says why. */
SPACRBENCH_EXTERN int spacrbench_time_limit_minutes(double slowest_seconds, double timeout_seconds,
                                                    int64_t *minutes);
/* The slowest measured item's wall seconds (the per-item mean without
 * records); NaN when m has no items. */
SPACRBENCH_EXTERN double
spacrbench_measurement_slowest_item_seconds(const spacrbench_measurement *m);
/* A Dask memory_limit that keeps mem_per_task_bytes (peak + margin) at or
 * below `fraction` of it: round_up_MiB(mem / fraction). fraction is the
 * smallest of distributed's enabled worker memory fractions (target,
 * spill, pause, terminate; 0.6 by default), in (0, 1]. */
SPACRBENCH_EXTERN int spacrbench_dask_memory_limit(int64_t mem_per_task_bytes, double fraction,
                                                   int64_t *memory_limit_bytes);

/* How the array's tasks run, beside spacrbench_slurm_job. */
typedef struct spacrbench_slurm_tasks {
    size_t size;
    int64_t array_limit;         /* > 0: --array=0-N%array_limit; 0: no throttle */
    int64_t time_minutes;        /* > 0: #SBATCH --time; 0: from the measurement */
    double item_timeout_seconds; /* > 0: each task runs with --timeout this (1e-9 to 1e7,
                                    written as the task's parser reads it back), unless its
                                    submission exports SPACRBENCH_ITEM_TIMEOUT (since 1.3) */
    int32_t no_cgroup;           /* 1: each task runs with --no-cgroup */
    int32_t reserved;            /* must be 0 */
} spacrbench_slurm_tasks;
SPACRBENCH_EXTERN int spacrbench_slurm_tasks_init(spacrbench_slurm_tasks *tasks, size_t size);
/* The job script as spacrbench_format_slurm_script, with tasks (NULL:
 * defaults). Each task finds its item in O(1) through the index that
 * spacrbench_slurm_write_array writes. */
SPACRBENCH_EXTERN int spacrbench_format_slurm_job(const spacrbench_measurement *m,
                                                  const spacrbench_schedule *schedule,
                                                  const spacrbench_slurm_job *job,
                                                  const spacrbench_slurm_tasks *tasks, char *buf,
                                                  size_t cap);
/* Into job->output_dir (which must exist): spacrbench-items.idx (a
 * header line with the script's key and the items file's size, then one
 * 40-byte line "OFFSET LENGTH CRC" per item of job->items_file, read as
 * `run --items` reads it), the script itself (spacrbench-job.sh, which
 * summarize's next command line names) and the manifest
 * spacrbench-array.json (tasks, items file, script, key, job name, the
 * requested mem, cpus and time), written under a lock on the directory
 * and renamed into place together. EINVAL, nothing written, when the
 * directory holds another array's files (docs/scheduler-handoff.md) or
 * the file holds another number of items than job->n_items; ESYSTEM with
 * the path and errno's words. */
SPACRBENCH_EXTERN int spacrbench_slurm_write_array(const spacrbench_measurement *m,
                                                   const spacrbench_schedule *schedule,
                                                   const spacrbench_slurm_job *job,
                                                   const spacrbench_slurm_tasks *tasks);

/* --- Since 1.3: the --time's text, the items file's count -------------- */

/* job.n_items of items_file: its items as `spacrbench run --items` reads
 * them (lines end at \n, a trailing CR dropped, empty lines skipped), with
 * the same bounds: EINVAL naming the line for a NUL byte, a line longer
 * than ARG_MAX (within 128 KiB..64 MiB), more than 1 GiB or more than 2^24
 * items; ESYSTEM with errno's words when it cannot be read. */
SPACRBENCH_EXTERN int spacrbench_slurm_count_items(const char *items_file, int64_t *n_items);

/* m's --time (spacrbench_time_limit_minutes of its slowest item, 5
 * minutes when it has none) as sbatch --time and Dask's SLURMCluster
 * walltime take it: "HH:MM:00", or "D-HH:MM:00" from a day on;
 * snprintf-style. */
SPACRBENCH_EXTERN int spacrbench_format_time_limit(const spacrbench_measurement *m, char *buf,
                                                   size_t cap);

/* --- Since 1.2: summarize, what the tasks used and the one resubmission - */

/* summarize: what the tasks of a job array used against what they asked
 * for (SLURM's seff, per task), the sbatch command line(s) that rerun only
 * the tasks a resubmission fixes, with strictly more of the memory or time
 * that failed them, and (since 1.3) what needs the user, each with its
 * line; reports and logs of another array (another key) never count. Reads
 * directory/task-<index>.json (their "task" records), the manifest
 * spacrbench-array.json, and SLURM logs slurm-<job>_<index>.out; every file
 * bounded (regular files only, 16 MiB, JSON depth 64), each problem an
 * "unreadable" task. job_script (may be NULL): the script whose #SBATCH
 * --array says which tasks there were. EINVAL for a directory that cannot
 * be read or holds neither reports nor a manifest. */
typedef struct spacrbench_summary spacrbench_summary; /* opaque */
SPACRBENCH_EXTERN int spacrbench_summarize(const char *directory, const char *job_script,
                                           spacrbench_summary **out);
/* The text and the JSON document, snprintf-style. */
SPACRBENCH_EXTERN int spacrbench_summary_text(const spacrbench_summary *s, char *buf, size_t cap);
SPACRBENCH_EXTERN int spacrbench_summary_json(const spacrbench_summary *s, char *buf, size_t cap);
/* 0: every task ok, nothing to rerun; 3: some task needs a resubmission
 * (or, since 1.3, the user). */
SPACRBENCH_EXTERN int spacrbench_summary_status(const spacrbench_summary *s);
SPACRBENCH_EXTERN void spacrbench_summary_free(spacrbench_summary *s);

/* SPACRBENCH_CDEF_END */

#ifdef __cplusplus
}
#endif

#endif /* SPACRBENCH_PUBLIC_CLUSTER_H */
