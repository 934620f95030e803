/* The measurement and what it holds: its item records, GPUs, timeline and
 * plate section (docs/spacrbench.schema.json: $defs measurement, record,
 * gpu, timeline, plate, plate_pick). The plate's is written only when the
 * measurement carries one (`run --sample`, benchmark_plate()). */
#include "records.h"

#define FIG(key, type, member, flags, lo, hi, extra)                                               \
    SB_FIELD(key, type, spacrbench_figures, 0, member, flags, lo, hi, extra)
#define MORE(key, type, member, flags)                                                             \
    SB_FIELD(key, type, sb_measurement_more, 1, member, flags, 0, INT64_MAX, NULL)

enum { N = SB_FIELD_NULLABLE, REQ = SB_FIELD_REQUIRED, DER = SB_FIELD_DERIVED };
enum { B = SB_FIELD_BYTES, S = SB_FIELD_SECONDS };

static const sb_field k_measurement[] = {
    FIG("items", SB_FT_INT, items, REQ, 0, INT64_MAX, NULL),
    FIG("seconds", SB_FT_NUMBER, seconds, REQ | S, 0, INT64_MAX, NULL),
    MORE("items_per_second", SB_FT_NUMBER, items_per_second, DER | N),
    MORE("per_item_seconds", SB_FT_NUMBER, per_item_seconds, DER | N | S),
    FIG("peak_rss_bytes", SB_FT_INT, peak_rss_bytes, REQ | N | B, 0, INT64_MAX, NULL),
    FIG("baseline_rss_bytes", SB_FT_INT, baseline_rss_bytes, B, 0, INT64_MAX, NULL),
    MORE("work_rss_bytes", SB_FT_INT, work_rss_bytes, DER | N | B),
    MORE("cgroup_charge_bytes", SB_FT_INT, cgroup_charge_bytes, DER | N | B),
    MORE("tree_rss_peak_bytes", SB_FT_INT, tree_rss_peak_bytes, DER | N | B),
    FIG("peak_method", SB_FT_NAME, peak_method, 0, 0, INT64_MAX, &sb_peak_method_names),
    FIG("sample_interval_us", SB_FT_INT, sample_interval_us, 0, 0, INT64_MAX, NULL),
    FIG("peak_vram_bytes", SB_FT_INT, peak_vram_bytes, N | B, 0, INT64_MAX, NULL),
    FIG("vram_source", SB_FT_NAME, vram_source, N, 0, INT64_MAX, &sb_vram_source_names),
    MORE("vram_reason", SB_FT_TEXT, vram_reason, N),
    FIG("cpu_seconds", SB_FT_NUMBER, cpu_seconds, N | S, 0, INT64_MAX, NULL),
    FIG("warmup_items", SB_FT_INT, warmup_items, 0, 0, INT64_MAX, NULL),
    FIG("warmup_seconds", SB_FT_NUMBER, warmup_seconds, S, 0, INT64_MAX, NULL),
    FIG("stopped", SB_FT_BOOL, stopped, 0, 0, 1, NULL),
    FIG("work_result", SB_FT_INT, work_result, 0, INT32_MIN, INT32_MAX, NULL),
    FIG("stopped_item", SB_FT_INT, stopped_item, N, 0, INT64_MAX, NULL),
    FIG("oom_limit_bytes", SB_FT_INT, oom_limit_bytes, B, 0, INT64_MAX, NULL),
    MORE("runs", SB_FT_INT, runs.runs, DER),
    MORE("seconds_stddev", SB_FT_NUMBER, runs.stddev, DER | N | S),
    MORE("seconds_min", SB_FT_NUMBER, runs.min, DER | N | S),
    MORE("seconds_max", SB_FT_NUMBER, runs.max, DER | N | S),
    SB_FIELD_OF("records", SB_FT_LIST, N, &sb_item_record),
    SB_FIELD_OF("notes", SB_FT_LIST, N, NULL),
    SB_FIELD_OF("gpus", SB_FT_LIST, N, &sb_gpu_record),
    SB_FIELD_OF("timeline", SB_FT_NESTED, N, &sb_timeline_record),
    SB_FIELD_OF("plate", SB_FT_NESTED, SB_FIELD_OPTIONAL, &sb_plate_record),
};
const sb_record sb_measurement_record = SB_RECORD("measurement", k_measurement);

#define REC(key, type, member, flags, words)                                                       \
    SB_FIELD_W(key, type, spacrbench_item_record, 0, member, flags, 0, INT64_MAX, NULL, words)
#define ITEM(key, type, member, flags, words)                                                      \
    SB_FIELD_W(key, type, sb_item_more, 1, member, flags, 0, INT64_MAX, NULL, words)

static const sb_field k_item[] = {
    REC("index", SB_FT_INT, index, REQ | SB_FIELD_ORDINAL, "#"),
    SB_FIELD_W("item", SB_FT_TEXT, sb_item_more, 1, item, N | SB_FIELD_OPTIONAL, 0, INT64_MAX, NULL,
               "item"),
    REC("is_warmup", SB_FT_BOOL, is_warmup, 0, "warm-up"),
    REC("seconds", SB_FT_NUMBER, seconds, REQ | S, "seconds"),
    REC("peak_rss_bytes", SB_FT_INT, peak_rss_bytes, N | B, "peak RSS"),
    REC("peak_vram_bytes", SB_FT_INT, peak_vram_bytes, N | B, "peak VRAM"),
    /* Since 1.3 (the CSV's cpu_seconds column was already this figure). */
    ITEM("cpu_seconds", SB_FT_NUMBER, cpu_seconds, N | S, "CPU seconds"),
    ITEM("cgroup_charge_bytes", SB_FT_INT, cgroup_charge_bytes, N | B, "charged"),
    ITEM("tree_rss_peak_bytes", SB_FT_INT, tree_rss_peak_bytes, N | B, "tree RSS"),
    SB_FIELD_W("runs", SB_FT_INT, sb_item_more, 1, runs.runs, DER, 1, INT64_MAX, NULL, NULL),
    ITEM("seconds_stddev", SB_FT_NUMBER, runs.stddev, DER | N | S, "\xc2\xb1 s"),
    ITEM("seconds_min", SB_FT_NUMBER, runs.min, DER | N | S, "min s"),
    ITEM("seconds_max", SB_FT_NUMBER, runs.max, DER | N | S, "max s"),
    SB_FIELD_OF("run_records", SB_FT_LIST, N, &sb_run_record),
};
const sb_record sb_item_record = SB_RECORD("record", k_item);

#define RUN(key, type, member, flags)                                                              \
    SB_FIELD(key, type, spacrbench_item_run, 0, member, flags, 0, INT64_MAX, NULL)

static const sb_field k_run[] = {
    RUN("seconds", SB_FT_NUMBER, seconds, REQ | S),
    RUN("cpu_seconds", SB_FT_NUMBER, cpu_seconds, N | S),
    RUN("peak_rss_bytes", SB_FT_INT, peak_rss_bytes, N | B),
    RUN("peak_vram_bytes", SB_FT_INT, peak_vram_bytes, N | B),
    RUN("cgroup_charge_bytes", SB_FT_INT, cgroup_charge_bytes, N | B),
    RUN("tree_rss_peak_bytes", SB_FT_INT, tree_rss_peak_bytes, N | B),
};
const sb_record sb_run_record = SB_RECORD("run", k_run);

#define GPU(key, type, member, flags)                                                              \
    SB_FIELD(key, type, spacrbench_gpu_info, 0, member, flags, 0, INT64_MAX, NULL)

static const sb_field k_gpu[] = {
    GPU("index", SB_FT_INT, index, REQ),
    GPU("name", SB_FT_CHARS, name, N), /* null reads as "" */
    GPU("total_bytes", SB_FT_INT, total_bytes, N | B),
    GPU("free_bytes", SB_FT_INT, free_bytes, N | B),
    GPU("process_peak_bytes", SB_FT_INT, process_peak_bytes, N | B),
};
const sb_record sb_gpu_record = SB_RECORD("gpu", k_gpu);

#define TL(key, type, member, flags, lo)                                                           \
    SB_FIELD(key, type, spacrbench_timeline_info, 0, member, flags, lo, INT64_MAX, NULL)

static const sb_field k_timeline[] = {
    TL("interval_us", SB_FT_INT, interval_us, REQ, 0),
    TL("samples", SB_FT_INT, samples, REQ, 0),
    TL("stride", SB_FT_INT, stride, 0, 1),
    TL("downsampled", SB_FT_BOOL, downsampled, DER, 0),
    TL("max_points", SB_FT_INT, max_points, 0, 1),
    SB_FIELD_OF("points", SB_FT_LIST, N, &sb_timeline_point_record),
    SB_FIELD_OF("items", SB_FT_LIST, N, &sb_timeline_item_record),
};
const sb_record sb_timeline_record = SB_RECORD("timeline", k_timeline);

#define POINT(key, type, member, flags)                                                            \
    SB_FIELD(key, type, spacrbench_timeline_point, 0, member, flags, 0, INT64_MAX, NULL)

static const sb_field k_point[] = {
    POINT("seconds", SB_FT_NUMBER, seconds, REQ | S),
    POINT("rss_bytes", SB_FT_INT, rss_bytes, N | B),
    POINT("cgroup_bytes", SB_FT_INT, cgroup_bytes, N | B),
    SB_FIELD("cpu_seconds", SB_FT_NUMBER, sb_point_more, 1, cpu_seconds, N | S, 0, INT64_MAX, NULL),
};
const sb_record sb_timeline_point_record = SB_RECORD("timeline point", k_point);

#define MARK(key, type, member, flags)                                                             \
    SB_FIELD(key, type, spacrbench_timeline_item, 0, member, flags, 0, INT64_MAX, NULL)

static const sb_field k_mark[] = {
    MARK("index", SB_FT_INT, index, REQ),
    MARK("is_warmup", SB_FT_BOOL, is_warmup, 0),
    MARK("start_seconds", SB_FT_NUMBER, start_seconds, REQ | S),
    MARK("end_seconds", SB_FT_NUMBER, end_seconds, REQ | S),
    MARK("peak_rss_bytes", SB_FT_INT, peak_rss_bytes, N | B),
    MARK("peak_seconds", SB_FT_NUMBER, peak_seconds, REQ | S),
};
const sb_record sb_timeline_item_record = SB_RECORD("timeline item", k_mark);

#define ONLY(code) (UINT32_C(1) << (code))

const sb_names sb_plate_key_names = {spacrbench_plate_key_name, 3, -1, 0};
const sb_names sb_plate_fit_names = {spacrbench_plate_fit_name, 6, -1, 0};
const sb_names sb_plate_why_names = {
    spacrbench_plate_why_name, 7, -1,
    ONLY(SPACRBENCH_PLATE_WHY_LARGEST) | ONLY(SPACRBENCH_PLATE_WHY_SMALLEST) |
        ONLY(SPACRBENCH_PLATE_WHY_SPREAD) | ONLY(SPACRBENCH_PLATE_WHY_WARMUP) |
        ONLY(SPACRBENCH_PLATE_WHY_EVEN) | ONLY(SPACRBENCH_PLATE_WHY_RANDOM)};

enum { ORD = SB_FIELD_ORDINAL };
/* A number that may be negative (a correlation, a line's intercept): not
 * written when NaN, so a negative value is never taken for null. */
enum { SIGNED = SB_FIELD_OPTIONAL };

#define PS(key, type, member, flags, lo, extra)                                                    \
    SB_FIELD(key, type, spacrbench_plate_section, 0, member, flags, lo, INT64_MAX, extra)

static const sb_field k_plate[] = {
    PS("items", SB_FT_INT, items, REQ, 1, NULL),
    PS("key", SB_FT_NAME, key_kind, REQ, 0, &sb_plate_key_names),
    PS("key_name", SB_FT_CHARS, key_name, REQ, 0, NULL),
    PS("median_key", SB_FT_NUMBER, median_key, N, 0, NULL),
    PS("fit", SB_FT_NAME, fit, REQ, 0, &sb_plate_fit_names),
    PS("time_fit", SB_FT_NAME, time_fit, 0, 0, &sb_plate_fit_names),
    PS("correlation", SB_FT_NUMBER, correlation, SIGNED, -1, NULL),
    PS("slope_bytes_per_key", SB_FT_NUMBER, slope_bytes_per_key, SIGNED, -1, NULL),
    PS("intercept_bytes", SB_FT_NUMBER, intercept_bytes, SIGNED, -1, NULL),
    PS("largest_index", SB_FT_INT, largest_index, N | ORD, 0, NULL),
    PS("largest_key", SB_FT_NUMBER, largest_key, N, 0, NULL),
    PS("largest_bytes", SB_FT_INT, largest_bytes, N | B, 0, NULL),
    PS("largest_measured_bytes", SB_FT_INT, largest_measured_bytes, N | B, 0, NULL),
    PS("spread_bytes", SB_FT_INT, spread_bytes, N | B, 0, NULL),
    PS("slowest_seconds", SB_FT_NUMBER, slowest_seconds, N | S, 0, NULL),
    PS("total_seconds", SB_FT_NUMBER, total_seconds, N | S, 0, NULL),
    PS("workers", SB_FT_INT, workers, N, 1, NULL),
    PS("eta_seconds", SB_FT_NUMBER, eta_seconds, N | S, 0, NULL),
    PS("seed", SB_FT_INT, seed, N, 0, NULL),
    SB_FIELD_OF("picks", SB_FT_LIST, REQ, &sb_plate_pick_record),
    SB_FIELD_OF("notes", SB_FT_LIST, N, NULL),
};
const sb_record sb_plate_record = SB_RECORD("plate", k_plate);

#define PK(key, type, member, flags, extra)                                                        \
    SB_FIELD(key, type, spacrbench_plate_pick, 0, member, flags, 0, INT64_MAX, extra)

static const sb_field k_pick[] = {
    PK("index", SB_FT_INT, index, REQ | ORD, NULL),
    PK("key", SB_FT_NUMBER, key, N, NULL),
    PK("why", SB_FT_NAME, why, REQ, &sb_plate_why_names),
    PK("is_warmup", SB_FT_BOOL, is_warmup, 0, NULL),
    PK("footprint_bytes", SB_FT_INT, footprint_bytes, DER | N | B, NULL),
    PK("seconds", SB_FT_NUMBER, seconds, DER | N | S, NULL),
};
const sb_record sb_plate_pick_record = SB_RECORD("plate pick", k_pick);
