/* VRAM of `spacrbench run`'s commands: NVML (the library's probe, loaded
 * with dlopen, no CUDA context) summed over the item's whole process tree,
 * i.e. every PID in its cgroup (cgroup.procs) or, without one, every
 * descendant the tree sampler saw. Sampled from the wait loop while the
 * item runs, and once after it ends. "Not measured" (-1, with a reason)
 * and 0 (measured, used none) stay apart. */
#ifndef SPACRBENCH_CLI_RUN_VRAM_H
#define SPACRBENCH_CLI_RUN_VRAM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "gpu.h"
#include "group.h"
#include "spacrbench.h"
#include "tree_sampler.h"

#define RUN_VRAM_INTERVAL_NS 10000000L /* 10 ms, as the library's sampler */

typedef struct run_vram {
    sb_gpu *gpu;   /* NULL: not measured, for the reason in why */
    char why[512]; /* "" when measured */
    int64_t peak;  /* this item's peak, -1 until a sample succeeded */
    int64_t failed_samples;
    size_t items_unmeasured; /* items where every sample failed */
    unsigned int *pids;      /* the tree's PIDs, reused between samples */
    size_t cap;
} run_vram;

/* Open NVML once for the run (a first nvmlInit can take a second). */
void run_vram_open(run_vram *v);
void run_vram_close(run_vram *v);
/* Forget the previous item's peak. */
void run_vram_begin(run_vram *v);
/* One sample of the tree: the processes of cg (when cg->dir is set) or
 * child and the descendants in t. No-op when not measuring. */
void run_vram_sample(run_vram *v, const sb_group *cg, const tree_sampler *t, pid_t child);
/* The item's peak (-1: not measured) once it has ended. */
int64_t run_vram_end(run_vram *v);
/* Once the items ran, before spacrbench_measurement_end: when NVML's PIDs
 * turned out to be another namespace's (sb_gpu_pids_unverified), VRAM is
 * not measured after all: the reason goes to m (which drops the items'
 * figures at its end) and to why, and NVML is closed. */
void run_vram_verdict(run_vram *v, spacrbench_measurement *m);
/* Say how VRAM was measured, or why not, and add the GPUs (free memory
 * now, the commands' peak on each) so the recommendation's VRAM rule has
 * them. 0, or the library's error code. */
int run_vram_report(const run_vram *v, spacrbench_measurement *m, int use_cgroup);
/* Whether VRAM is being measured (the wait loop then wakes to sample). */
int run_vram_active(const run_vram *v);

#endif
