/* --export-markdown, --export-csv and a serial run's --plot; see
 * cli_export.h. Files are written atomically, as --report is. */
#include "cli_export.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_error.h"
#include "cli_file.h"
#include "cli_stdio.h"
#include "text_buffer.h"
#if defined(__linux__)
#include "run_plot.h"
#endif

typedef struct export_args {
    const spacrbench_measurement *m;
    const spacrbench_recommendation *rec;
    int format;
    const cli_context *ctx;
    int *last; /* what the library returned: < 0 is its error, not memory's */
} export_args;

static int export_into(char *buf, size_t cap, const void *arg)
{
    const export_args *e = arg;
    return *e->last = spacrbench_format_export(e->m, e->rec, e->format, e->ctx->item_labels,
                                               e->ctx->n_labels, buf, cap);
}

static int export_file(const char *option, const char *path, const spacrbench_measurement *m,
                       const spacrbench_recommendation *rec, int format, const cli_context *ctx)
{
    int last = 0;
    export_args e = {m, rec, format, ctx, &last};
    sb_text t = {0};
    int len = sb_text_append(&t, export_into, &e);
    char *text = len >= 0 ? sb_text_take(&t) : NULL;
    sb_text_free(&t);
    if (!text) {
        cli_error(CLI_EXIT_ERROR, "%s: %s", option,
                  last < 0 ? spacrbench_last_error_message() : "out of memory");
        return -1;
    }
    int rc;
    if (cli_is_stdout_name(path)) /* in place of the report, which went to stderr */
        rc = cli_stdout_put(text, (size_t)len) | cli_stdout_check();
    else if ((rc = cli_write_file_atomic(option, path, text, (size_t)len)) != 0)
        cli_error(CLI_EXIT_ERROR, "%s: cannot write %s: %s", option, path, strerror(errno));
    free(text);
    return rc != 0 ? -1 : 0;
}

int cli_export_takes_stdout(const cli_common *c)
{
    return (c->export_markdown_path && cli_is_stdout_name(c->export_markdown_path)) ||
           (c->export_csv_path && cli_is_stdout_name(c->export_csv_path));
}

int cli_write_exports(const cli_common *c, const spacrbench_measurement *m,
                      const spacrbench_recommendation *rec, const cli_context *ctx,
                      const char *json)
{
    int rc = 0;
    if (c->export_markdown_path && export_file("--export-markdown", c->export_markdown_path, m, rec,
                                               SPACRBENCH_FORMAT_MARKDOWN, ctx) != 0)
        rc = -1;
    if (c->export_csv_path &&
        export_file("--export-csv", c->export_csv_path, m, rec, SPACRBENCH_FORMAT_CSV, ctx) != 0)
        rc = -1;
    /* With --scale the command plots the check itself, after this. */
    if (c->plot_path && !ctx->scaling && json) {
#if defined(__linux__)
        if (run_plot_document(json, c->plot_path, 1) != 0)
            rc = -1;
#else
        cli_error(CLI_EXIT_ERROR, "--plot: drawing needs the Linux build's Python helper for now; "
                                  "use Measurement.plot() from Python");
        rc = -1;
#endif
    }
    return rc;
}
