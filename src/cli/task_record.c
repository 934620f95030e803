/* See task_record.h. */
#include "task_record.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "records.h"

/* A whole number from the environment, -1 when absent or not one. */
static long long env_count(const char *name)
{
    const char *v = getenv(name);
    if (!v || *v < '0' || *v > '9')
        return -1;
    char *end = NULL;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    return errno || *end ? -1 : n;
}

static int outcome(const task_end *e)
{
    if (e->failed) {
        if (e->exec_errno)
            return SB_TASK_NOT_STARTED;
        if (e->timed_out)
            return SB_TASK_TIMEOUT;
        if (e->oom_killed)
            return SB_TASK_OOM;
        if (WIFSIGNALED(e->wait_status))
            return SB_TASK_SIGNAL;
        return SB_TASK_EXIT;
    }
    return e->interrupted_by ? SB_TASK_INTERRUPTED : SB_TASK_OK;
}

/* The status a shell would give: 0, the command's own, 127/126 for one
 * that could not be started (not found / not executable), -1 (null) for a
 * signal. */
static long long exit_status(const task_end *e)
{
    if (!e->failed)
        return 0;
    if (e->exec_errno)
        return e->exec_errno == ENOENT ? 127 : 126;
    return WIFEXITED(e->wait_status) ? WEXITSTATUS(e->wait_status) : -1;
}

void task_record_describe(json_writer *w, const task_end *e)
{
    sb_task_record t;
    sb_task_record_init(&t);
    t.outcome = outcome(e);
    int signalled = e->failed && !e->exec_errno && WIFSIGNALED(e->wait_status);
    t.exit_status = exit_status(e);
    t.signal = signalled ? WTERMSIG(e->wait_status) : (e->interrupted_by ? e->interrupted_by : -1);
    if (e->failed && e->oom_killed)
        t.oom_limit_bytes = e->oom_limit_bytes;
    if (e->failed && e->timed_out)
        t.timeout_seconds = e->timeout_seconds;
    t.item_index = e->failed ? (long long)e->failed_index : -1;
    t.item = e->item;
    t.failed_item_peak_bytes = e->failed ? e->failed_peak : -1;
    t.items = (int64_t)e->items;
    t.completed = (int64_t)e->completed;
    t.elapsed_seconds = e->elapsed_seconds;
    t.array_job_id = getenv("SLURM_ARRAY_JOB_ID");
    t.array_task_id = env_count("SLURM_ARRAY_TASK_ID");
    t.job_id = getenv("SLURM_JOB_ID");
    /* The job script's key: summarize tells its manifest from another array's. */
    t.array_key = getenv("SPACRBENCH_ARRAY_KEY");
    /* The submission's own range, so summarize knows which tasks a newer
     * submission was meant to rerun (its other reports are stale). */
    t.array_min = env_count("SLURM_ARRAY_TASK_MIN");
    t.array_max = env_count("SLURM_ARRAY_TASK_MAX");
    t.array_step = env_count("SLURM_ARRAY_TASK_STEP");
    t.array_count = env_count("SLURM_ARRAY_TASK_COUNT");
    long long cpus = env_count("SLURM_CPUS_PER_TASK");
    long long mem = env_count("SLURM_MEM_PER_NODE"), per_cpu = env_count("SLURM_MEM_PER_CPU");
    if (mem < 0 && per_cpu >= 0)
        mem = per_cpu * (cpus > 0 ? cpus : 1);
    t.mem_bytes = mem >= 0 && mem < (1LL << 43) ? mem << 20 : -1;
    t.cpus = cpus;
    t.time_minutes = env_count("SPACRBENCH_TIME_LIMIT_MINUTES");
    const void *parts[] = {&t};
    sb_record_write(w, "task", &sb_task_record_fields, parts, NULL);
}
