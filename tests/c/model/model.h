/* A model of SLURM for summarize (docs/scheduler-handoff.md, "The
 * resubmission loop, proven"): random multi-submission histories played
 * against the real job script (spacrbench_slurm_write_array's) and the real
 * spacrbench_summarize, following summarize's printed lines, with the
 * loop's invariants checked after every step.
 *
 *   model_util.c    the random source, index sets, files, text;
 *   model_sbatch.c  sbatch as the model's cluster reads a submission: the
 *                   script's #SBATCH lines, the printed command line (shell
 *                   words, each argument's length), --array specs;
 *   model_task.c    what a task runs: the fake `spacrbench` the job script
 *                   execs (it records the command line the script built),
 *                   and the report, written by the command's own code
 *                   (cli_args_parse, task_record_describe, slurm_env_describe,
 *                   cli_json_document, cli_write_file_atomic);
 *   model_history.c one history: the cluster's truth, the submissions, the
 *                   tasks' fates, summarize's output and the invariants. */
#ifndef SPACRBENCH_TEST_MODEL_H
#define SPACRBENCH_TEST_MODEL_H

#include <stddef.h>
#include <stdint.h>

/* ---- model_util.c ---- */

typedef struct model_rng {
    uint64_t s;
} model_rng;

uint64_t model_next(model_rng *r);
/* A whole number from lo to hi (both included). */
int64_t model_int(model_rng *r, int64_t lo, int64_t hi);
int model_chance(model_rng *r, double p);
double model_unit(model_rng *r);

/* Sorted, distinct task indices. */
typedef struct idxset {
    int64_t *v;
    size_t n, cap;
} idxset;

void idx_add(idxset *s, int64_t v); /* any order; idx_sort after */
void idx_sort(idxset *s);           /* sorted, duplicates dropped */
int idx_has(const idxset *s, int64_t v);
void idx_free(idxset *s);
/* "1,3-5" (plain ranges), malloc'd. */
char *idx_text(const idxset *s);

/* Text that grows (malloc'd, NUL-terminated; aborts when memory runs out:
 * a test harness). */
typedef struct mtext {
    char *s;
    size_t n, cap;
} mtext;

void mt_printf(mtext *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mt_free(mtext *t);

char *model_read_file(const char *path, size_t *len); /* NULL when absent */
void model_write_file(const char *path, const char *text, size_t len);
void model_append_file(const char *path, const char *text);
void model_remove_tree(const char *dir);
char *model_strdup(const char *s);
void *model_alloc(size_t n);

/* ---- model_sbatch.c ---- */

#define MODEL_ARG_MAX 131071 /* Linux's MAX_ARG_STRLEN (128 KiB) less its NUL */

/* A submission as the cluster sees it. */
typedef struct submission {
    idxset tasks;
    int64_t throttle; /* %K, 0 none */
    int64_t mem_mib, cpus, time_min;
    char *item_timeout; /* SPACRBENCH_ITEM_TIMEOUT exported, NULL none */
    char *time_var;     /* SPACRBENCH_TIME_LIMIT_MINUTES exported, NULL none */
    char *output;       /* --output */
    char *script;       /* the script submitted */
} submission;

void submission_free(submission *s);

/* The shell words of a command line summarize printed (plain words and
 * '...' quoting, as it writes them): 0, or -1 with why. */
int model_shell_words(const char *line, char ***words, size_t *n, char *why, size_t cap);
void model_words_free(char **words, size_t n);

/* An --array value as sbatch reads it ("0-9:2,11%3") into set and
 * throttle: 0, or -1 with why. max: the cluster's MaxArraySize. */
int model_array_spec(const char *spec, int64_t max, idxset *set, int64_t *throttle, char *why,
                     size_t cap);
/* A --time value as sbatch reads it (minutes, MM:SS, HH:MM:SS, D-HH,
 * D-HH:MM, D-HH:MM:SS): minutes, -1 when it is none of those. */
int64_t model_time_minutes(const char *text);
/* A --mem value: MiB (K, M, G, T suffixes; M by default), -1 when bad. */
int64_t model_mem_mib(const char *text);

/* sbatch: the script's #SBATCH lines (every option on a line; the last one
 * wins), then the command line's options (argv, after "sbatch"), which
 * override them. 0, or -1 with why (sbatch's refusal). */
int model_sbatch(char **argv, size_t argc, int64_t max_array, submission *out, char *why,
                 size_t cap);

/* ---- model_task.c ---- */

/* What the cluster does to a task (the model's truth and its kills). */
typedef enum task_fate {
    FATE_RUN,  /* runs to its end: ok, or its own failure (exit/crash), or an item timeout */
    FATE_OOM,  /* the cgroup's OOM killer at the submission's --mem; spacrbench reports it */
    FATE_OOM9, /* the same, seen by spacrbench as a SIGKILL (the log says oom-kill) */
    FATE_TERM, /* SIGTERM from SLURM (its time limit, a preemption): interrupted */
} task_fate;

typedef struct task_plan {
    task_fate fate;
    int64_t need_mib;  /* the item's peak */
    double runtime;    /* seconds the item runs when nothing ends it */
    double at;         /* seconds: when the kill comes (OOM, TERM) */
    int64_t limit_mib; /* FATE_OOM: the limit it hit */
    int exit_status;   /* FATE_RUN: its own exit (0 ok) */
    int crash_signal;  /* FATE_RUN: its own crash (0 none) */
    int not_started;   /* FATE_RUN: the command cannot be started (127) */
} task_plan;

/* What a task wrote: the outcome as the report says it. */
typedef struct task_result {
    int parsed;            /* its command line parsed (else exit 2, no report) */
    int reported;          /* a report was written */
    char outcome[16];      /* "ok", "oom", "timeout", "exit", ... */
    double item_timeout;   /* the --timeout it ran with (0 none) */
    char parse_error[512]; /* why it did not parse */
} task_result;

/* What the real job script built for one task, under bash: the command
 * line it exec'd spacrbench with, the variables it exported to it, the
 * item it handed to --items, what it wrote to the log before. */
typedef struct capture {
    int64_t job, task; /* where bash ran it (job -1: derived, not run) */
    char **argv;       /* argv[0] "run", then the script's arguments */
    size_t argc;
    char *key, *time_var; /* SPACRBENCH_ARRAY_KEY, SPACRBENCH_TIME_LIMIT_MINUTES */
    char *items;
    char *log;
    int ran; /* the script exec'd spacrbench (else it stopped before) */
} capture;

void capture_free(capture *c);

/* The script under bash, in this process's environment (SLURM_* set by
 * the caller), its output appended to log, the fake spacrbench's record
 * in capture_file: 0 and c filled, or the script's exit status when it
 * stopped before the exec (c->ran 0, c->log what it said). */
int model_run_script(const char *script, const char *log, const char *capture_file, capture *c);

/* A measurement begun as `run` begins one (a cgroup's peaks, records). */
struct spacrbench_measurement;
struct spacrbench_measurement *model_measurement_begin(int64_t items);

/* The fake spacrbench the job script execs (main() sends a process here
 * when SBMODEL_CAPTURE names a file): writes its arguments and the item it
 * read from --items into that file. Returns the exit status. */
int model_task_capture(int argc, char **argv);

/* The item --timeout argv gives (the command's parser), -1 when the
 * parser refuses argv (what it said in why). */
double model_task_timeout(int argc, char **argv, char *why, size_t cap);

/* One task's `spacrbench run ...` (argv from the script: argv[0] "run"),
 * in this process: parsed by the command's parser, the item's end by plan,
 * the report written by the command's code. stdout and stderr go to log
 * (appended). The environment is the task's (set by the caller). */
void model_task_run(int argc, char **argv, const task_plan *plan, const char *log,
                    task_result *out);

/* ---- model_roundtrip.c ---- */

/* Every value written for a task read back by the command's parser, and
 * summarize's item --timeout line run as printed (the file's comment): 0,
 * or -1 with what did not read back. *checked: how many checks held. */
struct model_options;
int model_round_trip(const struct model_options *o, int *checked, char *why, size_t cap);

/* ---- model_history.c ---- */

typedef struct model_options { /* (struct model_options) */
    const char *self;          /* this program (the fake spacrbench) */
    const char *tmp;           /* where history directories are made */
    int verbose;               /* print every step */
} model_options;

typedef struct model_stats {
    int64_t histories, submissions, tasks, real_scripts, summarizes;
    int64_t ended_ok, ended_named, refused_emits;
} model_stats;

/* One history from seed: 0 when every invariant held, else -1 with the
 * broken invariant in why (the seed replays it). */
int model_history(uint64_t seed, const model_options *o, model_stats *st, char *why, size_t cap);

#endif
