/* JSON document; see cli_json.h. */
#include "cli_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Call an snprintf-style serialiser twice: first for the length (buf NULL,
 * cap 0), then into a buffer of that size; the call expression names the
 * macro's own `buf` and `cap`. out is the malloc'd text or NULL. */
#define LIBRARY_JSON(call_with_buf_cap, out)                                                       \
    do {                                                                                           \
        char *buf = NULL;                                                                          \
        size_t cap = 0;                                                                            \
        int len_ = (call_with_buf_cap);                                                            \
        (out) = NULL;                                                                              \
        if (len_ >= 0 && (buf = malloc((size_t)len_ + 1)) != NULL) {                               \
            cap = (size_t)len_ + 1;                                                                \
            if ((call_with_buf_cap) == len_)                                                       \
                (out) = buf;                                                                       \
            else                                                                                   \
                free(buf);                                                                         \
        }                                                                                          \
    } while (0)

char *cli_json_document(const spacrbench_measurement *m, const spacrbench_machine *machine,
                        const spacrbench_recommendation *rec, const spacrbench_schedule *sched,
                        const char *report, const cli_context *ctx)
{
    char *measurement, *mach = NULL, *recommendation = NULL, *schedule = NULL;
    LIBRARY_JSON(spacrbench_measurement_to_json(m, ctx->item_labels, ctx->n_labels, buf, cap),
                 measurement);
    int failed = measurement == NULL;
    if (machine) {
        LIBRARY_JSON(spacrbench_machine_to_json(machine, buf, cap), mach);
        failed |= mach == NULL;
    }
    if (rec) {
        LIBRARY_JSON(spacrbench_recommendation_to_json(rec, buf, cap), recommendation);
        failed |= recommendation == NULL;
    }
    if (sched) {
        LIBRARY_JSON(spacrbench_schedule_to_json(sched, buf, cap), schedule);
        failed |= schedule == NULL;
    }
    char *scaling = NULL;
    if (ctx->scaling) {
        LIBRARY_JSON(spacrbench_scale_to_json(ctx->scaling, buf, cap), scaling);
        failed |= scaling == NULL;
    }
    char *copy = NULL;
    if (!failed) {
        json_writer w;
        json_init(&w, 1);
        json_begin_object(&w, NULL);
        json_string(&w, "spacrbench_version", spacrbench_version_string());
        json_string(&w, "mode", ctx->mode);
        if (ctx->describe)
            ctx->describe(&w, ctx->describe_arg, m);
        json_raw(&w, "measurement", measurement);
        json_raw(&w, "machine", mach);
        json_raw(&w, "recommendation", recommendation);
        json_raw(&w, "schedule", schedule);
        /* "scaling", "scaling_workers", ...: top-level members, as Python's
         * ScaleResult.to_dict() has them. */
        if (scaling)
            json_members(&w, scaling);
        json_string(&w, "report", report);
        json_end_object(&w);
        const char *doc = json_result(&w);
        if (doc && (copy = malloc(strlen(doc) + 2)) != NULL)
            sprintf(copy, "%s\n", doc);
        json_free(&w);
    }
    if (!copy)
        fprintf(stderr, "spacrbench: cannot format the JSON document: %s\n",
                failed ? spacrbench_last_error_message() : "out of memory");
    free(measurement);
    free(mach);
    free(recommendation);
    free(schedule);
    free(scaling);
    return copy;
}
