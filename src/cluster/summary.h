/* spacrbench_summarize: what the tasks of a job array used against what
 * they asked for (SLURM's seff, per task), and the ONE command line that
 * reruns the tasks that need it with the memory and time they need.
 * Three parts, one job each:
 *   summary_read.c   the directory: task reports, the manifest, the job
 *                    script's --array, SLURM logs; everything bounded
 *                    (regular files only, a size limit, json_reader's depth
 *                    and node limits), each problem an "unreadable" task;
 *   summary_owner.c  whose array this is: the key every report and log of
 *                    it carries (another array's never counts);
 *   summary_logs.c   the tasks' SLURM logs: what each submission asked
 *                    (the line the script prints first) and how it ended;
 *   summary_decide.c which report counts (the newest attempt wins),
 *                    the states, the peaks and times, the next settings by
 *                    the hand-off rule (cluster/handoff.c), and which tasks a
 *                    resubmission fixes and which need the user;
 *   summary_lines.c  the sbatch lines (each argument within 128 KiB);
 *   summary_render.c the text and the JSON document.
 * summary_ranges.c holds the index sets, summary.c the public functions
 * (spacrbench.h, "summarize"). Reading a directory is POSIX's (openat,
 * O_NONBLOCK): on Windows spacrbench_summarize says EUNSUPPORTED. */
#ifndef SPACRBENCH_SUMMARY_H
#define SPACRBENCH_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "spacrbench.h"
#include "text_buffer.h"

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
    SUM_OUTSIDE,    /* a report of this array's key for a task outside the array */
    SUM_FOREIGN     /* another array's report (its key is not this array's) */
} sum_state;

/* What a task that is not ok needs. */
typedef enum sum_need {
    SUM_NEED_NONE,
    SUM_NEED_RERUN,   /* a resubmission fixes it: more memory, more time, or again */
    SUM_NEED_ITEM,    /* the script's item --timeout ended its item: the user decides */
    SUM_NEED_COMMAND, /* the command failed on its item (its exit, a crash, not started) */
    SUM_NEED_FILES,   /* the task stopped before anything ran (its log says why) */
    SUM_NEED_LIMIT,   /* it needs more --time than a job can ask (365 days) */
    SUM_NEEDS
} sum_need;

typedef struct sum_task {
    int64_t index;
    sum_state state;
    char *file;             /* the report's file name (in the directory) */
    char *why;              /* unreadable/stale: what is wrong; failed: the outcome in words */
    char *outcome;          /* the task record's outcome ("ok", "oom", ...), NULL: no record */
    char *item;             /* the item that ended it, else the first; NULL unknown */
    char *array_job;        /* SLURM_ARRAY_JOB_ID, NULL outside a job */
    char *array_key;        /* task.array_key: the key of the script that ran it, NULL none */
    int64_t job;            /* array_job as a number, -1 none */
    double timeout_seconds; /* the item --timeout that ended it (task.timeout_seconds), -1 */
    int preempted;          /* the SLURM log says DUE TO PREEMPTION */
    sum_need need;
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

/* The array's indices as sorted ranges first, first + step, ... <= last
 * (last on the grid), their spans disjoint: --array=0-4194303:2 is one. */
typedef struct sum_range {
    int64_t first, last, step;
} sum_range;

typedef struct sum_ranges {
    sum_range *r;
    size_t n, cap;
} sum_ranges;

int sum_ranges_add(sum_ranges *set, int64_t first,
                   int64_t last); /* keeps order if appended in order */
/* first, first + step, ... <= last, appended after the ranges there. */
int sum_ranges_add_step(sum_ranges *set, int64_t first, int64_t last, int64_t step);
/* Sorted, spans made disjoint, after adds in any order (overlapping
 * spans are rebuilt from their indices, at most SUM_ARRAY_MAX of them).
 * 0 or ENOMEM. */
int sum_ranges_normalize(sum_ranges *set);
int sum_ranges_contains(const sum_ranges *set, int64_t index);
int64_t sum_ranges_count(const sum_ranges *set);
/* set less the sorted indices at[0..n-1] (each once): into out. */
int sum_ranges_subtract(const sum_ranges *set, const int64_t *at, size_t n, sum_ranges *out);
/* Neighbours that continue one another's step merged into one range
 * ("0-8:2", "10", "12-20:2" is "0-20:2"), in place. */
void sum_ranges_compact(sum_ranges *set);
/* "1,5,9-12,20-40:2" into buf (snprintf-style length): ranges [from, to). */
int sum_ranges_format_part(const sum_ranges *set, size_t from, size_t to, char *buf, size_t cap);
int sum_ranges_format(const sum_ranges *set, char *buf, size_t cap);
/* The text of one range with its comma (", " before all but the first). */
int sum_range_text(const sum_range *r, int first, char *buf, size_t cap);
void sum_ranges_free(sum_ranges *set);

typedef struct sum_manifest {
    int present;
    char *problem;                       /* why it cannot be used, NULL when fine or absent */
    int64_t tasks;                       /* 0..tasks-1 */
    char *script;                        /* the job script written beside it, absolute; NULL none */
    int64_t req_mem, req_cpus, req_time; /* what the script requests, -1 unknown */
    double item_timeout;
    char *key;           /* the script's key (array_key), NULL none */
    int64_t array_limit; /* the script's %K, 0 none */
} sum_manifest;

/* A SLURM log slurm-<job>_<index>.out seen in the directory, and, once
 * read (summary_logs.c), what it says. */
typedef struct sum_log {
    int64_t job, index;
    int read, header, ours;
    char key[17];                       /* the header's key, "" none */
    int64_t mem_bytes;                  /* what the submission asked, -1 unknown */
    int64_t time_minutes;               /* its --time (SPACRBENCH_TIME_LIMIT_MINUTES), -1 unknown */
    double item_timeout;                /* its item --timeout, -1 unknown */
    int timeout, oom, preempted, setup; /* how it ended, as SLURM (or the script) wrote it */
    char *said;                         /* setup: the script's line (or spacrbench's), malloc'd */
} sum_log;

/* A task without a usable report whose newest attempt left a log: which
 * job, what it asked, how it ended. */
typedef struct sum_missing_log {
    int64_t index, job;
    int timeout, oom, preempted, setup;
    int64_t mem_bytes, time_minutes;
    const char *said; /* the log's, setup only */
    sum_need need;
} sum_missing_log;

struct spacrbench_summary {
    char *directory;
    sum_task *tasks; /* reports, sorted by index then file */
    size_t n_tasks, cap_tasks;
    char **ignored; /* task-*.json names that are not task-<index>.json */
    size_t n_ignored, cap_ignored;
    sum_manifest manifest;
    sum_log *logs; /* the directory's SLURM logs */
    size_t n_logs, cap_logs;
    sum_missing_log *missing_logs; /* tasks without a usable report whose log says why */
    size_t n_missing_logs, cap_missing_logs;
    sum_ranges array;    /* the array's indices */
    int64_t throttle;    /* the array's %K (the manifest's or the --job script's), 0 none */
    char *array_source;  /* where they come from, in words */
    int array_seen;      /* no script or manifest said: as far as the directory shows */
    char *job_script;    /* --job, else the manifest's script, else NULL */
    int script_unusable; /* the script's path (--job, the manifest's) holds control characters */
    char job_key[17];    /* this array's key (summary_owner.c), "" unknown */
    /* Decided: */
    char *newest_job;          /* the newest submission's array job id */
    sum_ranges missing;        /* in the array, without a usable report */
    sum_ranges rerun;          /* what a resubmission fixes: the next submission's tasks */
    sum_ranges act[SUM_NEEDS]; /* the tasks of each need of the user (SUM_NEED_ITEM ...) */
    int64_t n_ok, n_failed, n_oom, n_timeout, n_unreadable, n_stale, n_outside, n_missing;
    int64_t n_foreign, n_preempted;
    int64_t peak; /* largest peak, a failed task's lower bound included; -1 none */
    int peak_is_lower_bound;
    int64_t peak_task;
    double slowest; /* the longest elapsed (or time limit of a timed-out task) */
    int64_t next_mem, next_cpus, next_time; /* bytes, cores, minutes; -1 unknown */
    double item_timeout;                    /* the item timeout the tasks ran with, 0 none */
    double given_item_timeout; /* the item --timeout a submission exported, -1 the script's */
    double ended_timeout;      /* the largest item --timeout that ended a task, 0 none */
    double next_item_timeout;  /* what the item-timeout line offers (0: none) */
    int64_t item_time;         /* that line's --time, minutes */
    uint64_t work;             /* steps taken: summarize is linear in the directory */
    char **lines;              /* the next submission's sbatch lines */
    size_t n_lines;
    char **act_lines[SUM_NEEDS]; /* each need's lines (none for SUM_NEED_FILES/LIMIT) */
    size_t n_act_lines[SUM_NEEDS];
    char *text;
    char *json;
};

/* Counts the steps of a sort of n (n log2 n, what qsort takes at most):
 * summarize's steps are linear in the directory but for its sorts. */
static inline void sum_count_sort(spacrbench_summary *s, size_t n)
{
    size_t log2n = 1;
    while (((size_t)1 << log2n) < n)
        log2n++;
    s->work += (uint64_t)n * log2n;
}

/* summary_read.c */
int sum_read(spacrbench_summary *s, const char *job_script);
/* The array as far as the directory shows (no script, no usable
 * manifest); ours_only: this array's reports and logs alone. */
int sum_array_as_seen(spacrbench_summary *s, int ours_only);

/* summary_owner.c: this array's key (the --job script's, else the
 * manifest's, else the newest report's); with --job, a manifest of
 * another key is another array's: its tasks and requests are dropped and
 * array_source says so. 0 or ENOMEM. */
int sum_check_owner(spacrbench_summary *s, const char *job_script);

/* summary_logs.c: every log's head (the script's first line: its key and
 * what the submission asked) and tail (TIMEOUT, oom-kill, preemption),
 * and whether it is this array's; sorted by index, then job. 0 or ENOMEM. */
int sum_read_logs(spacrbench_summary *s);
/* The logs of task index (sorted by job), as [*first, *first + n). */
size_t sum_logs_of(const spacrbench_summary *s, int64_t index, size_t *first);

/* summary_decide.c */
int sum_decide(spacrbench_summary *s);

/* summary_lines.c: the lines of the next submission and of each need,
 * each argument within SUM_ARG_MAX (more lines when one would not fit).
 * 0 or ENOMEM. */
#define SUM_ARG_MAX 131071 /* Linux's MAX_ARG_STRLEN (128 KiB) less its NUL */
int sum_make_lines(spacrbench_summary *s);
/* 'word' for a shell, when it needs quoting. */
void sum_shell_word(sb_text *t, const char *w);

/* summary_render.c */
int sum_render(spacrbench_summary *s);

#endif
