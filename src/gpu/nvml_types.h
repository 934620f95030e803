/* The few NVML declarations the GPU probe needs, written from the NVML API
 * reference so that the library has no build dependency on nvml.h or the
 * CUDA toolkit. NVML itself is loaded at run time with dlopen. The fake
 * NVML of the tests (tests/c/fake_nvml) implements the same declarations. */
#ifndef SPACRBENCH_NVML_TYPES_H
#define SPACRBENCH_NVML_TYPES_H

/* nvmlReturn_t: 0 is success; only the codes we act on are named. */
typedef int sb_nvml_return;
#define SB_NVML_SUCCESS                 0
#define SB_NVML_ERROR_NOT_SUPPORTED     3
#define SB_NVML_ERROR_NO_PERMISSION     4
#define SB_NVML_ERROR_NOT_FOUND         6
#define SB_NVML_ERROR_INSUFFICIENT_SIZE 7
#define SB_NVML_ERROR_DRIVER_NOT_LOADED 9
#define SB_NVML_ERROR_GPU_IS_LOST       15
#define SB_NVML_ERROR_UNKNOWN           999

/* NVML_VALUE_NOT_AVAILABLE: usedGpuMemory is unknown (e.g. Windows WDDM). */
#define SB_NVML_VALUE_NOT_AVAILABLE (~0ULL)

/* NVML_DEVICE_NAME_V2_BUFFER_SIZE. */
#define SB_NVML_NAME_BUFFER_SIZE 96

/* nvmlDevice_t is an opaque pointer. */
typedef struct sb_nvml_device_st *sb_nvml_device;

/* nvmlMemory_t (nvmlDeviceGetMemoryInfo, v1). */
typedef struct sb_nvml_memory {
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
} sb_nvml_memory;

/* nvmlProcessInfo_v1_t: filled by nvmlDeviceGet*RunningProcesses (v1). */
typedef struct sb_nvml_process_v1 {
    unsigned int pid;
    unsigned long long usedGpuMemory;
} sb_nvml_process_v1;

/* nvmlProcessInfo_v2_t, which has the same layout as nvmlProcessInfo_t
 * taken by the _v3 functions: the MIG instance ids were added at the end. */
typedef struct sb_nvml_process_v2 {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
} sb_nvml_process_v2;

/* The entry that nvmlDevice*RunningProcesses_v3 wrote on the R535 drivers
 * from 535.43 to 535.86: v2 plus usedGpuCcProtectedMemory, without a
 * version bump (later drivers went back to the v2 layout for _v3). Those
 * drivers are told apart by having nvmlDeviceGetConfComputeMemSizeInfo but
 * not yet nvmlDeviceGetRunningProcessDetailList. */
typedef struct sb_nvml_process_v3_cc {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
    unsigned long long usedGpuCcProtectedMemory;
} sb_nvml_process_v3_cc;

typedef sb_nvml_return (*sb_nvml_init_fn)(void);
typedef sb_nvml_return (*sb_nvml_shutdown_fn)(void);
typedef const char *(*sb_nvml_error_string_fn)(sb_nvml_return result);
typedef sb_nvml_return (*sb_nvml_count_fn)(unsigned int *count);
typedef sb_nvml_return (*sb_nvml_handle_fn)(unsigned int index, sb_nvml_device *device);
typedef sb_nvml_return (*sb_nvml_name_fn)(sb_nvml_device device, char *name, unsigned int length);
typedef sb_nvml_return (*sb_nvml_memory_fn)(sb_nvml_device device, sb_nvml_memory *memory);
/* infos points to sb_nvml_process_v1 or _v2 entries depending on the
 * function's version; *count is the capacity in, the entry count out. */
typedef sb_nvml_return (*sb_nvml_processes_fn)(sb_nvml_device device, unsigned int *count,
                                               void *infos);

#endif
