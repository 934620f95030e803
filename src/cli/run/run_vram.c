/* See run_vram.h. */
#include "run_vram.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void run_vram_open(run_vram *v)
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

void run_vram_close(run_vram *v)
{
    sb_gpu_close(v->gpu);
    free(v->pids);
    memset(v, 0, sizeof *v);
}

void run_vram_begin(run_vram *v) { v->peak = -1; }

void run_vram_verdict(run_vram *v, spacrbench_measurement *m)
{
    if (!v->gpu || !sb_gpu_pids_unverified(v->gpu, v->why, sizeof v->why))
        return;
    /* Said while the measurement is built: its items' VRAM is dropped. */
    spacrbench_measurement_set_vram_reason(m, v->why);
    sb_gpu_close(v->gpu);
    v->gpu = NULL;
}

int64_t run_vram_end(run_vram *v)
{
    if (v->gpu && sb_gpu_pids_unverified(v->gpu, NULL, 0))
        return -1; /* a sum over PIDs NVML does not use */
    if (v->gpu && v->peak < 0)
        v->items_unmeasured++;
    return v->gpu ? v->peak : -1;
}

int run_vram_report(const run_vram *v, spacrbench_measurement *m, int use_cgroup)
{
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
             use_cgroup ? "every PID in its cgroup" : "the command and its descendants",
             RUN_VRAM_INTERVAL_NS / 1000000);
    int rc = spacrbench_measurement_add_note(m, text);
    if (!rc && v->failed_samples > 0) {
        snprintf(text, sizeof text,
                 "%lld NVML sample(s) failed (last: %s); an item's VRAM peak is that of the "
                 "others, and %zu item(s) had none (not measured)",
                 (long long)v->failed_samples, sb_gpu_last_error(v->gpu), v->items_unmeasured);
        rc = spacrbench_measurement_add_note(m, text);
    }
    for (size_t g = 0; !rc && g < sb_gpu_count(v->gpu); g++) {
        spacrbench_gpu_info info;
        if (sb_gpu_fill_info(v->gpu, g, &info) == 0)
            rc = spacrbench_measurement_add_gpu(m, &info);
    }
    return rc;
}

int run_vram_active(const run_vram *v) { return v->gpu != NULL; }

static int add_pid(run_vram *v, size_t *n, long pid)
{
    if (pid <= 0)
        return 0;
    if (*n == v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 64;
        unsigned int *grown = realloc(v->pids, cap * sizeof *grown);
        if (!grown)
            return -1;
        v->pids = grown;
        v->cap = cap;
    }
    v->pids[(*n)++] = (unsigned int)pid;
    return 0;
}

/* Every PID in the group: its processes, whoever started them. */
static int group_pids(run_vram *v, const sb_group *cg, size_t *n)
{
    char path[SB_GROUP_PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/cgroup.procs", cg->dir);
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    long pid;
    int rc = 0;
    while (rc == 0 && fscanf(f, "%ld", &pid) == 1)
        rc = add_pid(v, n, pid);
    fclose(f);
    return rc;
}

/* The child and every descendant the tree sampler has seen this item
 * (dead ones too: NVML no longer lists them, so they add nothing). */
static int tree_pids(run_vram *v, const tree_sampler *t, pid_t child, size_t *n)
{
    if (add_pid(v, n, (long)child) != 0)
        return -1;
    for (size_t i = 0; i < t->count; i++)
        if (add_pid(v, n, (long)t->procs[i].pid) != 0)
            return -1;
    return 0;
}

void run_vram_sample(run_vram *v, const sb_group *cg, const tree_sampler *t, pid_t child)
{
    if (!v->gpu)
        return;
    size_t n = 0;
    int rc = cg && cg->dir[0] ? group_pids(v, cg, &n) : tree_pids(v, t, child, &n);
    int64_t used = rc == 0 ? sb_gpu_sample_pids(v->gpu, v->pids, n) : -1;
    if (used < 0) {
        v->failed_samples++; /* a failed sample is dropped; earlier peaks stand */
        return;
    }
    if (used > v->peak)
        v->peak = used;
}
