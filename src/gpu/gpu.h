/* Internal GPU probe used by the runner's sampler. Implementations must
 * never create a CUDA context and must be safe to call from the sampler
 * thread (no user code, no Python). */
#ifndef SPACRBENCH_GPU_H
#define SPACRBENCH_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "spacrbench.h"

typedef struct sb_gpu sb_gpu;

/* Find GPUs. Returns NULL when none can be measured, with the reason in
 * why (e.g. "no NVIDIA driver: libnvidia-ml.so.1 not found"). */
sb_gpu *sb_gpu_open(char *why, size_t why_cap);
/* This process's GPU memory summed over devices, in bytes (0 if it uses
 * none); -1 on failure. Updates the per-device peaks. Called by one thread
 * at a time (the sampler thread, or the runner once the sampler is joined),
 * so implementations need no locking. */
int64_t sb_gpu_sample(sb_gpu *gpu);
/* The same for a set of processes (e.g. every PID of a command's process
 * tree), as the driver names them: the sum of their entries per device.
 * Per-device peaks are updated as by sb_gpu_sample. pids may be freed
 * once it returns. */
int64_t sb_gpu_sample_pids(sb_gpu *gpu, const unsigned int *pids, size_t n);
/* Whether NVML's PIDs turned out to be another namespace's (gpu_nvml.c):
 * then a figure summed over the PIDs sampled may be a false 0, and VRAM is
 * "not measured". Returns 1 with the reason in why (may be NULL), else 0. */
int sb_gpu_pids_unverified(const sb_gpu *gpu, char *why, size_t why_cap);
/* Whether pid names a process in this process's PID namespace (it may
 * belong to another user). Linux: kill(pid, 0) says "no such process" only
 * for a PID that is not there; any other answer counts as there.
 * Elsewhere there are no PID namespaces: always 1. */
int sb_gpu_pid_exists_here(unsigned int pid);
/* Whether this process lives in the PID namespace whose PIDs NVML reports
 * (the initial one): only then are the PIDs it sees of other processes
 * (cgroup.procs, /proc) the ones to give sb_gpu_sample_pids. */
int sb_gpu_pids_are_host(const sb_gpu *gpu);
size_t sb_gpu_count(const sb_gpu *gpu);
/* Name, total and free memory now, and this process's peak on device i
 * (out->size set by the caller). */
int sb_gpu_info(sb_gpu *gpu, size_t i, spacrbench_gpu_info *out);
/* The same into a full, current struct, without the library's error
 * state (for the command): 0, or -1 on a bad argument. The peak is that of
 * what was sampled: this process, or the PID sets given. */
int sb_gpu_fill_info(sb_gpu *gpu, size_t i, spacrbench_gpu_info *out);
void sb_gpu_close(sb_gpu *gpu);

/* Why the last failed sb_gpu_sample failed ("" when none has), and how many
 * samples failed since open: the runner can say so in its notes. */
const char *sb_gpu_last_error(const sb_gpu *gpu);
int64_t sb_gpu_failed_samples(const sb_gpu *gpu);
/* Version of the NVML per-process query in use: 3, 2 or 1
 * (nvmlDeviceGetComputeRunningProcesses_v3, _v2 or the original). */
int sb_gpu_process_api_version(const sb_gpu *gpu);
/* Bytes per process entry of that query (16, 24, or 32 on R535 drivers
 * whose _v3 wrote usedGpuCcProtectedMemory too). */
size_t sb_gpu_process_entry_size(const sb_gpu *gpu);

/* This process's PIDs as seen from every nested PID namespace, from the
 * "NSpid:" line of a /proc/<pid>/status text (outermost first). Returns
 * how many were stored in pids (at most cap); 0 if the text has no valid
 * NSpid line. */
size_t sb_gpu_parse_nspid(const char *status_text, unsigned int *pids, size_t cap);
/* The same for this process, read from /proc/self/status; falls back to
 * getpid() alone. Always returns at least 1 when cap >= 1. */
size_t sb_gpu_own_pids(unsigned int *pids, size_t cap);
/* Whether the NVIDIA driver's PID for this process is among those PIDs.
 * The driver knows PIDs of the initial (host) namespace only; they are
 * visible when this process lives there, or when the mounted /proc belongs
 * there (then NSpid's first entry is the host PID). A container with its
 * own PID namespace and /proc hides them. self_ns_ino: inode of this
 * process's pid namespace (0 if unknown); proc_is_host: the mounted /proc
 * belongs to the initial namespace. */
int sb_gpu_host_pid_visible(uint64_t self_ns_ino, int proc_is_host, size_t n_nspid);
/* The same for this process, from /proc. */
int sb_gpu_host_pid_visible_here(size_t n_nspid);

#endif
