/* The machine probe every platform implements (os/linux/probe_linux.c,
 * os/darwin/probe_darwin.c, os/windows/probe_windows.c): what the
 * operating system says, raw; core/discover.c turns it into a
 * spacrbench_machine. Not installed. */
#ifndef SPACRBENCH_PROBE_H
#define SPACRBENCH_PROBE_H

#include <stdint.h>

#include "spacrbench.h"

/* Where a probe reads from; platform-specific (see cgroup.h on Linux).
 * NULL means the running system. */
struct sb_probe_env;

#define SB_PROBE_PATH_MAX 1024

/* The raw figures of one probe. Sources are spacrbench_source values. */
typedef struct sb_probe {
    int64_t host_available_bytes; /* MemAvailable; -1 if unreadable */
    int64_t affinity_cores;       /* CPUs we may run on; -1 if unknown */
    int32_t affinity_source;      /* where that count came from; UNKNOWN = AFFINITY */
    /* The tightest container memory bound (cgroup, job object...). */
    int32_t memory_source;         /* UNKNOWN when there is none */
    int64_t memory_headroom_bytes; /* -1 if none */
    int64_t memory_limit_bytes;    /* -1 if none */
    char memory_dir[SB_PROBE_PATH_MAX];
    /* The tightest CPU quota. */
    int32_t quota_source; /* UNKNOWN when there is none */
    double quota_cores;   /* quota / period; -1 if none */
    char quota_dir[SB_PROBE_PATH_MAX];
    /* The CPU set the container may use. */
    int32_t cpuset_source; /* UNKNOWN when there is none */
    int64_t cpuset_cores;  /* -1 if unknown */
    char cpuset_dir[SB_PROBE_PATH_MAX];
} sb_probe;

/* Fill every field (sentinels where the platform cannot tell). */
void sb_probe_machine(const struct sb_probe_env *env, sb_probe *out);

#endif
