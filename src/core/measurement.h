/* The opaque measurement behind spacrbench_measurement. */
#ifndef SPACRBENCH_MEASUREMENT_H
#define SPACRBENCH_MEASUREMENT_H

#include "internal.h"

/* spaCR's words when no CUDA device could be used: a run's vram_reason is
 * "no CUDA device: <why>", and the report keeps "not measured (no CUDA
 * device)" first, as spaCR printed it. */
#define SB_WORDS_NO_CUDA "no CUDA device"

/* What a record holds beyond spacrbench_item_record (measurement_items.c):
 * its two memory figures and the timed runs it summarises. */
typedef struct sb_item_extra {
    int64_t charge;            /* cgroup charge peak, -1 none */
    int64_t tree_rss;          /* the process tree's RSS peak, -1 none */
    spacrbench_item_run *runs; /* NULL: the record is its one run */
    size_t run_count;
} sb_item_extra;

struct spacrbench_measurement {
    spacrbench_figures fig; /* the *_count fields are filled on read */
    char **notes;
    size_t note_count, note_cap;
    spacrbench_item_record *records;
    size_t record_count, record_cap;
    spacrbench_gpu_info *gpus;
    size_t gpu_count, gpu_cap;
    char *vram_reason; /* why VRAM was not measured, for the report; NULL: none */
    char **labels;     /* of the first label_count records, as read back from JSON
                          (measurement_read.c); NULL: none */
    size_t label_count;

    struct sb_timeline *timeline; /* memory over time (timeline.h); NULL: none */
    double *item_cpu;             /* per record, NaN unknown; NULL: none known */
    size_t item_cpu_cap;
    sb_item_extra *extras; /* per record; NULL: none set */
    size_t extra_cap;
    /* The builder's state (spacrbench_measurement_begin .. _end). */
    int building;             /* begun and not yet ended */
    int keep_records;         /* the plan asked for a record per item */
    int cpu_unknown;          /* a measured item had no CPU figure */
    size_t plan_items;        /* items planned, warm-up included */
    size_t warmup;            /* requested warm-up */
    size_t clamped;           /* warm-up after the clamp: the last item is measured */
    size_t added;             /* items added so far */
    int64_t item_peak;        /* largest item peak so far, -1 none */
    int64_t item_vram;        /* largest item VRAM so far, -1 none */
    int32_t plan_vram_source; /* where the items' VRAM came from */
    size_t spacr_notes;       /* notes up to here are spaCR's own words (the warm-up) */
    int hugetlb_uncovered;    /* hugetlb pages could escape the peak: never "exact" */

    struct sb_measured_plate *plate; /* the plate section (measurement_plate.c); NULL: none */
    /* A plate's hand-off: its peak (its slowest item) is a prediction of
     * an item not measured, not a measurement. */
    int peak_predicted, slowest_predicted;
};

/* The plate section a measurement carries (measurement_plate.c). */
typedef struct sb_measured_plate {
    spacrbench_plate_section info;
    spacrbench_plate_pick *picks; /* one per record, in order; their figures unused */
    size_t pick_count, pick_cap;
    char **notes;
    size_t note_count, note_cap;
} sb_measured_plate;
void sb_measured_plate_free(sb_measured_plate *p);
/* "predicted" for a plate's hand-off measurement, else "measured": the
 * hand-off's texts say which their peak is. */
const char *sb_measurement_peak_word(const spacrbench_measurement *m);
/* "predicted " before "slowest item" for a plate's hand-off, else "". */
const char *sb_measurement_slowest_word(const spacrbench_measurement *m);
/* A copy of m for a plate's hand-off: its peak largest bytes above m's
 * baseline (when more than m's own), one more record of `slowest` seconds
 * (when finite); largest_measured: the plate's largest item was itself
 * measured (its texts then say "measured", else "predicted"). */
int sb_plate_handoff_of(const spacrbench_measurement *m, int64_t largest, int largest_measured,
                        double slowest, spacrbench_measurement **out);
/* Record index's extras, or NULL when none were set. */
const sb_item_extra *sb_measurement_extra(const spacrbench_measurement *m, size_t index);
/* Whether any record has a memory figure / keeps runs. */
int sb_measurement_has_memory_figures(const spacrbench_measurement *m);
int sb_measurement_has_runs(const spacrbench_measurement *m);
/* What the JSON, CSV and Markdown write of record i beyond its struct
 * (records.h: label, CPU, memory figures, the spread of its runs), and of
 * the measurement beyond its figures. */
struct sb_item_more;
struct sb_measurement_more;
void sb_measurement_item_more(const spacrbench_measurement *m, size_t i, const char *label,
                              struct sb_item_more *out);
void sb_measurement_more_of(const spacrbench_measurement *m, struct sb_measurement_more *out);
/* The extras room freed. */
void sb_measurement_free_extras(spacrbench_measurement *m);

/* An empty measurement with "not measured" sentinels. */
spacrbench_measurement *sb_measurement_new(void);
/* Room for n records up front, so the timed loop never allocates. */
int sb_measurement_reserve_records(spacrbench_measurement *m, size_t n);
/* Room for n records, committed (touched) now: a run's record memory is
 * part of the baseline, never of the work's footprint. */
int sb_measurement_commit_records(spacrbench_measurement *m, size_t n);
/* For a runner that times the measured window as a whole (no per-item
 * calls): the builder's item counts after done_items items ran. */
void sb_measurement_count_items(spacrbench_measurement *m, size_t done_items);
/* Replace the VRAM reason; ENOMEM on failure. */
int sb_measurement_vram_reason(spacrbench_measurement *m, const char *reason);
/* VRAM turned out not to be measured after all: the run's figure and
 * every record's become -1 (the caller gives the reason). */
void sb_measurement_drop_vram(spacrbench_measurement *m);
/* Append a formatted note; SPACRBENCH_ENOMEM on failure. */
int sb_measurement_notef(spacrbench_measurement *m, const char *fmt, ...) SB_PRINTF(2, 3);
/* A note in spaCR's words: after the others of spaCR's (m->spacr_notes),
 * before spacrbench's, as spaCR listed them first. */
int sb_measurement_spacr_notef(spacrbench_measurement *m, const char *fmt, ...) SB_PRINTF(2, 3);

#endif
