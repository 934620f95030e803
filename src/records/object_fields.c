/* The objects a --json document holds beside the measurement: the
 * machine, the recommendation and the schedule (written only). */
#include "records.h"

enum { N = SB_FIELD_NULLABLE, B = SB_FIELD_BYTES };

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
