/* `spacrbench run` and `spacrbench summarize` where the command is only the
 * demo (every platform but Linux): measuring an external command's process
 * tree needs Linux's cgroups, fork/exec and pidfds (run_item.c), and
 * summarize reads what SLURM jobs wrote on Linux. Both say so and exit 2,
 * before reading any other argument. */
#include <stdio.h>

#include "commands.h"
#include "cli_options.h"

#if defined(_WIN32)
#define CLI_PLATFORM_NAME "Windows"
#elif defined(__APPLE__)
#define CLI_PLATFORM_NAME "macOS"
#else
#define CLI_PLATFORM_NAME "this platform"
#endif

static int needs_linux(const char *mode, const char *what)
{
    fprintf(stderr,
            "spacrbench: %s: %s needs Linux; this build is for " CLI_PLATFORM_NAME
            ", where spacrbench measures its built-in workload (run it without 'run') and "
            "the library measures work in this process (spacrbench_benchmark)\n",
            mode, what);
    return CLI_EXIT_USAGE;
}

int run_main(int argc, char **argv)
{
    (void)argc, (void)argv;
    return needs_linux("run", "measuring external commands (cgroups, fork/exec, pidfd)");
}

int summarize_main(int argc, char **argv)
{
    (void)argc, (void)argv;
    return needs_linux("summarize", "summarizing SLURM tasks");
}
