/* The `spacrbench` command: `spacrbench [options]` benchmarks a built-in
 * synthetic field workload; `spacrbench run ... -- CMD {}` benchmarks an
 * external command per item. Both print a report and a worker count. */
#include <string.h>

#include "cli_modes.h"

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "run") == 0)
        return run_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "summarize") == 0)
        return summarize_main(argc - 1, argv + 1);
    return demo_main(argc, argv);
}
