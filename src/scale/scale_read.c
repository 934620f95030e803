/* spacrbench_scale_from_json: a scaling check back from its JSON, through
 * the field tables (src/records/) and the one reader (util/record.c): the
 * points, the knee and the notes as written, not decided again (the plot
 * of a saved run shows the knee that run chose). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "records.h"
#include "scale.h"

/* More points than any worker-count list of the check has. */
#define MAX_POINTS 4096u

typedef struct parsed {
    spacrbench_scale_result *r;
    int out_of_memory;
} parsed;

/* The points (each a point and its spread, by the point's record) or the
 * notes (texts). */
static int read_lists(void *ctx, sb_reader *rd, const sb_field *f, const json_node *value)
{
    parsed *p = ctx;
    spacrbench_scale_result *r = p->r;
    long long n = sb_read_list(rd, value, 1);
    if (n <= 0)
        return (int)n;
    const int points = f->extra == &sb_scale_point_record;
    if (points ? !(r->points = calloc((size_t)n, sizeof *r->points)) ||
                     !(r->spreads = calloc((size_t)n, sizeof *r->spreads))
               : !(r->notes = calloc((size_t)n, sizeof *r->notes))) {
        p->out_of_memory = 1;
        return -1;
    }
    if (points)
        r->n_points = (size_t)n;
    size_t i = 0;
    for (const json_node *e = json_child(rd->doc, value, 0); e && !rd->failed;
         e = json_next(rd->doc, e), i++) {
        sb_reader_push_index(rd, i);
        const char *note = points ? NULL : sb_read_string(rd, e);
        if (note && !(r->notes[r->n_notes++] = strdup(note)))
            p->out_of_memory = 1;
        if (points) {
            spacrbench_scale_point_init(&r->points[i], sizeof r->points[i]);
            spacrbench_scale_spread_init(&r->spreads[i], sizeof r->spreads[i]);
            void *const parts[] = {&r->points[i], &r->spreads[i]};
            if (sb_record_read(rd, e, f->extra, parts, NULL) == 0 && i > 0 &&
                r->points[i].workers <= r->points[i - 1].workers) {
                sb_reader_push_key(rd, "workers");
                sb_reader_fail(rd, SB_READ_VALUE, 1, "is %lld, not more than the %lld before it",
                               (long long)r->points[i].workers,
                               (long long)r->points[i - 1].workers);
            }
        }
        sb_reader_pop(rd);
    }
    return rd->failed || p->out_of_memory ? -1 : 0;
}

/* The point of `workers` workers, or NULL. */
static const spacrbench_scale_point *point_of(const spacrbench_scale_result *r, int64_t workers)
{
    for (size_t i = 0; i < r->n_points; i++)
        if (r->points[i].workers == workers)
            return &r->points[i];
    return NULL;
}

/* The knee and the best count name points of the check. */
static int check_counts(sb_reader *rd, spacrbench_scale_result *r)
{
    spacrbench_scale_summary *s = &r->summary;
    static const char *const keys[] = {"scaling_workers", "scaling_best_workers"};
    const int64_t counts[] = {s->chosen_workers, s->best_workers};
    for (int k = 0; k < 2; k++)
        if (counts[k] >= 0 && !point_of(r, counts[k])) {
            sb_reader_push_key(rd, keys[k]);
            return sb_reader_fail(rd, SB_READ_VALUE, 1, "is %lld, not a worker count of its points",
                                  (long long)counts[k]);
        }
    const spacrbench_scale_point *best = s->best_workers >= 0 ? point_of(r, s->best_workers) : NULL;
    s->best_items_per_second = best ? best->items_per_second : NAN;
    s->point_count = (int64_t)r->n_points;
    s->note_count = (int64_t)r->n_notes;
    return 0;
}

int spacrbench_scale_from_json(const char *json, size_t len, const char *name,
                               spacrbench_scale_result **out)
{
    SB_REFUSE(!out, "out must not be NULL");
    *out = NULL;
    if (!json && len)
        return sb_fail(SPACRBENCH_EINVAL, "json is NULL but len is %zu", len);
    name = name ? name : "data";
    const json_limits limits = {64, len / 2 + 16, JSON_KEEP_UNHELD | JSON_NONFINITE};
    json_doc doc;
    if (json_parse(&doc, json ? json : "", len, &limits) != 0)
        return sb_fail(SPACRBENCH_EINVAL, "%s is not JSON: %s", name, doc.error);
    parsed p = {calloc(1, sizeof *p.r), 0};
    int rc = 0;
    if (!p.r) {
        json_doc_free(&doc);
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory");
    }
    spacrbench_scale_summary *s = &p.r->summary;
    s->size = sizeof *s;
    s->chosen_workers = s->best_workers = s->memory_budget_bytes = -1;
    s->best_items_per_second = NAN;
    s->verdict = SPACRBENCH_SCALE_NONE;
    s->peak_method = SPACRBENCH_PEAK_NONE;
    sb_reader rd;
    sb_reader_init(&rd, &doc, SB_READ_PYTHON, name);
    rd.max_entries = MAX_POINTS;
    const sb_record_io io = {&p, NULL, read_lists};
    void *const parts[] = {s};
    if (sb_record_read(&rd, json_root(&doc), &sb_scale_record, parts, &io) == 0 && !p.out_of_memory)
        check_counts(&rd, p.r);
    if (p.out_of_memory)
        rc = sb_fail(SPACRBENCH_ENOMEM, "out of memory reading %s", name);
    else if (rd.failed)
        rc = sb_fail(rd.failed == SB_READ_TYPE ? SPACRBENCH_ETYPE : SPACRBENCH_EINVAL, "%s",
                     rd.message);
    json_doc_free(&doc);
    if (rc < 0) {
        spacrbench_scale_free(p.r);
        return rc;
    }
    *out = p.r;
    return 0;
}
