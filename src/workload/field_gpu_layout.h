/* What the GPU field workload holds on the device for one field: every
 * buffer field_gpu.cu allocates, sized here once, so the workload and the
 * GPU check's truth (bytes allocated vs measured VRAM peak) cannot drift
 * apart. Plain C: built into every command, with or without CUDA. */
#ifndef SPACRBENCH_CLI_FIELD_GPU_LAYOUT_H
#define SPACRBENCH_CLI_FIELD_GPU_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "field_workload.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FIELD_GPU_BINS 256 /* the device histogram Otsu reads */

typedef struct field_gpu_layout {
    size_t raw;      /* the 16-bit field, every channel */
    size_t img;      /* float copy, every channel */
    size_t smoothed; /* smoothed float planes, every channel */
    size_t scratch;  /* one float plane between the two box passes */
    size_t mask;     /* one byte per pixel */
    size_t hist;     /* FIELD_GPU_BINS counters */
    size_t lohi;     /* min and max of channel 0 */
} field_gpu_layout;

/* 0 and the sizes, or -1 (layout zeroed) for bad parameters. */
int field_gpu_layout_of(const field_params *p, field_gpu_layout *out);

/* Sum of the layout: the bytes one field holds on the device at once,
 * before the CUDA context and the allocator's rounding. -1 for bad
 * parameters. */
int64_t field_gpu_device_bytes(const field_params *p);

#ifdef __cplusplus
}
#endif

#endif
