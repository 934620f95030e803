/* sb_gpu_info: a device's figures in the public struct. Kept apart from
 * gpu_nvml.c because it reports through the library's error state. */
#include <stdio.h>
#include <string.h>

#include "gpu_state.h"
#include "internal.h"

int sb_gpu_info(sb_gpu *gpu, size_t i, spacrbench_gpu_info *out)
{
    if (!gpu || !out)
        return sb_fail(SPACRBENCH_EINVAL, "sb_gpu_info: %s is NULL", gpu ? "out" : "gpu");
    if (i >= gpu->n_devices)
        return sb_fail(SPACRBENCH_ERANGE, "GPU index %zu out of range (%zu devices)", i,
                       gpu->n_devices);
    const sb_gpu_device *dev = &gpu->devices[i];
    spacrbench_gpu_info info;
    memset(&info, 0, sizeof info);
    info.size = sizeof info;
    info.index = dev->nvml_index;
    snprintf(info.name, sizeof info.name, "%s", dev->name);
    info.total_bytes = dev->total_bytes;
    info.free_bytes = -1;
    sb_nvml_memory mem;
    if (gpu->memory_info(dev->handle, &mem) == SB_NVML_SUCCESS && mem.free <= INT64_MAX) {
        info.free_bytes = (int64_t)mem.free;
        if (mem.total <= INT64_MAX)
            info.total_bytes = (int64_t)mem.total;
    }
    info.process_peak_bytes = dev->peak_bytes;
    return sb_struct_out(out, &info, sizeof info, "spacrbench_gpu_info");
}

