/* The library's own side of a spacrbench_group, for the scaling driver:
 * what the public handle does not offer. process_group.c on Linux;
 * unsupported.c elsewhere (nothing to end there). Not installed. */
#ifndef SPACRBENCH_PROCESS_GROUP_H
#define SPACRBENCH_PROCESS_GROUP_H

#include <stdint.h>

#include "spacrbench.h"

/* SIGKILL every process of the group (its cgroup; without one, the added
 * processes and their descendants). 0, or -1 when they cannot be listed. */
int sb_process_group_kill_all(spacrbench_group *g);

/* Where no cgroup can hold a limit (the group sums PSS): end the group
 * when a sample's sum passes bytes, at the sampler's pace (spikes shorter
 * than its interval pass unseen). 0, or -1 with a cgroup (set a limit). */
int sb_process_group_watch(spacrbench_group *g, int64_t bytes);

/* The sampled sum that ended the group, 0 when the watch did not. */
int64_t sb_process_group_watch_ended(spacrbench_group *g);

#endif
