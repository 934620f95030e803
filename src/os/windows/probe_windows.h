/* The Windows probe's rules, as pure functions of the structures Windows
 * fills in, so that a test can hand them any job's figures
 * (probe_windows.c reads the running system). Not installed. */
#ifndef SPACRBENCH_PROBE_WINDOWS_H
#define SPACRBENCH_PROBE_WINDOWS_H

#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include <stdint.h>

#include "probe.h"

/* The memory bound of a job from its extended limits. job_committed_bytes:
 * the memory the job has committed now (the sum of its processes'
 * PrivateUsage), -1 when unknown; then the job's peak (PeakJobMemoryUsed)
 * stands in, which can only understate the headroom.
 * - JOB_OBJECT_LIMIT_JOB_MEMORY: source JOB_OBJECT, limit JobMemoryLimit,
 *   headroom = limit - committed (never negative).
 * - JOB_OBJECT_LIMIT_PROCESS_MEMORY alone bounds each process, not the
 *   workers together: no bound on the total (source left UNKNOWN).
 * Sets the probe's memory_* fields only. */
void sb_win_job_memory(const JOBOBJECT_EXTENDED_LIMIT_INFORMATION *info,
                       int64_t job_committed_bytes, sb_probe *out);

/* The cores a hard CPU rate cap allows: CpuRate is in 1/100 % of all the
 * machine's processors (all groups). -1 when the rate is not a hard cap
 * (disabled, weight-based, or only a notification). */
double sb_win_job_cpu_rate_cores(const JOBOBJECT_CPU_RATE_CONTROL_INFORMATION *info,
                                 int64_t all_processors);

/* Set bits of an affinity mask. */
int64_t sb_win_mask_cores(uint64_t mask);

#endif
