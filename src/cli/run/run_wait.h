/* Waiting for one item's command to exit, without polling: a pidfd
 * (Linux >= 5.3) or, where there is none, SIGCHLD, so the item's time ends
 * when the command does, not up to one sampling period later. Meanwhile,
 * without a cgroup, the process tree is sampled every RUN_SAMPLE_INTERVAL,
 * and with NVML the tree's GPU memory every RUN_VRAM_INTERVAL;
 * a --timeout kills the item's whole tree; and a command still alive
 * RUN_KILL_GRACE_S after a stop signal (Ctrl-C, SIGTERM ...) is killed with
 * its tree. Processes the command leaves behind when a stop signal ended
 * it get the signal too, and SIGKILL at the same deadline. */
#ifndef SPACRBENCH_CLI_RUN_WAIT_H
#define SPACRBENCH_CLI_RUN_WAIT_H

#include <sys/resource.h>
#include <sys/types.h>

#include "run_item.h"

#define RUN_KILL_GRACE_S 5.0 /* after a stop signal, before SIGKILL (--scale too) */

/* Monotonic seconds. */
double run_now(void);

/* Wait for pid (started at t0, run_now() time), fill o->status,
 * o->timed_out and *ru. 0, or -1 after a message. */
int run_wait(runner *r, pid_t pid, double t0, run_outcome *o, struct rusage *ru);

#endif
