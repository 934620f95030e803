/* Writing the --report file: a regular file is replaced whole (a temporary
 * file beside it and a rename, so no half-written report is ever left),
 * anything else is written where the user pointed, never replaced. */
#ifndef SPACRBENCH_CLI_FILE_H
#define SPACRBENCH_CLI_FILE_H

#include <stddef.h>

/* Write text to path:
 * - a regular file (or a new name): through ".sbXXXXXX" in the target's
 *   directory and a rename; a symlink is followed, so the link stays and
 *   its target gets the report; an existing file keeps its mode;
 * - our own standard output or error (/dev/stdout, or the file stdout is
 *   redirected to): written to that descriptor, after what is already there;
 * - a FIFO, a device node (/dev/null), a dangling symlink: opened and
 *   written directly, nothing renamed;
 * - a directory: refused (EISDIR).
 * 0 or -1 (errno set); what only this function knows (no temporary, a
 * kernel file) is said on stderr under option's name. */
int cli_write_file_atomic(const char *option, const char *path, const char *text, size_t len);

/* Before a run: refuse (a usage error naming option, exit 2) a path that
 * can never be written after it: a directory, a name in a directory that
 * does not exist, a new name where no file can be created (a temporary is
 * made there and removed), an existing file that can neither be replaced
 * nor written in place; FIFOs, devices and dangling links are left to the
 * write itself. */
int cli_output_path_check(const char *option, const char *path);

/* Once every option is read, before a run: refuse (a usage error naming
 * both options, exit 2) two of files that are one file, where an output
 * would replace the input (the first entry may be --items) or another
 * output. One file: the same st_dev/st_ino where both exist, else the
 * same absolute path (the directory's links resolved). NULL, '-' and
 * what is no regular file (/dev/null, a FIFO) are never compared. */
typedef struct cli_named_file {
    const char *option, *path;
} cli_named_file;
int cli_files_apart(const cli_named_file *files, size_t n);

/* '-', the conventional name of standard output for an output file. */
int cli_is_stdout_name(const char *path);

#endif
