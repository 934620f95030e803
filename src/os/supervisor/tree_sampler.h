/* Fallback peak of a command's process tree when no cgroup of its own can
 * be made: the larger of
 *   - the largest sum, over the samples, of the VmHWM of the processes
 *     alive at that sample (VmHWM is each process's lifetime peak, so a
 *     late sample still sees an earlier spike; the sum is an upper bound,
 *     as the peaks may not have coincided; processes that ran one after
 *     another are never added together: five 100 MiB steps of a script
 *     are 100 MiB, not 500), and
 *   - wait4's ru_maxrss for the direct child, which covers the child and the
 *     descendants it reaped, but only as the largest single process.
 * Adding ru_maxrss to the descendants' samples instead would count a
 * descendant twice (once inside ru_maxrss). A process that lives less than
 * one sampling interval is seen only through ru_maxrss. This process should
 * be a child subreaper so orphaned grandchildren stay in view.
 *
 * What a sample reads: the tree only, from this process down through the
 * children files (proc_tree.h), never every process of the machine; and
 * for each process /proc/PID/status, the one cheap file with VmHWM (statm
 * has the RSS now but no high-water mark, which is what makes a late
 * sample still see a spike; smaps_rollup walks every mapping). */
#ifndef SPACRBENCH_TREE_SAMPLER_H
#define SPACRBENCH_TREE_SAMPLER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct tree_proc {
    pid_t pid;
    int64_t hwm_bytes;
} tree_proc;

typedef struct tree_sampler {
    pid_t self;       /* descendants of this pid are sampled */
    tree_proc *procs; /* every descendant seen since the last reset */
    size_t count, cap;
    int64_t peak_sum;      /* the largest sum of live VmHWMs in one sample */
    int64_t hugetlb_peak;  /* the largest sum of HugetlbPages in one sample */
    const char *proc_root; /* "/proc" (tests may point elsewhere) */
    pid_t *old;            /* descendants that predate the current item: skipped */
    size_t n_old, old_cap;
    int64_t rss_now; /* VmRSS summed over the processes the last sample read */
} tree_sampler;

void tree_sampler_init(tree_sampler *t, pid_t self);
void tree_sampler_reset(tree_sampler *t);
void tree_sampler_free(tree_sampler *t);

/* Record the descendants alive now (leftovers of earlier items, which as
 * a child subreaper we inherit) so that later samples neither count them
 * nor their own children. Call before starting an item. Returns how many,
 * -1 on failure (then nothing is excluded). */
int tree_sampler_exclude_current(tree_sampler *t);

/* Whether pid was excluded above (alive before the current item). */
int tree_sampler_is_old(const tree_sampler *t, pid_t pid);

/* Walk the tree once and update the descendants' peaks (those excluded
 * above aside). Returns the number of descendants seen, -1 on failure. */
int tree_sample(tree_sampler *t);

/* Update the peaks of the given processes only (a cgroup's members: no
 * walk of the tree). */
void tree_sample_pids(tree_sampler *t, const pid_t *pids, size_t n);

/* Send sig to every live (not zombie) descendant, excluded ones aside, as
 * tree_sample sees them, each(pid, arg) doing the signalling when not NULL
 * (0: counted): how many, -1 on failure. */
int tree_signal_each(const tree_sampler *t, int sig, int (*each)(pid_t pid, void *arg), void *arg);

/* The tree's peak: max(largest sum of one sample's live peaks,
 * child_maxrss_bytes). */
int64_t tree_peak(const tree_sampler *t, pid_t child, int64_t child_maxrss_bytes);

/* How many descendants other than child were seen. */
size_t tree_others(const tree_sampler *t, pid_t child);

#endif
