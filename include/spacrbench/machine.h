/*
 * Machine discovery: the memory and cores this process, container or job
 * may really use (docs/discovery.md).
 */
/* First spacrbench.h, outside the guard: whichever header a program
 * includes, every header is then read in spacrbench.h's order. */
#include "../spacrbench.h"

#ifndef SPACRBENCH_PUBLIC_MACHINE_H
#define SPACRBENCH_PUBLIC_MACHINE_H

#ifdef __cplusplus
extern "C" {
#endif

/* SPACRBENCH_CDEF_BEGIN */

/* Where a figure of the machine (or of VRAM) came from. */
typedef enum spacrbench_source {
    SPACRBENCH_SOURCE_UNKNOWN = 0,
    SPACRBENCH_SOURCE_HOST = 1,     /* MemAvailable; GlobalMemoryStatusEx; host statistics */
    SPACRBENCH_SOURCE_AFFINITY = 2, /* sched_getaffinity; process affinity and processor groups */
    SPACRBENCH_SOURCE_CGROUP_V1 = 3,
    SPACRBENCH_SOURCE_CGROUP_V2 = 4,
    SPACRBENCH_SOURCE_CALLER = 5, /* the caller passed the figure */
    SPACRBENCH_SOURCE_CPUSET = 6,
    SPACRBENCH_SOURCE_NVML = 7,
    SPACRBENCH_SOURCE_TORCH = 8,
    SPACRBENCH_SOURCE_JOB_OBJECT = 9, /* since 1.1: a Windows Job Object's limit */
    SPACRBENCH_SOURCE_SYSCTL = 10     /* since 1.1: macOS sysctl (hw.activecpu) */
} spacrbench_source;

/* What this machine, container or job can give right now. */
struct spacrbench_machine {
    size_t size;
    int64_t available_bytes;      /* min(MemAvailable, every cgroup headroom); 0 if unreadable */
    int64_t host_available_bytes; /* MemAvailable; -1 if unreadable */
    int32_t memory_source;        /* HOST, CGROUP_V1, CGROUP_V2 or UNKNOWN */
    int32_t cores_source;         /* AFFINITY, CGROUP_V1, CGROUP_V2, CPUSET */
    int64_t memory_limit_bytes;   /* limit of the binding cgroup; -1 if none */
    int64_t cores;                /* usable cores, >= 1 */
    int64_t affinity_cores;       /* CPUs in the affinity mask */
    double cpu_quota_cores;       /* tightest quota/period; -1 if none */
    char memory_cgroup[512];      /* directory of the binding cgroup, or "" */
    char cores_cgroup[512];       /* directory of the binding cpu cgroup, or "" */
};

SPACRBENCH_EXTERN int spacrbench_discover(spacrbench_machine *out);
SPACRBENCH_EXTERN int64_t spacrbench_available_memory_bytes(void); /* 0 if unreadable */
SPACRBENCH_EXTERN int64_t spacrbench_usable_cores(void);           /* >= 1 */

/* SPACRBENCH_CDEF_END */

#ifdef __cplusplus
}
#endif

#endif /* SPACRBENCH_PUBLIC_MACHINE_H */
