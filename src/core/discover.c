/* Public machine discovery: combine what the platform probe read into the
 * memory and cores this process may really use. Platform-neutral. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core.h"

static void copy_dir(char *dst, size_t cap, const char *src)
{
    /* A directory longer than the public field keeps its start: the
     * hierarchy and the outer levels are what a reader recognises. */
    snprintf(dst, cap, "%.*s", (int)(cap - 1), src);
}

void sb_machine_from_probe(const sb_probe *p, spacrbench_machine *out)
{
    memset(out, 0, sizeof *out);
    out->size = sizeof *out;

    out->host_available_bytes = p->host_available_bytes >= 0 ? p->host_available_bytes : -1;
    out->memory_limit_bytes = -1;
    if (p->memory_source != SPACRBENCH_SOURCE_UNKNOWN && p->memory_headroom_bytes >= 0 &&
        (p->host_available_bytes < 0 || p->memory_headroom_bytes < p->host_available_bytes)) {
        out->available_bytes = p->memory_headroom_bytes;
        out->memory_source = p->memory_source;
        out->memory_limit_bytes = p->memory_limit_bytes;
        copy_dir(out->memory_cgroup, sizeof out->memory_cgroup, p->memory_dir);
    } else if (p->host_available_bytes >= 0) {
        out->available_bytes = p->host_available_bytes;
        out->memory_source = SPACRBENCH_SOURCE_HOST;
    } else {
        out->available_bytes = 0;
        out->memory_source = SPACRBENCH_SOURCE_UNKNOWN;
    }

    int64_t cores = p->affinity_cores >= 1 ? p->affinity_cores : INT64_MAX;
    out->affinity_cores = p->affinity_cores >= 1 ? p->affinity_cores : -1;
    /* Linux's probe leaves the source UNKNOWN: the affinity mask. */
    out->cores_source = p->affinity_source != SPACRBENCH_SOURCE_UNKNOWN
                            ? p->affinity_source
                            : SPACRBENCH_SOURCE_AFFINITY;
    if (p->cpuset_source != SPACRBENCH_SOURCE_UNKNOWN && p->cpuset_cores >= 1 &&
        p->cpuset_cores < cores) {
        cores = p->cpuset_cores;
        out->cores_source = SPACRBENCH_SOURCE_CPUSET;
        copy_dir(out->cores_cgroup, sizeof out->cores_cgroup, p->cpuset_dir);
    }
    out->cpu_quota_cores = -1;
    if (p->quota_source != SPACRBENCH_SOURCE_UNKNOWN && p->quota_cores > 0) {
        out->cpu_quota_cores = p->quota_cores;
        /* A fractional quota still lets one more worker make progress;
         * the epsilon keeps 3.0000000001 from becoming 4. */
        double whole = ceil(p->quota_cores - 1e-9);
        int64_t quota_cores = whole < 1 ? 1 : whole > 1e15 ? INT64_MAX : (int64_t)whole;
        if (quota_cores < cores) {
            cores = quota_cores;
            out->cores_source = p->quota_source;
            copy_dir(out->cores_cgroup, sizeof out->cores_cgroup, p->quota_dir);
        }
    }
    out->cores = cores == INT64_MAX || cores < 1 ? 1 : cores;
}

void sb_discover_with(const struct sb_probe_env *env, spacrbench_machine *out)
{
    sb_probe probe;
    sb_probe_machine(env, &probe);
    sb_machine_from_probe(&probe, out);
}

int spacrbench_discover(spacrbench_machine *out)
{
    SB_REFUSE(out == NULL, "spacrbench_discover: out is NULL");
    spacrbench_machine ours;
    sb_discover_with(NULL, &ours);
    return sb_struct_out(out, &ours, sizeof ours, "spacrbench_machine");
}

int64_t spacrbench_available_memory_bytes(void)
{
    spacrbench_machine m;
    sb_discover_with(NULL, &m);
    return m.available_bytes;
}

int64_t spacrbench_usable_cores(void)
{
    spacrbench_machine m;
    sb_discover_with(NULL, &m);
    return m.cores;
}
