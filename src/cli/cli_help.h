/* What is generated from the option tables: `COMMAND --help`, the version,
 * the man page (roff) and the bash and zsh completions. The build runs
 * `spacrbench --generate man|bash|zsh FILE` (hidden) to write the installed
 * files (cmake/SpacrbenchDocs.cmake). */
#ifndef SPACRBENCH_CLI_HELP_H
#define SPACRBENCH_CLI_HELP_H

#include <stdio.h>

#include "cli_option.h"

/* The widest help line (columns); a test checks every generated line. */
#define CLI_HELP_WIDTH 79

/* Every command, the program's own (the demo) first; NULL-terminated. */
extern const cli_command *const cli_commands[];
/* The command called name ("run"), or NULL. */
const cli_command *cli_command_named(const char *name);

void cli_print_help(FILE *out, const cli_command *cmd);
void cli_print_version(FILE *out);
void cli_print_man(FILE *out);
void cli_print_bash_completion(FILE *out);
void cli_print_zsh_completion(FILE *out);

/* `spacrbench help [COMMAND]` and `spacrbench --generate man|bash|zsh [FILE]`:
 * argv[0] is "help" or "--generate". An exit code. */
int cli_help_main(int argc, char **argv);
int cli_generate_main(int argc, char **argv);

#endif
