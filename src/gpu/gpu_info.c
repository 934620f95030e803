/* sb_gpu_info: a device's figures in the caller's (possibly older) struct.
 * Kept apart from gpu_nvml.c because it reports through the library's
 * error state, which the command's util archive does not carry. */
#include "gpu.h"
#include "internal.h"

int sb_gpu_info(sb_gpu *gpu, size_t i, spacrbench_gpu_info *out)
{
    if (!gpu || !out)
        return sb_fail(SPACRBENCH_EINVAL, "sb_gpu_info: %s is NULL", gpu ? "out" : "gpu");
    if (i >= sb_gpu_count(gpu))
        return sb_fail(SPACRBENCH_ERANGE, "GPU index %zu out of range (%zu devices)", i,
                       sb_gpu_count(gpu));
    spacrbench_gpu_info info;
    sb_gpu_fill_info(gpu, i, &info);
    return sb_struct_out(out, &info, sizeof info, "spacrbench_gpu_info");
}
