/* What `spacrbench run` says about the VRAM of its commands, which the
 * supervisor sampled (NVML summed over each item's whole process tree:
 * every PID in its cgroup or, without one, every descendant seen). */
#ifndef SPACRBENCH_CLI_RUN_VRAM_H
#define SPACRBENCH_CLI_RUN_VRAM_H

#include "spacrbench.h"
#include "supervisor.h"

/* Once the items ran, before spacrbench_measurement_end: when VRAM is not
 * measured after all (NVML's PIDs are another namespace's), the reason
 * goes to m, which drops the items' figures at its end. */
void run_vram_verdict(sb_supervisor *sup, spacrbench_measurement *m);

/* Say how VRAM was measured, or why not, and add the GPUs (free memory
 * now, the commands' peak on each) so the recommendation's VRAM rule has
 * them. 0, or the library's error code. */
int run_vram_report(const sb_supervisor *sup, spacrbench_measurement *m);

#endif
