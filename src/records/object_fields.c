/* The objects a --json document holds beside the measurement: the
 * machine, the recommendation and the schedule (written only); the scaling
 * check's points and the document around them (spacrbench_scale_to_json);
 * the enums the tables spell, by the library's one spelling of each
 * (abi/names.c), and the list of every record. */
#include "records.h"

enum { N = SB_FIELD_NULLABLE, REQ = SB_FIELD_REQUIRED, B = SB_FIELD_BYTES, S = SB_FIELD_SECONDS };

#define MC(key, type, member, flags, extra)                                                        \
    SB_FIELD(key, type, struct spacrbench_machine, 0, member, flags, 0, INT64_MAX, extra)
/* A count that is at least one. */
#define MC1(key, member, flags)                                                                    \
    SB_FIELD(key, SB_FT_INT, struct spacrbench_machine, 0, member, flags, 1, INT64_MAX, NULL)

static const sb_field k_machine[] = {
    MC("available_bytes", SB_FT_INT, available_bytes, B, NULL),
    MC("host_available_bytes", SB_FT_INT, host_available_bytes, N | B, NULL),
    MC("memory_source", SB_FT_NAME, memory_source, 0, &sb_source_names),
    MC("memory_limit_bytes", SB_FT_INT, memory_limit_bytes, N | B, NULL),
    MC("memory_cgroup", SB_FT_CHARS, memory_cgroup, 0, NULL),
    MC1("cores", cores, 0),
    MC("cores_source", SB_FT_NAME, cores_source, 0, &sb_source_names),
    MC1("affinity_cores", affinity_cores, N),
    MC("cpu_quota_cores", SB_FT_NUMBER, cpu_quota_cores, N, NULL),
    MC("cores_cgroup", SB_FT_CHARS, cores_cgroup, 0, NULL),
};
const sb_record sb_machine_record = SB_RECORD("machine", k_machine);

#define RC(key, type, member, flags, extra)                                                        \
    SB_FIELD(key, type, spacrbench_recommendation, 0, member, flags, 0, INT64_MAX, extra)
#define RC1(key, member)                                                                           \
    SB_FIELD(key, SB_FT_INT, spacrbench_recommendation, 0, member, 0, 1, INT64_MAX, NULL)

static const sb_field k_recommendation[] = {
    RC1("workers", workers),
    RC("bound", SB_FT_NAME, bound, 0, &sb_bound_names),
    RC("reason", SB_FT_CHARS, reason, 0, NULL),
    RC("cores", SB_FT_INT, cores, 0, NULL),
    RC("cores_source", SB_FT_NAME, cores_source, 0, &sb_source_names),
    RC("cores_where", SB_FT_CHARS, cores_where, 0, NULL),
    RC("cpu_parallelism", SB_FT_NUMBER, cpu_parallelism, N, NULL),
    RC1("cores_per_worker", cores_per_worker),
    RC1("core_workers", core_workers),
    RC1("threads_per_worker", threads_per_worker),
    RC("available_bytes", SB_FT_INT, available_bytes, B, NULL),
    RC("memory_source", SB_FT_NAME, memory_source, 0, &sb_source_names),
    RC("memory_where", SB_FT_CHARS, memory_where, 0, NULL),
    RC("memory_limit_bytes", SB_FT_INT, memory_limit_bytes, N | B, NULL),
    RC("reserve_bytes", SB_FT_INT, reserve_bytes, B, NULL),
    RC("reserve_rule", SB_FT_NAME, reserve_rule, 0, &sb_reserve_rule_names),
    RC("start_method", SB_FT_NAME, start_method, 0, &sb_start_method_names),
    RC("baseline_bytes", SB_FT_INT, baseline_bytes, B, NULL),
    RC("per_worker_bytes", SB_FT_INT, per_worker_bytes, N | B, NULL),
    RC("memory_workers", SB_FT_INT, memory_workers, N, NULL),
    RC1("maximum", maximum),
    RC("per_worker_vram_bytes", SB_FT_INT, per_worker_vram_bytes, N | B, NULL),
    RC("free_vram_bytes", SB_FT_INT, free_vram_bytes, N | B, NULL),
    RC("vram_reserve_bytes", SB_FT_INT, vram_reserve_bytes, B, NULL),
    RC("vram_workers", SB_FT_INT, vram_workers, N, NULL),
    RC("oom_limit_bytes", SB_FT_INT, oom_limit_bytes, B, NULL),
};
const sb_record sb_recommendation_record = SB_RECORD("recommendation", k_recommendation);

#define SC(key, type, member, flags)                                                               \
    SB_FIELD(key, type, spacrbench_schedule, 0, member, flags, 0, INT64_MAX, NULL)
#define SC1(key, member)                                                                           \
    SB_FIELD(key, SB_FT_INT, spacrbench_schedule, 0, member, 0, 1, INT64_MAX, NULL)

static const sb_field k_schedule[] = {
    SC1("cpus_per_task", cpus_per_task),
    SC("mem_per_task_bytes", SB_FT_INT, mem_per_task_bytes, B),
    SC1("array_concurrency", array_concurrency),
    SC1("n_workers", n_workers),
    SC1("threads_per_worker", threads_per_worker),
    SC("memory_limit_bytes", SB_FT_INT, memory_limit_bytes, B),
    SC("margin", SB_FT_NUMBER, margin, 0),
    SC("margin_floor_bytes", SB_FT_INT, margin_floor_bytes, B),
};
const sb_record sb_schedule_record = SB_RECORD("schedule", k_schedule);

#define POINT(key, type, member, flags, lo, extra)                                                 \
    SB_FIELD(key, type, spacrbench_scale_point, 0, member, flags, lo, INT64_MAX, extra)
#define SPREAD(key, type, member, flags)                                                           \
    SB_FIELD(key, type, spacrbench_scale_spread, 1, member, flags, 0, INT64_MAX, NULL)

static const sb_field k_point[] = {
    POINT("workers", SB_FT_INT, workers, REQ, 1, NULL),
    POINT("items", SB_FT_INT, items, REQ, 0, NULL),
    POINT("seconds", SB_FT_NUMBER, seconds, REQ | S, 0, NULL),
    POINT("items_per_second", SB_FT_NUMBER, items_per_second, N, 0, NULL),
    POINT("speedup", SB_FT_NUMBER, speedup, N, 0, NULL),
    POINT("efficiency", SB_FT_NUMBER, efficiency, N, 0, NULL),
    POINT("mean_item_seconds", SB_FT_NUMBER, mean_item_seconds, N | S, 0, NULL),
    POINT("peak_bytes", SB_FT_INT, peak_bytes, REQ | N | B, 0, NULL),
    POINT("peak_method", SB_FT_NAME, peak_method, 0, 0, &sb_peak_method_names),
    POINT("vram_peak_bytes", SB_FT_INT, vram_peak_bytes, N | B, 0, NULL),
    POINT("fits", SB_FT_BOOL, fits, N, 0, NULL),
    POINT("failed", SB_FT_BOOL, failed, REQ, 0, NULL),
    SPREAD("repeats", SB_FT_INT, repeats, 0),
    SPREAD("spread", SB_FT_NUMBER, spread, N),
    SPREAD("items_per_second_min", SB_FT_NUMBER, items_per_second_min, N),
    SPREAD("items_per_second_max", SB_FT_NUMBER, items_per_second_max, N),
    SPREAD("warmup_items", SB_FT_INT, warmup_items, N),
    SPREAD("oom_killed", SB_FT_BOOL, oom_killed, 0), /* 1 and 2 are both true */
    SPREAD("group_limit_bytes", SB_FT_INT, limit_bytes, N | B),
};
const sb_record sb_scale_point_record = SB_RECORD("scale point", k_point);

#define SUMMARY(key, type, member, flags, lo, extra)                                               \
    SB_FIELD(key, type, spacrbench_scale_summary, 0, member, flags, lo, INT64_MAX, extra)

static const sb_field k_scale[] = {
    SB_FIELD_OF("scaling", SB_FT_LIST, REQ, &sb_scale_point_record),
    SUMMARY("scaling_workers", SB_FT_INT, chosen_workers, N, 1, NULL),
    SUMMARY("scaling_best_workers", SB_FT_INT, best_workers, N, 1, NULL),
    SUMMARY("scaling_reason", SB_FT_CHARS, reason, 0, 0, NULL),
    SUMMARY("scaling_verdict", SB_FT_NAME, verdict, 0, 0, &sb_verdict_names),
    SUMMARY("scaling_budget_bytes", SB_FT_INT, memory_budget_bytes, N | B, 0, NULL),
    SUMMARY("scaling_peak_method", SB_FT_NAME, peak_method, 0, 0, &sb_peak_method_names),
    SB_FIELD_OF("scaling_notes", SB_FT_LIST, N, NULL),
};
const sb_record sb_scale_record = SB_RECORD("scaling check", k_scale);

#define ONLY(code) (UINT32_C(1) << (code))

const sb_names sb_peak_method_names = {spacrbench_peak_method_name, 8, -1, 0};
const sb_names sb_source_names = {spacrbench_source_name, 11, -1, 0};
/* Where a VRAM figure comes from; none: null. */
const sb_names sb_vram_source_names = {
    spacrbench_source_name, 11, SPACRBENCH_SOURCE_UNKNOWN,
    ONLY(SPACRBENCH_SOURCE_NVML) | ONLY(SPACRBENCH_SOURCE_TORCH) | ONLY(SPACRBENCH_SOURCE_CALLER)};
const sb_names sb_bound_names = {spacrbench_bound_name, 7, -1, 0};
const sb_names sb_start_method_names = {spacrbench_start_method_name, 3, -1, 0};
const sb_names sb_reserve_rule_names = {spacrbench_reserve_rule_name, 3, -1, 0};
const sb_names sb_verdict_names = {spacrbench_scale_verdict_name, 4, -1, 0};
const sb_names sb_task_outcome_names = {sb_task_outcome_name, SB_TASK_OUTCOMES, -1, 0};

const sb_record *const sb_all_records[] = {
    &sb_measurement_record,   &sb_item_record,           &sb_run_record,
    &sb_gpu_record,           &sb_timeline_record,       &sb_timeline_point_record,
    &sb_timeline_item_record, &sb_scale_point_record,    &sb_scale_record,
    &sb_task_record_fields,   &sb_job_env_record,        &sb_manifest_record,
    &sb_machine_record,       &sb_recommendation_record, &sb_schedule_record,
    &sb_plate_record,         &sb_plate_pick_record};
const size_t sb_all_records_count = sizeof sb_all_records / sizeof sb_all_records[0];
