/* One table, one getopt_long pass; see cli_args.h. */
#include "cli_args.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_usage.h"

enum {
    OPT_QUIET = 'q',
    OPT_HELP = 'h',
    OPT_RESERVE = 256,
    OPT_CORES,
    OPT_MAXIMUM,
    OPT_JSON,
    OPT_REPORT,
    OPT_EMIT,
    OPT_VERSION,
    OPT_WARMUP,
    OPT_SIZE,
    OPT_WIDTH,
    OPT_HEIGHT,
    OPT_CHANNELS,
    OPT_FIELDS,
    OPT_GPU,
    OPT_NO_CGROUP,
    OPT_ITEMS,
    OPT_START_METHOD,
    OPT_SCALE,
    OPT_SCALE_ITEMS,
    OPT_PLOT,
    OPT_SLURM_OUTPUT,
    OPT_JOB_NAME,
    OPT_SBATCH,
    OPT_SLURM_FROM_PATH,
    OPT_TIMEOUT,
    OPT_ARRAY_LIMIT,
};

#define BOTH (CLI_MODE_DEMO | CLI_MODE_RUN)

/* INT32_MAX, for messages that state the accepted range. */
#define INT32_MAX_TEXT "2147483647"

typedef struct opt_spec {
    const char *name;
    int has_arg;
    int id;
    unsigned modes; /* cli_mode bits that accept it */
} opt_spec;

static const opt_spec k_options[] = {
    {"reserve", required_argument, OPT_RESERVE, BOTH},
    {"cores", required_argument, OPT_CORES, BOTH},
    {"maximum", required_argument, OPT_MAXIMUM, BOTH},
    {"json", no_argument, OPT_JSON, BOTH},
    {"report", required_argument, OPT_REPORT, BOTH},
    {"emit", required_argument, OPT_EMIT, BOTH},
    {"quiet", no_argument, OPT_QUIET, BOTH},
    {"help", no_argument, OPT_HELP, BOTH},
    {"version", no_argument, OPT_VERSION, BOTH},
    {"warmup", required_argument, OPT_WARMUP, BOTH},
    {"start-method", required_argument, OPT_START_METHOD, BOTH},
    {"size", required_argument, OPT_SIZE, CLI_MODE_DEMO},
    {"width", required_argument, OPT_WIDTH, CLI_MODE_DEMO},
    {"height", required_argument, OPT_HEIGHT, CLI_MODE_DEMO},
    {"channels", required_argument, OPT_CHANNELS, CLI_MODE_DEMO},
    {"fields", required_argument, OPT_FIELDS, CLI_MODE_DEMO},
    {"gpu", no_argument, OPT_GPU, CLI_MODE_DEMO},
    {"no-cgroup", no_argument, OPT_NO_CGROUP, CLI_MODE_RUN},
    {"items", required_argument, OPT_ITEMS, CLI_MODE_RUN},
    {"scale", required_argument, OPT_SCALE, CLI_MODE_RUN},
    {"scale-items", required_argument, OPT_SCALE_ITEMS, CLI_MODE_RUN},
    {"plot", required_argument, OPT_PLOT, CLI_MODE_RUN},
    {"slurm-output", required_argument, OPT_SLURM_OUTPUT, CLI_MODE_RUN},
    {"job-name", required_argument, OPT_JOB_NAME, CLI_MODE_RUN},
    {"sbatch", required_argument, OPT_SBATCH, CLI_MODE_RUN},
    {"slurm-from-path", no_argument, OPT_SLURM_FROM_PATH, CLI_MODE_RUN},
    {"timeout", required_argument, OPT_TIMEOUT, CLI_MODE_RUN},
    {"array-limit", required_argument, OPT_ARRAY_LIMIT, CLI_MODE_RUN},
};
#define N_OPTIONS (sizeof k_options / sizeof k_options[0])

/* "--name" of an option id, for messages ("-q" and "-h" have long names). */
static const char *option_name(int id, char *buf, size_t cap)
{
    for (size_t i = 0; i < N_OPTIONS; i++)
        if (k_options[i].id == id) {
            snprintf(buf, cap, "--%s", k_options[i].name);
            return buf;
        }
    snprintf(buf, cap, "-%c", id > 0 && id < 128 ? id : '?');
    return buf;
}

void cli_args_init(cli_args *a, cli_mode mode)
{
    memset(a, 0, sizeof *a);
    a->mode = mode;
    cli_common_init(&a->common);
    /* Each `run` item is a fresh process: nothing to warm up by default. */
    a->warmup = mode == CLI_MODE_RUN ? 0 : 1;
    a->field = (field_params){2048, 2048, 4, 1};
    a->fields = 3;
    a->scale_items = 1;
}

void cli_args_free(cli_args *a)
{
    free(a->items);
    a->items = NULL;
    a->n_items = 0;
    free(a->slurm.sbatch);
    a->slurm.sbatch = NULL;
    a->slurm.n_sbatch = 0;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n > k && strcmp(s + n - k, suffix) == 0;
}

static int bad_count(const char *name, const char *what, const char *v)
{
    return cli_usage_error(name, "expected %s, got '%s'", what, v);
}

/* Apply one option; name is "--option" as given. */
static int apply(cli_args *a, int id, const char *name, const char *v, const char **width_from,
                 const char **height_from)
{
    cli_common *c = &a->common;
    switch (id) {
    case OPT_JSON:
        c->json = 1;
        break;
    case OPT_QUIET:
        c->quiet = 1;
        break;
    case OPT_GPU:
        a->gpu = 1;
        break;
    case OPT_NO_CGROUP:
        a->no_cgroup = 1;
        break;
    case OPT_HELP:
        cli_print_usage(stdout);
        a->done = 1;
        break;
    case OPT_VERSION:
        cli_print_version(stdout);
        a->done = 1;
        break;
    case OPT_CORES:
        if (cli_parse_int(v, 1, INT32_MAX, &c->rec.cores) != 0)
            return bad_count(name, "a whole number from 1 to " INT32_MAX_TEXT, v);
        break;
    case OPT_MAXIMUM:
        if (cli_parse_int(v, 1, INT32_MAX, &c->rec.maximum) != 0)
            return bad_count(name, "a whole number from 1 to " INT32_MAX_TEXT, v);
        break;
    case OPT_RESERVE:
        if (cli_parse_bytes(v, &c->rec.reserve_bytes) != 0)
            return bad_count(name, "bytes such as 2G, 512M or 1048576 (less than 8 EiB)", v);
        break;
    case OPT_REPORT:
        if (*v == '\0')
            return cli_usage_error(name, "needs a file name");
        c->report_path = v;
        break;
    case OPT_EMIT:
        if (strcmp(v, "slurm") == 0)
            c->emit = CLI_EMIT_SLURM;
        else if (strcmp(v, "dask") == 0)
            c->emit = CLI_EMIT_DASK;
        else
            return bad_count(name, "'slurm' or 'dask'", v);
        break;
    case OPT_WARMUP:
        if (cli_parse_int(v, 0, a->mode == CLI_MODE_RUN ? INT32_MAX : 100000, &a->warmup) != 0)
            return bad_count(name,
                             a->mode == CLI_MODE_RUN ? "a whole number from 0 to " INT32_MAX_TEXT
                                                     : "a whole number from 0 to 100000",
                             v);
        break;
    case OPT_SIZE:
        if (cli_parse_size(v, &a->field.width, &a->field.height) != 0)
            return bad_count(name,
                             "WIDTHxHEIGHT such as 2048x2048, each a whole number from 1 "
                             "to " INT32_MAX_TEXT,
                             v);
        *width_from = *height_from = "--size";
        break;
    case OPT_WIDTH:
    case OPT_HEIGHT:
        if (cli_parse_int(v, 1, INT32_MAX, id == OPT_WIDTH ? &a->field.width : &a->field.height))
            return bad_count(name, "a whole number of pixels from 1 to " INT32_MAX_TEXT, v);
        *(id == OPT_WIDTH ? width_from : height_from) = id == OPT_WIDTH ? "--width" : "--height";
        break;
    case OPT_CHANNELS:
        if (cli_parse_int(v, 1, 64, &a->field.channels) != 0)
            return bad_count(name, "a whole number from 1 to 64", v);
        break;
    case OPT_FIELDS:
        if (cli_parse_int(v, 1, 100000, &a->fields) != 0)
            return bad_count(name, "a whole number from 1 to 100000", v);
        break;
    case OPT_ITEMS:
        a->items_file = v;
        break;
    case OPT_START_METHOD:
        if (cli_parse_start_method(v, &c->rec.start_method) != 0)
            return bad_count(name, "'fork', 'spawn' or 'forkserver'", v);
        break;
    case OPT_SCALE:
        a->scale_auto = strcmp(v, "auto") == 0;
        a->n_scale = 0;
        if (!a->scale_auto) {
            char why[128];
            int n = cli_parse_count_list(v, CLI_SCALE_WORKERS_MAX, a->scale, CLI_SCALE_MAX, why,
                                         sizeof why);
            if (n < 0)
                return cli_usage_error(name, "%s, got '%s'", why, v);
            a->n_scale = (size_t)n;
        }
        break;
    case OPT_SCALE_ITEMS:
        if (cli_parse_int(v, 1, 100000, &a->scale_items) != 0)
            return bad_count(name, "a whole number from 1 to 100000", v);
        a->scale_items_given = 1;
        break;
    case OPT_TIMEOUT:
        if (cli_parse_duration(v, &a->timeout_s) != 0)
            return bad_count(name,
                             "a duration above 0 and at most " CLI_DURATION_MAX_TEXT
                             " s (about 115 days) such as 10, 1.5, 90s, 2m or 1h",
                             v);
        break;
    case OPT_PLOT:
        if (!ends_with(v, ".png") && !ends_with(v, ".svg"))
            return bad_count(name, "a file name ending in .png or .svg", v);
        a->plot_path = v;
        break;
    case OPT_SLURM_OUTPUT:
    case OPT_JOB_NAME:
    case OPT_SBATCH:
    case OPT_SLURM_FROM_PATH:
    case OPT_ARRAY_LIMIT:
        return cli_slurm_option(&a->slurm,
                                id == OPT_SLURM_OUTPUT  ? 'o'
                                : id == OPT_JOB_NAME    ? 'j'
                                : id == OPT_SBATCH      ? 's'
                                : id == OPT_ARRAY_LIMIT ? 'l'
                                                        : 'p',
                                name, v);
    default:
        return cli_usage_error(name, "not handled (a bug)");
    }
    return CLI_EXIT_OK;
}

/* Why getopt_long refused argv[optind - 1]. */
static int refused(const cli_args *a, int code, char **argv)
{
    char buf[64];
    const char *given = argv[optind - 1];
    if (code == ':')
        return cli_usage_error(option_name(optopt, buf, sizeof buf), "needs a value");
    if (optopt != 0 && strncmp(given, "--", 2) == 0)
        return cli_usage_error(option_name(optopt, buf, sizeof buf), "takes no value");
    if (optopt != 0) {
        snprintf(buf, sizeof buf, "-%c", optopt);
        given = buf;
    }
    /* Name the option without its "=value". */
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(given, "="), given);
    return cli_usage_error(name, a->mode == CLI_MODE_RUN ? "unknown option for 'spacrbench run'"
                                                         : "unknown option");
}

/* Checks that need the whole command line. */
static int check_demo(cli_args *a, const char *width_from, const char *height_from)
{
    const char *problem = field_params_problem(&a->field);
    if (problem)
        return cli_usage_error(strncmp(problem, "width", 5) == 0    ? width_from
                               : strncmp(problem, "height", 6) == 0 ? height_from
                                                                    : "--channels",
                               "%s", problem);
    /* With several fields, a warm-up covering them all is a mistake; a
     * single field is simply measured (the library clamps and says so). */
    if (a->warmup >= a->fields && a->fields > 1)
        return cli_usage_error("--warmup",
                               "%lld warm-up field(s) leave none of the %lld to measure",
                               (long long)a->warmup, (long long)a->fields);
    return CLI_EXIT_OK;
}

static int check_run(cli_args *a, int argc, char **argv)
{
    /* getopt_long stops early only at "--": the command follows it. */
    if (optind >= argc)
        return cli_usage_error("run", "missing '-- COMMAND ARG... {}' after the items");
    a->cmd = argv + optind;
    a->cmd_len = (size_t)(argc - optind);
    if (a->n_items && a->items_file)
        return cli_usage_error("--items", "give items either as arguments or in a file, not both");
    int scaling = a->scale_auto || a->n_scale > 0;
    if (a->scale_items_given && !scaling)
        return cli_usage_error("--scale-items", "needs --scale");
    if (a->plot_path && !scaling)
        return cli_usage_error("--plot", "needs --scale (it plots the scaling check)");
    return cli_slurm_check(&a->slurm, a->common.emit == CLI_EMIT_SLURM, a->items_file);
}

int cli_args_parse(cli_args *a, int argc, char **argv)
{
    struct option longopts[N_OPTIONS + 1];
    size_t n = 0;
    for (size_t i = 0; i < N_OPTIONS; i++)
        if (k_options[i].modes & a->mode)
            longopts[n++] =
                (struct option){k_options[i].name, k_options[i].has_arg, NULL, k_options[i].id};
    longopts[n] = (struct option){NULL, 0, NULL, 0};
    a->items = calloc((size_t)(argc > 0 ? argc : 1), sizeof *a->items);
    a->slurm.sbatch = calloc((size_t)(argc > 0 ? argc : 1), sizeof *a->slurm.sbatch);
    if (!a->items || !a->slurm.sbatch) {
        fprintf(stderr, "spacrbench: out of memory\n");
        return CLI_EXIT_ERROR;
    }
    const char *width_from = "--size", *height_from = "--size";
    /* "-": non-options come back in order as code 1 (the items), so a new
     * option can never be mistaken for an item; ":": we word the errors. */
    optind = 0; /* full re-initialisation (glibc), for repeated parses */
    opterr = 0;
    int code;
    while ((code = getopt_long(argc, argv, "-:qh", longopts, NULL)) != -1) {
        if (code == '?' || code == ':')
            return refused(a, code, argv);
        if (code == 1) {
            if (a->mode != CLI_MODE_RUN)
                return cli_usage_error(optarg, "unexpected argument (did you mean 'spacrbench "
                                               "run'?)");
            a->items[a->n_items++] = optarg;
            continue;
        }
        /* The option as the user spelled it, for messages. */
        char name[64];
        option_name(code, name, sizeof name);
        int rc = apply(a, code, name, optarg, &width_from, &height_from);
        if (rc != CLI_EXIT_OK || a->done)
            return rc;
    }
    cli_common *c = &a->common;
    if (c->json && c->emit != CLI_EMIT_REPORT)
        return cli_usage_error("--emit", "cannot be combined with --json (the JSON document "
                                         "already holds the schedule)");
    if (a->mode == CLI_MODE_RUN)
        return check_run(a, argc, argv);
    if (optind < argc || strcmp(argv[argc - 1], "--") == 0)
        return cli_usage_error("--", "only 'spacrbench run' takes a command");
    return check_demo(a, width_from, height_from);
}
