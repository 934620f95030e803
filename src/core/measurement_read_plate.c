/* See measurement_read_plate.h. */
#include "core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "records.h"

void sb_plate_parsed_init(sb_plate_parsed *pp)
{
    memset(pp, 0, sizeof *pp);
    spacrbench_plate_section_init(&pp->info, sizeof pp->info);
}

void sb_plate_parsed_free(sb_plate_parsed *pp)
{
    free(pp->picks);
    free(pp->notes);
}

typedef struct plate_ctx {
    sb_plate_parsed *pp;
    int *out_of_memory;
} plate_ctx;

static int read_lists(void *ctx, sb_reader *r, const sb_field *f, const json_node *value)
{
    plate_ctx *c = ctx;
    sb_plate_parsed *pp = c->pp;
    long long n = sb_read_list(r, value, f->flags & SB_FIELD_NULLABLE);
    if (n <= 0)
        return (int)n;
    if (f->extra == &sb_plate_pick_record) {
        if (!(pp->picks = calloc((size_t)n, sizeof *pp->picks))) {
            *c->out_of_memory = 1;
            return -1;
        }
        pp->n_picks = (size_t)n;
    } else if (!(pp->notes = calloc((size_t)n, sizeof *pp->notes))) {
        *c->out_of_memory = 1;
        return -1;
    } else
        pp->n_notes = (size_t)n;
    size_t i = 0;
    for (const json_node *e = json_child(r->doc, value, 0); e && !r->failed;
         e = json_next(r->doc, e), i++) {
        sb_reader_push_index(r, i);
        if (f->extra == &sb_plate_pick_record) {
            spacrbench_plate_pick *k = &pp->picks[i];
            *k = (spacrbench_plate_pick){sizeof *k, 0, NAN, 0, 0, -1, NAN};
            void *const parts[] = {k};
            sb_record_read(r, e, &sb_plate_pick_record, parts, NULL);
        } else
            pp->notes[i] = sb_read_string(r, e);
        sb_reader_pop(r);
    }
    return r->failed ? -1 : 0;
}

int sb_plate_parsed_read(sb_plate_parsed *pp, sb_reader *r, const json_node *value,
                         int *out_of_memory)
{
    if (value->kind == JSON_NULL)
        return 0; /* none, as when the member is absent */
    pp->present = 1;
    plate_ctx c = {pp, out_of_memory};
    const sb_record_io io = {&c, NULL, read_lists};
    void *const parts[] = {&pp->info};
    return sb_record_read(r, value, &sb_plate_record, parts, &io);
}

static int compare_index(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int sb_plate_parsed_check(sb_reader *r, const sb_plate_parsed *pp,
                          const spacrbench_item_record *records, size_t n_records)
{
    if (!pp->present)
        return 0;
    sb_reader_push_key(r, "plate");
    if (pp->info.largest_index >= pp->info.items) {
        sb_reader_push_key(r, "largest_index");
        return sb_reader_fail(r, SB_READ_VALUE, 1, "is %lld, past the plate's %lld items",
                              (long long)pp->info.largest_index, (long long)pp->info.items);
    }
    sb_reader_push_key(r, "picks");
    if (pp->n_picks != n_records)
        return sb_reader_fail(r, SB_READ_VALUE, 1,
                              "has %zu picks, not one per record (%zu records)", pp->n_picks,
                              n_records);
    int64_t *seen = malloc((pp->n_picks ? pp->n_picks : 1) * sizeof *seen);
    if (!seen)
        return sb_reader_fail(r, SB_READ_VALUE, 0, "out of memory reading the plate's picks");
    for (size_t i = 0; i < pp->n_picks; i++) {
        const spacrbench_plate_pick *k = &pp->picks[i];
        seen[i] = k->index;
        sb_reader_push_index(r, i);
        if (k->index >= pp->info.items) {
            sb_reader_push_key(r, "index");
            free(seen);
            return sb_reader_fail(r, SB_READ_VALUE, 1, "is %lld, past the plate's %lld items",
                                  (long long)k->index, (long long)pp->info.items);
        }
        if (!k->is_warmup != !records[i].is_warmup) {
            sb_reader_push_key(r, "is_warmup");
            free(seen);
            return sb_reader_fail(r, SB_READ_VALUE, 1, "is %s, but records[%zu] is %s",
                                  k->is_warmup ? "True" : "False", i,
                                  records[i].is_warmup ? "a warm-up item" : "not a warm-up item");
        }
        sb_reader_pop(r);
    }
    qsort(seen, pp->n_picks, sizeof *seen, compare_index);
    for (size_t i = 1; i < pp->n_picks; i++)
        if (seen[i] == seen[i - 1]) {
            long long twice = (long long)seen[i];
            free(seen);
            return sb_reader_fail(r, SB_READ_VALUE, 1, "measure item %lld twice", twice);
        }
    free(seen);
    sb_reader_pop(r);
    sb_reader_pop(r);
    return 0;
}

int sb_plate_parsed_build(sb_reader *r, const sb_plate_parsed *pp, spacrbench_measurement *m)
{
    if (!pp->present)
        return 0;
    sb_reader_push_key(r, "plate");
    int rc = sb_read_refused(r, spacrbench_measurement_plate_begin(m, &pp->info));
    sb_reader_push_key(r, "picks");
    for (size_t i = 0; i < pp->n_picks && rc == 0; i++) {
        sb_reader_push_index(r, i);
        rc = sb_read_refused(r, spacrbench_measurement_plate_add_pick(m, &pp->picks[i]));
        sb_reader_pop(r);
    }
    sb_reader_pop(r);
    for (size_t i = 0; i < pp->n_notes && rc == 0; i++)
        rc = sb_read_refused(r, spacrbench_measurement_plate_add_note(m, pp->notes[i]));
    sb_reader_pop(r);
    return rc;
}
