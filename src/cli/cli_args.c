/* One getopt_long pass over the command's option table; see cli_args.h. */
#include "cli_args.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_file.h"

/* Every option of a command, at most. */
#define CLI_OPTIONS_MAX 64

void cli_args_init(cli_args *a, cli_mode mode)
{
    memset(a, 0, sizeof *a);
    a->mode = mode;
    a->command = mode == CLI_MODE_RUN ? &cli_run_command : &cli_demo_command;
    cli_common_init(&a->common);
    /* Each `run` item is a fresh process: nothing to warm up by default. */
    a->warmup = mode == CLI_MODE_RUN ? 0 : 1;
    a->field = (field_params){2048, 2048, 4, 1};
    a->width_from = a->height_from = "--size";
    a->fields = 3;
    a->scale_items = 3; /* --scale: spacrbench_scale_timing's defaults */
    a->scale_seconds = 1.0;
    a->runs = 1;
    a->sample = -1; /* every item */
    a->sample_cost = -1;
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

/* The command's options in one list; the getopt code of entry i is 256 + i
 * (a short name maps to its entry too). */
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
    if (a->command->name) {
        char what[64];
        snprintf(what, sizeof what, "unknown option for 'spacrbench %s'", a->command->name);
        return cli_usage_error(name, "%s", what);
    }
    return cli_usage_error(name, "unknown option");
}

/* Standard output carries one document: the report, the JSON document,
 * the --emit settings or one export named '-'. */
static int stdout_has_one_taker(const cli_common *c)
{
    const char *export_option = NULL;
    int exports = 0;
    if (c->export_markdown_path && cli_is_stdout_name(c->export_markdown_path)) {
        export_option = "--export-markdown";
        exports++;
    }
    if (c->export_csv_path && cli_is_stdout_name(c->export_csv_path)) {
        export_option = "--export-csv";
        exports++;
    }
    if (exports > 1)
        return cli_usage_error("--export-csv", "'-' (stdout) is already --export-markdown's: "
                                               "name a file for one of them");
    if (exports && c->json)
        return cli_usage_error(export_option, "'-' (stdout) cannot be combined with --json, "
                                              "whose document goes there: name a file");
    if (exports && c->emit != CLI_EMIT_REPORT)
        return cli_usage_error(export_option, "'-' (stdout) cannot be combined with --emit, "
                                              "whose settings go there: name a file");
    return CLI_EXIT_OK;
}

/* No output replaces the items file or another output; --emit slurm's
 * are the array's files in its directory (slurm_array.c's names). */
static int outputs_apart(const cli_args *a)
{
    enum { SLURM_FILES = 3 };
    static const char *const slurm_files[SLURM_FILES] = {
        "spacrbench-items.idx", "spacrbench-job.sh", "spacrbench-array.json"};
    const cli_common *c = &a->common;
    cli_named_file f[5 + SLURM_FILES] = {{"--items", a->items_file}};
    size_t n = 1;
    /* Those the user named come last: a refusal names their option. */
    char paths[SLURM_FILES][4096];
    const char *dir = a->slurm.output_dir ? a->slurm.output_dir : "spacrbench-job";
    for (size_t i = 0; c->emit == CLI_EMIT_SLURM && i < SLURM_FILES; i++) {
        snprintf(paths[i], sizeof paths[i], "%s/%s", dir, slurm_files[i]);
        f[n++] =
            (cli_named_file){a->slurm.output_dir ? "--slurm-output" : "--emit slurm", paths[i]};
    }
    f[n++] = (cli_named_file){"--report", c->report_path};
    f[n++] = (cli_named_file){"--export-csv", c->export_csv_path};
    f[n++] = (cli_named_file){"--export-markdown", c->export_markdown_path};
    f[n++] = (cli_named_file){"--plot", a->plot_path};
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
        /* The option by its long name, for messages. */
        char name[64];
        snprintf(name, sizeof name, "--%s", o ? o->name : "?");
        int rc = o ? o->handle(a, o, name, optarg) : cli_usage_error(name, "not handled (a bug)");
        if (rc != CLI_EXIT_OK || a->done)
            return rc;
    }
    cli_common *c = &a->common;
    if (c->json && c->emit != CLI_EMIT_REPORT)
        return cli_usage_error("--emit", "cannot be combined with --json (the JSON document "
                                         "already holds the schedule)");
    int taken = stdout_has_one_taker(c);
    if (taken != CLI_EXIT_OK)
        return taken;
    int rc = a->command->check ? a->command->check(a, argc, argv, optind) : CLI_EXIT_OK;
    return rc == CLI_EXIT_OK ? outputs_apart(a) : rc;
}
