/* The cluster folder's contract: the hand-off rule (handoff.c), the SLURM
 * job script and array files (slurm_*.c) and summarize (summary*.c).
 * summarize reads a job's directory (summary_read.c: everything bounded,
 * each problem an "unreadable" task), finds whose array it is
 * (summary_owner.c), reads the SLURM logs (summary_logs.c), decides
 * (summary_decide.c), makes the sbatch lines (summary_lines.c) and renders
 * the text and JSON (summary_render.c). Reading a directory is POSIX's
 * (openat, O_NONBLOCK): on Windows spacrbench_summarize says EUNSUPPORTED. */
#ifndef SPACRBENCH_CLUSTER_H
#define SPACRBENCH_CLUSTER_H

#include <stddef.h>
#include <stdint.h>

#include "core.h"    /* SB_REFUSE */
#include "records.h" /* sb_task_outcome */
#include "spacrbench.h"
#include "util.h"

/* ---- the hand-off rule (docs/scheduler-handoff.md) ---- */

#define SB_MIB              INT64_C(1048576)
#define SB_TIME_MAX_MINUTES (365 * 24 * 60) /* the most --time a job can ask */
/* The memory rule: peak + max(25% of peak, 256 MiB), rounded up to a
 * MiB (peak clamped to 0..INT64_MAX/4). */
int64_t sb_handoff_mem_bytes(int64_t peak);
/* The comment line on the VRAM a worker peaked at ("" without one). */
void sb_vram_comment(char *buf, size_t cap, const spacrbench_figures *f);
/* minutes as sbatch --time and SLURMCluster's walltime take them:
 * "HH:MM:00", or "D-HH:MM:00" from a day on. */
void sb_format_time_limit(char *buf, size_t cap, int64_t minutes);
/* The --time rule applied to m's slowest item (5 minutes when m has no
 * timed item). 0 or a negative code. */
int sb_measurement_time_limit(const spacrbench_measurement *m, double timeout_seconds,
                              int64_t *minutes);

/* ---- the job script and the files beside it ----
 * The script carries its own key: FNV-1a 64 of its text without comment
 * lines and without the key line itself, so two scripts that would do the
 * same have the same key whatever their comments say. The index starts
 * with a header line holding that key and the items file's size, and each
 * item's line holds its offset, length and POSIX cksum CRC, so a task finds
 * its item in O(1) and stops at once when the index is another array's or
 * the items file changed since. */
#define SB_SLURM_MANIFEST "spacrbench-array.json"
#define SB_SLURM_INDEX    "spacrbench-items.idx"
#define SB_SLURM_SCRIPT   "spacrbench-job.sh" /* the script, for summarize's command line */
#define SB_SLURM_KEY_LEN  16                  /* hex digits */
#define SB_SLURM_KEY_LINE "array_key='"
/* The index: every line SB_SLURM_INDEX_WIDTH (40) bytes.
 * Header: "sbidx1 <16 hex key> <15-digit items file size>\n";
 * item:   "<15-digit offset> <12-digit length> <10-digit CRC>\n". */
#define SB_SLURM_INDEX_WIDTH      40
#define SB_SLURM_INDEX_MAGIC      "sbidx1"
#define SB_SLURM_INDEX_MAX_BYTES  INT64_C(999999999999999) /* 15 digits */
#define SB_SLURM_INDEX_MAX_LENGTH INT64_C(999999999999)    /* 12 digits */
/* A task whose files are another array's (or changed) exits with this. */
#define SB_SLURM_MISMATCH_EXIT 65
/* The line each task prints first in its SLURM log (summarize reads it:
 * which array and what the submission asked, even when the task left no
 * report): "spacrbench job: array job J task I: key K, --mem M MiB,
 * --time T min, item --timeout S s" (S 0: none). */
#define SB_SLURM_LOG_HEADER "spacrbench job: array job "
/* The end of every line a task prints when it stops before anything runs
 * (files that are not its own, no item, a bad SPACRBENCH_ITEM_TIMEOUT). */
#define SB_SLURM_NOTHING_RUN "; nothing was run"

/* A comment line of a script ("# ..." or "#", n bytes with its newline). */
int sb_slurm_comment_line(const char *line, size_t n);
/* The key of a script text (the key line's value ignored), as hex digits
 * and a NUL into key. */
void sb_slurm_script_key(const char *text, size_t len, char key[SB_SLURM_KEY_LEN + 1]);
/* The key a script states in its key line: 0 and the digits in key, or -1
 * when it has none. */
int sb_slurm_stated_key(const char *text, size_t len, char key[SB_SLURM_KEY_LEN + 1]);

/* What a job script requests: the measurement's schedule and --time
 * rule, or what the caller gave (tasks.time_minutes, an extra #SBATCH
 * line's --time, --mem or --cpus-per-task, which replaces the script's
 * figure in the script, its manifest and the tasks' reports alike). */
typedef struct sb_slurm_settings {
    int64_t mem_bytes, cpus, minutes;
    int mem_given, cpus_given, time_given;
} sb_slurm_settings;

/* One extra #SBATCH line (job.directives[index]) as sbatch reads it
 * (slurm_directives.c): 0 with the figures it gives in set, or EINVAL
 * with the message (an option sbatch reads as --array, however abbreviated
 * or clustered; --mem-per-cpu/--mem-per-gpu beside the script's --mem;
 * --output/--error, which move the logs summarize reads; an abbreviation
 * sbatch finds ambiguous; a --time, --mem or --cpus-per-task that is not
 * one). */
int sb_slurm_directive_read(const char *line, size_t index, sb_slurm_settings *set);

/* The comment lines on where --mem, --cpus-per-task and --time come from
 * (item_timeout: the item timeout is the --time's floor too), and the
 * #SBATCH lines requesting them: the hand-off's and the job script's
 * (handoff.c). */
void sb_slurm_rules(sb_text *t, const spacrbench_measurement *m, const char *peak, double slowest,
                    const sb_slurm_settings *set, int item_timeout);
void sb_slurm_requests(sb_text *t, const sb_slurm_settings *set);

/* The job script of spacrbench_format_slurm_job into t, every input
 * checked as it checks them, with what it requests in set and its key:
 * 0 or a negative code (slurm_script.c). */
int sb_slurm_job_text(const spacrbench_measurement *m, const spacrbench_schedule *schedule,
                      const spacrbench_slurm_job *job, const spacrbench_slurm_tasks *tasks,
                      sb_text *t, sb_slurm_settings *set, char key[SB_SLURM_KEY_LEN + 1]);

/* 1 when text has a control character (a newline would end an #SBATCH
 * line, a comment or a command line early). */
int sb_has_control(const char *text);
/* text as one word for bash: as it is when bare_ok and it needs no
 * quoting, else 'text' (every ' as '\''), or $'...' with each control
 * character as \xHH (bash reads back the bytes; no raw escape on a
 * terminal). */
void sb_shell_word(sb_text *t, const char *text, int bare_ok);
/* seconds as the command's --timeout parser reads them back, the same
 * value within a nanosecond: at most 9 fraction digits, no exponent
 * ("0.1", "90", "1e-05" never). seconds in [1e-9, 1e7]. */
void sb_slurm_seconds_text(char *buf, size_t cap, double seconds);

/* ---- summarize ---- */

#define SUM_ARRAY_MAX   (INT64_C(1) << 22) /* more indices than any SLURM MaxArraySize */
#define SUM_REPORT_MAX  (16u << 20)        /* bytes of one report or manifest read at most */
#define SUM_JSON_DEPTH  64
#define SUM_SECONDS_MAX 1e9 /* 31 years: more is not a wall time */
#define SUM_BYTES_MAX   (INT64_C(1) << 60)
#define SUM_ARG_MAX     131071 /* Linux's MAX_ARG_STRLEN (128 KiB) less its NUL */
typedef enum sum_state {
    SUM_OK,
    SUM_FAILED,     /* the report says an item failed, or the run was interrupted */
    SUM_UNREADABLE, /* the report cannot be read: why says what is wrong */
    SUM_STALE,      /* a report from an older submission of a task a newer one reran */
    SUM_OUTSIDE,    /* a report of this array's key for a task outside the array */
    SUM_FOREIGN     /* another array's report (its key is not this array's) */
} sum_state;
#define SUM_STATES (SUM_FOREIGN + 1) /* the tables indexed by the state assert it */

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
    sum_need need;
    char *file; /* the report's file name (in the directory) */
    char *why;  /* unreadable/stale: what is wrong; failed: the outcome in words */
    /* The report's task record (outcome -1: none), its texts malloc'd; what
     * it does not say from the measurement (elapsed_seconds, item,
     * oom_limit_bytes the larger) and the job member (mem_bytes, cpus,
     * array_job_id). */
    sb_task_record rec;
    int64_t job;        /* rec.array_job_id as a number, -1 none */
    int64_t peak;       /* largest measured peak (a failed item's too), -1 unknown */
    double cpu_seconds; /* NaN or -1 unknown */
    int preempted;      /* the SLURM log says DUE TO PREEMPTION */
    int slurm_timeout;  /* SLURM's time limit ended it (the log says so) */
    int slurm_oom;      /* the SLURM log reports an oom-kill */
} sum_task;

/* OOM-killed, by its report or its SLURM log. */
static inline int sum_task_oom(const sum_task *t)
{
    return t->rec.oom_limit_bytes > 0 || t->slurm_oom || t->rec.outcome == SB_TASK_OOM;
}

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
/* "1,5,9-12,20-40:2" appended to t: ranges [from, to). */
void sum_ranges_write(sb_text *t, const sum_ranges *set, size_t from, size_t to);
/* The text of one range with its comma (", " before all but the first). */
int sum_range_text(const sum_range *r, int first, char *buf, size_t cap);
void sum_ranges_free(sum_ranges *set);

/* The array's manifest as read (summary_read.c): its texts malloc'd and
 * only the script and a well-formed array_key kept; tasks 0, the
 * item_timeout_seconds and array_limit (%K) 0 when none or unusable. */
typedef struct sum_manifest {
    int present;
    char *problem; /* why it cannot be used, NULL when fine or absent */
    sb_manifest rec;
} sum_manifest;

/* A SLURM log slurm-<job>_<index>.out seen in the directory, and, once
 * read (summary_logs.c), what it says. */
typedef struct sum_log {
    int64_t job, index;
    int header, ours;
    char key[17];                       /* the header's key, "" none */
    int64_t mem_bytes;                  /* what the submission asked, -1 unknown */
    int64_t time_minutes;               /* its --time (SPACRBENCH_TIME_LIMIT_MINUTES), -1 unknown */
    double item_timeout;                /* its item --timeout, -1 unknown */
    int timeout, oom, preempted, setup; /* how it ended, as SLURM (or the script) wrote it */
    char *said;                         /* setup: the script's line (or spacrbench's), malloc'd */
    /* Decided: the newest attempt of a task without a usable report, which
     * says how it ended (its time_minutes then what its job asked), and
     * what that task needs. */
    int missing;
    sum_need need;
} sum_log;

struct spacrbench_summary {
    char *directory;
    sum_task *tasks; /* reports, sorted by index then file */
    size_t n_tasks, cap_tasks;
    char **ignored; /* task-*.json names that are not task-<index>.json */
    size_t n_ignored, cap_ignored;
    sum_manifest manifest;
    sum_log *logs; /* the directory's SLURM logs */
    size_t n_logs, cap_logs;
    size_t n_missing_logs; /* the logs marked missing */
    sum_ranges array;      /* the array's indices */
    int64_t throttle;      /* the array's %K (the manifest's or the --job script's), 0 none */
    char *array_source;    /* where they come from, in words */
    int array_seen;        /* no script or manifest said: as far as the directory shows */
    char *job_script;      /* --job, else the manifest's script, else NULL */
    int script_unusable;   /* the script's path (--job, the manifest's) holds control characters */
    char job_key[17];      /* this array's key (summary_owner.c), "" unknown */
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
/* The whole file name in dir, when it is a regular file of at most max
 * bytes: 0 with *text (malloc'd, NUL-terminated) and *len, else -1 with
 * *why (malloc'd) saying what it is. */
int sum_read_small(int dir, const char *name, size_t max, char **text, size_t *len, char **why);
/* int64_t order, and the sorted array jobs of the reports whose state is
 * not in the mask skip (1u << state); NULL when out of memory. */
int sum_job_order(const void *a, const void *b);
int64_t *sum_report_jobs(spacrbench_summary *s, unsigned skip, size_t *n);
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
/* The logs of task index (sorted by job), as [*first, *first + n); *first
 * is the first log of a larger index when there is none. */
size_t sum_logs_of(const spacrbench_summary *s, int64_t index, size_t *first);

int sum_decide(spacrbench_summary *s);
/* summary_lines.c: the lines of the next submission and of each need,
 * each argument within SUM_ARG_MAX (more lines when one would not fit).
 * 0 or ENOMEM. */
int sum_make_lines(spacrbench_summary *s);
typedef struct sum_line_settings {
    int64_t mem, cpus, time;
    double item_timeout; /* exported when >= 0 */
} sum_line_settings;
/* " --mem=... --cpus-per-task=... --time=... --export=..." */
void sum_options(sb_text *t, const sum_line_settings *o);
int sum_render(spacrbench_summary *s);

#endif
