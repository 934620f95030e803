/* spacrbench_measurement_from_json: a measurement back from its JSON
 * object, through the field tables (src/records/) and the one reader
 * (util/record.c): each field checked where it is read, then what only
 * the whole says (one record per item, warm-up first; the timeline's
 * marks within the records), then built with the library's constructors,
 * so a measurement read back is checked as one made by hand. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "records.h"

/* A benchmark holds one record per item; more than this is not one we wrote. */
#define MAX_ENTRIES 100000000u

#define NO_INDEX SIZE_MAX

/* A constructor's refusal, named by the path of what it refused: the
 * reader's, then key and [index] where given (NULL, NO_INDEX: none). */
static int refused(sb_reader *r, int rc, const char *key, size_t index)
{
    size_t depth = r->depth;
    if (key)
        sb_reader_push_key(r, key);
    if (index != NO_INDEX)
        sb_reader_push_index(r, index);
    if (rc < 0 && rc != SPACRBENCH_ENOMEM && !r->failed)
        sb_reader_fail(r, SB_READ_VALUE, 1, "is refused: %s", spacrbench_last_error_message());
    r->depth = depth;
    return rc;
}

/* What the document holds, pointing into it until the measurement is built. */
typedef struct parsed {
    spacrbench_figures fig;
    sb_measurement_more more;
    spacrbench_item_record *records;
    sb_item_more *labels;       /* and each record's other figures */
    spacrbench_item_run **runs; /* per record: its "run_records", NULL none */
    size_t *n_runs;
    size_t n_records, current; /* current: the record read now */
    const char **notes;
    size_t n_notes;
    spacrbench_gpu_info *gpus;
    size_t n_gpus;
    int has_timeline;
    spacrbench_timeline_info info;
    struct point_read {
        spacrbench_timeline_point point;
        sb_point_more more;
    } * points;
    size_t n_points;
    spacrbench_timeline_item *marks;
    size_t n_marks;
    struct plate_read { /* the plate section, if any */
        int present;
        spacrbench_plate_section info;
        spacrbench_plate_pick *picks;
        size_t n_picks;
        const char **notes;
        size_t n_notes;
    } plate;
    sb_record_io io; /* every list and section is read by read_lists */
    int out_of_memory;
} parsed;

/* The list f's value into a calloc'd array of *n entries, each first a
 * copy of init (size bytes) read by f's record, its second part more bytes
 * into the entry (NULL record: texts): the array, or NULL for none, a
 * problem (in r) or out of memory. */
static void *read_array(parsed *p, sb_reader *r, const sb_field *f, const json_node *value,
                        size_t *n, size_t size, const void *init, size_t more)
{
    long long count = sb_read_list(r, value, (f->flags & SB_FIELD_NULLABLE) != 0);
    char *a = count > 0 ? calloc((size_t)count, size) : NULL;
    if (!a) {
        p->out_of_memory |= count > 0;
        return NULL;
    }
    *n = (size_t)count;
    size_t i = 0;
    for (const json_node *e = json_child(r->doc, value, 0); e && !r->failed;
         e = json_next(r->doc, e), i++) {
        char *entry = a + i * size;
        void *const parts[] = {entry, more ? entry + more : NULL};
        sb_reader_push_index(r, i);
        if (f->extra) {
            memcpy(entry, init, size);
            sb_record_read(r, e, f->extra, parts, &p->io);
        } else
            *(const char **)entry = sb_read_string(r, e);
        sb_reader_pop(r);
    }
    return a;
}

/* The records, each with its other figures and its runs. */
static void read_records(parsed *p, sb_reader *r, const sb_field *f, const json_node *value)
{
    long long n = sb_read_list(r, value, 1);
    if (n <= 0)
        return;
    p->records = calloc((size_t)n, sizeof *p->records);
    p->labels = calloc((size_t)n, sizeof *p->labels);
    p->runs = calloc((size_t)n, sizeof *p->runs);
    p->n_runs = calloc((size_t)n, sizeof *p->n_runs);
    if (!p->records || !p->labels || !p->runs || !p->n_runs) {
        p->out_of_memory = 1;
        return;
    }
    p->n_records = (size_t)n;
    size_t i = 0;
    for (const json_node *e = json_child(r->doc, value, 0); e && !r->failed;
         e = json_next(r->doc, e), i++) {
        p->records[i] = (spacrbench_item_record){sizeof p->records[i], 0, 0, 0, 0.0, -1, -1};
        p->labels[i] = (sb_item_more){
            .item = NULL, .cpu_seconds = NAN, .cgroup_charge_bytes = -1, .tree_rss_peak_bytes = -1};
        void *const parts[] = {&p->records[i], &p->labels[i]};
        p->current = i;
        sb_reader_push_index(r, i);
        sb_record_read(r, e, f->extra, parts, &p->io);
        sb_reader_pop(r);
    }
}

/* Each list and section of the document (the sb_record_io of every
 * record read): where it goes in p, by its field's record. */
static int read_lists(void *ctx, sb_reader *r, const sb_field *f, const json_node *value)
{
    parsed *p = ctx;
    const sb_record *rec = f->extra;
    if (f->type == SB_FT_NESTED) { /* the timeline or the plate; null: none */
        int plate = rec == &sb_plate_record;
        if (value->kind == JSON_NULL)
            return 0;
        *(plate ? &p->plate.present : &p->has_timeline) = 1;
        void *const parts[] = {plate ? (void *)&p->plate.info : &p->info};
        return sb_record_read(r, value, rec, parts, &p->io);
    }
    static const spacrbench_item_run run = {sizeof run, 0.0, NAN, -1, -1, -1, -1};
    static const spacrbench_gpu_info gpu = {sizeof gpu, 0, "", -1, -1, -1};
    static const spacrbench_plate_pick pick = {sizeof pick, 0, NAN, 0, 0, -1, NAN};
    static const spacrbench_timeline_item mark = {sizeof mark, 0, 0, 0, 0.0, 0.0, -1, NAN};
    static const struct point_read point = {{sizeof point.point, 0.0, -1, -1}, {NAN}};
    size_t i = p->current;
    if (rec == &sb_item_record)
        read_records(p, r, f, value);
    else if (rec == &sb_run_record && value->kind == JSON_ARRAY && value->count <= r->max_entries &&
             value->count > SPACRBENCH_RUNS_MAX)
        return sb_reader_fail(r, SB_READ_VALUE, 1, "has %zu runs, more than %d", value->count,
                              (int)SPACRBENCH_RUNS_MAX);
    else if (rec == &sb_run_record)
        p->runs[i] = read_array(p, r, f, value, &p->n_runs[i], sizeof run, &run, 0);
    else if (rec == &sb_gpu_record)
        p->gpus = read_array(p, r, f, value, &p->n_gpus, sizeof gpu, &gpu, 0);
    else if (rec == &sb_plate_pick_record)
        p->plate.picks = read_array(p, r, f, value, &p->plate.n_picks, sizeof pick, &pick, 0);
    else if (rec == &sb_timeline_item_record)
        p->marks = read_array(p, r, f, value, &p->n_marks, sizeof mark, &mark, 0);
    else if (rec == &sb_timeline_point_record)
        p->points = read_array(p, r, f, value, &p->n_points, sizeof point, &point,
                               offsetof(struct point_read, more));
    else if (f == sb_record_field(&sb_plate_record, "notes"))
        p->plate.notes = read_array(p, r, f, value, &p->plate.n_notes, sizeof *p->notes, NULL, 0);
    else
        p->notes = read_array(p, r, f, value, &p->n_notes, sizeof *p->notes, NULL, 0);
    return r->failed || p->out_of_memory ? -1 : 0;
}

static const char *py_bool(int v) { return v ? "True" : "False"; }

static int compare_index(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The plate section against the records it describes. */
static int plate_check(sb_reader *r, const parsed *p)
{
    const struct plate_read *pp = &p->plate;
    if (!pp->present)
        return 0;
    sb_reader_push_key(r, "plate");
    if (pp->info.largest_index >= pp->info.items) {
        sb_reader_push_key(r, "largest_index");
        return sb_reader_fail(r, SB_READ_VALUE, 1, "is %lld, past the plate's %lld items",
                              (long long)pp->info.largest_index, (long long)pp->info.items);
    }
    sb_reader_push_key(r, "picks");
    if (pp->n_picks != p->n_records)
        return sb_reader_fail(r, SB_READ_VALUE, 1,
                              "has %zu picks, not one per record (%zu records)", pp->n_picks,
                              p->n_records);
    for (size_t i = 0; i < pp->n_picks; i++) {
        const spacrbench_plate_pick *k = &pp->picks[i];
        sb_reader_push_index(r, i);
        if (k->index >= pp->info.items) {
            sb_reader_push_key(r, "index");
            return sb_reader_fail(r, SB_READ_VALUE, 1, "is %lld, past the plate's %lld items",
                                  (long long)k->index, (long long)pp->info.items);
        }
        if (!k->is_warmup != !p->records[i].is_warmup) {
            sb_reader_push_key(r, "is_warmup");
            return sb_reader_fail(
                r, SB_READ_VALUE, 1, "is %s, but records[%zu] is %s", py_bool(k->is_warmup), i,
                p->records[i].is_warmup ? "a warm-up item" : "not a warm-up item");
        }
        sb_reader_pop(r);
    }
    int64_t *seen = malloc((pp->n_picks ? pp->n_picks : 1) * sizeof *seen);
    if (!seen)
        return sb_reader_fail(r, SB_READ_VALUE, 0, "out of memory reading the plate's picks");
    for (size_t i = 0; i < pp->n_picks; i++)
        seen[i] = pp->picks[i].index;
    qsort(seen, pp->n_picks, sizeof *seen, compare_index);
    long long twice = -1;
    for (size_t i = 1; i < pp->n_picks && twice < 0; i++)
        twice = seen[i] == seen[i - 1] ? (long long)seen[i] : -1;
    free(seen);
    if (twice >= 0)
        return sb_reader_fail(r, SB_READ_VALUE, 1, "measure item %lld twice", twice);
    sb_reader_pop(r);
    sb_reader_pop(r);
    return 0;
}

static int plate_build(sb_reader *r, const struct plate_read *pp, spacrbench_measurement *m)
{
    if (!pp->present)
        return 0;
    sb_reader_push_key(r, "plate");
    int rc = refused(r, spacrbench_measurement_plate_begin(m, &pp->info), NULL, NO_INDEX);
    for (size_t i = 0; i < pp->n_picks && rc == 0; i++)
        rc = refused(r, spacrbench_measurement_plate_add_pick(m, &pp->picks[i]), "picks", i);
    for (size_t i = 0; i < pp->n_notes && rc == 0; i++)
        rc = refused(r, spacrbench_measurement_plate_add_note(m, pp->notes[i]), NULL, NO_INDEX);
    sb_reader_pop(r);
    return rc;
}

/* What the fields say together (the path is the measurement's). */
static int check_whole(sb_reader *r, const parsed *p, uint32_t flags)
{
    const spacrbench_figures *f = &p->fig;
    if (f->stopped && !(flags & SPACRBENCH_READ_STOPPED)) {
        /* Advice from a stopped run's figures would read as a clean run's. */
        sb_reader_push_key(r, "stopped");
        return sb_reader_fail(r, SB_READ_VALUE, 1,
                              "is true: that run stopped at item %lld (work_result %d), so its "
                              "figures are partial; a measurement read back holds a finished "
                              "run's",
                              (long long)f->stopped_item, (int)f->work_result);
    }
    if (f->peak_rss_bytes < 0 && !(flags & SPACRBENCH_READ_STOPPED)) {
        sb_reader_push_key(r, "peak_rss_bytes");
        return sb_reader_fail(r, SB_READ_TYPE, 1, "must be an integer, not NoneType");
    }
    /* A stopped run read as it is (READ_STOPPED) has what it measured. */
    int whole = !f->stopped;
    if (whole && f->items == 0) {
        sb_reader_push_key(r, "items");
        return sb_reader_fail(r, SB_READ_VALUE, 1,
                              "is 0: a measurement holds at least one measured item "
                              "(benchmark() refuses an empty list)");
    }
    /* The library's runner writes one record per item; a hand-made
     * measurement (peak_method supplied) may have none. */
    int measured = f->peak_method != SPACRBENCH_PEAK_SUPPLIED;
    /* Added unsigned: items and warmup_items as read may sum past int64. */
    unsigned long long want = (unsigned long long)f->items + (unsigned long long)f->warmup_items;
    sb_reader_push_key(r, "records");
    if (whole && measured && !p->n_records)
        return sb_reader_fail(r, SB_READ_VALUE, 1,
                              "is empty: a measured run (peak_method '%s') has one record per "
                              "item, items + warmup_items = %llu",
                              spacrbench_peak_method_name(f->peak_method), want);
    if (whole && p->n_records && p->n_records != want)
        return sb_reader_fail(r, SB_READ_VALUE, 1,
                              "has %zu records, not items + warmup_items = %llu", p->n_records,
                              want);
    for (size_t i = 0; i < p->n_records; i++) {
        const spacrbench_item_record *rec = &p->records[i];
        sb_reader_push_index(r, i);
        if (rec->index != (int64_t)i) {
            sb_reader_push_key(r, "index");
            return sb_reader_fail(r, SB_READ_VALUE, 1, "is %lld, not %zu", (long long)rec->index,
                                  i);
        }
        if ((rec->is_warmup != 0) != ((int64_t)i < f->warmup_items)) {
            sb_reader_push_key(r, "is_warmup");
            return sb_reader_fail(r, SB_READ_VALUE, 1,
                                  "is %s: the first %lld record(s) are the warm-up",
                                  py_bool(rec->is_warmup), (long long)f->warmup_items);
        }
        sb_reader_pop(r);
    }
    sb_reader_pop(r);
    if (plate_check(r, p) != 0)
        return -1;
    if (!p->has_timeline)
        return 0;
    sb_reader_push_key(r, "timeline");
    int64_t max_points = p->info.max_points < SPACRBENCH_TIMELINE_MAX_POINTS
                             ? p->info.max_points
                             : SPACRBENCH_TIMELINE_MAX_POINTS;
    if ((int64_t)p->n_points > max_points) {
        sb_reader_push_key(r, "points");
        return sb_reader_fail(r, SB_READ_VALUE, 1,
                              "has %zu points, more than its max_points (%lld)%s", p->n_points,
                              (long long)p->info.max_points,
                              p->info.max_points > max_points ? " or a timeline's bound" : "");
    }
    if (p->n_marks > p->n_records) {
        sb_reader_push_key(r, "items");
        return sb_reader_fail(r, SB_READ_VALUE, 1, "marks %zu items, but there are %zu records",
                              p->n_marks, p->n_records);
    }
    for (size_t i = 0; i < p->n_marks; i++)
        if (p->marks[i].index >= (int64_t)p->n_records) {
            sb_reader_push_key(r, "items");
            sb_reader_push_index(r, i);
            sb_reader_push_key(r, "index");
            return sb_reader_fail(r, SB_READ_VALUE, 1, "is %lld, past the %zu records",
                                  (long long)p->marks[i].index, p->n_records);
        }
    sb_reader_pop(r);
    return 0;
}

/* The measurement p describes; the path names the measurement. */
static int build(sb_reader *r, const parsed *p, spacrbench_measurement **out)
{
    spacrbench_figures fig = p->fig;
    int rc = refused(r, spacrbench_measurement_create(&fig, out), NULL, NO_INDEX);
    spacrbench_measurement *m = *out;
    if (rc < 0)
        return rc;
    m->fig.peak_method = p->fig.peak_method; /* create() makes "none" supplied */
    if (p->n_records &&
        (rc = refused(
             r, spacrbench_measurement_add_records(m, p->records, p->n_records, sizeof *p->records),
             "records", NO_INDEX)) < 0)
        return rc;
    if (p->n_records && !(m->labels = calloc(p->n_records, sizeof *m->labels)))
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory");
    m->label_count = p->n_records;
    for (size_t i = 0; i < p->n_records; i++)
        if (p->labels[i].item && !(m->labels[i] = strdup(p->labels[i].item)))
            return sb_fail(SPACRBENCH_ENOMEM, "out of memory");
    for (size_t i = 0; i < p->n_records && rc == 0;
         i++) { /* what a record holds beyond its struct */
        const sb_item_more *x = &p->labels[i];
        spacrbench_memory_figures f = {sizeof f, x->cgroup_charge_bytes, x->tree_rss_peak_bytes};
        if (!isnan(x->cpu_seconds))
            rc = refused(r, spacrbench_measurement_set_item_cpu_seconds(m, i, x->cpu_seconds),
                         "records", i);
        if (rc == 0 && (f.cgroup_charge_bytes >= 0 || f.tree_rss_peak_bytes >= 0))
            rc = refused(r, spacrbench_measurement_set_item_memory(m, i, &f), "records", i);
        if (rc == 0 && p->n_runs[i]) {
            sb_reader_push_key(r, "records");
            sb_reader_push_index(r, i);
            rc = refused(r,
                         spacrbench_measurement_set_item_runs(m, i, p->runs[i], p->n_runs[i],
                                                              sizeof *p->runs[i]),
                         "run_records", NO_INDEX);
            r->depth -= 2;
        }
    }
    for (size_t i = 0; i < p->n_notes && rc == 0; i++)
        rc = refused(r, spacrbench_measurement_add_note(m, p->notes[i]), "notes", NO_INDEX);
    if (rc == 0 && p->more.vram_reason)
        rc = refused(r, spacrbench_measurement_set_vram_reason(m, p->more.vram_reason),
                     "vram_reason", NO_INDEX);
    for (size_t i = 0; i < p->n_gpus && rc == 0; i++)
        rc = refused(r, spacrbench_measurement_add_gpu(m, &p->gpus[i]), "gpus", NO_INDEX);
    if (rc == 0)
        rc = plate_build(r, &p->plate, m);
    if (rc < 0 || !p->has_timeline)
        return rc;
    sb_reader_push_key(r, "timeline");
    spacrbench_timeline_info info = p->info;
    rc = refused(r, spacrbench_measurement_timeline_begin(m, &info), NULL, NO_INDEX);
    for (size_t i = 0; i < p->n_points && rc == 0; i++)
        rc = refused(r,
                     spacrbench_measurement_timeline_add_point_cpu(m, &p->points[i].point,
                                                                   p->points[i].more.cpu_seconds),
                     "points", i);
    for (size_t i = 0; i < p->n_marks && rc == 0; i++)
        rc = refused(r, spacrbench_measurement_timeline_add_item(m, &p->marks[i]), "items", i);
    return rc;
}

static void parsed_free(parsed *p)
{
    for (size_t i = 0; p->runs && i < p->n_records; i++)
        free(p->runs[i]);
    free(p->runs);
    free(p->n_runs);
    free(p->records);
    free(p->labels);
    free(p->notes);
    free(p->gpus);
    free(p->points);
    free(p->marks);
    free(p->plate.picks);
    free(p->plate.notes);
}

static void parsed_init(parsed *p)
{
    memset(p, 0, sizeof *p);
    spacrbench_figures *f = &p->fig;
    f->size = sizeof *f;
    f->peak_rss_bytes = f->peak_vram_bytes = f->stopped_item = -1;
    f->cpu_seconds = NAN;
    f->peak_method = SPACRBENCH_PEAK_SUPPLIED;
    f->vram_source = SPACRBENCH_SOURCE_UNKNOWN;
    p->info = (spacrbench_timeline_info){
        .size = sizeof p->info, .stride = 1, .max_points = SPACRBENCH_TIMELINE_MAX_POINTS};
    spacrbench_plate_section_init(&p->plate.info, sizeof p->plate.info);
    p->io = (sb_record_io){p, NULL, read_lists};
}

/* Parse text, read it into p and build: 0, or a negative code with the
 * message (Python's words, naming the field). */
static int read_measurement(const char *text, size_t len, const char *name, uint32_t flags,
                            parsed *p, spacrbench_measurement **out)
{
    /* A document the caller holds: bounded by its size, not by a guess. */
    const json_limits limits = {64, len / 2 + 16, JSON_KEEP_UNHELD | JSON_NONFINITE};
    json_doc doc;
    if (json_parse(&doc, text, len, &limits) != 0)
        return sb_fail(SPACRBENCH_EINVAL, "%s is not JSON: %s", name, doc.error);
    sb_reader r;
    sb_reader_init(&r, &doc, SB_READ_PYTHON, name);
    r.max_entries = MAX_ENTRIES;
    const json_node *root = json_root(&doc), *mm = NULL;
    if (root->kind == JSON_OBJECT && !json_get(&doc, root, "items") &&
        (mm = json_get(&doc, root, "measurement")) && mm->kind == JSON_OBJECT) {
        sb_reader_push_key(&r, "measurement"); /* a whole --json document */
        root = mm;
    }
    void *const parts[] = {&p->fig, &p->more};
    int rc = 0;
    if (sb_record_read(&r, root, &sb_measurement_record, parts, &p->io) == 0 && !p->out_of_memory &&
        check_whole(&r, p, flags) == 0) {
        while (r.depth > (mm ? 1u : 0u))
            sb_reader_pop(&r);
        rc = build(&r, p, out);
    }
    if (p->out_of_memory)
        rc = sb_fail(SPACRBENCH_ENOMEM, "out of memory reading %s", name);
    else if (r.failed) /* else rc, an ENOMEM, has its message */
        rc = sb_fail(r.failed == SB_READ_TYPE ? SPACRBENCH_ETYPE : SPACRBENCH_EINVAL, "%s",
                     r.message);
    json_doc_free(&doc);
    return rc;
}

int spacrbench_measurement_from_json(const char *json, size_t len, const char *name, uint32_t flags,
                                     spacrbench_measurement **out)
{
    SB_REFUSE(!out, "out must not be NULL");
    *out = NULL;
    if (!json && len)
        return sb_fail(SPACRBENCH_EINVAL, "json is NULL but len is %zu", len);
    if (flags & ~(uint32_t)SPACRBENCH_READ_STOPPED)
        return sb_fail(SPACRBENCH_EINVAL, "flags 0x%x: only SPACRBENCH_READ_STOPPED is known",
                       (unsigned)flags);
    parsed p;
    parsed_init(&p);
    int rc = read_measurement(json ? json : "", len, name ? name : "data", flags, &p, out);
    parsed_free(&p);
    if (rc < 0) {
        spacrbench_measurement_free(*out);
        *out = NULL;
        return rc;
    }
    sb_clear_error();
    return 0;
}

const char *spacrbench_measurement_item_label(const spacrbench_measurement *m, size_t index)
{
    return m && index < m->label_count ? m->labels[index] : NULL;
}
