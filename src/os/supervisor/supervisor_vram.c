/* VRAM of a supervised group: NVML's per-process usedGpuMemory (the
 * library's probe, loaded with dlopen, no CUDA context) summed over the
 * group's PIDs, sampled by the supervisor's wait loop and once at the end.
 * "Not measured" (-1, with a reason) and 0 (measured, used none) stay
 * apart. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "supervisor.h"

void sb_vram_open(sb_vram *v)
{
    memset(v, 0, sizeof *v);
    v->peak = -1;
    v->gpu = sb_gpu_open(v->why, sizeof v->why);
    if (v->gpu && !sb_gpu_pids_are_host(v->gpu)) {
        /* Nested PID namespace with the host's /proc: the PIDs we read for
         * the commands are this namespace's, NVML's are the host's. */
        snprintf(v->why, sizeof v->why,
                 "spacrbench runs in a nested PID namespace: the commands' PIDs it sees are "
                 "not the host PIDs NVML reports");
        sb_gpu_close(v->gpu);
        v->gpu = NULL;
    }
}

void sb_vram_close(sb_vram *v)
{
    sb_gpu_close(v->gpu);
    free(v->pids);
    memset(v, 0, sizeof *v);
}

void sb_vram_begin(sb_vram *v) { v->peak = -1; }

int64_t sb_vram_end(sb_vram *v)
{
    if (v->gpu && sb_gpu_pids_unverified(v->gpu, NULL, 0))
        return -1; /* a sum over PIDs NVML does not use */
    if (v->gpu && v->peak < 0)
        v->groups_unmeasured++;
    return v->gpu ? v->peak : -1;
}

void sb_vram_sample(sb_vram *v, const pid_t *pids, size_t n)
{
    if (!v->gpu)
        return;
    if (sb_grow(&v->pids, &v->cap, n, sizeof *v->pids)) {
        v->failed_samples++;
        return;
    }
    for (size_t i = 0; i < n; i++)
        v->pids[i] = (unsigned int)pids[i];
    int64_t used = sb_gpu_sample_pids(v->gpu, v->pids, n);
    if (used < 0) {
        v->failed_samples++; /* a failed sample is dropped; earlier peaks stand */
        return;
    }
    if (used > v->peak)
        v->peak = used;
}

const char *sb_supervisor_vram_verdict(sb_supervisor *s)
{
    sb_vram *v = &s->vram;
    if (v->gpu && sb_gpu_pids_unverified(v->gpu, v->why, sizeof v->why)) {
        sb_gpu_close(v->gpu);
        v->gpu = NULL;
    }
    return v->gpu ? NULL : v->why;
}
