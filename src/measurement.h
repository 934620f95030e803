/* The opaque measurement behind spacrbench_measurement. */
#ifndef SPACRBENCH_MEASUREMENT_H
#define SPACRBENCH_MEASUREMENT_H

#include "internal.h"

struct spacrbench_measurement {
    spacrbench_figures fig; /* the *_count fields are filled on read */
    char **notes;
    size_t note_count, note_cap;
    spacrbench_item_record *records;
    size_t record_count, record_cap;
    spacrbench_gpu_info *gpus;
    size_t gpu_count, gpu_cap;
    char vram_why[256]; /* why VRAM was not measured, for the report */
};

/* An empty measurement with "not measured" sentinels. */
spacrbench_measurement *sb_measurement_new(void);
/* Room for n records up front, so the timed loop never allocates. */
int sb_measurement_reserve_records(spacrbench_measurement *m, size_t n);
/* Append a formatted note; SPACRBENCH_ENOMEM on failure. */
int sb_measurement_notef(spacrbench_measurement *m, const char *fmt, ...) SB_PRINTF(2, 3);

#endif
