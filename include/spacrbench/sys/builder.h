/*
 * A measurement built by parts (since 1.1): from figures taken elsewhere,
 * item by item (the one construction the runner, `spacrbench run` and the
 * Python binding use), and the setters of copies and readers.
 *
 * sys/ promises the same stable C ABI as every public header (nothing
 * exported is removed or changed; structs grow by their size field), but
 * it is lower-level: the parts spacrbench's own command and Python binding
 * are built from, for tools that measure or copy measurements themselves.
 * Nothing in <spacrbench.h> or the topic headers depends on it.
 */
/* First spacrbench.h, outside the guard: whichever header a program
 * includes, every header is then read in spacrbench.h's order. */
#include "../../spacrbench.h"

#ifndef SPACRBENCH_PUBLIC_SYS_BUILDER_H
#define SPACRBENCH_PUBLIC_SYS_BUILDER_H

#ifdef __cplusplus
extern "C" {
#endif

/* SPACRBENCH_CDEF_BEGIN */

/* --- Constructors: a measurement from figures taken elsewhere ---------- */

/* Build a measurement from caller-supplied figures (bindings, external
 * commands). peak_method SPACRBENCH_PEAK_NONE becomes SUPPLIED. */
SPACRBENCH_EXTERN int spacrbench_measurement_create(const spacrbench_figures *figures,
                                                    spacrbench_measurement **out);
SPACRBENCH_EXTERN int spacrbench_measurement_add_note(spacrbench_measurement *m, const char *note);
SPACRBENCH_EXTERN int spacrbench_measurement_add_record(spacrbench_measurement *m,
                                                        const spacrbench_item_record *record);
/* Since 1.1.
 * Append count records at once (the counterpart of copy_records): records
 * is an array of elements of record_size bytes, each validated as by
 * spacrbench_measurement_add_record; on an error nothing is appended. */
SPACRBENCH_EXTERN int spacrbench_measurement_add_records(spacrbench_measurement *m,
                                                         const void *records, size_t count,
                                                         size_t record_size);
SPACRBENCH_EXTERN int spacrbench_measurement_add_gpu(spacrbench_measurement *m,
                                                     const spacrbench_gpu_info *gpu);

/* --- The builder (since 1.1) -------------------------------------------- */

/* Since 1.1.
 * Building a measurement item by item: the one construction used by the
 * runner, `spacrbench run` and the Python binding. The plan gives what is
 * known before the first item; each item then adds its own figures; the
 * builder classifies warm-up items (the warm-up is clamped so the last
 * planned item is measured), sums time and CPU of the measured items, keeps
 * the largest peak, and writes the notes. */
typedef struct spacrbench_run_plan {
    size_t size;
    int64_t items;              /* items to run, warm-up included; >= 1 */
    int64_t warmup;             /* requested warm-up items; >= 0 */
    int32_t peak_method;        /* spacrbench_peak_method of the item peaks */
    int32_t records;            /* 1: keep a record per item */
    int64_t sample_interval_us; /* 0 when no sampler ran */
    int64_t baseline_rss_bytes; /* >= 0; 0 when every item is its own process */
    int32_t vram_source;        /* spacrbench_source of the items' VRAM (NVML, ...) */
    int32_t reserved;           /* must be 0 */
} spacrbench_run_plan;

/* Since 1.1. */
typedef struct spacrbench_item_figures {
    size_t size;
    double seconds;          /* wall time; finite, >= 0 */
    double cpu_seconds;      /* user+sys; NaN if unknown, else finite >= 0 */
    int64_t peak_rss_bytes;  /* -1 = not measured */
    int64_t peak_vram_bytes; /* -1 = not measured */
} spacrbench_item_figures;

/* Since 1.1. */
SPACRBENCH_EXTERN int spacrbench_run_plan_init(spacrbench_run_plan *plan, size_t size);
/* Since 1.1. */
SPACRBENCH_EXTERN int spacrbench_item_figures_init(spacrbench_item_figures *item, size_t size);
/* Since 1.1. */
SPACRBENCH_EXTERN int spacrbench_measurement_begin(const spacrbench_run_plan *plan,
                                                   spacrbench_measurement **out);
/* Since 1.1.
 * Add the next item (index = items added so far). ERANGE past the plan. */
SPACRBENCH_EXTERN int spacrbench_measurement_add_item(spacrbench_measurement *m,
                                                      const spacrbench_item_figures *item);
/* Since 1.1.
 * The run was stopped by item `item_index` (counted or not), which returned
 * work_result. The caller adds its own note saying why. */
SPACRBENCH_EXTERN int spacrbench_measurement_mark_stopped(spacrbench_measurement *m,
                                                          int64_t item_index, int work_result);
/* Since 1.1.
 * An item was killed by the kernel's out-of-memory killer under a limit of
 * limit_bytes: one worker needs MORE than that. The peak becomes at least
 * the limit and is marked a lower bound; the recommendation then says so
 * ("one worker needs more than ...") instead of falling back to cores. */
SPACRBENCH_EXTERN int spacrbench_measurement_mark_out_of_memory(spacrbench_measurement *m,
                                                                int64_t limit_bytes);
/* Since 1.1.
 * Close the measurement: warm-up notes, the peak over the items and the
 * baseline. Items added afterwards are refused (EINVAL). */
SPACRBENCH_EXTERN int spacrbench_measurement_end(spacrbench_measurement *m);

/* Since 1.1.
 * Why VRAM was not measured ("" when it was, or nobody said): part of the
 * measurement, so a rebuilt measurement reports the same words. Said while
 * the measurement is being built (before spacrbench_measurement_end), it
 * also marks the items' VRAM not measured: the run's peak and every
 * record's become -1 at the end. */
SPACRBENCH_EXTERN int spacrbench_measurement_set_vram_reason(spacrbench_measurement *m,
                                                             const char *reason);

/* --- Since 1.2: each item's CPU time, hugetlb pages a front end's peak misses -- */

/* Set the CPU seconds of item record `index`
 * (spacrbench_measurement_item_cpu_seconds reads them). */
SPACRBENCH_EXTERN int spacrbench_measurement_set_item_cpu_seconds(spacrbench_measurement *m,
                                                                  size_t index, double cpu_seconds);
/* hugetlb pages (MAP_HUGETLB) are in neither RSS, VmHWM nor a memory
 * cgroup's charge. A front end that measures processes itself (`spacrbench
 * run`) and adds the HugetlbPages it sampled to the peak calls this once
 * its items are measured: where some were seen, or the system can hand
 * such pages out, m's report then never calls the peak exact, and a note
 * says what was seen (seen_bytes; -1 or 0: none) at what sampling period;
 * elsewhere nothing changes. Said once. EINVAL for a NULL m, seen_bytes <
 * -1 or a period outside (0, 3600] s. */
SPACRBENCH_EXTERN int spacrbench_measurement_note_hugetlb(spacrbench_measurement *m,
                                                          int64_t seen_bytes,
                                                          double interval_seconds);

/* --- Since 1.3: an item's two memory figures and its repeated runs, a plate
 * section by parts ------------------------------------------------------ */

/* Set the figures of record index (added already). EINVAL below -1. */
SPACRBENCH_EXTERN int spacrbench_measurement_set_item_memory(spacrbench_measurement *m,
                                                             size_t index,
                                                             const spacrbench_memory_figures *f);
/* Builder: the next item from its count (1 to SPACRBENCH_RUNS_MAX) timed
 * runs, an array of run_size-byte elements: its record's seconds and CPU
 * seconds are their means (CPU NaN when a run's is unknown), its peaks
 * and memory figures their largest, and the runs are kept with it. */
SPACRBENCH_EXTERN int spacrbench_measurement_add_item_runs(spacrbench_measurement *m,
                                                           const void *runs, size_t count,
                                                           size_t run_size);
/* The runs of record index as given (a copy: a measurement read back, or
 * rebuilt by a binding); count 0 drops them. Nothing is derived. */
SPACRBENCH_EXTERN int spacrbench_measurement_set_item_runs(spacrbench_measurement *m, size_t index,
                                                           const void *runs, size_t count,
                                                           size_t run_size);
/* A plate section (spacrbench/plate.h) by parts (a reader, a copy):
 * _begin replaces m's section with s's figures and no picks or notes; then
 * one pick per record, in order (index, key, why and is_warmup are kept;
 * the measured figures come from the record), then the notes. EINVAL for figures out of range (items < 1,
 * an index past the plate, a pick's warm-up flag not its record's), ERANGE
 * for more picks than records, before _begin. */
SPACRBENCH_EXTERN int spacrbench_measurement_plate_begin(spacrbench_measurement *m,
                                                         const spacrbench_plate_section *s);
SPACRBENCH_EXTERN int spacrbench_measurement_plate_add_pick(spacrbench_measurement *m,
                                                            const spacrbench_plate_pick *pick);
SPACRBENCH_EXTERN int spacrbench_measurement_plate_add_note(spacrbench_measurement *m,
                                                            const char *note);
/* A VRAM peak from a source the library does not read itself
 * (SPACRBENCH_SOURCE_TORCH: a binding's torch.cuda.max_memory_reserved(),
 * or CALLER) for a measurement that has none: the peak and source are
 * set, and why VRAM was not measured goes, with the note that said so.
 * EINVAL for a NULL m, a peak below 0, another source, or a measured peak. */
SPACRBENCH_EXTERN int spacrbench_measurement_set_vram(spacrbench_measurement *m,
                                                      int64_t peak_vram_bytes, int32_t source);

/* SPACRBENCH_CDEF_END */

#ifdef __cplusplus
}
#endif

#endif /* SPACRBENCH_PUBLIC_SYS_BUILDER_H */
