/* `spacrbench summarize DIR [--job JOB_SCRIPT] [--json]`: what the tasks of
 * a job script really used against what they asked for, and the ONE
 * command line that reruns the tasks that need it. The reading, the rule
 * and the rendering are the library's (spacrbench_summarize, which
 * Python's spacrbench.summarize calls too): no Python needed. Exit 0 when
 * every task is ok, 3 when some task needs a resubmission (or the user), 1 when nothing
 * can be read, 2 for bad arguments. The option table is built everywhere
 * (help, man page, completions); summarizing is Linux's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "util.h"

/* The options, for the help, the man page and the completions; the few
 * there are are read by summarize_main itself. */
static const cli_option k_summarize[] = {
    {"job", 0, "JOB_SCRIPT",
     "the job script the tasks ran under, to compare what they asked for with "
     "what they used",
     cli_opt_string, 0, 0, 0, CLI_COMPLETE_FILE, NULL},
    {"json", 0, NULL, "print one JSON document instead of the text", cli_opt_flag, 0, 0, 0,
     CLI_COMPLETE_NONE, NULL},
    {"help", 'h', NULL, "print this help and exit", cli_opt_info, 0, 0, 0, CLI_COMPLETE_NONE, NULL},
    {"version", 'V', NULL, "print the version and exit", cli_opt_info, 0, 0, 0, CLI_COMPLETE_NONE,
     NULL},
};
static const cli_section k_section = CLI_SECTION("summarize", k_summarize);
static const cli_section *const k_sections[] = {&k_section};

const cli_command cli_summarize_command = {
    "summarize",
    "DIR [--job JOB_SCRIPT] [--json]",
    "read the task reports of a SLURM array",
    "Reads the reports the tasks of a `spacrbench run --emit slurm` job script "
    "wrote to DIR: what the tasks really used against what they asked for, the "
    "tasks that failed, timed out or left no report, the command line that "
    "resubmits only those, with more of the memory or time that failed them, and "
    "what needs you (an item --timeout, a command that failed on its item, a task "
    "that never ran) with the line for once you have acted. Reports and logs of "
    "another array in DIR are never counted.",
    CLI_SECTIONS(k_sections),
    1,
    NULL,
    "0 every task ok, 1 the reports cannot be read, 2 bad command line, 3 some "
    "task needs a resubmission or you (the summary is printed)",
};

#if defined(__linux__)
typedef struct summarize_args {
    const char *dir, *job;
    int json;
} summarize_args;

/* DIR, --job JOB_SCRIPT (or --job=JOB_SCRIPT), --json, "--"; -1 for help,
 * -2 for the version. */
static int parse(int argc, char **argv, summarize_args *out)
{
    int options_done = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (options_done || a[0] != '-' || !a[1]) {
            if (out->dir)
                return cli_usage_error(NULL, "one directory only, got '%s' and '%s'", out->dir, a);
            out->dir = a;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
            return -1;
        else if (strcmp(a, "-V") == 0 || strcmp(a, "--version") == 0)
            return -2;
        else if (strcmp(a, "--") == 0)
            options_done = 1;
        else if (strcmp(a, "--json") == 0)
            out->json = 1;
        else if (strcmp(a, "--job") == 0 || strncmp(a, "--job=", 6) == 0) {
            out->job = a[5] ? a + 6 : i + 1 < argc ? argv[++i] : "";
            if (!*out->job)
                return cli_usage_error("--job", "needs the job script");
        } else
            return cli_usage_error(a, "unknown option");
    }
    if (!out->dir)
        return cli_usage_error(NULL, "the directory of the task reports is missing");
    return CLI_EXIT_OK;
}

static int summary_text(char *buf, size_t cap, const void *s)
{
    return spacrbench_summary_text(s, buf, cap);
}

static int summary_json(char *buf, size_t cap, const void *s)
{
    return spacrbench_summary_json(s, buf, cap);
}

int summarize_main(int argc, char **argv)
{
    cli_error_set_command("summarize");
    summarize_args args = {0};
    int status = parse(argc, argv, &args);
    if (status < 0) {
        if (status == -2)
            cli_print_version(stdout);
        else
            cli_print_help(stdout, &cli_summarize_command);
        return CLI_EXIT_OK;
    }
    if (status != CLI_EXIT_OK)
        return status;
    spacrbench_summary *s = NULL;
    if (spacrbench_summarize(args.dir, args.job, &s) != 0)
        return cli_library_error(CLI_EXIT_ERROR, "summarize");
    sb_text t = {0};
    int n = sb_text_append(&t, args.json ? summary_json : summary_text, s);
    int summary_status = spacrbench_summary_status(s);
    spacrbench_summary_free(s);
    if (args.json)
        sb_text_printf(&t, "\n");
    int ok = n >= 0 && !t.failed;
    ok = ok && fwrite(t.data, 1, t.len, stdout) == t.len && fflush(stdout) == 0;
    sb_text_free(&t);
    if (!ok)
        return cli_error(CLI_EXIT_ERROR, "summarize: cannot write the summary to stdout");
    return summary_status == 3 ? CLI_EXIT_STOPPED : CLI_EXIT_OK;
}
#else
int summarize_main(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            cli_print_help(stdout, &cli_summarize_command);
            return CLI_EXIT_OK;
        } else if (strcmp(argv[i], "--version") == 0 || strcmp(argv[i], "-V") == 0) {
            cli_print_version(stdout);
            return CLI_EXIT_OK;
        }
    return cli_needs_linux("summarize", "summarizing SLURM tasks");
}
#endif
