/* Placeholder until the NVML probe lands (issue 5): reports that GPU
 * memory is not measured, which is the truthful answer for this build. */
#include <stdio.h>

#include "gpu.h"

sb_gpu *sb_gpu_open(char *why, size_t why_cap)
{
    if (why && why_cap)
        snprintf(why, why_cap, "this build has no GPU probe");
    return NULL;
}

int64_t sb_gpu_sample(sb_gpu *gpu) { (void)gpu; return -1; }
size_t sb_gpu_count(const sb_gpu *gpu) { (void)gpu; return 0; }
int sb_gpu_info(sb_gpu *gpu, size_t i, spacrbench_gpu_info *out)
{
    (void)gpu; (void)i; (void)out;
    return SPACRBENCH_ERANGE;
}
void sb_gpu_close(sb_gpu *gpu) { (void)gpu; }
