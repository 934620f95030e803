/* JSON document; see cli_json.h. */
#include "cli_json.h"

#include <stdlib.h>

#include "cli_error.h"
#include "text_buffer.h"

/* Room for the usual measurement, so each object is serialised once (a
 * larger one is serialised again after the buffer grew). */
#define CLI_JSON_FIRST_ROOM (64 * 1024)

typedef struct object_args {
    const cli_context *ctx;
    const spacrbench_measurement *m;
    const void *object;
} object_args;

static int measurement_into(char *buf, size_t cap, const void *arg)
{
    const object_args *a = arg;
    return spacrbench_measurement_to_json(a->m, a->ctx->item_labels, a->ctx->n_labels, buf, cap);
}
static int machine_into(char *buf, size_t cap, const void *arg)
{
    return spacrbench_machine_to_json(((const object_args *)arg)->object, buf, cap);
}
static int recommendation_into(char *buf, size_t cap, const void *arg)
{
    return spacrbench_recommendation_to_json(((const object_args *)arg)->object, buf, cap);
}
static int schedule_into(char *buf, size_t cap, const void *arg)
{
    return spacrbench_schedule_to_json(((const object_args *)arg)->object, buf, cap);
}
static int scaling_into(char *buf, size_t cap, const void *arg)
{
    return spacrbench_scale_to_json(((const object_args *)arg)->object, buf, cap);
}

/* One of the library's objects as the value of key (null when absent), or
 * its members spliced into the document (key NULL: the scaling check's
 * top-level members, as Python's ScaleResult.to_dict() has them). */
static void add_object(json_writer *w, sb_text *scratch, const char *key, sb_text_formatter into,
                       const object_args *a)
{
    if (!a->object) {
        if (key)
            json_null(w, key);
        return;
    }
    sb_text_clear(scratch);
    if (sb_text_append(scratch, into, a) < 0) {
        w->failed = 1;
        return;
    }
    if (key)
        json_raw(w, key, scratch->data);
    else
        json_members(w, scratch->data);
}

char *cli_json_document(const spacrbench_measurement *m, const spacrbench_machine *machine,
                        const spacrbench_recommendation *rec, const spacrbench_schedule *sched,
                        const char *report, const cli_context *ctx)
{
    sb_text scratch = {0};
    sb_text_reserve(&scratch, CLI_JSON_FIRST_ROOM);
    json_writer w;
    json_init(&w, 1);
    json_begin_object(&w, NULL);
    json_string(&w, "spacrbench_version", spacrbench_version_string());
    json_string(&w, "mode", ctx->mode);
    if (ctx->describe)
        ctx->describe(&w, ctx->describe_arg, m);
    object_args a = {ctx, m, m};
    add_object(&w, &scratch, "measurement", measurement_into, &a);
    a.object = machine;
    add_object(&w, &scratch, "machine", machine_into, &a);
    a.object = rec;
    add_object(&w, &scratch, "recommendation", recommendation_into, &a);
    a.object = sched;
    add_object(&w, &scratch, "schedule", schedule_into, &a);
    a.object = ctx->scaling;
    add_object(&w, &scratch, NULL, scaling_into, &a);
    int library_failed = scratch.failed;
    sb_text_free(&scratch);
    json_string(&w, "report", report);
    json_end_object(&w);
    sb_text doc = {0};
    const char *text = json_result(&w);
    if (text)
        sb_text_printf(&doc, "%s\n", text);
    else
        doc.failed = 1;
    json_free(&w);
    char *copy = sb_text_take(&doc);
    if (!copy)
        cli_error(CLI_EXIT_ERROR, "cannot format the JSON document: %s",
                  library_failed ? spacrbench_last_error_message() : "out of memory");
    return copy;
}
