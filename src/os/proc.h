/* Internal probe of this process's memory and CPU time (Linux /proc,
 * Windows' process memory counters, macOS Mach task_info). Kept behind this
 * small interface so another platform is one new file. */
#ifndef SPACRBENCH_PROC_H
#define SPACRBENCH_PROC_H

#include <stddef.h>
#include <stdint.h>

typedef struct sb_proc {
#if defined(__linux__)
    int statm_fd;      /* /proc/self/statm, for current RSS */
    int status_fd;     /* /proc/self/status, for VmHWM */
    int clear_refs_fd; /* /proc/self/clear_refs, -1 when not writable */
    int64_t page_size;
    char *status_buf; /* grows to hold /proc/self/status (runner thread only) */
    size_t status_cap;
#elif defined(_WIN32)
    /* The working set is the RSS analogue; its peak (PeakWorkingSetSize)
     * cannot be reset, so the reset calls return -1 and the runner falls
     * back to its window rule and the sampler. */
    void *process; /* GetCurrentProcess()'s pseudo handle: nothing to close */
#elif defined(__APPLE__)
    /* "RSS" is the physical footprint; its peak comes from task_info when
     * the kernel's TASK_VM_INFO has ledger_phys_footprint_peak (rev3),
     * else from proc_pid_rusage. */
    int has_ledger_peak;
#endif
} sb_proc;

/* Open the probe's files; SPACRBENCH_ESYSTEM when statm/status are missing.
 * clear_refs is optional (gVisor, hardened kernels lack it). */
int sb_proc_open(sb_proc *p, int want_hwm_reset);
void sb_proc_close(sb_proc *p);
/* Current resident set size in bytes, or -1. Thread-safe (pread). */
int64_t sb_proc_rss(const sb_proc *p);
/* Kernel high-water mark of RSS (VmHWM) in bytes, or -1. Not thread-safe:
 * it reuses p's buffer (status grows with the process's group list). */
int64_t sb_proc_hwm(sb_proc *p);
/* Reset VmHWM to the current RSS; 0 on success, -1 when unavailable. */
int sb_proc_reset_hwm(const sb_proc *p);
/* Reset VmHWM and check that it took: afterwards the mark must not stand
 * above the current RSS (plus a little slack for the kernel's batched
 * per-CPU counters). A kernel that accepts the write but keeps the old mark
 * (seen through some bind mounts) fails this. 0 when the reset worked. */
int sb_proc_reset_hwm_verified(sb_proc *p);
/* Why the high-water mark could not be reset on this platform, for the
 * run's note: a static phrase, never NULL. */
const char *sb_proc_no_reset_reason(void);
#if defined(__linux__)
/* HugetlbPages (Linux >= 4.4) from the status text the last sb_proc_hwm
 * read, in bytes; -1 when absent. hugetlb pages are in neither RSS nor
 * VmHWM. */
int64_t sb_proc_hugetlb_last(const sb_proc *p);
/* hugetlb pages this system could hand out (HugePages_Total, or an
 * overcommit allowance); 0 when MAP_HUGETLB must fail here. */
int64_t sb_hugetlb_pages_possible(void);
/* Who reads this process's ru_maxrss when it ends, and so reads it
 * lowered by a high-water mark reset: "a SLURM step" (SLURM_JOB_ID or
 * SLURM_STEP_ID set: its accounting may read it), "GNU time" (the parent
 * process is `time`); NULL when neither. */
const char *sb_proc_maxrss_reader(void);
#endif
/* Return the allocator's free memory to the system (heap_release.c), so
 * that an item's pages are counted even where earlier work freed as much
 * (glibc keeps freed blocks resident). 1 when some was returned. */
int sb_heap_release(void);
/* User + system CPU seconds of the whole process so far, or NaN. */
double sb_proc_cpu_seconds(void);
/* User + system CPU seconds of this process's children that ended and
 * were waited for, and the largest one's peak RSS in bytes (-1 unknown);
 * NaN where the platform does not say. */
double sb_proc_children_cpu_seconds(int64_t *largest_rss);
/* This process's id (fork detection). */
int64_t sb_self_pid(void);
/* The monotonic clock (util/clock.h). */
#include "clock.h"

#endif
