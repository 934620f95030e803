/* The options of `spacrbench run --emit slurm` that shape the job script:
 * --slurm-output DIR, --job-name NAME, --sbatch LINE (repeatable; read as
 * sbatch reads it by the library: never --array, however spelled, nor
 * --mem-per-cpu/--output/--error; a --time, --mem or --cpus-per-task
 * there is the script's own), --array-limit N and --slurm-from-path.
 * Values point into argv. */
#ifndef SPACRBENCH_CLI_SLURM_OPTIONS_H
#define SPACRBENCH_CLI_SLURM_OPTIONS_H

#include <stddef.h>

typedef struct cli_slurm {
    const char *output_dir; /* NULL: ./spacrbench-job */
    const char *job_name;   /* NULL: the library's default */
    const char **sbatch;    /* extra #SBATCH directives (argc slots, allocated by the parser) */
    size_t n_sbatch;
    int from_path;           /* call `spacrbench` from PATH instead of this binary's path */
    long long array_limit;   /* --array-limit N: --array=...%N; 0: none */
    const char *first_given; /* the first of these options given, for messages */
} cli_slurm;

/* Apply one option: which is 'o' (--slurm-output), 'j' (--job-name),
 * 's' (--sbatch), 'l' (--array-limit) or 'p' (--slurm-from-path); name is the option as spelled.
 * CLI_EXIT_OK or CLI_EXIT_USAGE after the message. */
int cli_slurm_option(cli_slurm *s, int which, const char *name, const char *value);

/* Checks that need the whole command line: the script options need
 * --emit slurm, and the script needs --items FILE (a file, not stdin). */
int cli_slurm_check(const cli_slurm *s, int emit_slurm, const char *items_file);

#endif
