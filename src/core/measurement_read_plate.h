/* The "plate" member of a measurement's JSON, read back
 * (measurement_read_plate.c): by the plate's field tables, checked with
 * the records it describes, then built into the measurement. Not
 * installed. */
#ifndef SPACRBENCH_MEASUREMENT_READ_PLATE_H
#define SPACRBENCH_MEASUREMENT_READ_PLATE_H

#include "measurement.h"
#include "record.h"

/* What the member holds, pointing into the document until built. */
typedef struct sb_plate_parsed {
    int present;
    spacrbench_plate_section info;
    spacrbench_plate_pick *picks;
    size_t n_picks;
    const char **notes;
    size_t n_notes;
} sb_plate_parsed;

void sb_plate_parsed_init(sb_plate_parsed *pp);
void sb_plate_parsed_free(sb_plate_parsed *pp);
/* The member's value (null: none): 0, or -1 with the problem in r (or
 * *out_of_memory set). */
int sb_plate_parsed_read(sb_plate_parsed *pp, sb_reader *r, const json_node *value,
                         int *out_of_memory);
/* What it says with the records (the path is the measurement's): a pick
 * per record, the warm-up flags agree, each index an item of the plate,
 * no item twice. 0, or -1 with the problem. */
int sb_plate_parsed_check(sb_reader *r, const sb_plate_parsed *pp,
                          const spacrbench_item_record *records, size_t n_records);
/* A constructor's refusal (rc < 0), named by the path of what it refused
 * (measurement_read.c; the plate's reader uses it too): rc. */
int sb_read_refused(sb_reader *r, int rc);
/* Into m, whose records are in: 0 or a negative code (the path named). */
int sb_plate_parsed_build(sb_reader *r, const sb_plate_parsed *pp, spacrbench_measurement *m);

#endif
