/* The command line of a command, parsed in ONE getopt_long pass over its
 * option table: the generic handlers, the value parsers and the options
 * every measuring command shares. For `run`, the items are the
 * non-options met in that pass, and `--` starts the command. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "util.h"

#define CLI_OPTIONS_MAX 64 /* every option of a command, at most */

void cli_args_init(cli_args *a, cli_mode mode)
{
    memset(a, 0, sizeof *a);
    a->command = mode == CLI_MODE_RUN ? &cli_run_command : &cli_demo_command;
    spacrbench_recommend_options_init(&a->common.rec, sizeof a->common.rec);
    /* Each `run` item is a fresh process: nothing to warm up by default. */
    a->warmup = mode == CLI_MODE_RUN ? 0 : 1;
    a->field = (field_params){2048, 2048, 4, 1};
    a->width_from = a->height_from = "--size";
    a->fields = 3;
    a->scale_seconds = -1;
    a->runs = 1;
    a->sample = -1;
    a->sample_cost = -1;
}

void cli_args_free(cli_args *a)
{
    free(a->items);
    free(a->slurm.sbatch);
    a->items = NULL;
    a->slurm.sbatch = NULL;
    a->n_items = a->slurm.n_sbatch = 0;
}

static size_t digits_at(const char *text)
{
    size_t n = 0;
    while (text[n] >= '0' && text[n] <= '9')
        n++;
    return n;
}

/* Plain digits: strtoll alone would take " 4", "+4" and "-0". */
int cli_parse_int(const char *text, int64_t min, int64_t max, int64_t *out)
{
    if (text == NULL || *text == '\0' || text[digits_at(text)] != '\0')
        return -1;
    errno = 0;
    long long v = strtoll(text, NULL, 10);
    if (errno != 0 || v < min || v > max)
        return -1;
    *out = (int64_t)v;
    return 0;
}

int cli_parse_bytes(const char *text, int64_t *out)
{
    return spacrbench_parse_size(text, out) == 0 ? 0 : -1;
}

int cli_parse_duration(const char *text, double *seconds)
{
    double v;
    if (!text || sb_parse_duration(text, strlen(text), &v) != SB_PARSE_OK)
        return -1;
    if (!(v > 0) || v > CLI_DURATION_MAX) /* 0 would kill at once */
        return -1;
    *seconds = v;
    return 0;
}

/* Up to 9 digits, an optional fraction of up to 9, then "us", "ms", "s"
 * or nothing (seconds). */
int cli_parse_interval(const char *text, int64_t max_us, int64_t *us)
{
    size_t len = text ? digits_at(text) : 0;
    if (len == 0 || len > 9)
        return -1;
    if (text[len] == '.') {
        size_t fraction = digits_at(text + len + 1);
        if (fraction == 0 || fraction > 9)
            return -1;
        len += 1 + fraction;
    }
    const char *unit = text + len;
    double scale = strcmp(unit, "us") == 0                           ? 1
                   : strcmp(unit, "ms") == 0                         ? 1e3
                   : strcmp(unit, "s") == 0 || strcmp(unit, "") == 0 ? 1e6
                                                                     : 0;
    double v = round(strtod(text, NULL) * scale);
    if (!(v >= 1) || v > (double)max_us)
        return -1;
    *us = (int64_t)v;
    return 0;
}

int cli_parse_size(const char *text, int64_t *width, int64_t *height)
{
    const char *x = text ? strchr(text, 'x') : NULL;
    char w[32];
    if (x == NULL || x == text || (size_t)(x - text) >= sizeof w)
        return -1;
    snprintf(w, sizeof w, "%.*s", (int)(x - text), text);
    return cli_parse_int(w, 1, INT32_MAX, width) == 0 &&
                   cli_parse_int(x + 1, 1, INT32_MAX, height) == 0
               ? 0
               : -1;
}

static void *field_of(cli_args *a, const cli_option *o) { return (char *)a + o->field; }

int cli_opt_flag(cli_args *a, const cli_option *o, const char *name, const char *value)
{
    (void)name, (void)value;
    *(int *)field_of(a, o) = 1;
    return CLI_EXIT_OK;
}

int cli_opt_int(cli_args *a, const cli_option *o, const char *name, const char *value)
{
    if (cli_parse_int(value, o->min, o->max, field_of(a, o)) != 0)
        return cli_usage_error(name, "expected a whole number from %lld to %lld, got '%s'",
                               (long long)o->min, (long long)o->max, value);
    return CLI_EXIT_OK;
}

static int opt_bytes(cli_args *a, const cli_option *o, const char *name, const char *value)
{
    if (cli_parse_bytes(value, field_of(a, o)) != 0) /* its message quotes the value */
        return cli_usage_error(name, "%s", spacrbench_last_error_message());
    return CLI_EXIT_OK;
}

int cli_opt_string(cli_args *a, const cli_option *o, const char *name, const char *value)
{
    (void)name;
    *(const char **)field_of(a, o) = value;
    return CLI_EXIT_OK;
}

int cli_opt_interval(cli_args *a, const cli_option *o, const char *name, const char *value)
{
    if (cli_parse_interval(value, o->max, field_of(a, o)) != 0)
        return cli_usage_error(name,
                               "expected a period from 1us to %llds such as 10ms, 500us or "
                               "0.5s, got '%s'",
                               (long long)(o->max / 1000000), value);
    return CLI_EXIT_OK;
}

/* --help, or --version (its letter V). */
int cli_opt_info(cli_args *a, const cli_option *o, const char *name, const char *value)
{
    (void)name, (void)value;
    if (o->letter == 'V')
        cli_print_version(stdout);
    else
        cli_print_help(stdout, a->command);
    a->done = 1;
    return CLI_EXIT_OK;
}

static int opt_report(cli_args *a, const cli_option *o, const char *name, const char *v)
{
    (void)o;
    if (*v == '\0')
        return cli_usage_error(name, "needs a file name");
    if (cli_is_stdout_name(v)) /* as '-' is for the exports, it would be stdout */
        return cli_usage_error(name, "'-' would be standard output, where the report goes "
                                     "already: name a file (--json prints the JSON there)");
    a->common.report_path = v;
    return cli_output_path_check(name, v);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n > k && strcmp(s + n - k, suffix) == 0;
}

static int opt_plot(cli_args *a, const cli_option *o, const char *name, const char *v)
{
    (void)o;
    if (!ends_with(v, ".png") && !ends_with(v, ".svg"))
        return cli_usage_error(name, "expected a file name ending in .png or .svg, got '%s'", v);
    a->common.plot_path = v;
    return cli_output_path_check(name, v);
}

static int opt_export(cli_args *a, const cli_option *o, const char *name, const char *v)
{
    if (*v == '\0')
        return cli_usage_error(name, "needs a file name");
    *(const char **)field_of(a, o) = v;
    return cli_is_stdout_name(v) ? CLI_EXIT_OK : cli_output_path_check(name, v);
}

/* One of o->choices (the completions' list): its place plus o->min, into
 * an int field (an enum's or an int32_t's); the refusal lists them. */
_Static_assert(sizeof(cli_emit) == sizeof(int) && sizeof(int32_t) == sizeof(int), "int fields");
static int opt_choice(cli_args *a, const cli_option *o, const char *name, const char *v)
{
    char expected[96] = "";
    size_t len = 0;
    int place = 0;
    for (const char *p = o->choices, *word; *p; place++) {
        size_t n = strcspn(word = p, " ");
        if (strlen(v) == n && strncmp(word, v, n) == 0) {
            *(int *)field_of(a, o) = (int)o->min + place;
            return CLI_EXIT_OK;
        }
        p += n + (p[n] == ' ');
        if (len < sizeof expected) /* a longer list is cut, never overrun */
            len += (size_t)snprintf(expected + len, sizeof expected - len, "%s'%.*s'",
                                    !place ? ""
                                    : *p   ? ", "
                                           : " or ",
                                    (int)n, word);
    }
    return cli_usage_error(name, "expected %s, got '%s'", expected, v);
}

static const cli_option k_common[] = {
    {"reserve", 0, "BYTES",
     "memory kept free for everything else: 512M, 1.5G or 4GiB count in powers "
     "of 1024, 4GB in powers of 1000 (default 2G on a host, 10% of a binding "
     "cgroup limit, 64M..2G, in a job)",
     opt_bytes, CLI_FIELD(common.rec.reserve_bytes), 0, 0, CLI_COMPLETE_NONE, NULL},
    {"vram-reserve", 0, "BYTES", "GPU memory kept free on the device, as --reserve (default 1G)",
     opt_bytes, CLI_FIELD(common.rec.vram_reserve_bytes), 0, 0, CLI_COMPLETE_NONE, NULL},
    {"start-method", 0, "fork|spawn|forkserver",
     "how the workers will start (default fork); spawn and forkserver add the "
     "baseline to each worker's need",
     opt_choice, CLI_FIELD(common.rec.start_method), SPACRBENCH_START_FORK, 0, CLI_COMPLETE_NONE,
     "fork spawn forkserver"},
    {"available", 0, "BYTES",
     "memory to advise for instead of what is free here, as --reserve (a what-if: "
     "16G for a laptop, a node's memory; default: discovered)",
     opt_bytes, CLI_FIELD(common.rec.available_bytes), 0, 0, CLI_COMPLETE_NONE, NULL},
    {"cores", 0, "N", "usable cores (default: discovered)", cli_opt_int,
     CLI_FIELD(common.rec.cores), 1, INT32_MAX, CLI_COMPLETE_NONE, NULL},
    {"maximum", 0, "N", "never recommend more workers (default 32)", cli_opt_int,
     CLI_FIELD(common.rec.maximum), 1, INT32_MAX, CLI_COMPLETE_NONE, NULL},
    {"json", 0, NULL, "print one JSON document with every figure", cli_opt_flag,
     CLI_FIELD(common.json), 0, 0, CLI_COMPLETE_NONE, NULL},
    {"report", 0, "FILE", "also write the report to FILE (JSON when FILE ends in .json)",
     opt_report, 0, 0, 0, CLI_COMPLETE_FILE, NULL},
    {"export-markdown", 0, "FILE",
     "also write a Markdown report (to paste into an issue) to FILE; '-': to stdout, "
     "instead of the report (which then goes to stderr)",
     opt_export, CLI_FIELD(common.export_markdown_path), 0, 0, CLI_COMPLETE_FILE, NULL},
    {"export-csv", 0, "FILE",
     "also write one CSV row per item (time, peak, CPU) to FILE; '-': to stdout, as "
     "--export-markdown -",
     opt_export, CLI_FIELD(common.export_csv_path), 0, 0, CLI_COMPLETE_FILE, NULL},
    {"plot", 0, "FILE",
     "draw the decision to FILE.png or FILE.svg: each item's memory need against its "
     "file size (or its order), the memory per recommended worker as a line, the "
     "recommendation as the title, and below it the memory over time (with run "
     "--scale: the scaling check; needs Python with the "
     "spacrbench package and matplotlib, $SPACRBENCH_PYTHON or python3: " CLI_PLOT_INSTALL ")",
     opt_plot, 0, 0, 0, CLI_COMPLETE_FILE, NULL},
    {"emit", 0, "slurm|dask", "print scheduler settings on stdout (the report goes to stderr)",
     opt_choice, CLI_FIELD(common.emit), CLI_EMIT_SLURM, 0, CLI_COMPLETE_NONE, "slurm dask"},
    {"verbose", 'v', NULL,
     "the report with how each figure was obtained and a line per item (the JSON and "
     "the Markdown export always have them)",
     cli_opt_flag, CLI_FIELD(common.verbose), 0, 0, CLI_COMPLETE_NONE, NULL},
    {"quiet", 'q', NULL, "no progress, and no report next to --emit", cli_opt_flag,
     CLI_FIELD(common.quiet), 0, 0, CLI_COMPLETE_NONE, NULL},
};

static const cli_option k_info[] = {
    {"help", 'h', NULL, "print this help and exit", cli_opt_info, 0, 0, 0, CLI_COMPLETE_NONE, NULL},
    {"version", 'V', NULL, "print the version and exit", cli_opt_info, 0, 0, 0, CLI_COMPLETE_NONE,
     NULL},
};

const cli_section cli_common_section = CLI_SECTION("recommendation and output", k_common);
const cli_section cli_info_section = CLI_SECTION("information", k_info);

/* The command's options in one list; the getopt code of entry i is 256 + i. */
typedef struct option_list {
    const cli_option *entries[CLI_OPTIONS_MAX];
    size_t n;
    struct option longopts[CLI_OPTIONS_MAX + 1];
    char shortopts[2 * CLI_OPTIONS_MAX + 4];
} option_list;

static void list_options(const cli_command *cmd, option_list *l)
{
    memset(l, 0, sizeof *l);
    /* "-": non-options come back in order as code 1 (the items), so a new
     * option can never be mistaken for an item; ":": we word the errors. */
    size_t s = 0;
    l->shortopts[s++] = '-';
    l->shortopts[s++] = ':';
    for (size_t i = 0; i < cmd->n_sections; i++)
        for (size_t k = 0; k < cmd->sections[i]->n_options && l->n < CLI_OPTIONS_MAX; k++) {
            const cli_option *o = &cmd->sections[i]->options[k];
            l->longopts[l->n] = (struct option){o->name, o->value ? required_argument : no_argument,
                                                NULL, 256 + (int)l->n};
            if (o->letter) {
                l->shortopts[s++] = o->letter;
                if (o->value)
                    l->shortopts[s++] = ':';
            }
            l->entries[l->n++] = o;
        }
}

static const cli_option *entry_of(const option_list *l, int code)
{
    if (code >= 256 && (size_t)(code - 256) < l->n)
        return l->entries[code - 256];
    for (size_t i = 0; i < l->n; i++)
        if (l->entries[i]->letter && l->entries[i]->letter == code)
            return l->entries[i];
    return NULL;
}

/* Why getopt_long refused argv[optind - 1]. */
static int refused(const cli_args *a, const option_list *l, int code, char **argv)
{
    const char *given = argv[optind - 1];
    const cli_option *o = entry_of(l, optopt);
    char name[128];
    if (o)
        snprintf(name, sizeof name, "--%s", o->name);
    if (code == ':')
        return cli_usage_error(o ? name : "-?", "needs a value");
    if (o && strncmp(given, "--", 2) == 0)
        return cli_usage_error(name, "takes no value");
    if (optopt != 0)
        snprintf(name, sizeof name, "-%c", optopt > 0 && optopt < 128 ? optopt : '?');
    else /* the option without its "=value" */
        snprintf(name, sizeof name, "%.*s", (int)strcspn(given, "="), given);
    if (a->command->name)
        return cli_usage_error(name, "unknown option for 'spacrbench %s'", a->command->name);
    return cli_usage_error(name, "unknown option");
}

/* Standard output carries one document: the report, the JSON document,
 * the --emit settings or one export named '-'. */
static int stdout_has_one_taker(const cli_common *c)
{
    int csv = c->export_csv_path && cli_is_stdout_name(c->export_csv_path);
    int md = c->export_markdown_path && cli_is_stdout_name(c->export_markdown_path);
    const char *export_option = csv ? "--export-csv" : "--export-markdown";
    if (csv && md)
        return cli_usage_error("--export-csv", "'-' (stdout) is already --export-markdown's: "
                                               "name a file for one of them");
    if ((csv || md) && c->json)
        return cli_usage_error(export_option, "'-' (stdout) cannot be combined with --json, "
                                              "whose document goes there: name a file");
    if ((csv || md) && c->emit != CLI_EMIT_REPORT)
        return cli_usage_error(export_option, "'-' (stdout) cannot be combined with --emit, "
                                              "whose settings go there: name a file");
    return CLI_EXIT_OK;
}

/* No output replaces the items file or another output; --emit slurm's
 * are the array's files in its directory (slurm_array.c's names). */
static int outputs_apart(const cli_args *a)
{
    static const char *const slurm_files[] = {"spacrbench-items.idx", "spacrbench-job.sh",
                                              "spacrbench-array.json"};
    const cli_common *c = &a->common;
    cli_named_file f[8] = {{"--items", a->items_file}};
    size_t n = 1;
    /* Those the user named come last: a refusal names their option. */
    char paths[3][4096];
    const char *dir = a->slurm.output_dir ? a->slurm.output_dir : "spacrbench-job";
    for (size_t i = 0; c->emit == CLI_EMIT_SLURM && i < 3; i++) {
        snprintf(paths[i], sizeof paths[i], "%s/%s", dir, slurm_files[i]);
        f[n++] =
            (cli_named_file){a->slurm.output_dir ? "--slurm-output" : "--emit slurm", paths[i]};
    }
    f[n++] = (cli_named_file){"--report", c->report_path};
    f[n++] = (cli_named_file){"--export-csv", c->export_csv_path};
    f[n++] = (cli_named_file){"--export-markdown", c->export_markdown_path};
    f[n++] = (cli_named_file){"--plot", c->plot_path};
    return cli_files_apart(f, n);
}

int cli_args_parse(cli_args *a, int argc, char **argv)
{
    option_list l;
    list_options(a->command, &l);
    cli_error_set_command(a->command->name);
    a->items = calloc((size_t)(argc > 0 ? argc : 1), sizeof *a->items);
    a->slurm.sbatch = calloc((size_t)(argc > 0 ? argc : 1), sizeof *a->slurm.sbatch);
    if (!a->items || !a->slurm.sbatch)
        return cli_error(CLI_EXIT_ERROR, "out of memory");
    optind = 0; /* full re-initialisation (glibc), for repeated parses */
    opterr = 0;
    int code;
    while ((code = getopt_long(argc, argv, l.shortopts, l.longopts, NULL)) != -1) {
        if (code == '?' || code == ':')
            return refused(a, &l, code, argv);
        if (code == 1) {
            if (!a->command->takes_operands)
                return cli_usage_error(optarg, "unexpected argument (did you mean 'spacrbench "
                                               "run'?)");
            a->items[a->n_items++] = optarg;
            continue;
        }
        const cli_option *o = entry_of(&l, code);
        char name[64];
        snprintf(name, sizeof name, "--%s", o ? o->name : "?");
        int rc = o ? o->handle(a, o, name, optarg) : cli_usage_error(name, "not handled (a bug)");
        if (rc != CLI_EXIT_OK || a->done)
            return rc;
    }
    if (a->common.json && a->common.emit != CLI_EMIT_REPORT)
        return cli_usage_error("--emit", "cannot be combined with --json (the JSON document "
                                         "already holds the schedule)");
    int rc = stdout_has_one_taker(&a->common);
    if (rc == CLI_EXIT_OK && a->command->check)
        rc = a->command->check(a, argc, argv, optind);
    return rc == CLI_EXIT_OK ? outputs_apart(a) : rc;
}
