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

#endif
