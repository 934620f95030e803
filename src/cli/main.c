/* The `spacrbench` command: `spacrbench [options]` benchmarks a built-in
 * synthetic field workload; `spacrbench run ... -- CMD {}` benchmarks an
 * external command per item; `spacrbench summarize DIR` reads a SLURM
 * array's reports; `spacrbench help [COMMAND]` prints a command's help.
 * Each command is a file cmd_*.c with its option table. */
#include <string.h>

#include "cli.h"

int main(int argc, char **argv)
{
    if (cli_stdio_init() != 0)
        return CLI_EXIT_ERROR;
    const char *first = argc > 1 ? argv[1] : "";
    if (strcmp(first, "summarize") == 0)
        return summarize_main(argc - 1, argv + 1); /* the library's summarize */
    int status = strcmp(first, "run") == 0          ? run_main(argc - 1, argv + 1)
                 : strcmp(first, "help") == 0       ? cli_help_main(argc - 1, argv + 1)
                 : strcmp(first, "--generate") == 0 ? cli_generate_main(argc - 1, argv + 1)
                                                    : demo_main(argc, argv);
    /* A report that did not arrive is a failure whatever the run did
     * (a bad command line keeps its 2). */
    if (cli_stdout_check() != 0 && status != CLI_EXIT_USAGE)
        status = CLI_EXIT_ERROR;
    return status;
}
