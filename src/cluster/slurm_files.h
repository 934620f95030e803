/* How a job script is tied to the array's files beside it (the script
 * template, spacrbench_slurm_write_array and summarize share this).
 *
 * The script carries its own key: FNV-1a 64 of its text without comment
 * lines and without the key line itself, so two scripts that would do the
 * same (same items file, tasks, directives, command, options) have the
 * same key whatever their comments say (the measured peak, the version).
 * The index starts with a header line holding that key and the items
 * file's size, and each item's line holds its offset, length and POSIX
 * cksum CRC, so a task finds its item in O(1) and stops at once when the
 * index is another array's or the items file changed since. */
#ifndef SPACRBENCH_SLURM_FILES_H
#define SPACRBENCH_SLURM_FILES_H

#include <stddef.h>
#include <stdint.h>

#include "spacrbench.h"

#define SB_SLURM_KEY_LEN  16 /* hex digits */
#define SB_SLURM_KEY_LINE "array_key='"
/* The index: every line SB_SLURM_INDEX_WIDTH (40) bytes.
 * Header: "sbidx1 <16 hex key> <15-digit items file size>\n";
 * item:   "<15-digit offset> <12-digit length> <10-digit CRC>\n". */
#define SB_SLURM_INDEX_MAGIC      "sbidx1"
#define SB_SLURM_INDEX_MAX_BYTES  INT64_C(999999999999999) /* 15 digits */
#define SB_SLURM_INDEX_MAX_LENGTH INT64_C(999999999999)    /* 12 digits */
/* A task whose files are another array's (or changed) exits with this. */
#define SB_SLURM_MISMATCH_EXIT 65

/* The key of a script text (the key line's value ignored), as hex digits
 * and a NUL into key. */
void sb_slurm_script_key(const char *text, size_t len, char key[SB_SLURM_KEY_LEN + 1]);
/* The key a script states in its key line: 0 and the digits in key, or -1
 * when it has none. */
int sb_slurm_stated_key(const char *text, size_t len, char key[SB_SLURM_KEY_LEN + 1]);

/* What the extra #SBATCH lines set that the script sets too (0: not
 * given): a --time, --mem or --cpus-per-task there replaces the script's
 * figure in the script, its manifest and the tasks' reports alike. */
typedef struct sb_slurm_directives {
    int64_t time_minutes, mem_bytes, cpus;
} sb_slurm_directives;

/* One extra #SBATCH line (job.directives[index]) as sbatch reads it
 * (slurm_directives.c): 0 with what it sets added to d, or EINVAL with
 * the message (an option sbatch reads as --array, however abbreviated
 * or clustered; --mem-per-cpu/--mem-per-gpu beside the script's --mem;
 * --output/--error, which move the logs summarize reads; an abbreviation
 * sbatch finds ambiguous; a --time, --mem or --cpus-per-task that is not
 * one). */
int sb_slurm_directive_read(const char *line, size_t index, sb_slurm_directives *d);
/* SLURM's --time forms in minutes (seconds round up); -1 otherwise. */
int64_t sb_slurm_time_minutes(const char *text);

/* What a job script requests: the measurement's schedule and --time rule,
 * or what the caller gave (tasks.time_minutes, the directives). */
typedef struct sb_slurm_settings {
    int64_t mem_bytes, cpus, minutes;
    int mem_given, cpus_given, time_given; /* from the directives (or tasks.time_minutes) */
} sb_slurm_settings;

/* The job's settings (slurm_script.c), every input checked as
 * spacrbench_format_slurm_job checks it: 0 or a negative code. */
int sb_slurm_job_settings(const spacrbench_measurement *m, const spacrbench_schedule *schedule,
                          const spacrbench_slurm_job *job, const spacrbench_slurm_tasks *tasks,
                          sb_slurm_settings *out);

/* seconds as the command's --timeout parser reads them back, the same
 * value within a nanosecond: at most 9 fraction digits, no exponent
 * ("0.1", "90", "1e-05" never). seconds in [1e-9, 1e7]. */
void sb_slurm_seconds_text(char *buf, size_t cap, double seconds);

/* The line each task prints first in its SLURM log (summarize reads it:
 * which array and what the submission asked, even when the task left no
 * report): "spacrbench job: array job J task I: key K, --mem M MiB,
 * --time T min, item --timeout S s" (S 0: none). */
#define SB_SLURM_LOG_HEADER "spacrbench job: array job "
/* The end of every line a task prints when it stops before anything runs
 * (files that are not its own, no item, a bad SPACRBENCH_ITEM_TIMEOUT). */
#define SB_SLURM_NOTHING_RUN "; nothing was run"

#endif
