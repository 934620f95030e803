/* Linux cgroup discovery: which cgroup this process is in (v1 or v2, the
 * hierarchy that really holds the controller), and the memory and CPU
 * bounds of that cgroup and every visible ancestor. The text parsing lives
 * in parse.h; this layer only reads files and walks directories. Not
 * installed. */
#ifndef SPACRBENCH_CGROUP_H
#define SPACRBENCH_CGROUP_H

#include <stddef.h>
#include <stdint.h>

#include "parse.h"

/* Where discovery reads from. sb_probe_env_live() is the running system;
 * tests point the fields at recorded trees. */
typedef struct sb_probe_env {
    const char *proc_self_cgroup; /* "/proc/self/cgroup" */
    const char *mountinfo;        /* "/proc/self/mountinfo" */
    const char *meminfo;          /* "/proc/meminfo" */
    const char *prefix;           /* prepended to every mount point; "" live */
    int64_t affinity_cores;       /* > 0 replaces sched_getaffinity (tests) */
    /* Texts already read (sb_probe_env_load): one discovery then reads
     * /proc/self/cgroup and mountinfo once, not once per controller. */
    const char *cgroup_text;
    size_t cgroup_len;
    const char *mountinfo_text;
    size_t mountinfo_len;
} sb_probe_env;

sb_probe_env sb_probe_env_live(void);
/* Read /proc/self/cgroup and mountinfo of env into it (the caller frees
 * them); a text that cannot be read stays NULL and is read (and fails)
 * where it is needed. */
void sb_probe_env_load(sb_probe_env *env);

/* Read a whole file into a fresh NUL-terminated heap buffer of at most
 * limit bytes (the rest is dropped, *truncated set). 0 on success, -1 with
 * errno set otherwise; the caller frees *text. */
int sb_cg_read_file(const char *path, size_t limit, char **text, size_t *len, int *truncated);
/* Read a small file (a control value) into buf; 0 on success, -1 if it
 * cannot be read or does not fit. */
int sb_cg_read_small(const char *path, char *buf, size_t cap, size_t *len);

/* This process's cgroup directory for one controller. */
typedef struct sb_cgroup_dir {
    int version;            /* 1 or 2; 0 when not found */
    int visible;            /* 0: in a hierarchy, but outside every mount root */
    sb_cgroup_location loc; /* prefix already applied */
} sb_cgroup_dir;

/* Find the hierarchy that holds controller: the v1 one when
 * /proc/self/cgroup has a v1 line for it (on hybrid hosts the controller
 * can only be there), otherwise the v2 one. 0 on success, -1 when there is
 * no such cgroup (out->version 0, out->visible tells why). */
int sb_cgroup_find(const sb_probe_env *env, const char *controller, sb_cgroup_dir *out);

/* The tightest memory headroom over the cgroup and its ancestors. */
typedef struct sb_cgroup_memory {
    int version;            /* 1 or 2; 0 when no level has a limit */
    int64_t headroom_bytes; /* limit - (usage - inactive file); -1 if none */
    int64_t limit_bytes;    /* that level's limit */
    char dir[SB_MOUNT_PATH_MAX];
    char file[64]; /* the limit file, e.g. "memory.max" */
} sb_cgroup_memory;

void sb_cgroup_memory_bound(const sb_probe_env *env, sb_cgroup_memory *out);

/* The tightest CPU quota over the cgroup and its ancestors, and the
 * effective cpuset. */
typedef struct sb_cgroup_cpu {
    int quota_version;  /* 0 when no level has a quota */
    double quota_cores; /* quota / period; -1 if none */
    char quota_dir[SB_MOUNT_PATH_MAX];
    int cpuset_version;   /* 0 when no cpuset was read */
    int64_t cpuset_cores; /* CPUs in the effective cpuset; -1 if unknown */
    char cpuset_dir[SB_MOUNT_PATH_MAX];
} sb_cgroup_cpu;

void sb_cgroup_cpu_bound(const sb_probe_env *env, sb_cgroup_cpu *out);

/* Call visit(dir) for the cgroup directory and each ancestor up to and
 * including the mount point; stops early when visit returns non-zero. */
void sb_cgroup_walk_up(const sb_cgroup_location *loc, int (*visit)(const char *dir, void *ctx),
                       void *ctx);

#endif
