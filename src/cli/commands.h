/* The commands of `spacrbench`, one file each, cmd_*.c (their option
 * tables are cli_demo_command, cli_run_command, cli_summarize_command in
 * cli_args.h). Each takes its arguments getopt-style, argv[0] naming it
 * (the program, or "run"), and returns an exit code (cli_error.h). */
#ifndef SPACRBENCH_CLI_MODES_H
#define SPACRBENCH_CLI_MODES_H

#include "cli_option.h"

/* Each command's option table, help and checks. */
extern const cli_command cli_demo_command;
extern const cli_command cli_run_command;
extern const cli_command cli_summarize_command;

int demo_main(int argc, char **argv);
int run_main(int argc, char **argv);
/* `spacrbench summarize DIR`: the library's spacrbench_summarize, printed. */
int summarize_main(int argc, char **argv);
/* Where only the demo is built: "MODE: WHAT needs Linux", exit 2. */
int cli_needs_linux(const char *mode, const char *what);

#endif
