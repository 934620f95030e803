/* --export-markdown, --export-csv and a serial run's --plot; see
 * cli_export.h. Files are written atomically, as --report is. */
#include "cli_export.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_file.h"
#if defined(__linux__)
#include "run_plot.h"
#endif

static int export_file(const char *option, const char *path, const spacrbench_measurement *m,
                       const spacrbench_recommendation *rec, int format, const cli_context *ctx)
{
    int len = spacrbench_format_export(m, rec, format, ctx->item_labels, ctx->n_labels, NULL, 0);
    char *text = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (!text || spacrbench_format_export(m, rec, format, ctx->item_labels, ctx->n_labels, text,
                                          (size_t)len + 1) != len) {
        fprintf(stderr, "spacrbench: %s: %s\n", option,
                len < 0 ? spacrbench_last_error_message() : "out of memory");
        free(text);
        return -1;
    }
    int rc = cli_write_file_atomic(path, text, (size_t)len);
    if (rc != 0)
        fprintf(stderr, "spacrbench: %s: cannot write %s: %s\n", option, path, strerror(errno));
    free(text);
    return rc != 0 ? -1 : 0;
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
        fprintf(stderr, "spacrbench: --plot: drawing needs the Linux build's Python helper "
                        "for now; use Measurement.plot() from Python\n");
        rc = -1;
#endif
    }
    return rc;
}
