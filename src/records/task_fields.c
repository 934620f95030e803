/* What `spacrbench run --report` writes for summarize: the "task" record
 * (how the run ended) and the "job" member (SLURM's environment). The
 * command writes them (cli/task_record.c), summarize reads them (cluster/).
 * And the array's manifest (spacrbench-array.json), written with the job
 * script (cluster/slurm_array.c), read by summarize and the next emit. */
#include <math.h>
#include <string.h>

#include "records.h"

static const char *const k_outcomes[SB_TASK_OUTCOMES] = {
    [SB_TASK_OK] = "ok",
    [SB_TASK_EXIT] = "exit",
    [SB_TASK_SIGNAL] = "signal",
    [SB_TASK_OOM] = "oom",
    [SB_TASK_TIMEOUT] = "timeout",
    [SB_TASK_NOT_STARTED] = "not_started",
    [SB_TASK_INTERRUPTED] = "interrupted",
};

const char *sb_task_outcome_name(int outcome)
{
    return outcome >= 0 && outcome < SB_TASK_OUTCOMES ? k_outcomes[outcome] : "unknown";
}

#define TASK(key, type, member, flags, lo, hi, extra)                                              \
    SB_FIELD(key, type, sb_task_record, 0, member, flags, lo, hi, extra)

enum { N = SB_FIELD_NULLABLE, B = SB_FIELD_BYTES, S = SB_FIELD_SECONDS };

/* A SLURM array index is below 2^22 (more than any MaxArraySize). */
#define ARRAY_MAX (INT64_C(1) << 22)

static const sb_field k_array[] = {
    TASK("min", SB_FT_INT, array_min, N, 0, ARRAY_MAX, NULL),
    TASK("max", SB_FT_INT, array_max, N, 0, ARRAY_MAX, NULL),
    TASK("step", SB_FT_INT, array_step, N, 0, ARRAY_MAX, NULL),
    TASK("count", SB_FT_INT, array_count, N, 0, ARRAY_MAX, NULL),
};
static const sb_record k_array_record = SB_RECORD("task array", k_array);

static const sb_field k_requested[] = {
    TASK("mem_bytes", SB_FT_INT, mem_bytes, N | B, 0, INT64_MAX, NULL),
    TASK("cpus", SB_FT_INT, cpus, N, 0, INT64_C(1) << 20, NULL),
    TASK("time_minutes", SB_FT_INT, time_minutes, N, 0, INT64_C(1) << 30, NULL),
};
static const sb_record k_requested_record = SB_RECORD("task requested", k_requested);

static const sb_field k_task[] = {
    TASK("outcome", SB_FT_NAME, outcome, SB_FIELD_REQUIRED, 0, 0, &sb_task_outcome_names),
    TASK("exit_status", SB_FT_INT, exit_status, N, 0, 255, NULL),
    TASK("signal", SB_FT_INT, signal, N, 1, 128, NULL),
    /* -1 was an older report's "unknown", as null is now. */
    TASK("oom_limit_bytes", SB_FT_INT, oom_limit_bytes, N | B, -1, INT64_MAX, NULL),
    TASK("timeout_seconds", SB_FT_NUMBER, timeout_seconds, N | S, 0, 0, NULL),
    TASK("item_index", SB_FT_INT, item_index, N, 0, INT64_MAX, NULL),
    TASK("item", SB_FT_TEXT, item, N, 0, 0, NULL),
    TASK("failed_item_peak_bytes", SB_FT_INT, failed_item_peak_bytes, N | B, 0, INT64_MAX, NULL),
    TASK("items", SB_FT_INT, items, 0, 0, INT64_MAX, NULL),
    TASK("completed", SB_FT_INT, completed, 0, 0, INT64_MAX, NULL),
    TASK("elapsed_seconds", SB_FT_NUMBER, elapsed_seconds, N | S, 0, 0, NULL),
    TASK("array_job_id", SB_FT_TEXT, array_job_id, N, 0, 0, NULL),
    TASK("array_task_id", SB_FT_INT, array_task_id, N, 0, ARRAY_MAX - 1, NULL),
    TASK("job_id", SB_FT_TEXT, job_id, N, 0, 0, NULL),
    TASK("array_key", SB_FT_TEXT, array_key, N, 0, 0, NULL),
    SB_FIELD_OF("array", SB_FT_OBJECT, 0, &k_array_record),
    SB_FIELD_OF("requested", SB_FT_OBJECT, 0, &k_requested_record),
};
const sb_record sb_task_record_fields = SB_RECORD("task", k_task);

void sb_task_record_init(sb_task_record *t)
{
    *t = (sb_task_record){.outcome = -1,
                          .exit_status = -1,
                          .signal = -1,
                          .oom_limit_bytes = -1,
                          .timeout_seconds = NAN,
                          .item_index = -1,
                          .failed_item_peak_bytes = -1,
                          .elapsed_seconds = NAN,
                          .array_task_id = -1,
                          .array_min = -1,
                          .array_max = -1,
                          .array_step = -1,
                          .array_count = -1,
                          .mem_bytes = -1,
                          .cpus = -1,
                          .time_minutes = -1};
}

#define ENV(key, member, flags) SB_FIELD(key, SB_FT_TEXT, sb_job_env, 0, member, flags, 0, 0, NULL)

/* Only what is set is written; the member exists when SLURM_JOB_ID is. */
static const sb_field k_job[] = {
    ENV("SLURM_JOB_ID", job_id, 0),
    ENV("SLURM_ARRAY_JOB_ID", array_job_id, N | SB_FIELD_OPTIONAL),
    ENV("SLURM_ARRAY_TASK_ID", array_task_id, N | SB_FIELD_OPTIONAL),
    ENV("SLURM_MEM_PER_NODE", mem_per_node, N | SB_FIELD_OPTIONAL),
    ENV("SLURM_CPUS_PER_TASK", cpus_per_task, N | SB_FIELD_OPTIONAL),
};
const sb_record sb_job_env_record = SB_RECORD("job", k_job);

#define MF(key, type, member, flags, lo, hi)                                                       \
    SB_FIELD(key, type, sb_manifest, 0, member, flags, lo, hi, NULL)

static const sb_field k_manifest_requested[] = {
    MF("mem_bytes", SB_FT_INT, mem_bytes, N | SB_FIELD_BYTES, 0, INT64_MAX),
    MF("cpus", SB_FT_INT, cpus, N, 0, INT64_C(1) << 20),
    MF("time_minutes", SB_FT_INT, time_minutes, N, 0, INT64_C(1) << 30),
};
static const sb_record k_manifest_requested_record =
    SB_RECORD("manifest requested", k_manifest_requested);

static const sb_field k_manifest[] = {
    MF("spacrbench_version", SB_FT_TEXT, spacrbench_version, N, 0, 0),
    MF("tasks", SB_FT_INT, tasks, SB_FIELD_REQUIRED, 1, INT64_C(1) << 22),
    MF("items_file", SB_FT_TEXT, items_file, N, 0, 0),
    MF("index", SB_FT_TEXT, index, N, 0, 0),
    MF("script", SB_FT_TEXT, script, N, 0, 0),
    MF("array_key", SB_FT_TEXT, array_key, N, 0, 0),
    MF("job_name", SB_FT_TEXT, job_name, N, 0, 0),
    SB_FIELD_OF("requested", SB_FT_OBJECT, 0, &k_manifest_requested_record),
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
