/* Human report; see cli_text.h. */
#include "cli_text.h"

#include <stdlib.h>

#include "cli_error.h"
#include "text_buffer.h"

typedef struct report_args {
    const spacrbench_measurement *m;
    const spacrbench_recommendation *rec;
    int verbose;
} report_args;

static int report_into(char *buf, size_t cap, const void *arg)
{
    const report_args *r = arg;
    return r->verbose ? spacrbench_format_report_verbose(r->m, r->rec, NULL, buf, cap)
                      : spacrbench_format_report(r->m, r->rec, buf, cap);
}

typedef struct line_args {
    const spacrbench_measurement *m;
    size_t index;
    const char *label;
} line_args;

static int line_into(char *buf, size_t cap, const void *arg)
{
    const line_args *l = arg;
    return spacrbench_measurement_format_item(l->m, l->index, l->label, buf, cap);
}

typedef struct plate_args {
    const spacrbench_measurement *m;
    const cli_context *ctx;
} plate_args;

static int plate_into(char *buf, size_t cap, const void *arg)
{
    const plate_args *p = arg;
    return spacrbench_format_plate_section(p->m, p->ctx->item_labels, p->ctx->n_labels, buf, cap);
}

static int scaling_into(char *buf, size_t cap, const void *arg)
{
    return spacrbench_format_scaling(arg, buf, cap);
}

typedef struct brief_args {
    const spacrbench_measurement *m;
    const spacrbench_recommendation *rec;
} brief_args;

static int brief_into(char *buf, size_t cap, const void *arg)
{
    const brief_args *b = arg;
    return spacrbench_format_brief(b->m, b->rec, buf, cap);
}

char *cli_brief_text(const spacrbench_measurement *m, const spacrbench_recommendation *rec)
{
    sb_text t = {0};
    brief_args ba = {m, rec};
    sb_text_append(&t, brief_into, &ba);
    sb_text_printf(&t, "\n");
    char *text = sb_text_take(&t);
    if (!text)
        cli_error(CLI_EXIT_ERROR, "cannot format the line: %s", spacrbench_last_error_message());
    return text;
}

char *cli_report_text(const spacrbench_measurement *m, const spacrbench_recommendation *rec,
                      const cli_context *ctx, int verbose)
{
    sb_text t = {0};
    report_args ra = {m, rec, verbose};
    sb_text_append(&t, report_into, &ra);
    sb_text_printf(&t, "\n");
    spacrbench_figures f = {.size = sizeof f};
    if (spacrbench_measurement_figures(m, &f) != 0)
        t.failed = 1;
    spacrbench_plate_section plate = {.size = sizeof plate};
    int has_plate = spacrbench_measurement_plate(m, &plate) == 0;
    /* Each item's line: verbose only (the per-item line and the spread
     * note sum them up; the JSON and the exports keep them). */
    for (int64_t i = 0; verbose && !t.failed && i < f.record_count; i++) {
        line_args la = {m, (size_t)i,
                        ctx->item_labels && (size_t)i < ctx->n_labels ? ctx->item_labels[i] : NULL};
        sb_text_append(&t, line_into, &la);
        sb_text_printf(&t, "\n");
    }
    if (has_plate) {
        plate_args pa = {m, ctx};
        sb_text_printf(&t, "\n");
        sb_text_append(&t, plate_into, &pa);
        sb_text_printf(&t, "\n");
    }
    if (ctx->scaling) {
        sb_text_printf(&t, "\n");
        sb_text_append(&t, scaling_into, ctx->scaling);
    }
    char *text = sb_text_take(&t);
    if (!text)
        cli_error(CLI_EXIT_ERROR, "cannot format the report: %s", spacrbench_last_error_message());
    return text;
}
