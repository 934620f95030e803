/* spacrbench_summarize: what the tasks of a job array used against what
 * they asked for (SLURM's seff, per task), and the ONE command line that
 * reruns the tasks that need it with the memory and time they need.
 * Three parts, one job each:
 *   summary_read.c   the directory: task reports, the manifest, the job
 *                    script's --array, SLURM logs; everything bounded
 *                    (regular files only, a size limit, json_reader's depth
 *                    and node limits), each problem an "unreadable" task;
 *   summary_decide.c which report counts (the newest submission wins),
 *                    the states, the peaks and times, the next settings by
 *                    the hand-off rule (rules/handoff.c);
 *   summary_render.c the text and the JSON document.
 * summary_ranges.c holds the index sets, summary.c the public functions
 * (spacrbench.h, "summarize"). Reading a directory is POSIX's (openat,
 * O_NONBLOCK): on Windows spacrbench_summarize says EUNSUPPORTED. */
#ifndef SPACRBENCH_SUMMARY_H
#define SPACRBENCH_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "spacrbench.h"

#define SUM_ARRAY_MAX   (INT64_C(1) << 22) /* more indices than any SLURM MaxArraySize */
#define SUM_REPORT_MAX  (16u << 20)        /* bytes of one report or manifest read at most */
#define SUM_JSON_DEPTH  64
#define SUM_SECONDS_MAX 1e9 /* 31 years: more is not a wall time */
#define SUM_BYTES_MAX   (INT64_C(1) << 60)

typedef enum sum_state {
    SUM_OK,
    SUM_FAILED,     /* the report says an item failed, or the run was interrupted */
    SUM_UNREADABLE, /* the report cannot be read: why says what is wrong */
    SUM_STALE,      /* a report from an older submission of a task a newer one reran */
    SUM_OUTSIDE     /* a report of a task outside the array (another submission?) */
} sum_state;

typedef struct sum_task {
    int64_t index;
    sum_state state;
    char *file;      /* the report's file name (in the directory) */
    char *why;       /* unreadable/stale: what is wrong; failed: the outcome in words */
    char *outcome;   /* the task record's outcome ("ok", "oom", ...), NULL: no record */
    char *item;      /* the item that ended it, else the first; NULL unknown */
    char *array_job; /* SLURM_ARRAY_JOB_ID, NULL outside a job */
    int64_t array_min, array_max, array_step, array_count; /* -1 unknown */
    int exit_status;                                       /* -1 none */
    int signal;                                            /* 0 none */
    int64_t oom_limit;                                     /* > 0 when OOM-killed at that limit */
    int item_timeout;   /* spacrbench's --timeout ended an item */
    int slurm_timeout;  /* SLURM's time limit ended it (the log says so) */
    int slurm_oom;      /* the SLURM log reports an oom-kill */
    int64_t peak;       /* largest measured peak (a failed item's too), -1 unknown */
    double seconds;     /* elapsed, -1 unknown */
    double cpu_seconds; /* -1 unknown */
    int64_t req_mem;    /* bytes, -1 unknown */
    int64_t req_cpus;   /* -1 unknown */
    int64_t req_time;   /* minutes, -1 unknown */
} sum_task;

/* The array's indices as sorted, disjoint ranges. */
typedef struct sum_range {
    int64_t first, last;
} sum_range;

typedef struct sum_ranges {
    sum_range *r;
    size_t n, cap;
} sum_ranges;

int sum_ranges_add(sum_ranges *set, int64_t first,
                   int64_t last); /* keeps order if appended in order */
/* Sorted and merged, after adds in any order. */
void sum_ranges_normalize(sum_ranges *set);
int sum_ranges_contains(const sum_ranges *set, int64_t index);
int64_t sum_ranges_count(const sum_ranges *set);
/* "1,5,9-12" into buf (snprintf-style length). */
int sum_ranges_format(const sum_ranges *set, char *buf, size_t cap);
void sum_ranges_free(sum_ranges *set);

typedef struct sum_manifest {
    int present;
    char *problem;                       /* why it cannot be used, NULL when fine or absent */
    int64_t tasks;                       /* 0..tasks-1 */
    char *script;                        /* the job script written beside it, absolute; NULL none */
    int64_t req_mem, req_cpus, req_time; /* what the script requests, -1 unknown */
    double item_timeout;
} sum_manifest;

/* A SLURM log slurm-<job>_<index>.out seen in the directory. */
typedef struct sum_log {
    int64_t job, index;
} sum_log;

/* What the SLURM log of a task without a report says. */
typedef struct sum_missing_log {
    int64_t index;
    int timeout, oom;
} sum_missing_log;

struct spacrbench_summary {
    char *directory;
    sum_task *tasks; /* reports, sorted by index then file */
    size_t n_tasks, cap_tasks;
    char **ignored; /* task-*.json names that are not task-<index>.json */
    size_t n_ignored;
    sum_manifest manifest;
    sum_log *logs; /* the directory's SLURM logs */
    size_t n_logs, cap_logs;
    sum_missing_log *missing_logs; /* missing tasks whose log says why */
    size_t n_missing_logs;
    sum_ranges array;   /* the array's indices */
    char *array_source; /* where they come from, in words */
    char *job_script;   /* --job, else the manifest's script, else NULL */
    /* Decided: */
    char *newest_job;   /* the newest submission's array job id */
    sum_ranges missing; /* in the array, without a usable report */
    sum_ranges rerun;   /* failed, missing, stale and unreadable tasks of the array */
    int64_t n_ok, n_failed, n_oom, n_timeout, n_unreadable, n_stale, n_outside, n_missing;
    int64_t peak; /* largest peak, a failed task's lower bound included; -1 none */
    int peak_is_lower_bound;
    int64_t peak_task;
    double slowest; /* the longest elapsed (or time limit of a timed-out task) */
    int64_t next_mem, next_cpus, next_time; /* bytes, cores, minutes; -1 unknown */
    double item_timeout;                    /* the item timeout the tasks ran with, 0 none */
    char *text;
    char *json;
};

/* summary_read.c */
int sum_read(spacrbench_summary *s, const char *job_script);
/* The last bytes of the SLURM log of task index of array job (if any):
 * sets slurm_timeout / slurm_oom. */
void sum_read_log(const spacrbench_summary *s, sum_task *t, const char *array_job);

/* summary_owner.c: a manifest whose key is not that of the job script
 * (--job) or of the newest reports' script is another array's: its tasks
 * and requests are dropped and array_source says so. 0 or ENOMEM. */
int sum_check_owner(spacrbench_summary *s, const char *job_script);

/* summary_decide.c */
int sum_decide(spacrbench_summary *s);

/* summary_render.c */
int sum_render(spacrbench_summary *s);

#endif
