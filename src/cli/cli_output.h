/* What both modes print once they hold a measurement: the recommendation,
 * the human report (plus one line per item), the JSON document, the
 * scheduler hand-off, and the --report file (written atomically). */
#ifndef SPACRBENCH_CLI_OUTPUT_H
#define SPACRBENCH_CLI_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

#include "cli_options.h"
#include "json_writer.h"
#include "spacrbench.h"

typedef struct cli_context {
    const char *mode;               /* "demo" or "run" */
    const char *const *item_labels; /* one per record, or NULL */
    size_t n_labels;
    /* Adds mode-specific members to the JSON document's top object. */
    void (*describe)(json_writer *w, const void *arg);
    const void *describe_arg;
} cli_context;

/* Recommend, then print and write everything the options ask for.
 * Returns CLI_EXIT_OK or CLI_EXIT_ERROR. */
int cli_finish(const cli_common *c, const spacrbench_measurement *m, const cli_context *ctx);

/* Write text to path through a temporary file in the same directory and a
 * rename, so no half-written file is ever left. 0 or -1 (errno set). */
int cli_write_file_atomic(const char *path, const char *text, size_t len);

/* "512 B", "12.3 MiB", "1.50 GiB". */
void cli_format_bytes(char *buf, size_t cap, int64_t bytes);

#endif
