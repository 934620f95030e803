/* `spacrbench summarize DIR [--json]`: what the tasks of a job script
 * really used, against what they asked for, and the settings for the next
 * submission. The reading and the rule live in the Python package
 * (spacrbench.summarize), which calls this library for the margin rule;
 * this mode execs it: $SPACRBENCH_PYTHON, else python3 from PATH. */
#include <string.h>
#if defined(__linux__)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#endif

#include "cli_args.h"
#include "cli_help.h"
#include "commands.h"

/* The options, for the help, the man page and the completions: the Python
 * package parses them (spacrbench._summarize.main), this table says them. */
static const cli_option k_summarize[] = {
    {"job", 0, "JOB_SCRIPT",
     "the job script the tasks ran under, to compare what they asked for with "
     "what they used",
     cli_opt_string, 0, 0, 0, CLI_COMPLETE_FILE, NULL},
    {"json", 0, NULL, "print one JSON document instead of the text", cli_opt_flag, 0, 0, 0,
     CLI_COMPLETE_NONE, NULL},
    {"help", 'h', NULL, "print this help and exit", cli_opt_help, 0, 0, 0, CLI_COMPLETE_NONE, NULL},
};
static const cli_section k_section = CLI_SECTION("summarize", k_summarize);
static const cli_section *const k_sections[] = {&k_section};

const cli_command cli_summarize_command = {
    "summarize",
    "DIR [--job JOB_SCRIPT] [--json]",
    "read the task reports of a SLURM array",
    "Reads the reports the tasks of a `spacrbench run --emit slurm` job script "
    "wrote to DIR: what the tasks really used against what they asked for, the "
    "tasks that failed or left no report, and the settings for the next "
    "submission. Needs the spacrbench Python package ($SPACRBENCH_PYTHON, else "
    "python3 from PATH). Exit status 3 when some tasks failed or left no report.",
    k_sections,
    sizeof k_sections / sizeof k_sections[0],
    1,
    NULL,
};

/* --help or -h before any "--": the table's help, not Python's. */
static int asks_for_help(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return 1;
    return 0;
}

#if defined(__linux__)
/* Run by python -c: a missing package is said in our words, exit 1. */
static const char k_bootstrap[] =
    "import sys\n"
    "try:\n"
    "    from spacrbench._summarize import main\n"
    "except ImportError as e:\n"
    "    print('spacrbench: summarize needs the spacrbench Python package (pip install "
    "spacrbench), which ' + sys.executable + ' cannot import: ' + str(e) + '; or set "
    "SPACRBENCH_PYTHON', file=sys.stderr)\n"
    "    sys.exit(1)\n"
    "sys.exit(main(sys.argv[1:]))\n";

int summarize_main(int argc, char **argv)
{
    if (asks_for_help(argc, argv)) {
        cli_print_help(stdout, &cli_summarize_command);
        return CLI_EXIT_OK;
    }
    const char *python = getenv("SPACRBENCH_PYTHON");
    if (!python || !*python)
        python = "python3";
    char **args = calloc((size_t)argc + 4, sizeof *args);
    if (!args)
        return cli_error(CLI_EXIT_ERROR, "out of memory");
    args[0] = (char *)python;
    args[1] = "-c";
    args[2] = (char *)k_bootstrap;
    for (int i = 1; i < argc; i++)
        args[i + 2] = argv[i];
    fflush(stdout);
    execvp(python, args);
    int e = errno;
    free(args);
    return cli_error(CLI_EXIT_ERROR,
                     "summarize needs Python 3 with the spacrbench package: cannot run "
                     "'%s': %s (set SPACRBENCH_PYTHON)",
                     python, strerror(e));
}
#else
int summarize_main(int argc, char **argv)
{
    if (asks_for_help(argc, argv)) {
        cli_print_help(stdout, &cli_summarize_command);
        return CLI_EXIT_OK;
    }
    return cli_needs_linux("summarize", "summarizing SLURM tasks (the Python package's "
                                        "summarize)");
}
#endif
