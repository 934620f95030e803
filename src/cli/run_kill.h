/* Ending ALL of one item's processes (--timeout, or a command still alive
 * a grace period after a stop signal): killing only the direct child
 * would leave its children running, and, with a cgroup, the cgroup busy. */
#ifndef SPACRBENCH_CLI_RUN_KILL_H
#define SPACRBENCH_CLI_RUN_KILL_H

#include <sys/types.h>

#include "run_item.h"

/* Send sig to every process of the item started as child: with a cgroup,
 * everything in it (v2 cgroup.kill where the kernel has it, else each pid
 * of cgroup.procs, in passes until none is left, since a fork can race one
 * pass); without, every descendant of spacrbench (its subreaper) that is
 * not a leftover of an earlier item. Returns how many processes were
 * signalled (at least), -1 when the processes could not be listed. */
int run_kill_tree(const runner *r, pid_t child, int sig);

#endif
