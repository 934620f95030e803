/* The modes of the `spacrbench` command. Each takes its arguments
 * getopt-style, argv[0] naming it (the program, or "run"), and returns an
 * exit code (see cli_options.h). */
#ifndef SPACRBENCH_CLI_MODES_H
#define SPACRBENCH_CLI_MODES_H

int demo_main(int argc, char **argv);
int run_main(int argc, char **argv);
/* `spacrbench summarize DIR`: the library's spacrbench_summarize, printed. */
int summarize_main(int argc, char **argv);

#endif
