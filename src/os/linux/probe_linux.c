/* The Linux probe: MemAvailable, the affinity mask, and the cgroup memory
 * and CPU bounds (cgroup.h). Another platform's probe is one more file
 * defining sb_probe_machine. */
#if defined(__linux__)

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"
#include "probe.h"

#define MEMINFO_LIMIT (64u * 1024u)

static int64_t host_available(const sb_probe_env *env)
{
    char *text = NULL;
    size_t len = 0;
    int truncated = 0;
    if (sb_cg_read_file(env->meminfo, MEMINFO_LIMIT, &text, &len, &truncated) != 0)
        return -1;
    int64_t bytes = -1;
    if (sb_parse_meminfo(text, len, "MemAvailable", &bytes) != SB_PARSE_OK)
        bytes = -1; /* kernels before 3.14 lack it; MemFree would overstate nothing useful */
    free(text);
    return bytes;
}

/* CPUs in our affinity mask; the mask is sized dynamically because hosts
 * with more than CPU_SETSIZE (1024) CPUs exist. */
static int64_t affinity_cores(void)
{
    for (int ncpu = 1024; ncpu <= 1 << 20; ncpu *= 2) {
        cpu_set_t *set = CPU_ALLOC((size_t)ncpu);
        if (set == NULL)
            break;
        size_t size = CPU_ALLOC_SIZE((size_t)ncpu);
        CPU_ZERO_S(size, set);
        if (sched_getaffinity(0, size, set) == 0) {
            int count = CPU_COUNT_S(size, set);
            CPU_FREE(set);
            return count > 0 ? count : -1;
        }
        int err = errno;
        CPU_FREE(set);
        if (err != EINVAL)
            break;
    }
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? online : -1;
}

static int32_t source_of(int version)
{
    return version == 1   ? SPACRBENCH_SOURCE_CGROUP_V1
           : version == 2 ? SPACRBENCH_SOURCE_CGROUP_V2
                          : SPACRBENCH_SOURCE_UNKNOWN;
}

void sb_probe_machine(const struct sb_probe_env *env_in, sb_probe *out)
{
    sb_probe_env loaded = env_in != NULL ? *env_in : sb_probe_env_live();
    sb_probe_env *env = &loaded;
    /* Read once for the memory, cpu and cpuset lookups below. */
    sb_probe_env_load(env);
    memset(out, 0, sizeof *out);

    out->host_available_bytes = host_available(env);
    out->affinity_cores = env->affinity_cores > 0 ? env->affinity_cores : affinity_cores();

    sb_cgroup_memory mem;
    sb_cgroup_memory_bound(env, &mem);
    out->memory_source = source_of(mem.version);
    out->memory_headroom_bytes = mem.headroom_bytes;
    out->memory_limit_bytes = mem.limit_bytes;
    snprintf(out->memory_dir, sizeof out->memory_dir, "%s", mem.dir);

    sb_cgroup_cpu cpu;
    sb_cgroup_cpu_bound(env, &cpu);
    out->quota_source = source_of(cpu.quota_version);
    out->quota_cores = cpu.quota_cores;
    snprintf(out->quota_dir, sizeof out->quota_dir, "%s", cpu.quota_dir);
    out->cpuset_source =
        cpu.cpuset_version != 0 ? SPACRBENCH_SOURCE_CPUSET : SPACRBENCH_SOURCE_UNKNOWN;
    out->cpuset_cores = cpu.cpuset_cores;
    snprintf(out->cpuset_dir, sizeof out->cpuset_dir, "%s", cpu.cpuset_dir);
    /* Only what this call loaded is freed; a caller's texts stay theirs. */
    if (!env_in || !env_in->cgroup_text) {
        free((char *)loaded.cgroup_text);
        loaded.cgroup_text = NULL;
    }
    if (!env_in || !env_in->mountinfo_text)
        free((char *)loaded.mountinfo_text);
}

#endif
