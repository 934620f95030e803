/* The probe's state, shared by gpu_nvml.c (util: NVML, samples) and
 * gpu_info.c (core: the public spacrbench_gpu_info, which needs the
 * library's error and struct helpers that the command's archive lacks). */
#ifndef SPACRBENCH_GPU_STATE_H
#define SPACRBENCH_GPU_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "gpu.h"
#include "nvml_types.h"

#define SB_GPU_MAX_PIDS 32

/* One process list: compute (CUDA) or graphics (OpenGL/Vulkan) contexts. */
typedef struct sb_process_query {
    sb_nvml_processes_fn fn; /* NULL when NVML has none */
    int version;             /* 3, 2 or 1 */
    size_t stride;           /* bytes per entry this query writes */
} sb_process_query;

typedef struct sb_gpu_device {
    sb_nvml_device handle;
    unsigned int nvml_index;
    char name[SB_NVML_NAME_BUFFER_SIZE];
    int64_t total_bytes; /* -1 if NVML could not tell */
    int64_t peak_bytes;
    int64_t sample_bytes; /* this process's use in the sample being taken */
} sb_gpu_device;

struct sb_gpu {
    void *lib;
    int initialized;
    sb_nvml_shutdown_fn shutdown;
    sb_nvml_error_string_fn error_string;
    sb_nvml_memory_fn memory_info;
    sb_process_query compute;
    sb_process_query graphics;

    sb_gpu_device *devices;
    size_t n_devices;

    unsigned int pids[SB_GPU_MAX_PIDS];
    size_t n_pids;
    /* The PIDs whose entries the sample being taken adds up. */
    const unsigned int *match;
    size_t n_match;

    /* Reused process-list buffer, sized in the largest entry layout any
     * driver writes, so a layout mistake can misread but never overflow. */
    sb_nvml_process_v3_cc *entries;
    unsigned int capacity;

    int64_t failed_samples;
    char last_error[256];
};

#endif
