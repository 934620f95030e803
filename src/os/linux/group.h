/* A memory cgroup of its own for a group of processes (one measured
 * command, or the k workers of a scaling check), so their peak covers the
 * whole process tree exactly, page cache included. The group is a child of
 * THIS process's memory cgroup (v1 memory controller, or v2 where the child
 * gets memory.peak), or on v2 of a cgroup delegated to this user above it
 * (group_delegate.c: what a user without root gets). Discovery's parsers
 * and file readers do the locating; nothing here parses /proc by hand. Not
 * installed. */
#ifndef SPACRBENCH_GROUP_H
#define SPACRBENCH_GROUP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgroup.h"

#define SB_GROUP_PATH_MAX  (SB_MOUNT_PATH_MAX + 128)
#define SB_GROUP_FOUND_MAX 400

/* Where groups are made (sb_group_choose). */
enum sb_group_place {
    SB_GROUP_OWN = 0, /* this process's own cgroup: v1, the v2 root, or memory already enabled */
    SB_GROUP_LEAF,    /* v2: its own, once its processes moved into a leaf of it */
    SB_GROUP_ABOVE,   /* v2: a cgroup above its own, delegated to this user */
    SB_GROUP_NONE     /* v2: none is usable (found says why) */
};

typedef struct sb_group {
    int version;                    /* 1 or 2 */
    int place;                      /* enum sb_group_place */
    int holds_leaf;                 /* sb_group_delegate_acquire moved this process */
    char own[SB_MOUNT_PATH_MAX];    /* this process's memory cgroup directory */
    char parent[SB_MOUNT_PATH_MAX]; /* where groups are made (own, or the one above) */
    char dir[SB_GROUP_PATH_MAX];    /* the group's cgroup; "" when none exists */
    /* One short sentence for a note: which cgroup was found and why
     * another was not usable (paths shortened, sb_group_short_path). */
    char found[SB_GROUP_FOUND_MAX];
} sb_group;

/* Find this process's memory cgroup (env NULL: the running system) and
 * choose where groups go (sb_group_choose, for this process's euid). The
 * v1 memory hierarchy wins where it is mounted; otherwise the unified one.
 * 0, or -1 with the reason in why. Reads only; changes nothing. */
int sb_group_locate(sb_group *g, const sb_probe_env *env, char *why, size_t why_cap);

/* Given g->version and g->own (this process's cgroup) under the mount
 * point mount, set g->parent, g->place and g->found for a process self
 * of user uid (group_delegate.c): v1 and the v2 root take groups as they
 * are; else on v2 the own cgroup once its processes move into a leaf
 * (when it is uid's, has the memory controller and holds only self and
 * its descendants), else the nearest level above it that is uid's, holds
 * no process and enables memory, with no limit of its own on the levels
 * in between (root never looks above: everything is root's). */
void sb_group_choose(sb_group *g, const char *mount, uid_t uid, pid_t self);

/* For SB_GROUP_LEAF: move this process (and its descendants in the same
 * cgroup) into own/spacrbench-leaf-PID-0 and enable memory in own's
 * cgroup.subtree_control, once per process (counted: every group that
 * acquired releases). Other places: nothing to do (SB_GROUP_NONE: -1, why
 * is g->found). 0, or -1 with the reason in why and everything undone. */
int sb_group_delegate_acquire(sb_group *g, char *why, size_t why_cap);
/* The last release disables memory there again (only if acquire enabled
 * it), moves the leaf's processes back and removes the leaf. */
void sb_group_delegate_release(sb_group *g);

/* path shortened for a note (".../app.slice/run-r1.scope"): at most 52
 * bytes, the trailing components kept. */
void sb_group_short_path(const char *path, char *out, size_t cap);

/* Create the child cgroup `name` under the located parent and check that it
 * reports a peak. 0, or -1 with the reason in why (nothing is left behind). */
int sb_group_create(sb_group *g, const char *name, char *why, size_t why_cap);

/* Write text to a cgroup control file in one write(): 0, or -1 (errno
 * set; a short write is EIO). */
int sb_group_write_file(const char *file, const char *text);

/* Move process pid into the group. 0 or -1 (errno set). */
int sb_group_attach(const sb_group *g, pid_t pid);

/* The group's peak memory in bytes, -1 if unreadable. */
int64_t sb_group_peak(const sb_group *g);
/* The group's charge now (v2 memory.current, v1 memory.usage_in_bytes); -1
 * unknown. */
int64_t sb_group_usage(const sb_group *g);

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
/* The same for another process (the owner of a delegated leaf). */
int sb_group_owner_tag_of(pid_t pid, char *buf, size_t cap);

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
