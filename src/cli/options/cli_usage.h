/* The command's help and version texts: the one place the usage is
 * written, printed by the option parser for --help and --version. */
#ifndef SPACRBENCH_CLI_USAGE_H
#define SPACRBENCH_CLI_USAGE_H

#include <stdio.h>

void cli_print_usage(FILE *out);
void cli_print_version(FILE *out);

#endif
