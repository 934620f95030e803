/* Writing the --report file so no half-written file is ever left. */
#ifndef SPACRBENCH_CLI_FILE_H
#define SPACRBENCH_CLI_FILE_H

#include <stddef.h>

/* Write text to path through a temporary file in the same directory and a
 * rename. 0 or -1 (errno set). */
int cli_write_file_atomic(const char *path, const char *text, size_t len);

#endif
