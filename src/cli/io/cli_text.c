/* Human report; see cli_text.h. */
#include "cli_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Append the snprintf-style formatter's output; grows the buffer. */
typedef struct text_buf {
    char *data;
    size_t len, cap;
    int failed;
} text_buf;

static char *room(text_buf *t, size_t need)
{
    if (t->failed)
        return NULL;
    if (t->len + need + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 4096;
        while (t->len + need + 1 > cap)
            cap *= 2;
        char *grown = realloc(t->data, cap);
        if (!grown) {
            t->failed = 1;
            return NULL;
        }
        t->data = grown;
        t->cap = cap;
    }
    return t->data + t->len;
}

static void append(text_buf *t, int len, int (*again)(char *buf, size_t cap, const void *arg),
                   const void *arg)
{
    if (len < 0) {
        t->failed = 1;
        return;
    }
    char *at = room(t, (size_t)len);
    if (at && again(at, (size_t)len + 1, arg) == len)
        t->len += (size_t)len;
    else
        t->failed = 1;
}

typedef struct report_args {
    const spacrbench_measurement *m;
    const spacrbench_recommendation *rec;
} report_args;

static int report_into(char *buf, size_t cap, const void *arg)
{
    const report_args *r = arg;
    return spacrbench_format_report(r->m, r->rec, buf, cap);
}

typedef struct line_args {
    const spacrbench_item_record *record;
    const char *label;
} line_args;

static int line_into(char *buf, size_t cap, const void *arg)
{
    const line_args *l = arg;
    return spacrbench_format_item_line(l->record, l->label, buf, cap);
}

static int scaling_into(char *buf, size_t cap, const void *arg)
{
    return spacrbench_format_scaling(arg, buf, cap);
}

static int newline_into(char *buf, size_t cap, const void *arg)
{
    (void)arg;
    return snprintf(buf, cap, "\n");
}

char *cli_report_text(const spacrbench_measurement *m, const spacrbench_recommendation *rec,
                      const cli_context *ctx)
{
    text_buf t = {0};
    report_args ra = {m, rec};
    append(&t, spacrbench_format_report(m, rec, NULL, 0), report_into, &ra);
    append(&t, 1, newline_into, NULL);
    spacrbench_figures f = {.size = sizeof f};
    if (spacrbench_measurement_figures(m, &f) != 0)
        t.failed = 1;
    for (int64_t i = 0; !t.failed && i < f.record_count; i++) {
        spacrbench_item_record r = {.size = sizeof r};
        if (spacrbench_measurement_record(m, (size_t)i, &r) != 0)
            continue;
        line_args la = {&r,
                        ctx->item_labels && (size_t)i < ctx->n_labels ? ctx->item_labels[i] : NULL};
        append(&t, spacrbench_format_item_line(&r, la.label, NULL, 0), line_into, &la);
        append(&t, 1, newline_into, NULL);
    }
    if (ctx->scaling && !t.failed) {
        append(&t, 1, newline_into, NULL);
        append(&t, spacrbench_format_scaling(ctx->scaling, NULL, 0), scaling_into, ctx->scaling);
    }
    if (t.failed || !t.data) {
        fprintf(stderr, "spacrbench: cannot format the report: %s\n",
                spacrbench_last_error_message());
        free(t.data);
        return NULL;
    }
    return t.data;
}
