/*
 * Process groups (since 1.1)
 *
 * Aggregate peak memory of a group of processes, for bindings that start
 * their own workers (a Python process pool). A memory cgroup child of this
 * process's own where the machine allows (peak exact, page cache included,
 * counted from when each process joins; without root, one delegated to the
 * user: docs/discovery.md), else a sampler thread summing the PSS of the
 * added processes and their descendants, at least 20 ms apart and within
 * 0.5 % of a core (spacrbench_group_sampling_note). Closing
 * removes the cgroup (moving any process still in it back), on every path.
 *
 * sys/ promises the same stable C ABI as every public header (nothing
 * exported is removed or changed; structs grow by their size field), but
 * it is lower-level: the parts spacrbench's own command and Python binding
 * are built from, for tools that measure or copy measurements themselves.
 * Nothing in <spacrbench.h> or the topic headers depends on it.
 */
/* First spacrbench.h, outside the guard: whichever header a program
 * includes, every header is then read in spacrbench.h's order. */
#include "../../spacrbench.h"

#ifndef SPACRBENCH_PUBLIC_SYS_GROUP_H
#define SPACRBENCH_PUBLIC_SYS_GROUP_H

#ifdef __cplusplus
extern "C" {
#endif

/* SPACRBENCH_CDEF_BEGIN */

/* Since 1.1. */
typedef struct spacrbench_group spacrbench_group; /* opaque */

/* Since 1.1.
 * flags: spacrbench_scale_flags (SPACRBENCH_SCALE_NO_CGROUP). */
SPACRBENCH_EXTERN int spacrbench_group_open(uint32_t flags, spacrbench_group **out);
/* Since 1.1. */
SPACRBENCH_EXTERN int spacrbench_group_add_process(spacrbench_group *g, int64_t pid);
/* Since 1.1.
 * The peak so far and its method (CGROUP or PSS_SUM); -1 if unreadable. */
SPACRBENCH_EXTERN int spacrbench_group_peak(spacrbench_group *g, int64_t *bytes, int32_t *method);
/* Since 1.1.
 * How the group measures, and why no cgroup was made when none was. */
SPACRBENCH_EXTERN const char *spacrbench_group_note(const spacrbench_group *g);
/* Since 1.1.
 * 0, or ESYSTEM if the cgroup could not be removed (g is freed anyway). */
SPACRBENCH_EXTERN int spacrbench_group_close(spacrbench_group *g);

/* --- Since 1.2: the group's memory limit -------------------------------- */

/* Give the group a memory limit (cgroup v1 memory.limit_in_bytes, v2
 * memory.max with memory.oom.group=1) before processes join it;
 * SPACRBENCH_EUNSUPPORTED when it measures without a cgroup. */
SPACRBENCH_EXTERN int spacrbench_group_set_limit(spacrbench_group *g, int64_t bytes);
/* Times the kernel's OOM killer ran in the group; -1 unknown. */
SPACRBENCH_EXTERN int64_t spacrbench_group_oom_kills(const spacrbench_group *g);

/* --- Since 1.3: how often a group without a cgroup was sampled ---------- */

/* Without a cgroup of its own, what the group's PSS sampler really did:
 * "group PSS: statm sampled 212 times, every 24.1 ms on average, at most
 * 40.3 ms apart (...); the shared part from smaps_rollup re-read every 310
 * ms on average (18 reads): a spike shorter than 41 ms may be missed". ""
 * with a cgroup (the peak is the kernel's, exact) or before the first
 * sample. Valid until the next call or spacrbench_group_close. */
SPACRBENCH_EXTERN const char *spacrbench_group_sampling_note(spacrbench_group *g);

/* SPACRBENCH_CDEF_END */

#ifdef __cplusplus
}
#endif

#endif /* SPACRBENCH_PUBLIC_SYS_GROUP_H */
