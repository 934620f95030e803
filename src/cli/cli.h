/* The `spacrbench` command's one internal contract. One flat folder:
 * cmd_*.c, one file per command with its option table; cli_*.c the
 * table's parser, help, errors, stdout, files and documents; run_*.c and
 * slurm.c the measuring parts of `run` (Linux). */
#ifndef SPACRBENCH_CLI_H
#define SPACRBENCH_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "field_workload.h"
#include "record.h"
#include "spacrbench.h"

/* ---- The one error channel (cli_error.c): every message reads
 * "spacrbench: ...", warnings and progress lines too; nothing else in
 * src/cli writes to stderr (check_one_channel.sh keeps it so). */
#define CLI_EXIT_OK      0
#define CLI_EXIT_ERROR   1 /* the measurement could not be made */
#define CLI_EXIT_USAGE   2 /* bad command line */
#define CLI_EXIT_STOPPED 3 /* a measured command failed; partial report printed */

#define CLI_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* Each returns code (cli_usage_error CLI_EXIT_USAGE, then where the help
 * is); option and what may be NULL; what: before the library's last error. */
int cli_error(int code, const char *fmt, ...) CLI_PRINTF(2, 3);
int cli_library_error(int code, const char *what);
int cli_usage_error(const char *option, const char *fmt, ...) CLI_PRINTF(2, 3);
#define cli_notice(...) ((void)cli_error(0, __VA_ARGS__)) /* the run goes on */
void cli_progress(const char *fmt, ...) CLI_PRINTF(1, 2); /* no prefix */
/* The command whose help a usage error points to (NULL: the program's). */
void cli_error_set_command(const char *command);

/* Trusted fds 0-2: a closed one would be reused by the next open() (an
 * item's start pipe landed on fd 1), and a report lost to a full disk or
 * a closed pipe must say so. cli_stdio_init opens /dev/null on a closed
 * fd and ignores SIGPIPE; -1 after the message when stdout was closed.
 * cli_stdio_reset_in_child (async-signal-safe) gives a child the SIGPIPE
 * spacrbench was started with. cli_stdout_put keeps why a write failed
 * (ENOSPC, not "I/O error"); cli_stdout_check flushes and says it once. */
int cli_stdio_init(void);
void cli_stdio_reset_in_child(void);
int cli_stdout_put(const char *text, size_t len);
int cli_stdout_check(void);

/* ---- Option tables: each entry's name, value, help and handler make the
 * parser, `--help`, the man page and the completions (cli_help.c). A
 * handler stores value (NULL for a flag; name is "--option"): CLI_EXIT_OK
 * or the code of cli_usage_error. */
struct cli_args;
typedef struct cli_option cli_option;
typedef int (*cli_option_handler)(struct cli_args *a, const cli_option *o, const char *name,
                                  const char *value);

typedef enum cli_complete {
    CLI_COMPLETE_NONE = 0,
    CLI_COMPLETE_FILE,
    CLI_COMPLETE_DIR
} cli_complete;

struct cli_option {
    const char *name;  /* without "--" */
    char letter;       /* short name, or 0 */
    const char *value; /* the value's name in the help; NULL: a flag */
    const char *help;  /* wrapped to CLI_HELP_WIDTH */
    cli_option_handler handle;
    size_t field;     /* CLI_FIELD the generic handlers store into */
    int64_t min, max; /* their range, or a handler's own argument */
    cli_complete complete;
    const char *choices; /* the fixed values a shell completes, or NULL */
};

typedef struct cli_section {
    const char *title;
    const cli_option *options;
    size_t n_options;
} cli_section;

#define CLI_SECTION(title, table)                                                                  \
    {                                                                                              \
        title, table, sizeof table / sizeof table[0]                                               \
    }
#define CLI_FIELD(member)  offsetof(struct cli_args, member)
#define CLI_SECTIONS(list) list, sizeof list / sizeof list[0]

typedef struct cli_command {
    const char *name;     /* "run"; NULL: the program itself (the demo) */
    const char *synopsis; /* after "spacrbench [name] " */
    const char *summary;  /* one line, for the command list */
    const char *description;
    const cli_section *const *sections; /* in help order */
    size_t n_sections;
    int takes_operands; /* items before "--" and a command after it */
    /* After the parse (may be NULL); first_arg: getopt's optind. */
    int (*check)(struct cli_args *a, int argc, char **argv, int first_arg);
    const char *exit_status; /* NULL: the program's */
} cli_command;

/* Generic handlers: an int flag, an int64_t in [min, max], a
 * string, a period in microseconds (at most max); --help or --version. */
int cli_opt_flag(struct cli_args *a, const cli_option *o, const char *name, const char *value);
int cli_opt_int(struct cli_args *a, const cli_option *o, const char *name, const char *value);
int cli_opt_string(struct cli_args *a, const cli_option *o, const char *name, const char *value);
int cli_opt_interval(struct cli_args *a, const cli_option *o, const char *name, const char *value);
int cli_opt_info(struct cli_args *a, const cli_option *o, const char *name, const char *value);

/* The recommendation and outputs of every measuring command; help, version. */
extern const cli_section cli_common_section, cli_info_section;
extern const cli_command cli_demo_command, cli_run_command, cli_summarize_command;
extern const cli_command *const cli_commands[]; /* the demo first; NULL-terminated */

#define CLI_HELP_WIDTH 79 /* a test checks every generated line */
void cli_print_help(FILE *out, const cli_command *cmd);
void cli_print_version(FILE *out);
/* `help [COMMAND]`, `--generate man|bash|zsh [FILE]` (the build's). */
int cli_help_main(int argc, char **argv);
int cli_generate_main(int argc, char **argv);

/* ---- The parsed command line. */
typedef enum cli_emit { CLI_EMIT_REPORT = 0, CLI_EMIT_SLURM, CLI_EMIT_DASK } cli_emit;

typedef struct cli_common {
    spacrbench_recommend_options rec;
    int json, quiet, verbose;
    cli_emit emit;
    /* NULL: none. --plot draws the scaling check with run --scale */
    const char *report_path, *export_markdown_path, *export_csv_path, *plot_path;
    /* run --emit slurm: the job the script runs (NULL: the #SBATCH lines alone) */
    const spacrbench_slurm_job *slurm_job;
} cli_common;

/* --emit slurm's options; values point into argv. */
typedef struct cli_slurm {
    const char *output_dir; /* NULL: ./spacrbench-job */
    const char *job_name;   /* NULL: the library's default */
    const char **sbatch;    /* extra #SBATCH lines (argc slots) */
    size_t n_sbatch;
    int from_path;                 /* tasks call `spacrbench` from PATH */
    long long array_limit;         /* --array=...%N; 0: none */
    const cli_option *first_given; /* for "needs --emit slurm" */
} cli_slurm;

#define CLI_SCALE_MAX 16 /* --scale entries */

typedef enum cli_mode { CLI_MODE_DEMO = 1, CLI_MODE_RUN = 2 } cli_mode;

typedef struct cli_args {
    const cli_command *command; /* whose table is parsed and whose help is printed */
    cli_common common;
    int done;            /* --help or --version was printed: exit 0 */
    int64_t warmup;      /* requested; the library clamps it */
    int64_t interval_us; /* --interval (0: the default) */
    /* demo */
    field_params field;
    int64_t fields;
    int gpu;
    const char *width_from, *height_from; /* the option that set each side */
    /* run */
    int no_cgroup;
    double timeout_s; /* per item, 0 none */
    const char *items_file;
    char **items; /* the item arguments (into argv) */
    size_t n_items;
    char **cmd; /* after "--" */
    size_t cmd_len;
    int64_t sample;     /* --sample K; 0: as the plate needs; -1: every item */
    double sample_cost; /* < 0: default */
    int64_t runs;
    int brief;
    /* --scale: the counts (n_scale 0: none), or auto; per timed repeat the
     * items and seconds at least (< 0: the driver's defaults). */
    int64_t scale[CLI_SCALE_MAX];
    size_t n_scale;
    int scale_auto;
    int64_t scale_items;
    double scale_seconds;
    cli_slurm slurm;
} cli_args;

void cli_args_init(cli_args *a, cli_mode mode);
/* argv[0] names the program or "run". CLI_EXIT_OK (check a->done) or the
 * exit code after the message; cli_args_free whatever it returned. */
int cli_args_parse(cli_args *a, int argc, char **argv);
void cli_args_free(cli_args *a);

/* Value parsers, 0 or -1: spacrbench_parse_size's bytes; plain digits in
 * [min, max]; "WxH"; sb_parse_duration's forms, > 0 and at most
 * CLI_DURATION_MAX (about 115 days); "10ms", "250us", "1.5" (seconds) as
 * whole microseconds from 1 to max_us. */
int cli_parse_bytes(const char *text, int64_t *out);
int cli_parse_int(const char *text, int64_t min, int64_t max, int64_t *out);
int cli_parse_size(const char *text, int64_t *width, int64_t *height);
#define CLI_DURATION_MAX      1e7
#define CLI_DURATION_MAX_TEXT "10000000"
int cli_parse_duration(const char *text, double *seconds);
int cli_parse_interval(const char *text, int64_t max_us, int64_t *us);

/* What --plot needs, in the Python package's words (_extras.PLOT_INSTALL). */
#define CLI_PLOT_INSTALL "pip install 'spacrbench[plot]' (from a clone: pip install '.[plot]')"

int demo_main(int argc, char **argv);
int run_main(int argc, char **argv);
int summarize_main(int argc, char **argv);
/* Where only the demo is built: "MODE: WHAT needs Linux", exit 2. */
int cli_needs_linux(const char *mode, const char *what);

/* ---- Files (cli_file.c). Write text to path: a regular file (or a new
 * name) through a temporary beside it and a rename, a symlink followed,
 * the mode kept; our own stdout or stderr appended through its fd; a
 * FIFO, a device, a dangling link written in place; a directory refused
 * (EISDIR). 0 or -1 (errno set; what only it knows said under option). */
int cli_write_file_atomic(const char *option, const char *path, const char *text, size_t len);
/* Before a run: a usage error for a path no write can succeed on later. */
int cli_output_path_check(const char *option, const char *path);
/* A usage error naming both options when two are one file (the same
 * st_dev/st_ino, else the same absolute path), an output over the items
 * (first entry) or another output. NULL, '-' and non-regular files pass. */
typedef struct cli_named_file {
    const char *option, *path;
} cli_named_file;
int cli_files_apart(const cli_named_file *files, size_t n);
int cli_is_stdout_name(const char *path); /* '-' */

/* ---- Output (cli_output.c): what a mode hands over with its measurement,
 * the one recommendation (NULL after saying why), then cli_finish: the
 * report, JSON or hand-off on stdout, the --report file, the exports. */
typedef struct cli_context {
    const char *mode;               /* "demo" or "run" */
    const char *const *item_labels; /* one per record, or NULL */
    size_t n_labels;
    /* its own members of the JSON document ("command", "workload", ...) */
    void (*describe)(json_writer *w, const void *arg, const spacrbench_measurement *m);
    const void *describe_arg;
    const spacrbench_scale_result *scaling; /* run --scale's check, or NULL */
    const spacrbench_measurement *handoff;  /* run --sample: the plate's largest; NULL: m */
    int brief;                              /* run --brief: stdout gets one line */
} cli_context;

const spacrbench_recommendation *cli_recommend(const cli_common *c, const spacrbench_measurement *m,
                                               const spacrbench_machine *machine,
                                               spacrbench_recommendation *out);
int cli_finish(const cli_common *c, const spacrbench_measurement *m,
               const spacrbench_machine *machine, const spacrbench_recommendation *rec,
               const cli_context *ctx);
/* machine, rec, sched may be NULL; NULL after the message. */
char *cli_json_document(const spacrbench_measurement *m, const spacrbench_machine *machine,
                        const spacrbench_recommendation *rec, const spacrbench_schedule *sched,
                        const char *report, const cli_context *ctx);
/* A note of any length added to m. */
void cli_note(spacrbench_measurement *m, const char *fmt, ...) CLI_PRINTF(2, 3);
/* An export is named '-': it goes to stdout in place of the report. */
int cli_export_takes_stdout(const cli_common *c);

/* --plot through `PYTHON -m spacrbench._plot_cli JSON FILE` (run_plot.c):
 * ready, before any run, unless that Python lacks spacrbench or matplotlib
 * (a usage error); then the scaling check's or a serial run's JSON. */
int run_plot_ready(void);
int run_plot(const spacrbench_scale_result *r, const char *path, int stdout_is_output);
int run_plot_document(const char *json, const char *path, int stdout_is_output);

/* ---- run --emit slurm's job (slurm.c), checked whole before any item
 * runs (exit 2, nothing created, for one the script cannot hold). */
typedef struct cli_slurm_job {
    spacrbench_slurm_job job;     /* first: cli_common.slurm_job points here */
    spacrbench_slurm_tasks tasks; /* --array-limit, --timeout, --no-cgroup */
    char *items_file, *output_dir, *self;
    char *advice; /* over SLURM's default MaxArraySize: what to do, or NULL */
} cli_slurm_job;

int cli_slurm_job_prepare(const cli_args *a, size_t n_items, cli_slurm_job *out);
void cli_slurm_job_free(cli_slurm_job *j);
/* The library's check of a job on a stand-in measurement (cmd_run.c). */
int cli_slurm_check_job(const spacrbench_slurm_job *job, const spacrbench_slurm_tasks *tasks);
#if defined(__linux__)
#include "supervisor.h"

/* ---- The command line of an item (run_items.c): every "{}" replaced by
 * it, else it appended; shown as a shell would need it typed. */
char **command_for_item(char *const *cmd, size_t n, const char *item);
void command_free(char **argv);
char *command_display(char *const *argv);

/* The items: the arguments, else --items FILE ('-': stdin) or stdin; one
 * that makes an argument longer than MAX_ARG_STRLEN - 1 is refused. */
#define ITEM_LIST_ARG_MAX ((size_t)131071)
typedef struct item_list {
    char **items; /* owned */
    size_t n;
} item_list;
int item_list_load(const cli_args *a, item_list *out); /* an exit code */
void item_list_free(item_list *items);

/* ---- One item (run_item.c): the supervisor's N=1 case and its verdict. */
typedef struct run_outcome {
    sb_copy copy;     /* the command: wait status, exec errno, CPU */
    sb_outcome group; /* its group: time, peaks, VRAM, OOM kills, limit, leftovers */
    int oom_killed;   /* the kernel's OOM killer ended it (os.h) */
    double timeout_s;
} run_outcome;

/* `run`'s supervisor (groups spacrbench-run-PID-...) over launcher (NULL:
 * its own); cgroups a killed spacrbench left are said and in *stale_note. */
void run_supervisor_init(sb_supervisor *sup, sb_launcher *launcher, int no_cgroup,
                         int stdout_is_output, int64_t machine_limit, double timeout_s,
                         char **stale_note);
/* 0 when the command ran (whatever its status), -1 after the message. */
int run_item(sb_supervisor *sup, char **argv, size_t index, run_outcome *o);
int run_outcome_ok(const run_outcome *o); /* exit 0, no stop signal */
void run_outcome_describe(const run_outcome *o, char *buf, size_t cap);
/* Shared with a scaling copy: oom (NULL: not OOM-killed) starts its words. */
void run_describe_end(char *buf, size_t cap, int exec_errno, int status, const char *oom,
                      int64_t limit);
/* What the work "returned": the status, minus the signal, 127 not started. */
int run_outcome_result(const run_outcome *o);

/* ---- The memory timeline (run_timeline.c): the supervisor's samples with
 * the CPU the items' processes used, each item marked at its peak. */
typedef struct run_timeline {
    spacrbench_measurement *m; /* NULL: none recorded */
    sb_supervisor *sup;
    double origin;      /* time 0 */
    int peak_is_charge; /* mark at the cgroup usage */
    int64_t best;       /* the current item's highest sample, -1 */
    double best_at;
    int broken;      /* a builder call failed */
    double cpu_done; /* CPU seconds of the runs that ended */
    struct run_cpu_proc *procs;
    size_t n_procs, cap_procs;
} run_timeline;

void run_timeline_begin(run_timeline *t, spacrbench_measurement *m, sb_supervisor *sup);
void run_timeline_run_done(run_timeline *t, double cpu_seconds);
void run_timeline_mark(run_timeline *t, size_t record, double started_at, double seconds);
void run_timeline_end(run_timeline *t);

/* ---- run --sample K (run_items.c): the plate is every item; the library
 * chooses K (and --warmup's) by file size and predicts the rest. */
typedef struct run_plate {
    item_list all;           /* every item given */
    spacrbench_plate *plate; /* NULL without --sample */
} run_plate;

/* *items becomes the chosen ones. An exit code. */
int run_plate_choose(const cli_args *a, item_list *items, run_plate *rp);
/* Whether to run another item after `added` (else *items is cut there). */
int run_plate_more(const run_plate *rp, const spacrbench_measurement *m, item_list *items,
                   size_t added);
/* 0, or -1 after a note saying why the plate has no recommendation and
 * the plate section of what was chosen and measured. */
int run_plate_predict(run_plate *rp, spacrbench_measurement *m, int stopped);
int64_t run_plate_warmup(const run_plate *rp, int64_t asked);
size_t run_plate_number(const run_plate *rp, size_t i); /* 1-based place in the plate */
void run_plate_free(run_plate *rp);

/* ---- run --scale (run_scale.c): the library's driver over rounds of k
 * copies at once in one group of the serial run's supervisor; rec may be
 * NULL. CLI_EXIT_OK with *out (a failed copy sets *copy_failed), or
 * CLI_EXIT_ERROR after the message. */
int run_scale(const cli_args *a, const item_list *items, sb_supervisor *sup,
              const spacrbench_recommendation *rec, spacrbench_scale_result **out,
              int *copy_failed);

/* ---- The run document's "task" and "job" members (slurm.c): how the run
 * ended as fields summarize reads, and the SLURM environment. */
typedef struct task_end {
    size_t items, completed; /* given; measured, warm-up included */
    int failed;              /* the fields below describe the failed item */
    size_t failed_index;
    const char *item; /* the failed item, else the first; NULL none */
    int exec_errno, wait_status, oom_killed;
    int64_t oom_limit_bytes; /* -1 unknown */
    int timed_out;
    double timeout_seconds, failed_seconds;
    int64_t failed_peak;    /* -1 unknown */
    int interrupted_by;     /* a stop signal, 0 none */
    double elapsed_seconds; /* every item's, the failed one's included */
} task_end;
void task_record_describe(json_writer *w, const task_end *end);
void slurm_env_describe(json_writer *w);
#endif

#endif
