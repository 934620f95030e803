/* A memory cgroup of its own for each command `spacrbench run` measures, so
 * the peak covers the whole process tree exactly (page cache included).
 * The cgroup is a child of THIS process's memory cgroup (v1 memory
 * controller, or v2 when the child gets memory.peak); the command is moved
 * in by the parent between fork and exec. */
#ifndef SPACRBENCH_CLI_CHILD_CGROUP_H
#define SPACRBENCH_CLI_CHILD_CGROUP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define CG_PATH_MAX 4096
#define CG_FILE_MAX (CG_PATH_MAX + 64) /* a cgroup directory plus a file name */

typedef struct child_cgroup {
    int version;            /* 1 or 2 */
    char parent[CG_PATH_MAX]; /* this process's memory cgroup directory */
    char dir[CG_PATH_MAX];    /* the command's cgroup; "" when none exists */
} child_cgroup;

/* Find this process's memory cgroup from /proc/self/cgroup and
 * /proc/self/mountinfo (or the given files, for tests). 0, or -1 with the
 * reason in why. */
int cg_locate(child_cgroup *cg, const char *proc_cgroup, const char *mountinfo, char *why,
              size_t why_cap);

/* Create the child cgroup `name` and check that it reports a peak.
 * 0, or -1 with the reason in why (nothing is left behind). */
int cg_create(child_cgroup *cg, const char *name, char *why, size_t why_cap);

/* Move process pid into the child cgroup. 0 or -1 (errno set). */
int cg_attach(const child_cgroup *cg, pid_t pid);

/* The child cgroup's peak memory in bytes, -1 if unreadable. */
int64_t cg_peak(const child_cgroup *cg);

/* Remove the child cgroup. Processes the command left behind are first
 * moved back to the parent cgroup; their number is stored in *left_behind.
 * 0 or -1 (errno set). Safe to call when no cgroup exists. */
int cg_remove(child_cgroup *cg, int *left_behind);

#endif
