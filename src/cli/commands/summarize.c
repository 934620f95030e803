/* `spacrbench summarize DIR [--json]`: what the tasks of a job script
 * really used, against what they asked for, and the settings for the next
 * submission. The reading and the rule live in the Python package
 * (spacrbench.summarize), which calls this library for the margin rule;
 * this mode execs it: $SPACRBENCH_PYTHON, else python3 from PATH. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_options.h"
#include "commands.h"

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
    const char *python = getenv("SPACRBENCH_PYTHON");
    if (!python || !*python)
        python = "python3";
    char **args = calloc((size_t)argc + 4, sizeof *args);
    if (!args) {
        fprintf(stderr, "spacrbench: out of memory\n");
        return CLI_EXIT_ERROR;
    }
    args[0] = (char *)python;
    args[1] = "-c";
    args[2] = (char *)k_bootstrap;
    for (int i = 1; i < argc; i++)
        args[i + 2] = argv[i];
    fflush(stdout);
    execvp(python, args);
    fprintf(stderr,
            "spacrbench: summarize needs Python 3 with the spacrbench package: cannot run "
            "'%s': %s (set SPACRBENCH_PYTHON)\n",
            python, strerror(errno));
    free(args);
    return CLI_EXIT_ERROR;
}
