/* spacrbench_recommendation_from_json: a run's recommendation back from its
 * JSON, through the recommendation's field table (src/records/) and the
 * one reader, as written, not decided again: a plot of a saved run draws
 * what its report said. A problem is named as summarize names one
 * ("data.recommendation.workers"). */
#include <math.h>

#include "internal.h"
#include "records.h"

int spacrbench_recommendation_from_json(const char *json, size_t len, const char *name,
                                        spacrbench_recommendation *out)
{
    sb_clear_error();
    if (!out || (!json && len))
        return sb_fail(SPACRBENCH_EINVAL, "out must not be NULL, nor json NULL with len %zu", len);
    name = name ? name : "data";
    const json_limits limits = {64, len / 2 + 16, JSON_KEEP_UNHELD | JSON_NONFINITE};
    json_doc doc;
    if (json_parse(&doc, json ? json : "", len, &limits) != 0)
        return sb_fail(SPACRBENCH_EINVAL, "%s is not JSON: %s", name, doc.error);
    sb_reader r;
    sb_reader_init(&r, &doc, SB_READ_QUOTED, name);
    const json_node *node = json_root(&doc);
    if (node->kind == JSON_OBJECT && !json_get(&doc, node, "workers")) {
        sb_reader_push_key(&r, "recommendation"); /* a whole --json document */
        node = json_get(&doc, node, "recommendation");
    }
    spacrbench_recommendation rec = {.size = sizeof rec,
                                     .memory_limit_bytes = -1,
                                     .per_worker_bytes = -1,
                                     .memory_workers = -1,
                                     .per_worker_vram_bytes = -1,
                                     .free_vram_bytes = -1,
                                     .vram_workers = -1,
                                     .cpu_parallelism = -1.0};
    int rc = 0;
    void *const parts[] = {&rec};
    if (node && node->kind != JSON_NULL &&
        sb_record_read(&r, node, &sb_recommendation_record, parts, NULL) == 0) {
        if (isnan(rec.cpu_parallelism)) /* null: the struct's "unknown" */
            rec.cpu_parallelism = -1.0;
        rc = sb_struct_out(out, &rec, sizeof rec, "spacrbench_recommendation");
        rc = rc < 0 ? rc : 1;
    }
    if (r.failed)
        rc = sb_fail(r.failed == SB_READ_TYPE ? SPACRBENCH_ETYPE : SPACRBENCH_EINVAL, "%s",
                     r.message);
    json_doc_free(&doc);
    return rc;
}
