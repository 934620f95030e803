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
size_t sb_gpu_count(const sb_gpu *gpu);
/* Name, total and free memory now, and this process's peak on device i
 * (out->size set by the caller). */
int sb_gpu_info(sb_gpu *gpu, size_t i, spacrbench_gpu_info *out);
void sb_gpu_close(sb_gpu *gpu);

#endif
