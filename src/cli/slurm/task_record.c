/* See task_record.h. */
#include "task_record.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

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

static void int_or_null(json_writer *w, const char *key, long long v)
{
    if (v >= 0)
        json_int(w, key, v);
    else
        json_null(w, key);
}

static const char *outcome(const task_end *e)
{
    if (e->failed) {
        if (e->exec_errno)
            return "not_started";
        if (e->timed_out)
            return "timeout";
        if (e->oom_killed)
            return "oom";
        if (WIFSIGNALED(e->wait_status))
            return "signal";
        return "exit";
    }
    return e->interrupted_by ? "interrupted" : "ok";
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
    json_begin_object(w, "task");
    json_string(w, "outcome", outcome(e));
    int signalled = e->failed && !e->exec_errno && WIFSIGNALED(e->wait_status);
    int_or_null(w, "exit_status", exit_status(e));
    int_or_null(w, "signal",
                signalled ? WTERMSIG(e->wait_status)
                          : (e->interrupted_by ? e->interrupted_by : -1));
    int_or_null(w, "oom_limit_bytes", e->failed && e->oom_killed ? e->oom_limit_bytes : -1);
    if (e->failed && e->timed_out)
        json_double(w, "timeout_seconds", e->timeout_seconds);
    else
        json_null(w, "timeout_seconds");
    int_or_null(w, "item_index", e->failed ? (long long)e->failed_index : -1);
    json_string(w, "item", e->item);
    int_or_null(w, "failed_item_peak_bytes", e->failed ? e->failed_peak : -1);
    json_int(w, "items", (int64_t)e->items);
    json_int(w, "completed", (int64_t)e->completed);
    json_double(w, "elapsed_seconds", e->elapsed_seconds);
    json_string(w, "array_job_id", getenv("SLURM_ARRAY_JOB_ID"));
    int_or_null(w, "array_task_id", env_count("SLURM_ARRAY_TASK_ID"));
    json_string(w, "job_id", getenv("SLURM_JOB_ID"));
    /* The job script's key: summarize tells its manifest from another array's. */
    json_string(w, "array_key", getenv("SPACRBENCH_ARRAY_KEY"));
    /* The submission's own range, so summarize knows which tasks a newer
     * submission was meant to rerun (its other reports are stale). */
    json_begin_object(w, "array");
    int_or_null(w, "min", env_count("SLURM_ARRAY_TASK_MIN"));
    int_or_null(w, "max", env_count("SLURM_ARRAY_TASK_MAX"));
    int_or_null(w, "step", env_count("SLURM_ARRAY_TASK_STEP"));
    int_or_null(w, "count", env_count("SLURM_ARRAY_TASK_COUNT"));
    json_end_object(w);
    json_begin_object(w, "requested");
    long long cpus = env_count("SLURM_CPUS_PER_TASK");
    long long mem = env_count("SLURM_MEM_PER_NODE"), per_cpu = env_count("SLURM_MEM_PER_CPU");
    if (mem < 0 && per_cpu >= 0)
        mem = per_cpu * (cpus > 0 ? cpus : 1);
    int_or_null(w, "mem_bytes", mem >= 0 && mem < (1LL << 43) ? mem << 20 : -1);
    int_or_null(w, "cpus", cpus);
    int_or_null(w, "time_minutes", env_count("SPACRBENCH_TIME_LIMIT_MINUTES"));
    json_end_object(w);
    json_end_object(w);
}
