/* Fallback peak of a command's process tree when no cgroup of its own can
 * be made: the direct child's peak from wait4 (ru_maxrss) plus the largest
 * VmHWM sampled for each other descendant. The sum is an upper bound (the
 * descendants' peaks may not have coincided); a descendant that lives less
 * than one sampling interval can be missed. This process should be a child
 * subreaper so orphaned grandchildren stay in view. */
#ifndef SPACRBENCH_CLI_TREE_SAMPLER_H
#define SPACRBENCH_CLI_TREE_SAMPLER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct tree_proc {
    pid_t pid;
    int64_t hwm_bytes;
} tree_proc;

typedef struct tree_sampler {
    pid_t self;         /* descendants of this pid are sampled */
    tree_proc *procs;   /* every descendant seen since the last reset */
    size_t count, cap;
    const char *proc_root; /* "/proc" (tests may point elsewhere) */
} tree_sampler;

void tree_sampler_init(tree_sampler *t, pid_t self);
void tree_sampler_reset(tree_sampler *t);
void tree_sampler_free(tree_sampler *t);

/* Scan the process table once and update the descendants' peaks. Returns
 * the number of descendants seen, -1 on failure. */
int tree_sample(tree_sampler *t);

/* The tree's peak: max(child's sampled VmHWM, child_maxrss_bytes) plus the
 * sampled peaks of every other descendant. */
int64_t tree_peak(const tree_sampler *t, pid_t child, int64_t child_maxrss_bytes);

/* How many descendants other than child were seen. */
size_t tree_others(const tree_sampler *t, pid_t child);

#endif
