/* The options of every measuring command (the default mode and `run`):
 * the recommendation's inputs, the outputs, help and version. */
#include <string.h>

#include "cli_args.h"
#include "cli_file.h"

#define INT32_MAX_TEXT "2147483647"

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

/* With run --scale it draws the scaling check; otherwise the decision and
 * the memory over time (the JSON document, through the Python helper). */
static int opt_plot(cli_args *a, const cli_option *o, const char *name, const char *v)
{
    (void)o;
    if (!ends_with(v, ".png") && !ends_with(v, ".svg"))
        return cli_usage_error(name, "expected a file name ending in .png or .svg, got '%s'", v);
    a->plot_path = a->common.plot_path = v;
    return cli_output_path_check(name, v);
}

static int opt_export(cli_args *a, const cli_option *o, const char *name, const char *v)
{
    if (*v == '\0')
        return cli_usage_error(name, "needs a file name");
    *(strcmp(o->name, "export-csv") == 0 ? &a->common.export_csv_path
                                         : &a->common.export_markdown_path) = v;
    return cli_is_stdout_name(v) ? CLI_EXIT_OK : cli_output_path_check(name, v);
}

static int opt_emit(cli_args *a, const cli_option *o, const char *name, const char *v)
{
    (void)o;
    if (strcmp(v, "slurm") == 0)
        a->common.emit = CLI_EMIT_SLURM;
    else if (strcmp(v, "dask") == 0)
        a->common.emit = CLI_EMIT_DASK;
    else
        return cli_usage_error(name, "expected 'slurm' or 'dask', got '%s'", v);
    return CLI_EXIT_OK;
}

static int opt_start_method(cli_args *a, const cli_option *o, const char *name, const char *v)
{
    (void)o;
    if (cli_parse_start_method(v, &a->common.rec.start_method) != 0)
        return cli_usage_error(name, "expected 'fork', 'spawn' or 'forkserver', got '%s'", v);
    return CLI_EXIT_OK;
}

static const cli_option k_common[] = {
    {"reserve", 0, "BYTES",
     "memory kept free for everything else: 512M, 1.5G or 4GiB count in powers "
     "of 1024, 4GB in powers of 1000 (default 2G on a host, 10% of a binding "
     "cgroup limit, 64M..2G, in a job)",
     cli_opt_bytes, CLI_FIELD(common.rec.reserve_bytes), 0, 0, CLI_COMPLETE_NONE, NULL},
    {"vram-reserve", 0, "BYTES", "GPU memory kept free on the device, as --reserve (default 1G)",
     cli_opt_bytes, CLI_FIELD(common.rec.vram_reserve_bytes), 0, 0, CLI_COMPLETE_NONE, NULL},
    {"start-method", 0, "fork|spawn|forkserver",
     "how the workers will start (default fork); spawn and forkserver add the "
     "baseline to each worker's need",
     opt_start_method, 0, 0, 0, CLI_COMPLETE_NONE, "fork spawn forkserver"},
    {"available", 0, "BYTES",
     "memory to advise for instead of what is free here, as --reserve (a what-if: "
     "16G for a laptop, a node's memory; default: discovered)",
     cli_opt_bytes, CLI_FIELD(common.rec.available_bytes), 0, 0, CLI_COMPLETE_NONE, NULL},
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
     opt_export, 0, 0, 0, CLI_COMPLETE_FILE, NULL},
    {"export-csv", 0, "FILE",
     "also write one CSV row per item (time, peak, CPU) to FILE; '-': to stdout, as "
     "--export-markdown -",
     opt_export, 0, 0, 0, CLI_COMPLETE_FILE, NULL},
    {"plot", 0, "FILE",
     "draw the decision to FILE.png or FILE.svg: each item's memory need against its "
     "file size (or its order), the memory per recommended worker as a line, the "
     "recommendation as the title, and below it the memory over time (with run "
     "--scale: the scaling check; needs Python with the "
     "spacrbench package and matplotlib, $SPACRBENCH_PYTHON or python3: " CLI_PLOT_INSTALL ")",
     opt_plot, 0, 0, 0, CLI_COMPLETE_FILE, NULL},
    {"emit", 0, "slurm|dask", "print scheduler settings on stdout (the report goes to stderr)",
     opt_emit, 0, 0, 0, CLI_COMPLETE_NONE, "slurm dask"},
    {"verbose", 'v', NULL,
     "the report with how each figure was obtained and a line per item (the JSON and "
     "the Markdown export always have them)",
     cli_opt_flag, CLI_FIELD(common.verbose), 0, 0, CLI_COMPLETE_NONE, NULL},
    {"quiet", 'q', NULL, "no progress, and no report next to --emit", cli_opt_flag,
     CLI_FIELD(common.quiet), 0, 0, CLI_COMPLETE_NONE, NULL},
};

static const cli_option k_info[] = {
    {"help", 'h', NULL, "print this help and exit", cli_opt_help, 0, 0, 0, CLI_COMPLETE_NONE, NULL},
    {"version", 'V', NULL, "print the version and exit", cli_opt_version, 0, 0, 0,
     CLI_COMPLETE_NONE, NULL},
};

const cli_section cli_common_section = CLI_SECTION("recommendation and output", k_common);
const cli_section cli_info_section = CLI_SECTION("information", k_info);
