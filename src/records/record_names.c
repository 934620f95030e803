/* The enums the field tables spell, by the library's one spelling of each
 * (abi/names.c), and the list of every record. */
#include "records.h"

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
