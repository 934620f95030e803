/* The PSS of a process tree at a cheap pace. PSS (smaps_rollup) is the
 * figure for forked workers: their parent's copy-on-write pages are shared
 * until written, and RSS would count them once per worker. But
 * smaps_rollup walks every page table (about 17 us per MiB of private
 * anonymous memory here: 1 ms for a 64 MiB worker) while statm costs about
 * 1.5 us whatever the size. So each process's shared part (Rss - Pss) is
 * read from smaps_rollup when it is first seen and then again on a slower,
 * budgeted pace, and every sample in between reads only statm:
 *     PSS now = statm's RSS now - the shared part last read.
 * Memory a worker allocates, touches or frees is private and shows at the
 * cheap pace exactly as PSS would show it; only a change of sharing (a
 * copy-on-write page written, a sharer gone) waits for the next
 * smaps_rollup. A process whose RSS fell below its shared part (an exec)
 * is read again at once. Used by spacrbench_group without a cgroup. Not
 * installed. */
#ifndef SPACRBENCH_PSS_TRACKER_H
#define SPACRBENCH_PSS_TRACKER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sample_budget.h"

typedef struct sb_pss_member {
    pid_t pid;
    int64_t shared_bytes; /* Rss - Pss at its last smaps_rollup */
} sb_pss_member;

typedef struct sb_pss_tracker {
    const char *proc_root;
    sb_pss_member *m; /* the members of the last sample */
    size_t n, cap;
    sb_sample_budget refresh; /* the smaps_rollup pace */
    double refresh_due;       /* monotonic time of the next full read */
    double last_refresh_cpu;  /* CPU seconds the last sample spent in smaps_rollup */
    double debt_cpu;          /* ... and those since the last full read */
    int64_t smaps_reads;      /* how many smaps_rollup files were read */
    long page_size;
} sb_pss_tracker;

/* refresh_floor_s: the shortest gap between two full reads; share: the
 * part of a core they may take. */
void sb_pss_tracker_init(sb_pss_tracker *t, double refresh_floor_s, double share);
void sb_pss_tracker_free(sb_pss_tracker *t);

/* The PSS summed over roots[0..n) and their descendants now (proc_tree.h)
 * at time now (sb_now); the full reads are done where due
 * (paced: when paced is 0, only those of new processes). -1 when nothing
 * could be listed. */
int64_t sb_pss_tracker_sample(sb_pss_tracker *t, const pid_t *roots, size_t n, double now,
                              int paced);

#endif
