/* The `spacrbench` command: `spacrbench [options]` benchmarks a built-in
 * synthetic field workload; `spacrbench run ... -- CMD {}` benchmarks an
 * external command per item. Both print a report and a worker count. */
#include <string.h>

#include "commands.h"
#include "cli_options.h"
#include "cli_stdio.h"

int main(int argc, char **argv)
{
    if (cli_stdio_init() != 0)
        return CLI_EXIT_ERROR;
    if (argc > 1 && strcmp(argv[1], "summarize") == 0)
        return summarize_main(argc - 1, argv + 1); /* the library's summarize */
    int status = argc > 1 && strcmp(argv[1], "run") == 0 ? run_main(argc - 1, argv + 1)
                                                         : demo_main(argc, argv);
    /* A report that did not arrive is a failure whatever the run did
     * (a bad command line keeps its 2). */
    if (cli_stdout_check() != 0 && status != CLI_EXIT_USAGE)
        status = CLI_EXIT_ERROR;
    return status;
}
