/* The command's one error channel: every message it prints about a
 * failure reads "spacrbench: ...", is written here, and comes back as the
 * exit code the caller returns. Warnings and notices the run goes on after,
 * and the progress lines, are written here too: nothing else in src/cli
 * writes to stderr (tests/c/cli/check_one_channel.sh keeps it so). */
#ifndef SPACRBENCH_CLI_ERROR_H
#define SPACRBENCH_CLI_ERROR_H

#define CLI_EXIT_OK      0
#define CLI_EXIT_ERROR   1 /* the measurement could not be made */
#define CLI_EXIT_USAGE   2 /* bad command line */
#define CLI_EXIT_STOPPED 3 /* a measured command failed; partial report printed */

#define CLI_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* "spacrbench: message" on stderr; returns code. */
int cli_error(int code, const char *fmt, ...) CLI_PRINTF(2, 3);
/* "spacrbench: what: <the library's last error message>"; returns code.
 * what may be NULL. */
int cli_library_error(int code, const char *what);
/* "spacrbench: OPTION: message" and where the help is; returns
 * CLI_EXIT_USAGE. */
int cli_usage_error(const char *option, const char *fmt, ...) CLI_PRINTF(2, 3);
/* "spacrbench: message" for what is no failure: a warning (its words say
 * "warning" where they always did) or a notice; the run goes on. */
void cli_notice(const char *fmt, ...) CLI_PRINTF(1, 2);
/* A progress line as it is given (its own words, no prefix), on stderr
 * like every message, so that it never mixes into a report on stdout. */
void cli_progress(const char *fmt, ...) CLI_PRINTF(1, 2);
/* The command whose help a usage error points to ("run", "summarize"; NULL:
 * the program's). Set by the option parser. */
void cli_error_set_command(const char *command);

#endif
