/* A memory cgroup of its own for a group of processes (one measured
 * command, or the k workers of a scaling check), so their peak covers the
 * whole process tree exactly, page cache included. The group is a child of
 * THIS process's memory cgroup (v1 memory controller, or v2 where the child
 * gets memory.peak). Discovery's parsers and file readers do the locating;
 * nothing here parses /proc by hand. Not installed. */
#ifndef SPACRBENCH_GROUP_H
#define SPACRBENCH_GROUP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgroup.h"

#define SB_GROUP_PATH_MAX (SB_MOUNT_PATH_MAX + 128)

typedef struct sb_group {
    int version;                    /* 1 or 2 */
    char parent[SB_MOUNT_PATH_MAX]; /* this process's memory cgroup directory */
    char dir[SB_GROUP_PATH_MAX];    /* the group's cgroup; "" when none exists */
} sb_group;

/* Find this process's memory cgroup (env NULL: the running system). The v1
 * memory hierarchy wins where it is mounted; otherwise the unified one.
 * 0, or -1 with the reason in why. */
int sb_group_locate(sb_group *g, const sb_probe_env *env, char *why, size_t why_cap);

/* Create the child cgroup `name` under the located parent and check that it
 * reports a peak. 0, or -1 with the reason in why (nothing is left behind). */
int sb_group_create(sb_group *g, const char *name, char *why, size_t why_cap);

/* Move process pid into the group. 0 or -1 (errno set). */
int sb_group_attach(const sb_group *g, pid_t pid);

/* The group's peak memory in bytes, -1 if unreadable. */
int64_t sb_group_peak(const sb_group *g);

/* Times the kernel's OOM killer ran in the group (v2 memory.events
 * oom_kill, v1 memory.oom_control oom_kill, Linux >= 4.13); -1 unknown. */
int64_t sb_group_oom_kills(const sb_group *g);

/* The group's memory limit in bytes (-1 none or unreadable). */
int64_t sb_group_limit(const sb_group *g);

/* Give the group a memory limit (v1 memory.limit_in_bytes; v2 memory.max
 * and memory.oom.group=1), so that a group over it is OOM-killed inside,
 * never a process above it. Before processes join. 0 or -1 (errno set). */
int sb_group_set_limit(const sb_group *g, int64_t bytes);

/* SIGKILL every process in the group (v2 cgroup.kill where present).
 * The number signalled (0 for cgroup.kill), or -1. */
int sb_group_kill_all(const sb_group *g);

/* Remove the group. Processes still in it are first moved back to the
 * parent; their number is stored in *left_behind. 0 or -1 (errno set).
 * Safe to call when no group exists. */
int sb_group_remove(sb_group *g, int *left_behind);

/* The one reader of a cgroup's cgroup.procs: calls each(pid, arg) for
 * every process listed in DIR/cgroup.procs (each returns non-zero to stop
 * early; each may be NULL to count). How many were listed, -1 when the
 * file cannot be read (errno set). */
int sb_cgroup_procs_each(const char *dir, int (*each)(pid_t pid, void *arg), void *arg);

/* The same for the group's own cgroup (g->dir; -1 when none exists). */
int sb_group_procs(const sb_group *g, int (*each)(pid_t pid, void *arg), void *arg);

/* A group left behind by a process that died without removing it (SIGKILL,
 * the OOM killer, a node reboot), found beside where new groups are made. */
typedef struct sb_stale_group {
    const char *parent; /* the directory it was found in */
    const char *name;   /* PREFIX-PID-... (letters, digits, '-' and '_' only) */
    long owner;         /* PID, which no longer runs (as its owner) */
    int processes;      /* how many are still in it (-1 unreadable): then left alone */
    int removed;        /* empty and removed */
    const char *what;   /* "empty, removed", "process(es) 12 34 still in it: left alone ..." */
} sb_stale_group;

/* This process in the names of its groups: "PID-tSTART", START when it
 * started (clock ticks since boot, /proc/self/stat), so a group's owner is
 * known by identity (a reused pid is another process). 0 or -1. */
int sb_group_owner_tag(char *buf, size_t cap);

/* Look in g->parent for groups named PREFIX-PID-tSTART-... (or, from an
 * older version, PREFIX-PID-...) whose owner no longer runs: no process
 * PID, a zombie, or one that started at another time (the pid reused);
 * the program's name is not looked at (a run through a symlink or a
 * renamed binary is alive). Remove the EMPTY ones and leave those still
 * holding processes alone (never killed: nobody can know what they are
 * doing now). found (may be NULL) hears about each one. Groups of this
 * process are not touched. How many were found, -1 when g->parent cannot
 * be listed. */
int sb_group_clean_stale(const sb_group *g, const char *prefix,
                         void (*found)(void *arg, const sb_stale_group *stale), void *arg);

#endif
