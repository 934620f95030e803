/* Ending ALL of one item's processes (--timeout, a stop signal) or of one
 * --scale group: killing only the direct child would leave its children
 * running, and, with a cgroup, the cgroup busy. */
#ifndef SPACRBENCH_CLI_RUN_KILL_H
#define SPACRBENCH_CLI_RUN_KILL_H

#include <sys/types.h>

#include "group.h"
#include "run_item.h"
#include "tree_sampler.h"

/* Where the processes of an item or a --scale group are: everything in
 * the cgroup cg (when cg is non-NULL and cg->dir is set), else every
 * descendant of spacrbench (its subreaper) that tree does not exclude as
 * a leftover of an earlier item. */
typedef struct run_procs {
    const sb_group *cg;
    const tree_sampler *tree;
} run_procs;

/* Send sig to every process of p: with a cgroup and SIGKILL, v2
 * cgroup.kill where the kernel has it, else each pid of cgroup.procs,
 * in passes until none is left (a fork can race one pass); likewise the
 * descendants without one. Returns how many processes were signalled (at
 * least), -1 when they could not be listed. */
int run_kill_procs(const run_procs *p, int sig);

/* How many processes of p are alive (zombies aside), -1 unknown. */
int run_procs_alive(const run_procs *p);

/* The same for the item started as child (0: already reaped, so its pid
 * is not signalled, as it may be reused). */
int run_kill_tree(const runner *r, pid_t child, int sig);

/* After the stop signal sig, once the command (or every --scale copy) has
 * exited: pass sig on to the processes it left in p (their parent, which
 * might have ended them, is gone), wait for them until kill_at (run_now()
 * time), then SIGKILL those still there. 1 when it had to SIGKILL, 0 when
 * none was left by then, -1 when they could not be listed. */
int run_kill_leftovers(const run_procs *p, int sig, double kill_at);

#endif
