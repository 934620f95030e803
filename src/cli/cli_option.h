/* A command's options as one table: each entry carries the option's name,
 * its value's name, its help text and the handler that stores it, so the
 * parser (cli_args.c), `COMMAND --help`, the man page and the shell
 * completions (cli_help.c) all come from the same entries. Adding an option
 * is one entry here plus its field in cli_args. */
#ifndef SPACRBENCH_CLI_OPTION_H
#define SPACRBENCH_CLI_OPTION_H

#include <stddef.h>
#include <stdint.h>

struct cli_args;
typedef struct cli_option cli_option;

/* Store value (NULL for a flag) into a; name is "--option" as given.
 * CLI_EXIT_OK, or an exit code after cli_usage_error. */
typedef int (*cli_option_handler)(struct cli_args *a, const cli_option *o, const char *name,
                                  const char *value);

/* What a value completes to in a shell. */
typedef enum cli_complete {
    CLI_COMPLETE_NONE = 0,
    CLI_COMPLETE_FILE,
    CLI_COMPLETE_DIR
} cli_complete;

struct cli_option {
    const char *name;  /* long name, without "--" */
    char letter;       /* short name ('q'), or 0 */
    const char *value; /* the value's name in the help ("N", "BYTES"); NULL: a flag */
    const char *help;  /* one sentence or two; wrapped to 79 columns */
    cli_option_handler handle;
    size_t field;     /* offsetof(cli_args, ...) the generic handlers store into */
    int64_t min, max; /* the generic handlers' range, or a handler's own argument */
    cli_complete complete;
    /* The fixed values a shell completes ("slurm dask"; --scale's "auto",
     * beside the free LIST), or NULL. */
    const char *choices;
};

/* One heading of a command's help and its options. */
typedef struct cli_section {
    const char *title;
    const cli_option *options;
    size_t n_options;
} cli_section;

#define CLI_SECTION(title, table)                                                                  \
    {                                                                                              \
        title, table, sizeof table / sizeof table[0]                                               \
    }

typedef struct cli_command {
    const char *name;                   /* "run"; NULL: the program itself (the demo) */
    const char *synopsis;               /* after "spacrbench [name] " */
    const char *summary;                /* one line, for the command list */
    const char *description;            /* paragraphs, wrapped to 79 columns */
    const cli_section *const *sections; /* in help order */
    size_t n_sections;
    int takes_operands; /* items before "--" and a command after it */
    /* Checks that need the whole command line, after the parse (may be NULL). */
    int (*check)(struct cli_args *a, int argc, char **argv,
                 int first_arg); /* first_arg: getopt's optind */
    const char *exit_status;     /* its own exit codes; NULL: the program's */
} cli_command;

/* The generic handlers: field is an int (flag), int64_t in [min, max], a
 * byte size (int64_t), a string (const char *), a sampling interval in
 * microseconds (int64_t, at most max). */
int cli_opt_flag(struct cli_args *a, const cli_option *o, const char *name, const char *value);
int cli_opt_int(struct cli_args *a, const cli_option *o, const char *name, const char *value);
int cli_opt_bytes(struct cli_args *a, const cli_option *o, const char *name, const char *value);
int cli_opt_string(struct cli_args *a, const cli_option *o, const char *name, const char *value);
int cli_opt_interval(struct cli_args *a, const cli_option *o, const char *name, const char *value);
/* --help and --version: print, and a->done. */
int cli_opt_help(struct cli_args *a, const cli_option *o, const char *name, const char *value);
int cli_opt_version(struct cli_args *a, const cli_option *o, const char *name, const char *value);

#define CLI_FIELD(member) offsetof(struct cli_args, member)

/* The options every measuring command has (the recommendation, the
 * outputs, --help, --version), in cli_common_options.c. */
extern const cli_section cli_common_section;
extern const cli_section cli_info_section;

#endif
