/* The library's JSON objects, each by its field table (src/records/):
 * json_objects.c (the measurement, machine, recommendation, schedule),
 * json_timeline.c (the measurement's timeline), json_plate.c (its plate
 * section) and scale_output.c (the scaling check). Not installed. */
#ifndef SPACRBENCH_OUTPUT_JSON_RECORDS_H
#define SPACRBENCH_OUTPUT_JSON_RECORDS_H

#include <stddef.h>

#include "internal.h"
#include "record.h"

/* The object of rec (from parts, io for its lists) handed to a caller
 * snprintf-style: its length, or a negative code with a message. */
int sb_json_deliver_record(const sb_record *rec, const void *const *parts, const sb_record_io *io,
                           char *buf, size_t cap);

/* The measurement's timeline as the member key, null without one. */
struct spacrbench_measurement;
void sb_json_timeline(json_writer *w, const char *key, const struct spacrbench_measurement *m);
/* Its plate section as the member key (json_plate.c); nothing without one. */
void sb_json_plate(json_writer *w, const char *key, const struct spacrbench_measurement *m);

#endif
