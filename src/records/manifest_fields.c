/* The array's manifest (spacrbench-array.json), written with the job
 * script (cluster/slurm_array.c) and read by summarize and by the next
 * emit into the same directory. */
#include "records.h"

#include <math.h>
#include <string.h>

#define MF(key, type, member, flags, lo, hi)                                                       \
    SB_FIELD(key, type, sb_manifest, 0, member, flags, lo, hi, NULL)

enum { N = SB_FIELD_NULLABLE };

static const sb_field k_requested[] = {
    MF("mem_bytes", SB_FT_INT, mem_bytes, N | SB_FIELD_BYTES, 0, INT64_MAX),
    MF("cpus", SB_FT_INT, cpus, N, 0, INT64_C(1) << 20),
    MF("time_minutes", SB_FT_INT, time_minutes, N, 0, INT64_C(1) << 30),
};
static const sb_record k_requested_record = SB_RECORD("manifest requested", k_requested);

static const sb_field k_manifest[] = {
    MF("spacrbench_version", SB_FT_TEXT, spacrbench_version, N, 0, 0),
    MF("tasks", SB_FT_INT, tasks, SB_FIELD_REQUIRED, 1, INT64_C(1) << 22),
    MF("items_file", SB_FT_TEXT, items_file, N, 0, 0),
    MF("index", SB_FT_TEXT, index, N, 0, 0),
    MF("script", SB_FT_TEXT, script, N, 0, 0),
    MF("array_key", SB_FT_TEXT, array_key, N, 0, 0),
    MF("job_name", SB_FT_TEXT, job_name, N, 0, 0),
    SB_FIELD_OF("requested", SB_FT_OBJECT, 0, &k_requested_record),
    MF("array_limit", SB_FT_INT, array_limit, 0, 0, INT64_MAX),
    MF("item_timeout_seconds", SB_FT_NUMBER, item_timeout_seconds, N | SB_FIELD_SECONDS, 0, 0),
    MF("no_cgroup", SB_FT_BOOL, no_cgroup, 0, 0, 1),
};
const sb_record sb_manifest_record = SB_RECORD("manifest", k_manifest);

void sb_manifest_init(sb_manifest *m)
{
    memset(m, 0, sizeof *m);
    m->mem_bytes = m->cpus = m->time_minutes = -1;
    m->item_timeout_seconds = NAN;
}

int sb_manifest_read(sb_reader *r, const json_node *root, sb_manifest *m)
{
    sb_manifest_init(m);
    void *const parts[] = {m};
    return sb_record_read(r, root, &sb_manifest_record, parts, NULL);
}

int sb_manifest_of(const char *text, size_t len, json_doc *doc, sb_manifest *m)
{
    const json_limits limits = {16, 4096, 0}; /* a manifest is small and flat */
    sb_manifest_init(m);
    if (json_parse(doc, text, len, &limits) != 0)
        return -1;
    sb_reader r;
    sb_reader_init(&r, doc, SB_READ_QUOTED, "");
    r.partial = 1;
    return sb_manifest_read(&r, json_root(doc), m);
}
