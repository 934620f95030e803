/* The field table of every record the project writes as JSON and reads
 * back (util/record.h says how a table drives the writer, the reader, the
 * CSV columns and the schema check). Each record's parts are the library's
 * public structs, plus, where the JSON has members no public struct holds,
 * a small struct of its own declared here.
 *
 * Adding a field: one line in its table (the order is the JSON's), a
 * member in its part where none holds it yet, and its meaning in
 * docs/spacrbench.schema.json; tests/c/check_records.c fails until the
 * schema and the table agree. The writers, the reader, Measurement.from_dict,
 * the CSV and the plot helper follow from the table. */
#ifndef SPACRBENCH_RECORDS_H
#define SPACRBENCH_RECORDS_H

#include <stdint.h>

#include "record.h"
#include "spacrbench.h"

/* ---- the measurement (spacrbench_measurement_to_json, "measurement") ---- */

/* Parts: spacrbench_figures, sb_measurement_more. Its lists (records,
 * notes, gpus) and its timeline are the caller's (sb_record_io). */
typedef struct sb_measurement_more {
    double items_per_second; /* derived */
    double per_item_seconds; /* derived */
    int64_t work_rss_bytes;  /* derived */
    const char *vram_reason;
    /* derived: the largest of the records' (spacrbench_memory_figures) */
    int64_t cgroup_charge_bytes, tree_rss_peak_bytes;
    /* derived: of every timed run of the measured items; stddev, min and
     * max NaN (null) unless some record keeps its runs */
    spacrbench_run_stats runs;
} sb_measurement_more;
extern const sb_record sb_measurement_record;

/* Parts: spacrbench_item_record, sb_item_more. Its runs are a list (the
 * caller's sb_record_io, "runs" of each record, sb_run_record). */
typedef struct sb_item_more {
    const char *item;   /* the item's label; NULL: none (not written) */
    double cpu_seconds; /* NaN unknown */
    int64_t cgroup_charge_bytes, tree_rss_peak_bytes; /* -1 none */
    /* derived: of the runs it keeps (runs 1, the rest NaN: none kept) */
    spacrbench_run_stats runs;
} sb_item_more;
extern const sb_record sb_item_record;
/* Part: spacrbench_item_run. */
extern const sb_record sb_run_record;

/* Part: spacrbench_gpu_info. */
extern const sb_record sb_gpu_record;

/* Parts: spacrbench_timeline_info (downsampled filled by the writer); its
 * points (spacrbench_timeline_point) and items (spacrbench_timeline_item)
 * are lists. */
extern const sb_record sb_timeline_record;
/* Parts: spacrbench_timeline_point, sb_point_more. */
typedef struct sb_point_more {
    double cpu_seconds; /* the watched work's CPU since the run began; NaN none */
} sb_point_more;
extern const sb_record sb_timeline_point_record;
extern const sb_record sb_timeline_item_record;

/* Part: spacrbench_plate_section; its picks (spacrbench_plate_pick, one
 * per record) and notes are lists. */
extern const sb_record sb_plate_record;
extern const sb_record sb_plate_pick_record;
extern const sb_names sb_plate_key_names, sb_plate_fit_names, sb_plate_why_names;

/* ---- the scaling check (spacrbench_scale_to_json) ---- */

/* Parts: spacrbench_scale_point, spacrbench_scale_spread. */
extern const sb_record sb_scale_point_record;
/* The document around the points. Part: spacrbench_scale_summary; its
 * points and notes are lists. */
extern const sb_record sb_scale_record;

/* ---- what `spacrbench run --report` writes for summarize ---- */

/* How a run ended: the task record's "outcome". */
typedef enum sb_task_outcome {
    SB_TASK_OK,
    SB_TASK_EXIT,
    SB_TASK_SIGNAL,
    SB_TASK_OOM,
    SB_TASK_TIMEOUT,
    SB_TASK_NOT_STARTED,
    SB_TASK_INTERRUPTED,
    SB_TASK_OUTCOMES /* how many */
} sb_task_outcome;
const char *sb_task_outcome_name(int outcome);

/* The "task" member: how the run ended, as fields. -1 (NaN for times,
 * NULL for texts) is null. */
typedef struct sb_task_record {
    int32_t outcome; /* sb_task_outcome; -1 not given (read) */
    int64_t exit_status;
    int64_t signal;
    int64_t oom_limit_bytes;
    double timeout_seconds;
    int64_t item_index;
    const char *item;
    int64_t failed_item_peak_bytes;
    int64_t items, completed;
    double elapsed_seconds;
    const char *array_job_id;
    int64_t array_task_id;
    const char *job_id;
    const char *array_key;
    int64_t array_min, array_max, array_step, array_count; /* "array" */
    int64_t mem_bytes, cpus, time_minutes;                 /* "requested" */
} sb_task_record;
/* All null, outcome -1. */
void sb_task_record_init(sb_task_record *t);
extern const sb_record sb_task_record_fields;

/* The "job" member: SLURM's environment as given (NULL: not set). */
typedef struct sb_job_env {
    const char *job_id, *array_job_id, *array_task_id, *mem_per_node, *cpus_per_task;
} sb_job_env;
extern const sb_record sb_job_env_record;

/* ---- the array's manifest (spacrbench-array.json) ---- */

typedef struct sb_manifest {
    const char *spacrbench_version;
    int64_t tasks; /* 0..tasks-1 */
    const char *items_file, *index, *script, *array_key, *job_name;
    int64_t mem_bytes, cpus, time_minutes; /* "requested"; -1 unknown */
    int64_t array_limit;
    double item_timeout_seconds;
    int32_t no_cgroup;
} sb_manifest;
/* Everything unknown (tasks 0, -1, NaN, NULL). */
void sb_manifest_init(sb_manifest *m);
extern const sb_record sb_manifest_record;
/* The manifest root holds, by r (its texts point into r's document): 0,
 * or -1 with the problem in r. */
int sb_manifest_read(sb_reader *r, const json_node *root, sb_manifest *m);
/* The same of text, parsed into doc (json_doc_free it either way): 0, or
 * -1 when it is not a manifest that can be read. */
int sb_manifest_of(const char *text, size_t len, json_doc *doc, sb_manifest *m);

/* ---- the objects beside the measurement (written only) ---- */

extern const sb_record sb_machine_record;        /* struct spacrbench_machine */
extern const sb_record sb_recommendation_record; /* spacrbench_recommendation */
extern const sb_record sb_schedule_record;       /* spacrbench_schedule */

/* ---- the enums the tables spell (the library's names) ---- */

extern const sb_names sb_peak_method_names, sb_source_names, sb_vram_source_names, sb_bound_names,
    sb_start_method_names, sb_reserve_rule_names, sb_verdict_names, sb_task_outcome_names;

/* Every record above, for the schema check and the fuzzer. */
extern const sb_record *const sb_all_records[];
extern const size_t sb_all_records_count;

#endif
