/* The plate section of a measurement (docs/spacrbench.schema.json: $defs
 * plate, plate_pick): how many items, which were measured and why (one
 * pick per record, in the records' order), the fit and key, the predicted
 * largest footprint and its item, the plate's time with the recommended
 * workers (the ETA), the notes. Written only when the measurement carries
 * one (`run --sample`, benchmark_plate()). */
#include "records.h"

#define ONLY(code) (UINT32_C(1) << (code))

const sb_names sb_plate_key_names = {spacrbench_plate_key_name, 3, -1, 0};
const sb_names sb_plate_fit_names = {spacrbench_plate_fit_name, 6, -1, 0};
const sb_names sb_plate_why_names = {
    spacrbench_plate_why_name, 7, -1,
    ONLY(SPACRBENCH_PLATE_WHY_LARGEST) | ONLY(SPACRBENCH_PLATE_WHY_SMALLEST) |
        ONLY(SPACRBENCH_PLATE_WHY_SPREAD) | ONLY(SPACRBENCH_PLATE_WHY_WARMUP) |
        ONLY(SPACRBENCH_PLATE_WHY_EVEN) | ONLY(SPACRBENCH_PLATE_WHY_RANDOM)};

enum { N = SB_FIELD_NULLABLE, REQ = SB_FIELD_REQUIRED, DER = SB_FIELD_DERIVED };
enum { B = SB_FIELD_BYTES, S = SB_FIELD_SECONDS, ORD = SB_FIELD_ORDINAL };
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
