/* The library's objects as JSON, in the one document shape that the
 * command's --json and Python's to_dict() share (docs/spacrbench.schema.json):
 * each object written by its field table (src/records/), names spelled by
 * names.c, "not measured" as null. */
#include <string.h>

#include "report.h"

static void write_timeline_lists(void *ctx, json_writer *w, const sb_field *f)
{
    const sb_timeline *tl = ctx;
    json_begin_array(w, f->key);
    if (f->extra == &sb_timeline_point_record)
        for (size_t i = 0, n = sb_timeline_count(tl); i < n; i++) {
            sb_timeline_sample s = sb_timeline_point(tl, i);
            spacrbench_timeline_point p = {sizeof p, s.seconds, s.rss_bytes, s.cgroup_bytes};
            sb_point_more more = {s.cpu_seconds};
            const void *parts[] = {&p, &more};
            sb_record_write(w, NULL, &sb_timeline_point_record, parts, NULL);
        }
    else
        for (size_t i = 0; i < tl->item_count; i++) {
            spacrbench_timeline_item it = sb_timeline_item(tl, i);
            const void *parts[] = {&it};
            sb_record_write(w, NULL, &sb_timeline_item_record, parts, NULL);
        }
    json_end_array(w);
}

static void sb_json_timeline(json_writer *w, const char *key, const spacrbench_measurement *m)
{
    const sb_timeline *tl = m->timeline;
    if (!tl) {
        json_null(w, key);
        return;
    }
    spacrbench_timeline_info info = {.size = sizeof info,
                                     .interval_us = tl->interval_us,
                                     .samples = tl->samples,
                                     .stride = tl->stride,
                                     .max_points = SPACRBENCH_TIMELINE_MAX_POINTS,
                                     .downsampled = tl->stride > 1};
    const sb_record_io io = {(void *)tl, write_timeline_lists, NULL};
    const void *parts[] = {&info};
    sb_record_write(w, key, &sb_timeline_record, parts, &io);
}

static void write_plate_lists(void *ctx, json_writer *w, const sb_field *f)
{
    const spacrbench_measurement *m = ctx;
    const sb_measured_plate *p = m->plate;
    json_begin_array(w, f->key);
    if (f->extra == &sb_plate_pick_record)
        for (size_t i = 0; i < p->pick_count; i++) {
            spacrbench_plate_pick k = {.size = sizeof k};
            if (spacrbench_measurement_plate_pick(m, i, &k) != 0) {
                w->failed = 1;
                break;
            }
            const void *parts[] = {&k};
            sb_record_write(w, NULL, &sb_plate_pick_record, parts, NULL);
        }
    else
        for (size_t i = 0; i < p->note_count; i++)
            json_string(w, NULL, p->notes[i]);
    json_end_array(w);
}

static void sb_json_plate(json_writer *w, const char *key, const spacrbench_measurement *m)
{
    if (!m->plate)
        return; /* optional: only a plate's measurement has the member */
    const sb_record_io io = {(void *)m, write_plate_lists, NULL};
    const void *parts[] = {&m->plate->info};
    sb_record_write(w, key, &sb_plate_record, parts, &io);
}

int sb_json_deliver_record(const sb_record *rec, const void *const *parts, const sb_record_io *io,
                           char *buf, size_t cap)
{
    json_writer w;
    json_init(&w, 0);
    sb_record_write(&w, NULL, rec, parts, io);
    /* snprintf-style, straight from the writer: produced once, any cap. */
    const char *doc = json_result(&w);
    size_t len = doc ? strlen(doc) : 0;
    int rc = !buf && cap ? sb_fail(SPACRBENCH_EINVAL, "buf is NULL but cap is %zu", cap)
             : !doc      ? sb_fail(SPACRBENCH_ENOMEM, "out of memory formatting text")
             : len > (size_t)INT32_MAX ? sb_fail(SPACRBENCH_ENOSPACE, "text too long")
                                       : (int)len;
    if (rc >= 0 && cap) {
        size_t n = len < cap - 1 ? len : cap - 1;
        memcpy(buf, doc, n);
        buf[n] = '\0';
    }
    json_free(&w);
    return rc;
}

typedef struct measurement_lists {
    const spacrbench_measurement *m;
    const char *const *labels;
    size_t n_labels;
} measurement_lists;

/* A record's runs ("run_records"): the list it keeps, [] when none. */
typedef struct record_runs {
    const spacrbench_measurement *m;
    size_t index;
} record_runs;

static void write_runs(void *ctx, json_writer *w, const sb_field *f)
{
    const record_runs *rr = ctx;
    json_begin_array(w, f->key);
    spacrbench_item_run run = {.size = sizeof run};
    for (size_t k = 0, n = spacrbench_measurement_item_run_count(rr->m, rr->index); k < n; k++)
        if (spacrbench_measurement_item_run(rr->m, rr->index, k, &run) == 0) {
            const void *parts[] = {&run};
            sb_record_write(w, NULL, &sb_run_record, parts, NULL);
        }
    json_end_array(w);
}

static void write_lists(void *ctx, json_writer *w, const sb_field *f)
{
    const measurement_lists *l = ctx;
    const spacrbench_measurement *m = l->m;
    if (f->type == SB_FT_NESTED) { /* the timeline, the plate section */
        if (f->extra == &sb_plate_record)
            sb_json_plate(w, f->key, m);
        else
            sb_json_timeline(w, f->key, m);
        return;
    }
    json_begin_array(w, f->key);
    if (f->extra == &sb_item_record)
        for (size_t i = 0; i < m->record_count; i++) {
            sb_item_more more;
            sb_measurement_item_more(m, i, l->labels && i < l->n_labels ? l->labels[i] : NULL,
                                     &more);
            const void *parts[] = {&m->records[i], &more};
            record_runs rr = {m, i};
            const sb_record_io runs = {&rr, write_runs, NULL};
            sb_record_write(w, NULL, &sb_item_record, parts, &runs);
        }
    else if (f->extra == &sb_gpu_record)
        for (size_t i = 0; i < m->gpu_count; i++) {
            const void *parts[] = {&m->gpus[i]};
            sb_record_write(w, NULL, &sb_gpu_record, parts, NULL);
        }
    else /* the notes */
        for (size_t i = 0; i < m->note_count; i++)
            json_string(w, NULL, m->notes[i]);
    json_end_array(w);
}

int spacrbench_measurement_to_json(const spacrbench_measurement *m, const char *const *item_labels,
                                   size_t n_labels, char *buf, size_t cap)
{
    SB_REFUSE(!m, "measurement must not be NULL");
    sb_measurement_more more;
    sb_measurement_more_of(m, &more);
    measurement_lists lists = {m, item_labels, n_labels};
    const sb_record_io io = {&lists, write_lists, NULL};
    const void *parts[] = {&m->fig, &more};
    return sb_json_deliver_record(&sb_measurement_record, parts, &io, buf, cap);
}

int spacrbench_recommendation_to_json(const spacrbench_recommendation *rec, char *buf, size_t cap)
{
    SB_REFUSE(!rec, "recommendation must not be NULL");
    spacrbench_recommendation r;
    int rc = sb_recommendation_in(&r, rec);
    const void *parts[] = {&r};
    return rc ? rc : sb_json_deliver_record(&sb_recommendation_record, parts, NULL, buf, cap);
}

/* The object of a caller's size-versioned struct (any version): copied
 * into ours, which holds the defaults of fields an older one lacks. */
static int struct_to_json(const sb_record *rec, void *ours, size_t size, const void *theirs,
                          const char *name, char *buf, size_t cap)
{
    int rc = sb_struct_in(ours, size, theirs, name);
    const void *parts[] = {ours};
    return rc ? rc : sb_json_deliver_record(rec, parts, NULL, buf, cap);
}

int spacrbench_machine_to_json(const spacrbench_machine *machine, char *buf, size_t cap)
{
    SB_REFUSE(!machine, "machine must not be NULL");
    spacrbench_machine mc = {.size = sizeof mc,
                             .host_available_bytes = -1,
                             .memory_limit_bytes = -1,
                             .affinity_cores = -1,
                             .cpu_quota_cores = -1};
    return struct_to_json(&sb_machine_record, &mc, sizeof mc, machine, "spacrbench_machine", buf,
                          cap);
}

int spacrbench_schedule_to_json(const spacrbench_schedule *schedule, char *buf, size_t cap)
{
    SB_REFUSE(!schedule, "schedule must not be NULL");
    spacrbench_schedule s = {.size = sizeof s};
    return struct_to_json(&sb_schedule_record, &s, sizeof s, schedule, "spacrbench_schedule", buf,
                          cap);
}
