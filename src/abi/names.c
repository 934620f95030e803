/* The one spelling of every enum a user sees (libbpf's *_str idea): the
 * command's JSON, Python's to_dict() and the reports all read these. */
#include "internal.h"

#define SB_NAME_OF(table, value)                                                                   \
    ((value) >= 0 && (size_t)(value) < sizeof(table) / sizeof(table)[0] && (table)[value]          \
         ? (table)[value]                                                                          \
         : "unknown")
#define SB_NAME_FN(fn, table)                                                                      \
    const char *fn(int value) { return SB_NAME_OF(table, value); }

static const char *const peak_methods[] = {
    [SPACRBENCH_PEAK_NONE] = "none",
    [SPACRBENCH_PEAK_HWM_RESET] = "hwm_reset",
    [SPACRBENCH_PEAK_HWM_WINDOW] = "hwm_window",
    [SPACRBENCH_PEAK_SAMPLED] = "sampled",
    [SPACRBENCH_PEAK_CGROUP] = "cgroup",
    [SPACRBENCH_PEAK_CHILD_RUSAGE] = "child_rusage",
    [SPACRBENCH_PEAK_SUPPLIED] = "supplied",
    [SPACRBENCH_PEAK_PSS_SUM] = "pss_sum",
};

static const char *const sources[] = {
    [SPACRBENCH_SOURCE_UNKNOWN] = "unknown",     [SPACRBENCH_SOURCE_HOST] = "host",
    [SPACRBENCH_SOURCE_AFFINITY] = "affinity",   [SPACRBENCH_SOURCE_CGROUP_V1] = "cgroup_v1",
    [SPACRBENCH_SOURCE_CGROUP_V2] = "cgroup_v2", [SPACRBENCH_SOURCE_CALLER] = "caller",
    [SPACRBENCH_SOURCE_CPUSET] = "cpuset",       [SPACRBENCH_SOURCE_NVML] = "nvml",
    [SPACRBENCH_SOURCE_TORCH] = "torch",         [SPACRBENCH_SOURCE_JOB_OBJECT] = "job_object",
    [SPACRBENCH_SOURCE_SYSCTL] = "sysctl",
};

static const char *const bounds[] = {
    [SPACRBENCH_BOUND_NONE] = "none",         [SPACRBENCH_BOUND_MEMORY] = "memory",
    [SPACRBENCH_BOUND_CORES] = "cores",       [SPACRBENCH_BOUND_MAXIMUM] = "maximum",
    [SPACRBENCH_BOUND_FALLBACK] = "fallback", [SPACRBENCH_BOUND_ONE] = "one",
    [SPACRBENCH_BOUND_VRAM] = "vram",
};

static const char *const start_methods[] = {
    [SPACRBENCH_START_FORK] = "fork",
    [SPACRBENCH_START_SPAWN] = "spawn",
    [SPACRBENCH_START_FORKSERVER] = "forkserver",
};

static const char *const scale_verdicts[] = {
    [SPACRBENCH_SCALE_NONE] = "none",
    [SPACRBENCH_SCALE_LINEAR] = "linear",
    [SPACRBENCH_SCALE_SATURATED] = "saturated",
    [SPACRBENCH_SCALE_MEMORY] = "memory",
};

static const char *const reserve_rules[] = {
    [SPACRBENCH_RESERVE_CALLER] = "caller",
    [SPACRBENCH_RESERVE_HOST] = "host",
    [SPACRBENCH_RESERVE_LIMIT] = "limit",
};

SB_NAME_FN(spacrbench_peak_method_name, peak_methods)
SB_NAME_FN(spacrbench_source_name, sources)
SB_NAME_FN(spacrbench_bound_name, bounds)
SB_NAME_FN(spacrbench_start_method_name, start_methods)
SB_NAME_FN(spacrbench_reserve_rule_name, reserve_rules)
SB_NAME_FN(spacrbench_scale_verdict_name, scale_verdicts)

const char *spacrbench_error_name(int code)
{
    switch (code) {
    case SPACRBENCH_OK:
        return "OK";
#define SB_ERROR_NAME(name, value, text)                                                           \
    case value:                                                                                    \
        return #name;
        SPACRBENCH_ERROR_MAP(SB_ERROR_NAME)
#undef SB_ERROR_NAME
    default:
        return "EUNKNOWN";
    }
}

static const char *const plate_whys[] = {
    [SPACRBENCH_PLATE_WHY_LARGEST] = "largest_key",
    [SPACRBENCH_PLATE_WHY_SMALLEST] = "smallest_key",
    [SPACRBENCH_PLATE_WHY_SPREAD] = "spread",
    [SPACRBENCH_PLATE_WHY_WARMUP] = "warmup",
    [SPACRBENCH_PLATE_WHY_EVEN] = "even",
    [SPACRBENCH_PLATE_WHY_RANDOM] = "random",
};

static const char *const plate_fits[] = {
    [SPACRBENCH_PLATE_FIT_NONE] = "none",       [SPACRBENCH_PLATE_FIT_KEY] = "key",
    [SPACRBENCH_PLATE_FIT_UNIFORM] = "uniform", [SPACRBENCH_PLATE_FIT_UNEXPLAINED] = "unexplained",
    [SPACRBENCH_PLATE_FIT_KEYLESS] = "keyless", [SPACRBENCH_PLATE_FIT_FEW] = "few",
};

static const char *const plate_keys[] = {
    [SPACRBENCH_PLATE_KEY_NONE] = "none",
    [SPACRBENCH_PLATE_KEY_BYTES] = "bytes",
    [SPACRBENCH_PLATE_KEY_NUMBER] = "number",
};

SB_NAME_FN(spacrbench_plate_why_name, plate_whys)
SB_NAME_FN(spacrbench_plate_fit_name, plate_fits)
SB_NAME_FN(spacrbench_plate_key_name, plate_keys)
