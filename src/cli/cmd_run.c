/* `spacrbench run`: its option table and checks (every platform: the help,
 * the man page and the completions list them), then, on Linux, the run:
 * an external command once per item, serially, measured into the
 * library's builder (which classifies the warm-up, sums the figures and
 * writes the warm-up notes); this file orders the steps and adds the notes
 * only the command knows. Elsewhere `run` says it needs Linux (exit 2). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "util.h"

static int opt_timeout(cli_args *a, const cli_option *o, const char *name, const char *v)
{
    (void)o;
    if (cli_parse_duration(v, &a->timeout_s) != 0)
        return cli_usage_error(name,
                               "expected a duration above 0 and at most " CLI_DURATION_MAX_TEXT
                               " s (about 115 days): seconds (10, 1.5; a bare number is seconds, "
                               "unlike SLURM's bare --time, which is minutes), numbers with d, h, "
                               "m, s in that order (90s, 90m, 1h30m) or SLURM's --time forms with "
                               "':' or '-' (1:30:00, 2-00:00:00), got '%s'",
                               v);
    return CLI_EXIT_OK;
}

/* Not below 1 ms: without a cgroup each sample reads the whole process
 * table (about a millisecond), so a shorter period would keep a core busy. */
static int opt_interval(cli_args *a, const cli_option *o, const char *name, const char *v)
{
    if (cli_parse_interval(v, o->max, &a->interval_us) != 0 || a->interval_us < o->min)
        return cli_usage_error(name,
                               "expected a period from 1ms to 10s such as 10ms, 2.5ms or 0.5s, "
                               "got '%s'",
                               v);
    return CLI_EXIT_OK;
}

/* A share of the plate's time: 5% or 0.05, 0 to 1. */
static int opt_sample_cost(cli_args *a, const cli_option *o, const char *name, const char *v)
{
    (void)o;
    if (sb_parse_share(v, strlen(v), &a->sample_cost) != SB_PARSE_OK)
        return cli_usage_error(name,
                               "expected a share of the plate's time from 0 to 1, as 5%% or "
                               "0.05, got '%s'",
                               v);
    return CLI_EXIT_OK;
}

/* "auto", or at most CLI_SCALE_MAX distinct counts "1,2,4". */
static int opt_scale(cli_args *a, const cli_option *o, const char *name, const char *v)
{
    (void)o;
    a->scale_auto = strcmp(v, "auto") == 0;
    a->n_scale = 0;
    for (const char *p = v; !a->scale_auto; p += strcspn(p, ",") + 1) {
        size_t len = strcspn(p, ",");
        char one[32];
        int64_t k;
        if (len == 0 || len >= sizeof one)
            return cli_usage_error(name,
                                   "expected whole numbers from 1 to %d separated by commas, or "
                                   "'auto', got '%s'",
                                   SPACRBENCH_SCALE_MAX_WORKERS, v);
        snprintf(one, sizeof one, "%.*s", (int)len, p);
        if (cli_parse_int(one, 1, SPACRBENCH_SCALE_MAX_WORKERS, &k) != 0)
            return cli_usage_error(name, "'%s' is not a whole number from 1 to %d, got '%s'", one,
                                   SPACRBENCH_SCALE_MAX_WORKERS, v);
        for (size_t i = 0; i < a->n_scale; i++)
            if (a->scale[i] == k)
                return cli_usage_error(name, "%lld is given twice, got '%s'", (long long)k, v);
        if (a->n_scale == CLI_SCALE_MAX)
            return cli_usage_error(name, "at most %d worker counts, got '%s'", CLI_SCALE_MAX, v);
        a->scale[a->n_scale++] = k;
        if (p[len] == '\0')
            break;
    }
    return CLI_EXIT_OK;
}

/* A duration as --timeout takes it, or 0 (no minimum time), at most an
 * hour: each count runs several repeats of it. */
static int opt_scale_seconds(cli_args *a, const cli_option *o, const char *name, const char *v)
{
    (void)o;
    size_t zeros = strspn(v, "0.");
    if (zeros > 0 && v[0] == '0' && (v[zeros] == '\0' || strcmp(v + zeros, "s") == 0) &&
        strstr(v, "..") == NULL)
        a->scale_seconds = 0;
    else if (cli_parse_duration(v, &a->scale_seconds) != 0 || a->scale_seconds > 3600)
        return cli_usage_error(name,
                               "expected a duration from 0 to 3600 s such as 0, 1, 2.5, 30s or "
                               "1m, got '%s'",
                               v);
    return CLI_EXIT_OK;
}

/* The library's check of job (and tasks) on a stand-in measurement and
 * schedule: its return, < 0 with its last error saying why. */
int cli_slurm_check_job(const spacrbench_slurm_job *job, const spacrbench_slurm_tasks *tasks)
{
    spacrbench_figures f = {.size = sizeof f};
    f.items = 1;
    f.seconds = f.cpu_seconds = 1;
    f.peak_rss_bytes = (int64_t)1 << 20;
    f.peak_vram_bytes = SPACRBENCH_NOT_MEASURED;
    f.peak_method = SPACRBENCH_PEAK_CHILD_RUSAGE;
    f.stopped_item = -1;
    spacrbench_measurement *m = NULL;
    int rc = spacrbench_measurement_create(&f, &m);
    if (rc != 0)
        return rc;
    spacrbench_schedule sched = {.size = sizeof sched};
    sched.cpus_per_task = sched.array_concurrency = sched.n_workers = sched.threads_per_worker = 1;
    sched.mem_per_task_bytes = sched.memory_limit_bytes = (int64_t)1 << 30;
    rc = spacrbench_format_slurm_job(m, &sched, job, tasks, NULL, 0); /* a dry run */
    spacrbench_measurement_free(m);
    return rc;
}

/* The job script's options; min is the option's letter. */
static int opt_slurm(cli_args *a, const cli_option *o, const char *name, const char *v)
{
    cli_slurm *s = &a->slurm;
    if (!s->first_given)
        s->first_given = o;
    if (o->min == 'p') {
        s->from_path = 1;
        return CLI_EXIT_OK;
    }
    for (const unsigned char *p = (const unsigned char *)v; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return cli_usage_error(name, "needs a non-empty value on one line");
    if (!*v)
        return cli_usage_error(name, "needs a non-empty value on one line");
    int64_t limit;
    if (o->min == 'o')
        s->output_dir = v;
    else if (o->min == 'l' && cli_parse_int(v, 1, 1000000, &limit) != 0)
        return cli_usage_error(name,
                               "expected the most tasks to run at once on the whole cluster, 1 "
                               "to 1000000, got '%s'",
                               v);
    else if (o->min == 'l')
        s->array_limit = limit;
    else if (o->min == 'j' && strpbrk(v, " \t'\"\\"))
        return cli_usage_error(name, "no whitespace, quotes or backslash, got '%s'", v);
    else if (o->min == 'j')
        s->job_name = v;
    else { /* --sbatch "--partition=short", with or without its "#SBATCH " */
        if (strncmp(v, "#SBATCH", 7) == 0)
            v += 7 + strspn(v + 7, " \t");
        if (*v != '-')
            return cli_usage_error(
                name, "expected an sbatch option such as --partition=short, got '%s'", v);
        /* Read as sbatch reads it, by the library, on a stand-in job. */
        static const char *const command[] = {"true"};
        spacrbench_slurm_job job;
        spacrbench_slurm_job_init(&job, sizeof job);
        job.items_file = "/items";
        job.n_items = 1;
        job.output_dir = "/out";
        job.command = command;
        job.command_len = 1;
        job.directives = &v;
        job.n_directives = 1;
        if (cli_slurm_check_job(&job, NULL) < 0) {
            const char *why = spacrbench_last_error_message(), *field = "job.directives[0]: ";
            if (strncmp(why, field, strlen(field)) == 0)
                why += strlen(field);
            return cli_usage_error(name, "'%s': %s", v, why);
        }
        s->sbatch[s->n_sbatch++] = v;
    }
    return CLI_EXIT_OK;
}

static const cli_option k_run[] = {
    {"items", 0, "FILE",
     "one item per line ('-' = stdin); or the items as arguments; with neither, "
     "one item per line on standard input",
     cli_opt_string, CLI_FIELD(items_file), 0, 0, CLI_COMPLETE_FILE, NULL},
    {"no-cgroup", 0, NULL, "measure with wait4 + /proc sampling, not a cgroup of its own",
     cli_opt_flag, CLI_FIELD(no_cgroup), 0, 0, CLI_COMPLETE_NONE, NULL},
    {"timeout", 0, "DURATION",
     "kill an item (and its processes) running longer: 90m, 1h30m, 1:30:00, 2-00:00:00, or a "
     "bare number of seconds (10, 1.5; SLURM's bare --time is minutes)",
     opt_timeout, 0, 0, 0, CLI_COMPLETE_NONE, NULL},
    {"warmup", 0, "N", "first N items excluded from the timing (default 0)", cli_opt_int,
     CLI_FIELD(warmup), 0, INT32_MAX, CLI_COMPLETE_NONE, NULL},
    {"runs", 0, "N",
     "run each measured item N times (default 1; the warm-up items once): its time "
     "is their mean, reported with its standard deviation, min and max, its peaks "
     "their largest; a note names an item whose deviation is over 10 % of its mean",
     cli_opt_int, CLI_FIELD(runs), 1, SPACRBENCH_RUNS_MAX, CLI_COMPLETE_NONE, NULL},
    {"brief", 0, NULL,
     "print one line instead of the report: the peak RSS (and the memory charged), "
     "the time per item and the recommended workers",
     cli_opt_flag, CLI_FIELD(brief), 0, 0, CLI_COMPLETE_NONE, NULL},
    {"sample", 0, "K",
     "measure only K items chosen across the plate (by file size: the largest always, "
     "the smallest, even steps between, the rest at random; an item with no file is "
     "taken to be as large as the largest, and with no file at all they are evenly "
     "spaced), plus --warmup's, and predict the rest: the "
     "advice, --emit and --scale are for the plate's largest item; 0: as many as "
     "the plate needs, one at a time until its predicted largest stops moving",
     cli_opt_int, CLI_FIELD(sample), 0, 1000000, CLI_COMPLETE_NONE, NULL},
    {"sample-cost", 0, "SHARE",
     "with --sample 0: the most the items measured beyond the least may take, as a "
     "share of the plate's predicted serial time (default 5%)",
     opt_sample_cost, 0, 0, 0, CLI_COMPLETE_NONE, NULL},
    {"interval", 0, "PERIOD",
     "how often each running item is sampled for the memory timeline and the RSS "
     "peak of its process tree: 10ms with a cgroup, 5ms without (the defaults), "
     "1ms to 10s",
     opt_interval, 0, 1000, 10000000, CLI_COMPLETE_NONE, NULL},
    {"scale", 0, "LIST",
     "after the serial run, run k copies at once for each k in LIST (1,2,4 or "
     "auto: 1, 2, 4, ... up to the cores, and no more than the 1-worker peak's "
     "workers the memory budget holds + 1), each group in a cgroup of its own; "
     "reports throughput, speed-up, group peak and the knee",
     opt_scale, 0, 0, 0, CLI_COMPLETE_NONE, "auto"},
    {"scale-items", 0, "N",
     "items each copy runs in every timed repeat of a count, at least (default 3; "
     "after one untimed warm-up item per copy)",
     cli_opt_int, CLI_FIELD(scale_items), 1, SPACRBENCH_SCALE_MAX_ROUND_ITEMS, CLI_COMPLETE_NONE,
     NULL},
    {"scale-seconds", 0, "DURATION",
     "each timed repeat of a count lasts at least this long (default 1 s; 2 to 5 "
     "repeats, more while they differ by over 5 %); --scale-items 1 --scale-seconds 0 "
     "is the shortest check",
     opt_scale_seconds, 0, 0, 0, CLI_COMPLETE_NONE, NULL},
};

static const cli_option k_slurm[] = {
    {"slurm-output", 0, "DIR", "where tasks write their reports (default ./spacrbench-job)",
     opt_slurm, 0, 'o', 0, CLI_COMPLETE_DIR, NULL},
    {"job-name", 0, "NAME", "#SBATCH --job-name (default spacrbench)", opt_slurm, 0, 'j', 0,
     CLI_COMPLETE_NONE, NULL},
    {"sbatch", 0, "LINE",
     "one more #SBATCH line, e.g. --sbatch=--partition=short, read as sbatch reads it (never "
     "--array, however abbreviated; a --time, --mem or --cpus-per-task there is the script's "
     "own)",
     opt_slurm, 0, 's', 0, CLI_COMPLETE_NONE, NULL},
    {"slurm-from-path", 0, NULL, "tasks call spacrbench from PATH, not this binary's path",
     opt_slurm, 0, 'p', 0, CLI_COMPLETE_NONE, NULL},
    {"array-limit", 0, "N",
     "at most N tasks at once on the whole cluster (--array=...%N; default: no "
     "limit, the scheduler packs tasks by --mem and --cpus-per-task)",
     opt_slurm, 0, 'l', 0, CLI_COMPLETE_NONE, NULL},
};

static const cli_section k_run_section = CLI_SECTION("run", k_run);
static const cli_section k_slurm_section = CLI_SECTION(
    "--emit slurm: a job script (an array over --items FILE) that submits as is", k_slurm);
static const cli_section *const k_sections[] = {&k_run_section, &k_slurm_section,
                                                &cli_common_section, &cli_info_section};

static int check_run(cli_args *a, int argc, char **argv, int first_arg)
{
    /* getopt_long stops early only at "--": the command follows it. */
    if (first_arg >= argc)
        return cli_usage_error("run", "missing '-- COMMAND ARG... {}' after the items");
    a->cmd = argv + first_arg;
    a->cmd_len = (size_t)(argc - first_arg);
    if (a->n_items && a->items_file)
        return cli_usage_error("--items", "give items either as arguments or in a file, not both");
    int scaling = a->scale_auto || a->n_scale > 0;
    if (a->scale_items > 0 && !scaling)
        return cli_usage_error("--scale-items", "needs --scale");
    if (a->scale_seconds >= 0 && !scaling)
        return cli_usage_error("--scale-seconds", "needs --scale");
    if (a->sample_cost >= 0 && a->sample != 0)
        return cli_usage_error("--sample-cost", "needs --sample 0 (a fixed sample measures all "
                                                "its items)");
    /* stdout holds one document: the line, or the JSON, or the settings. */
    if (a->brief && (a->common.json || a->common.emit != CLI_EMIT_REPORT))
        return cli_usage_error("--brief", "prints its line on stdout, where %s would go",
                               a->common.json ? "--json's document" : "--emit's settings");
    if (a->brief && cli_export_takes_stdout(&a->common))
        return cli_usage_error("--brief", "prints its line on stdout, where the export to '-' "
                                          "would go");
    if (a->slurm.first_given && a->common.emit != CLI_EMIT_SLURM) {
        char name[64];
        snprintf(name, sizeof name, "--%s", a->slurm.first_given->name);
        return cli_usage_error(name, "shapes the job script: needs --emit slurm");
    }
    if (a->common.emit == CLI_EMIT_SLURM && (!a->items_file || strcmp(a->items_file, "-") == 0))
        return cli_usage_error("--emit slurm",
                               "the job script needs the items in a file (--items FILE): each "
                               "array task reads its item from it");
    return CLI_EXIT_OK;
}

const cli_command cli_run_command = {
    "run",
    "[options] [--items FILE | ITEM...] -- CMD ARG... {}",
    "benchmark CMD once per item",
    "Runs CMD once per item, serially, each in a memory cgroup of its own, and "
    "measures what one worker needs (time, exact peak memory of its whole process "
    "tree, VRAM, cores kept busy); then recommends a worker count as the default "
    "mode does. Every {} in CMD ARG... is replaced by the item (the item is "
    "appended when no argument holds {}); no shell is involved.",
    CLI_SECTIONS(k_sections),
    1,
    check_run,
    NULL,
};

#if defined(__linux__)
/* The most bytes an item takes where spacrbench names it (escaped): a
 * longer one is shown as its start, "...", its end and its length. */
#define RUN_LABEL_MAX 200

typedef struct run_state {
    const cli_args *args;
    item_list items;      /* the items to run: all, or --sample's chosen ones */
    run_plate plate;      /* --sample: the whole plate and its prediction */
    sb_launcher launcher; /* where the commands start: forked before the items are read */
    sb_supervisor sup;
    run_timeline timeline;
    char *stale_note;      /* cgroups a killed spacrbench left, or NULL */
    int64_t charge_max;    /* the largest cgroup charge of a measured item, -1 none */
    int64_t rss_max;       /* the largest RSS peak of a measured item's tree, -1 none */
    int64_t hugetlb_max;   /* the largest HugetlbPages sampled in an item's tree, 0 none */
    int64_t own_rss_bytes; /* this process's resident size when the commands start */
    size_t added;          /* records in the measurement (labels[0..added-1]) */
    int outlived_total;    /* item runs whose command left processes running when it exited */
    int left_total;        /* processes left running (unkillable, or past a stop signal) */
    sb_text leftovers;     /* those killed at --timeout or left, by item: "item 2: sleep (pid 9)" */
    size_t leftover_items; /* items named in leftovers */
    int internal_error;
    int failed;       /* an item failed: the fields below are set */
    int scale_failed; /* --scale: a copy failed (its point is marked failed) */
    size_t failed_index;
    run_outcome failure;
    char *failed_command; /* escaped for display, in full */
    char *failed_label;   /* escaped and shortened (RUN_LABEL_MAX) */
} run_state;

/* Resident size of this process (it is what a forked child starts with). */
static int64_t own_rss_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "re");
    long long size = 0, resident = -1;
    if (f && fscanf(f, "%lld %lld", &size, &resident) != 2)
        resident = -1;
    if (f)
        fclose(f);
    return resident < 0 ? -1 : (int64_t)resident * sysconf(_SC_PAGESIZE);
}

static void describe_run(json_writer *w, const void *arg, const spacrbench_measurement *m)
{
    const run_state *s = arg;
    json_begin_array(w, "command");
    for (size_t i = 0; i < s->args->cmd_len; i++)
        json_string(w, NULL, s->args->cmd[i]);
    json_end_array(w);
    /* The items given: with --sample the whole plate, not the chosen ones. */
    json_int(w, "items_given", (int64_t)(s->plate.plate ? s->plate.all.n : s->items.n));
    json_int(w, "spacrbench_rss_bytes", s->own_rss_bytes);
    json_begin_object(w, "memory_figures");
    json_string(w, "advice_uses", s->sup.use_cgroup ? "cgroup_charge" : "tree_rss_peak");
    if (s->charge_max >= 0)
        json_int(w, "cgroup_charge_bytes", s->charge_max);
    else
        json_null(w, "cgroup_charge_bytes");
    if (s->rss_max >= 0)
        json_int(w, "tree_rss_peak_bytes", s->rss_max);
    else
        json_null(w, "tree_rss_peak_bytes");
    json_string(w, "why",
                s->sup.use_cgroup ? "the cgroup charge: what one more worker costs (shared "
                                    "libraries already cached are not charged again)"
                                  : "the tree's RSS peak, the only figure measured here (no "
                                    "cgroup of its own)");
    /* The items' cgroups were made under it. */
    json_string(w, "cgroup_parent", s->sup.use_cgroup ? s->sup.cg.parent : NULL);
    json_end_object(w);
    slurm_env_describe(w);
    spacrbench_figures f = {.size = sizeof f};
    spacrbench_measurement_figures(m, &f);
    const run_outcome *o = &s->failure;
    task_end end = {s->items.n,
                    s->added,
                    s->failed,
                    s->failed_index,
                    s->items.n ? s->items.items[s->failed ? s->failed_index : 0] : NULL,
                    o->copy.exec_errno,
                    o->copy.status,
                    o->oom_killed,
                    o->group.limit,
                    o->group.timed_out,
                    o->timeout_s,
                    o->group.seconds,
                    o->group.peak,
                    sb_stop_signal(),
                    f.seconds + f.warmup_seconds + (s->failed ? o->group.seconds : 0)};
    task_record_describe(w, &end);
}

/* The progress line of the record just added (the builder decided whether
 * it was a warm-up item). */
static void show_progress(const run_state *s, const spacrbench_measurement *m, double *elapsed)
{
    spacrbench_item_record rec = {.size = sizeof rec};
    if (spacrbench_measurement_record(m, s->added - 1, &rec) != 0)
        return;
    *elapsed += rec.seconds;
    spacrbench_progress p = {sizeof p,    rec.index, (int64_t)s->items.n, rec.is_warmup, 0,
                             rec.seconds, *elapsed,  rec.peak_rss_bytes};
    /* Escaped here, by the command's rule (C1 controls and bytes that are
     * not UTF-8 included), and shortened: the line is one line. */
    char *shown = sb_escape_short(s->items.items[rec.index], RUN_LABEL_MAX);
    char line[1024];
    if (shown && spacrbench_format_progress(&p, shown, line, sizeof line) >= 0)
        cli_progress("%s", line);
    free(shown);
}

/* An item that failed stops the run. One the OOM killer ended still tells
 * what one worker needs: at least the limit it hit, which the library
 * takes as a lower bound of the peak ("one worker needs more than"); the
 * failed item's time is not counted. */
static int record_failure(run_state *s, spacrbench_measurement *m, size_t i, const run_outcome *o,
                          char **argv)
{
    s->failed = 1;
    s->failed_index = i;
    s->failure = *o;
    s->failed_command = command_display(argv);
    /* Shortened: the note that holds it must keep the reason after it. */
    s->failed_label = sb_escape_short(s->items.items[i], RUN_LABEL_MAX);
    if (o->oom_killed && spacrbench_measurement_mark_out_of_memory(
                             m, o->group.limit > 0 ? o->group.limit : o->group.peak) != 0)
        return -1;
    spacrbench_measurement_mark_stopped(m, (int64_t)i, run_outcome_result(o));
    return 0;
}

/* Item i's runs into runs[0..*done), span[0] when the first started and
 * span[1] when the last ended: 0 when they all succeeded, 1 when one failed
 * (recorded) or a stop signal came, -1 on an internal error. Each run
 * keeps the peak the advice divides by (the charge with a cgroup of its
 * own, else the tree's RSS) and both memory figures. */
static int run_runs(run_state *s, spacrbench_measurement *m, size_t i, char **argv,
                    spacrbench_item_run *runs, size_t n, size_t *done, double span[2])
{
    *done = 0;
    for (size_t r = 0; r < n; r++) {
        run_outcome o;
        if (run_item(&s->sup, argv, i, &o) != 0)
            return -1;
        /* What its command left running: waited for (counted), and those
         * killed at --timeout or left running named, for the first items. */
        s->outlived_total += o.group.outlived > 0;
        s->left_total += o.group.left_behind;
        if (o.group.leftovers[0] && s->leftover_items < 4)
            sb_text_printf(&s->leftovers, "%sitem %zu: %s", s->leftover_items ? "; " : "",
                           run_plate_number(&s->plate, i), o.group.leftovers);
        else if (o.group.leftovers[0] && s->leftover_items == 4)
            sb_text_printf(&s->leftovers, "; and in later items");
        s->leftover_items += o.group.leftovers[0] != '\0';
        if (!run_outcome_ok(&o))
            return record_failure(s, m, i, &o, argv) != 0 ? -1 : 1;
        double cpu = o.copy.cpu_seconds + o.group.orphan_cpu; /* with its orphans' */
        if (r == 0)
            span[0] = o.group.started_at;
        span[1] = o.group.started_at + o.group.seconds;
        runs[(*done)++] = (spacrbench_item_run){sizeof(spacrbench_item_run),
                                                o.group.seconds,
                                                cpu,
                                                o.group.peak,
                                                o.group.vram_peak,
                                                s->sup.use_cgroup ? o.group.peak : -1,
                                                o.group.rss_peak};
        run_timeline_run_done(&s->timeline, cpu);
        if (o.group.hugetlb_peak > s->hugetlb_max)
            s->hugetlb_max = o.group.hugetlb_peak;
        if (sb_stop_signal())
            return 1; /* the runs so far are the item's */
    }
    return 0;
}

static void run_each_item(run_state *s, spacrbench_measurement *m)
{
    int progress = !s->args->common.quiet && isatty(STDERR_FILENO);
    double elapsed = 0;
    spacrbench_item_run *runs = calloc((size_t)s->args->runs, sizeof *runs);
    if (!runs) {
        s->internal_error = 1;
        cli_error(CLI_EXIT_ERROR, "out of memory");
        return;
    }
    /* --runs each, the warm-up items (as the builder clamps them: the last
     * item is measured) once. */
    size_t warm =
        (size_t)s->args->warmup < s->items.n - 1 ? (size_t)s->args->warmup : s->items.n - 1;
    sb_stop_signals_catch(1);
    for (size_t i = 0; i < s->items.n && !sb_stop_signal(); i++) {
        char **argv = command_for_item(s->args->cmd, s->args->cmd_len, s->items.items[i]);
        size_t done = 0, n = i < warm ? 1 : (size_t)s->args->runs;
        double span[2] = {0, 0};
        int rc = argv ? run_runs(s, m, i, argv, runs, n, &done, span)
                      : (cli_error(CLI_EXIT_ERROR, "out of memory"), -1);
        if (rc < 0)
            s->internal_error = 1;
        else if (done && !s->failed) { /* a stop signal keeps the runs that ended */
            if (spacrbench_measurement_add_item_runs(m, runs, done, sizeof *runs) != 0) {
                cli_library_error(CLI_EXIT_ERROR, NULL);
                s->internal_error = 1;
            } else {
                s->added++;
                run_timeline_mark(&s->timeline, s->added - 1, span[0], span[1] - span[0]);
                if (progress)
                    show_progress(s, m, &elapsed);
            }
        }
        command_free(argv);
        if (rc != 0 || s->internal_error || !run_plate_more(&s->plate, m, &s->items, s->added))
            break;
    }
    sb_stop_signals_catch(0);
    free(runs);
    /* Both memory figures, the largest of the items' (the JSON's
     * "memory_figures", the hand-off's note). */
    spacrbench_memory_figures f = {.size = sizeof f};
    if (spacrbench_measurement_memory(m, &f) == 0) {
        s->charge_max = f.cgroup_charge_bytes;
        s->rss_max = f.tree_rss_peak_bytes;
    }
}

/* The notes only the command knows: how peaks and VRAM were measured, what
 * was left behind, why the run stopped; and the GPUs (free memory now, the
 * commands' peak on each) for the recommendation's VRAM rule. */
static void add_notes(run_state *s, spacrbench_measurement *m)
{
    const sb_supervisor *r = &s->sup;
    const cli_args *a = s->args;
    /* Where the system can hand out hugetlb pages, the peak may miss some
     * (mapped and freed between samples): never called exact then. */
    spacrbench_measurement_note_hugetlb(m, s->hugetlb_max, sb_supervisor_interval(r));
    if (r->use_cgroup) { /* the path is the JSON's: it would not fit a line */
        cli_note(m,
                 "memory charged: each item's whole process tree in a memory cgroup of its own "
                 "(cgroup v%d %s, under spacrbench's own: the JSON's memory_figures); page cache "
                 "it reads or writes counts, file pages other processes cached first (shared "
                 "libraries) do not, as for one more worker",
                 r->cg.version, r->cg.version == 1 ? "memory.max_usage_in_bytes" : "memory.peak");
        spacrbench_measurement_add_note(m, r->cg.found); /* where, and why not elsewhere */
    } else {
        char how[200];
        double miss_ms = sb_supervisor_sampling(r, how, sizeof how);
        cli_note(m,
                 "peak memory = the larger of wait4's ru_maxrss (largest single process of the "
                 "tree) and the largest sum of the VmHWM of the processes alive together, sampled "
                 "%s; an upper bound: the peaks may not coincide, pages the processes share (a "
                 "fork's copy-on-write pages) count in each, processes that ran one after "
                 "another are never added, a process living less than %g ms may be seen only "
                 "through ru_maxrss; page cache is not included; no cgroup of its own because %s; "
                 "each command's exit was noticed through %s, not by polling",
                 how, miss_ms, r->why_no_cgroup, r->exit_by_pidfd ? "a pidfd" : "SIGCHLD");
    }
    if (s->rss_max >= 0 && r->use_cgroup) /* without a cgroup the peak's own note says it */
        cli_note(m,
                 "peak RSS: the larger of wait4's ru_maxrss (the largest process: GNU time's "
                 "figure) and the largest sum of the VmHWM of the processes alive together, "
                 "sampled every %g ms or less often (at most 0.5 %% of a core): above the true "
                 "peak where theirs did not coincide or they share pages (a fork's copy-on-write "
                 "pages count in each)",
                 sb_supervisor_interval(r) * 1e3);
    /* --runs: the items whose runs spread (the library's rule). */
    if (a->runs >= 2 && s->added > 0) {
        cli_note(m,
                 "each measured item ran %lld times (--runs%s): its time is their mean, its peaks "
                 "their largest; the spread is the runs' standard deviation (n - 1)",
                 (long long)a->runs, a->warmup > 0 ? "; the warm-up items once" : "");
        sb_text t = {0};
        size_t flagged = 0;
        for (size_t i = 0; i < s->added; i++) {
            spacrbench_run_stats st = {.size = sizeof st};
            if (spacrbench_measurement_item_run_stats(m, i, &st) == 0 && st.spread)
                sb_text_printf(&t, "%s%zu (%.1f %%)", flagged++ ? ", " : "", i + 1,
                               100.0 * st.stddev / st.mean);
        }
        char *items = sb_text_take(&t);
        if (flagged && items)
            cli_note(m,
                     "the runs spread: the standard deviation of item(s) %s is over %d %% of the "
                     "mean; a busy machine or work whose time varies (more --runs, a quieter "
                     "machine)",
                     items, (int)SPACRBENCH_RUN_SPREAD_PERCENT);
        free(items);
    }
    /* A few items that differ: say how to size for the plate. Not for
     * --items FILE: every item of the plate was measured, and --sample
     * would measure fewer. */
    if (!s->plate.plate && !a->items_file)
        spacrbench_measurement_note_spread(m, "spacrbench run --items FILE --sample K");
    if (s->stale_note)
        spacrbench_measurement_add_note(m, s->stale_note);
    const sb_vram *v = &r->vram;
    if (!v->gpu) {
        spacrbench_measurement_set_vram_reason(m, v->why);
        cli_note(m, "VRAM not measured: %s", v->why);
    } else {
        cli_note(m,
                 "peak VRAM of each command's whole process tree (%s) from NVML's per-process "
                 "usedGpuMemory (CUDA contexts included), summed over the tree and the GPUs, "
                 "sampled every %ld ms while it ran and once at its end: an allocation shorter "
                 "than that can be missed",
                 r->use_cgroup ? "every PID in its cgroup" : "the command and its descendants",
                 SB_SUPERVISOR_VRAM_NS / 1000000);
        if (v->failed_samples > 0)
            cli_note(m,
                     "%lld NVML sample(s) failed (last: %s); an item's VRAM peak is that of the "
                     "others, and %zu item(s) had none (not measured)",
                     (long long)v->failed_samples, sb_gpu_last_error(v->gpu), v->groups_unmeasured);
        spacrbench_gpu_info info;
        for (size_t g = 0; g < sb_gpu_count(v->gpu); g++)
            if (sb_gpu_fill_info(v->gpu, g, &info) == 0 &&
                spacrbench_measurement_add_gpu(m, &info) != 0)
                break;
    }
    cli_note(m, "each item ran as its own process, serially; baseline 0 (the whole peak counts as "
                "the worker's)");
    if (s->outlived_total)
        cli_note(m,
                 "in %d item run(s) processes outlived the command: an item lasts until its whole "
                 "process tree has ended (bounded by --timeout), their time and memory included",
                 s->outlived_total);
    char *named = sb_text_take(&s->leftovers);
    if (named && *named)
        cli_note(m, "left running by their command, then killed at --timeout%s: %s",
                 s->left_total ? " or left running where they could not be ended" : "", named);
    free(named);
    if (s->failed) {
        const run_outcome *o = &s->failure;
        char what[256], ran[80] = "", peak[32];
        run_outcome_describe(o, what, sizeof what);
        spacrbench_format_bytes(o->group.peak, peak, sizeof peak);
        /* A command never started ran for no time; a timeout says its own. */
        if (!o->copy.exec_errno && o->group.timed_out)
            snprintf(ran, sizeof ran, ", peak %s", peak);
        else if (!o->copy.exec_errno)
            snprintf(ran, sizeof ran, " after %.2f s, peak %s", o->group.seconds, peak);
        cli_note(m, "stopped at item %zu (%s): %s%s; %s",
                 run_plate_number(&s->plate, s->failed_index),
                 s->failed_label ? s->failed_label : "?", what, ran,
                 o->oom_killed ? "not counted, but one worker needs more than the limit it hit"
                               : "not counted");
    }
    if (sb_stop_signal())
        cli_note(m, "interrupted by signal %d (%s)", sb_stop_signal(), strsignal(sb_stop_signal()));
}

/* After the hand-off: which measured figure --mem (memory_limit) is built
 * from, and, for a job script, what sbatch will make of an array larger
 * than SLURM's default MaxArraySize (the script itself is the library's; a
 * comment after its last line is read by nobody but people). */
static int emit_advice(const run_state *s, const spacrbench_measurement *m, int emit,
                       const char *array_advice)
{
    char rss[32] = "not measured";
    if (s->rss_max >= 0)
        spacrbench_format_bytes(s->rss_max, rss, sizeof rss);
    const char *option = emit == CLI_EMIT_SLURM ? "--mem" : "memory_limit";
    const char *figure =
        s->sup.use_cgroup ? "the cgroup charge" : "the tree's RSS peak (no cgroup)";
    /* Where the task is charged differently from the measured item. */
    const char *charged = emit == CLI_EMIT_SLURM
                              ? "A SLURM task's own cgroup also charges the libraries it is first "
                                "to load."
                              : "Dask compares memory_limit with each worker process's RSS, which "
                                "includes the libraries it maps.";
    spacrbench_plate_section ps = {.size = sizeof ps};
    if (spacrbench_measurement_plate(m, &ps) == 0 && ps.largest_bytes >= 0) {
        /* The plate's: predicted from the measured items, which are
         * themselves the charge (or the RSS peak) of each. */
        char largest[32], slowest[96] = "";
        spacrbench_format_bytes(ps.largest_bytes, largest, sizeof largest);
        if (emit == CLI_EMIT_SLURM)
            snprintf(slowest, sizeof slowest, ", and --time from its predicted slowest (%.3g s)",
                     ps.slowest_seconds);
        int measured = 0; /* the largest among the measured items: no prediction */
        for (int64_t i = 0; i < ps.pick_count; i++) {
            spacrbench_plate_pick k = {.size = sizeof k};
            measured |= spacrbench_measurement_plate_pick(m, (size_t)i, &k) == 0 &&
                        k.index == ps.largest_index && !k.is_warmup;
        }
        printf("# NOTE (spacrbench): %s is built from the plate's largest item, %s (%s, item "
               "%lld of %lld; %lld measured)%s. The measured items' peaks are %s; the tree's "
               "RSS peak was %s. %s\n",
               option, measured ? "measured" : "predicted", largest,
               (long long)ps.largest_index + 1, (long long)ps.items, (long long)ps.pick_count,
               slowest, figure, rss, charged);
    } else
        printf("# NOTE (spacrbench): %s is built from the measured peak per item, %s; the tree's "
               "RSS peak was %s. %s\n",
               option, figure, rss, charged);
    if (emit == CLI_EMIT_SLURM && array_advice)
        printf("# NOTE (spacrbench): %s.\n", array_advice);
    return cli_stdout_check() == 0 ? CLI_EXIT_OK : CLI_EXIT_ERROR;
}

/* Exit status and the stderr line that explain how the run ended. */
static int conclude(const run_state *s, int status)
{
    if (s->failed) {
        char what[256];
        run_outcome_describe(&s->failure, what, sizeof what);
        cli_error(CLI_EXIT_STOPPED, "item %zu (%s) %s: %s",
                  run_plate_number(&s->plate, s->failed_index),
                  s->failed_label ? s->failed_label : "?", what,
                  s->failed_command ? s->failed_command : "");
        /* Not started: 127 not found, 126 not executable, as env does. */
        int e = s->failure.copy.exec_errno;
        return !e ? CLI_EXIT_STOPPED : e == ENOENT || e == ENOTDIR ? 127 : 126;
    }
    if (sb_stop_signal())
        return cli_error(CLI_EXIT_STOPPED, "interrupted by signal %d; stopped after %zu item(s)%s",
                         sb_stop_signal(), s->added,
                         s->added == s->items.n ? " and during the scaling check" : "");
    if (s->scale_failed)
        return CLI_EXIT_STOPPED; /* which copy failed was printed when it did */
    return s->internal_error ? CLI_EXIT_ERROR : status;
}

/* Every item measured into *m (made here), ended, with the command's
 * notes. CLI_EXIT_OK, or the exit status of the error said. */
static int measure_run(run_state *s, spacrbench_measurement **m)
{
    spacrbench_run_plan plan;
    spacrbench_run_plan_init(&plan, sizeof plan);
    plan.items = (int64_t)s->items.n;
    plan.warmup = run_plate_warmup(&s->plate, s->args->warmup); /* a small plate cuts it */
    plan.peak_method = s->sup.use_cgroup ? SPACRBENCH_PEAK_CGROUP : SPACRBENCH_PEAK_CHILD_RUSAGE;
    plan.records = 1;
    plan.sample_interval_us =
        s->sup.use_cgroup ? 0 : (int64_t)(sb_supervisor_interval(&s->sup) * 1e6 + 0.5);
    plan.baseline_rss_bytes = 0; /* each item is its own process: its whole peak counts */
    plan.vram_source = s->sup.vram.gpu ? SPACRBENCH_SOURCE_NVML : SPACRBENCH_SOURCE_UNKNOWN;
    if (spacrbench_measurement_begin(&plan, m) != 0)
        return cli_library_error(CLI_EXIT_ERROR, NULL);
    run_timeline_begin(&s->timeline, *m, &s->sup);
    run_each_item(s, *m);
    run_timeline_end(&s->timeline);
    /* VRAM not measured after all (NVML's PIDs are another namespace's):
     * said while m is built, which drops the items' figures. */
    if (s->sup.vram.gpu && sb_supervisor_vram_verdict(&s->sup))
        spacrbench_measurement_set_vram_reason(*m, s->sup.vram.why);
    if (spacrbench_measurement_end(*m) != 0)
        return cli_library_error(CLI_EXIT_ERROR, NULL);
    add_notes(s, *m);
    return CLI_EXIT_OK;
}

/* One recommendation per run, into *out (the scaling check and the report
 * use it): with --sample the plate's largest item's (none when the run
 * stopped before its chosen items were all measured); none for a command
 * that could not even be started (126, 127), where the fallback's core
 * count would advise workers for nothing. */
static const spacrbench_recommendation *recommend_run(run_state *s, spacrbench_measurement *m,
                                                      const spacrbench_machine *machine,
                                                      spacrbench_recommendation *out)
{
    if (s->plate.plate) {
        int stopped = s->failed || s->internal_error || sb_stop_signal();
        if (run_plate_predict(&s->plate, m, stopped) != 0)
            return NULL;
        memset(out, 0, sizeof *out);
        out->size = sizeof *out;
        if (spacrbench_plate_recommend(s->plate.plate, m, &s->args->common.rec, machine, out) == 0)
            return out;
        cli_library_error(CLI_EXIT_ERROR, "no recommendation for the plate");
        return NULL;
    }
    if (s->added > 0 || !s->failed || !s->failure.copy.exec_errno)
        return cli_recommend(&s->args->common, m, machine, out);
    spacrbench_measurement_add_note(m, "no recommendation: the command could not be started, so "
                                       "no item was measured");
    return NULL;
}

/* After the items: the recommendation, --scale (after a complete serial
 * run, from its recommendation's counts and memory budget), the report
 * and documents, --emit's advice and --plot. The run's exit status so far. */
static int report_run(run_state *s, spacrbench_measurement *m, const spacrbench_machine *machine,
                      const cli_slurm_job *job, spacrbench_scale_result **scaling)
{
    const cli_args *a = s->args;
    spacrbench_recommendation rec_value;
    const spacrbench_recommendation *rec = recommend_run(s, m, machine, &rec_value);
    int status = CLI_EXIT_OK, scale_status = CLI_EXIT_OK;
    if ((a->scale_auto || a->n_scale > 0) &&
        (s->failed || s->internal_error || sb_stop_signal() || s->added == 0))
        spacrbench_measurement_add_note(m, "the scaling check (--scale) did not run: the serial "
                                           "run did not complete");
    else if (a->scale_auto || a->n_scale > 0) {
        scale_status = run_scale(a, &s->items, &s->sup, rec, scaling, &s->scale_failed);
    }
    /* One answer: a measured knee (within the serial bounds) is the advice. */
    if (rec && *scaling)
        spacrbench_recommend_apply_scaling(&rec_value, *scaling);
    cli_context ctx = {.mode = "run",
                       .item_labels = (const char *const *)s->items.items,
                       .n_labels = s->added,
                       .describe = describe_run,
                       .describe_arg = s,
                       .scaling = *scaling,
                       .brief = a->brief};
    /* --sample: the measurement carries the plate's section (the report's,
     * the JSON's, the exports'), with the ETA for the workers advised; the
     * hand-off is sized for its largest. */
    spacrbench_measurement *handoff = NULL;
    if (rec && s->plate.plate &&
        spacrbench_measurement_set_plate(m, s->plate.plate, rec_value.workers) == 0 &&
        spacrbench_measurement_plate_handoff(m, &handoff) == 0)
        ctx.handoff = handoff;
    status = cli_finish(&a->common, m, machine, rec, &ctx);
    spacrbench_measurement_free(handoff);
    if (status == CLI_EXIT_OK && a->common.emit != CLI_EMIT_REPORT)
        status = emit_advice(s, m, a->common.emit, job->advice);
    if (scale_status != CLI_EXIT_OK)
        status = scale_status;
    /* The report is out; a plot that cannot be drawn says why. */
    if (*scaling && a->common.plot_path && status == CLI_EXIT_OK)
        status = run_plot(*scaling, a->common.plot_path, s->sup.cfg.stdout_to_stderr);
    return status;
}

int run_main(int argc, char **argv)
{
    cli_args a;
    cli_args_init(&a, CLI_MODE_RUN);
    run_state s;
    memset(&s, 0, sizeof s);
    s.args = &a;
    s.launcher = (sb_launcher){-1, -1};
    cli_slurm_job job = {0};
    /* The inputs: the options, then (while this process is small: a
     * command's ru_maxrss keeps what the process it was forked from held)
     * the launcher, --plot's helper, the items, --emit slurm's job over
     * the whole plate and --sample's chosen items. */
    int status = cli_args_parse(&a, argc, argv);
    if (status == CLI_EXIT_OK && !a.done &&
        sb_launcher_start(&s.launcher, cli_stdio_reset_in_child) != 0)
        status =
            cli_error(CLI_EXIT_ERROR, "cannot start the commands' launcher: %s", strerror(errno));
    if (status == CLI_EXIT_OK && !a.done && a.common.plot_path)
        status = run_plot_ready();
    if (status == CLI_EXIT_OK && !a.done)
        status = item_list_load(&a, &s.items);
    if (status == CLI_EXIT_OK && !a.done && a.common.emit == CLI_EMIT_SLURM &&
        (status = cli_slurm_job_prepare(&a, s.items.n, &job)) == CLI_EXIT_OK)
        a.common.slurm_job = &job.job;
    if (status == CLI_EXIT_OK && !a.done)
        status = run_plate_choose(&a, &s.items, &s.plate);
    if (status == CLI_EXIT_OK && !a.done) {
        /* One discovery for the whole run: the limit an OOM-killed item
         * hit, the recommendation and the JSON "machine" use this snapshot. */
        spacrbench_machine machine_value = {.size = sizeof machine_value};
        const spacrbench_machine *machine =
            spacrbench_discover(&machine_value) == 0 ? &machine_value : NULL;
        /* stdout holds one document (JSON, --emit's settings, an export
         * named '-'): the commands' own output goes to stderr then. */
        int stdout_is_output =
            a.common.json || a.common.emit != CLI_EMIT_REPORT || cli_export_takes_stdout(&a.common);
        run_supervisor_init(&s.sup, &s.launcher, a.no_cgroup, stdout_is_output,
                            machine ? machine->memory_limit_bytes : -1, a.timeout_s, &s.stale_note);
        s.sup.cfg.interval_us = a.interval_us; /* 0: the supervisor's defaults */
        s.charge_max = s.rss_max = -1;
        s.own_rss_bytes = own_rss_bytes();
        spacrbench_measurement *m = NULL;
        spacrbench_scale_result *scaling = NULL;
        status = measure_run(&s, &m);
        if (status == CLI_EXIT_OK)
            status = report_run(&s, m, machine, &job, &scaling);
        status = conclude(&s, status);
        spacrbench_measurement_free(m);
        spacrbench_scale_free(scaling);
        free(s.failed_command);
        free(s.failed_label);
        sb_supervisor_free(&s.sup);
        free(s.stale_note);
        sb_text_free(&s.leftovers);
    }
    sb_launcher_stop(&s.launcher);
    run_plate_free(&s.plate);
    cli_slurm_job_free(&job);
    item_list_free(&s.items);
    cli_args_free(&a);
    return status;
}
#else
#if defined(_WIN32)
#define CLI_PLATFORM_NAME "Windows"
#elif defined(__APPLE__)
#define CLI_PLATFORM_NAME "macOS"
#else
#define CLI_PLATFORM_NAME "this platform"
#endif

int cli_needs_linux(const char *mode, const char *what)
{
    return cli_error(CLI_EXIT_USAGE,
                     "%s: %s needs Linux; this build is for " CLI_PLATFORM_NAME
                     ", where spacrbench measures its built-in workload (run it without "
                     "'run') and the library measures work in this process "
                     "(spacrbench_benchmark)",
                     mode, what);
}

/* The demo's --plot, refused before the run as on Linux: the helper that
 * draws is reached only by the Linux build. */
#define CLI_NO_PLOT                                                                                \
    "drawing needs the Linux build's Python helper for now; use Measurement.plot() from Python"
int run_plot_ready(void) { return cli_usage_error("--plot", CLI_NO_PLOT); }

int run_plot_document(const char *json, const char *path, int stdout_is_output)
{
    (void)json, (void)path, (void)stdout_is_output;
    return cli_error(CLI_EXIT_ERROR, "--plot: " CLI_NO_PLOT);
}

int run_main(int argc, char **argv)
{
    /* Its help still says what it would do. */
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            cli_print_help(stdout, &cli_run_command);
            return CLI_EXIT_OK;
        }
    return cli_needs_linux("run", "measuring external commands (cgroups, fork/exec, pidfd)");
}
#endif
