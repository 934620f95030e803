/* `spacrbench run` (and summarize, through cli_needs_linux) where the
 * command is only the demo (every platform but Linux): measuring an external
 * command's process tree needs Linux's cgroups, fork/exec and pidfds
 * (run_item.c), and summarize reads what SLURM jobs wrote on Linux. Both say
 * so and exit 2, reading no argument but --help (their help is printed). */
#include <stdio.h>
#include <string.h>

#include "cli_help.h"
#include "cli_options.h"
#include "commands.h"
#include "run_plot.h"

#if defined(_WIN32)
#define CLI_PLATFORM_NAME "Windows"
#elif defined(__APPLE__)
#define CLI_PLATFORM_NAME "macOS"
#else
#define CLI_PLATFORM_NAME "this platform"
#endif

int cli_needs_linux(const char *mode, const char *what)
{
    return cli_error(CLI_EXIT_USAGE,
                     "%s: %s needs Linux; this build is for " CLI_PLATFORM_NAME
                     ", where spacrbench measures its built-in workload (run it without "
                     "'run') and the library measures work in this process "
                     "(spacrbench_benchmark)",
                     mode, what);
}

/* The demo's --plot, refused before the run as on Linux: the helper that
 * draws is reached only by the Linux build (cli_export.c says the same). */
int run_plot_ready(int stdout_is_output)
{
    (void)stdout_is_output;
    return cli_usage_error("--plot", "drawing needs the Linux build's Python helper for now; "
                                     "use Measurement.plot() from Python");
}

int run_main(int argc, char **argv)
{
    /* Its help still says what it would do. */
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            cli_print_help(stdout, &cli_run_command);
            return CLI_EXIT_OK;
        }
    return cli_needs_linux("run", "measuring external commands (cgroups, fork/exec, pidfd)");
}
