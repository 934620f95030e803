/* The options of `spacrbench run` and the checks that need its whole
 * command line. Built on every platform (the help, the man page and the
 * completions list them); the steps of the run are run.c's (Linux). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "cli_export.h"
#include "parse.h"

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
    double share = 0;
    if (sb_parse_share(v, strlen(v), &share) != SB_PARSE_OK)
        return cli_usage_error(name,
                               "expected a share of the plate's time from 0 to 1, as 5%% or "
                               "0.05, got '%s'",
                               v);
    a->sample_cost = share;
    return CLI_EXIT_OK;
}

static int opt_scale(cli_args *a, const cli_option *o, const char *name, const char *v)
{
    (void)o;
    a->scale_auto = strcmp(v, "auto") == 0;
    a->n_scale = 0;
    if (a->scale_auto)
        return CLI_EXIT_OK;
    char why[128];
    int n = cli_parse_count_list(v, SPACRBENCH_SCALE_MAX_WORKERS, a->scale, CLI_SCALE_MAX, why,
                                 sizeof why);
    if (n < 0)
        return cli_usage_error(name, "%s, got '%s'", why, v);
    a->n_scale = (size_t)n;
    return CLI_EXIT_OK;
}

static int opt_scale_items(cli_args *a, const cli_option *o, const char *name, const char *v)
{
    a->scale_items_given = 1;
    return cli_opt_int(a, o, name, v);
}

/* A duration as --timeout takes it, or 0 (no minimum time), at most an
 * hour: each count runs several repeats of it. */
static int opt_scale_seconds(cli_args *a, const cli_option *o, const char *name, const char *v)
{
    (void)o;
    size_t zeros = strspn(v, "0.");
    int zero = zeros > 0 && v[0] == '0' && (v[zeros] == '\0' || strcmp(v + zeros, "s") == 0) &&
               strstr(v, "..") == NULL;
    a->scale_seconds_given = 1;
    if (zero) {
        a->scale_seconds = 0;
        return CLI_EXIT_OK;
    }
    if (cli_parse_duration(v, &a->scale_seconds) != 0 || a->scale_seconds > 3600)
        return cli_usage_error(name,
                               "expected a duration from 0 to 3600 s such as 0, 1, 2.5, 30s or "
                               "1m, got '%s'",
                               v);
    return CLI_EXIT_OK;
}

static int opt_items(cli_args *a, const cli_option *o, const char *name, const char *v)
{
    (void)o, (void)name;
    a->items_file = v;
    return CLI_EXIT_OK;
}

/* The job script's options: min is cli_slurm_option's letter. */
static int opt_slurm(cli_args *a, const cli_option *o, const char *name, const char *v)
{
    return cli_slurm_option(&a->slurm, (int)o->min, name, v);
}

static const cli_option k_run[] = {
    {"items", 0, "FILE",
     "one item per line ('-' = stdin); or the items as arguments; with neither, "
     "one item per line on standard input",
     opt_items, 0, 0, 0, CLI_COMPLETE_FILE, NULL},
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
     opt_scale_items, CLI_FIELD(scale_items), 1, SPACRBENCH_SCALE_MAX_ROUND_ITEMS,
     CLI_COMPLETE_NONE, NULL},
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
    if (a->scale_items_given && !scaling)
        return cli_usage_error("--scale-items", "needs --scale");
    if (a->scale_seconds_given && !scaling)
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
    return cli_slurm_check(&a->slurm, a->common.emit == CLI_EMIT_SLURM, a->items_file);
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
    k_sections,
    sizeof k_sections / sizeof k_sections[0],
    1,
    check_run,
    NULL,
};
