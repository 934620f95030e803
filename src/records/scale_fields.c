/* A scaling check's points and the document around them
 * (spacrbench_scale_to_json; the schema's "scaling" and "scaling_*"). */
#include "records.h"

#define POINT(key, type, member, flags, lo, extra)                                                 \
    SB_FIELD(key, type, spacrbench_scale_point, 0, member, flags, lo, INT64_MAX, extra)
#define SPREAD(key, type, member, flags)                                                           \
    SB_FIELD(key, type, spacrbench_scale_spread, 1, member, flags, 0, INT64_MAX, NULL)

enum { N = SB_FIELD_NULLABLE, REQ = SB_FIELD_REQUIRED };
enum { B = SB_FIELD_BYTES, S = SB_FIELD_SECONDS };

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
