/* The measurement's "plate" member (docs/spacrbench.schema.json): its
 * section's figures, one pick per record (with the record's footprint and
 * seconds) and its notes, by the plate's field tables (src/records/);
 * nothing at all for a measurement that carries no plate section. */
#include "report.h"

static void write_lists(void *ctx, json_writer *w, const sb_field *f)
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

void sb_json_plate(json_writer *w, const char *key, const spacrbench_measurement *m)
{
    if (!m->plate)
        return; /* optional: only a plate's measurement has the member */
    const sb_record_io io = {(void *)m, write_lists, NULL};
    const void *parts[] = {&m->plate->info};
    sb_record_write(w, key, &sb_plate_record, parts, &io);
}
