/* See run_vram.h. */
#include "run_vram.h"

#include <stdio.h>

void run_vram_verdict(sb_supervisor *sup, spacrbench_measurement *m)
{
    int was_measured = sup->vram.gpu != NULL;
    const char *why = sb_supervisor_vram_verdict(sup);
    if (was_measured && why) /* said while the measurement is built */
        spacrbench_measurement_set_vram_reason(m, why);
}

int run_vram_report(const sb_supervisor *sup, spacrbench_measurement *m)
{
    const sb_vram *v = &sup->vram;
    char text[1024];
    if (!v->gpu) {
        spacrbench_measurement_set_vram_reason(m, v->why);
        snprintf(text, sizeof text, "VRAM not measured: %s", v->why);
        return spacrbench_measurement_add_note(m, text);
    }
    snprintf(text, sizeof text,
             "peak VRAM of each command's whole process tree (%s) from NVML's per-process "
             "usedGpuMemory (CUDA contexts included), summed over the tree and the GPUs, "
             "sampled every %ld ms while it ran and once at its end: an allocation shorter "
             "than that can be missed",
             sup->use_cgroup ? "every PID in its cgroup" : "the command and its descendants",
             SB_SUPERVISOR_VRAM_NS / 1000000);
    int rc = spacrbench_measurement_add_note(m, text);
    if (!rc && v->failed_samples > 0) {
        snprintf(text, sizeof text,
                 "%lld NVML sample(s) failed (last: %s); an item's VRAM peak is that of the "
                 "others, and %zu item(s) had none (not measured)",
                 (long long)v->failed_samples, sb_gpu_last_error(v->gpu), v->groups_unmeasured);
        rc = spacrbench_measurement_add_note(m, text);
    }
    for (size_t g = 0; !rc && g < sb_gpu_count(v->gpu); g++) {
        spacrbench_gpu_info info;
        if (sb_gpu_fill_info(v->gpu, g, &info) == 0)
            rc = spacrbench_measurement_add_gpu(m, &info);
    }
    return rc;
}
