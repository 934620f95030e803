/* The VRAM side of a serial run: the peak NVML saw for this process, the
 * GPUs, and the notes, or why VRAM was not measured. */
#include <stdio.h>
#include <string.h>

#include "core.h"

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

int sb_run_finish_vram(sb_run *st, int64_t sampled_vram)
{
    spacrbench_measurement *m = st->m;
    char why[512];
    if (!st->gpu && !(st->opt.flags & SPACRBENCH_FLAG_NO_GPU)) {
        /* No device could be opened: spaCR's words first (its tests and
         * users match them), the library's reason after them. */
        snprintf(why, sizeof why, "%s: %s", SB_WORDS_NO_CUDA, st->gpu_why);
        int rc = sb_measurement_vram_reason(m, why);
        return rc ? rc
                  : sb_measurement_spacr_notef(m, "%s, so VRAM was not measured (%s)",
                                               SB_WORDS_NO_CUDA, st->gpu_why);
    }
    if (!st->gpu) {
        sb_measurement_vram_reason(m, st->gpu_why);
        return sb_measurement_notef(m, "VRAM not measured: %s", st->gpu_why);
    }
    sampled_vram = max64(max64(sampled_vram, st->first_vram), sb_gpu_sample(st->gpu));
    if (sampled_vram < 0) {
        snprintf(why, sizeof why, "every NVML sample failed: %s", sb_gpu_last_error(st->gpu));
        sb_measurement_vram_reason(m, why);
        return sb_measurement_notef(m, "VRAM not measured: %s", why);
    }
    if (sb_gpu_pids_unverified(st->gpu, why, sizeof why)) {
        sb_measurement_drop_vram(m); /* the items' figures may be false 0s */
        int rc = sb_measurement_vram_reason(m, why);
        return rc ? rc : sb_measurement_notef(m, "VRAM not measured: %s", why);
    }
    m->fig.peak_vram_bytes = sampled_vram;
    m->fig.vram_source = SPACRBENCH_SOURCE_NVML;
    if (sb_gpu_failed_samples(st->gpu) > 0)
        sb_measurement_notef(m,
                             "%lld NVML sample(s) failed (last: %s); the VRAM peak is that "
                             "of the others",
                             (long long)sb_gpu_failed_samples(st->gpu), sb_gpu_last_error(st->gpu));
    size_t n_gpus = sb_gpu_count(st->gpu);
    for (size_t g = 0; g < n_gpus; g++) {
        spacrbench_gpu_info info;
        memset(&info, 0, sizeof info);
        info.size = sizeof info;
        int rc;
        if (sb_gpu_info(st->gpu, g, &info) == 0 && (rc = spacrbench_measurement_add_gpu(m, &info)))
            return rc;
    }
    return sb_measurement_notef(m,
                                "peak VRAM is this process's GPU memory (CUDA context "
                                "included) sampled every %.1f ms through NVML",
                                (double)st->opt.sample_interval_us / 1000.0);
}
