// Real-GPU check of the VRAM peak: a spacrbench_benchmark of three items.
// The first only creates the CUDA context (cudaFree(0)), so its per-item
// peak names the context's size; the next two allocate 1 GiB and then
// 3 GiB with cudaMalloc, touch it, hold it long enough for the sampler to
// see it, and free it. Each figure is printed against its truth as
// "figure|label|truth bytes|measured bytes" for run_gpu_check.sh's table.
// Pass: the run's peak is 3 GiB plus the context (under 1 GiB of slack).
// Exit status: 0 pass, 1 fail, 2 could not run (no usable GPU, or VRAM not
// measurable here, e.g. a PID namespace that hides NVML's PIDs).
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "spacrbench.h"

static const int64_t GiB = INT64_C(1) << 30;

// What NVML lists while 3 GiB are held: if PIDs do not match (a sandbox
// or container), this line shows which PIDs the driver reports instead.
static void show_compute_apps(void)
{
    printf("  nvidia-smi compute apps while holding (this pid %ld):\n", (long)getpid());
    fflush(stdout);
    FILE *p = popen("nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader", "r");
    char line[128];
    while (p && fgets(line, sizeof line, p))
        printf("    %s", line);
    if (p)
        pclose(p);
}

static int alloc_and_hold(void *item, void *payload)
{
    (void)payload;
    size_t bytes = (size_t)(intptr_t)item;
    void *p = NULL;
    if (bytes == 0) { // the context alone
        if (cudaFree(0) != cudaSuccess)
            return 1;
    } else {
        if (cudaMalloc(&p, bytes) != cudaSuccess)
            return 1;
        cudaMemset(p, 0x5a, bytes); // touch every page
    }
    cudaDeviceSynchronize();
    if (bytes == (size_t)(3 * GiB))
        show_compute_apps();
    struct timespec hold = {0, 300 * 1000 * 1000}; // 30 sampler periods
    nanosleep(&hold, NULL);
    cudaFree(p);
    cudaDeviceSynchronize();
    return 0;
}

static void figure(const char *label, int64_t truth, int64_t measured)
{
    printf("figure|%s|%lld|%lld\n", label, (long long)truth, (long long)measured);
}

int main(void)
{
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        printf("SKIP: no usable CUDA device\n");
        return 2;
    }
    void *items[] = {(void *)0, (void *)(intptr_t)(1 * GiB), (void *)(intptr_t)(3 * GiB)};
    spacrbench_options opts;
    spacrbench_options_init(&opts, sizeof opts);
    opts.warmup = 0;
    opts.sample_interval_us = 10000; // the default, as users get it
    spacrbench_measurement *m = NULL;
    int rc = spacrbench_benchmark(alloc_and_hold, items, 3, NULL, &opts, &m);
    if (rc != 0) {
        printf("FAIL: spacrbench_benchmark: %s\n", spacrbench_last_error_message());
        return 1;
    }
    spacrbench_figures f;
    memset(&f, 0, sizeof f);
    f.size = sizeof f;
    spacrbench_measurement_figures(m, &f);
    for (size_t i = 0; spacrbench_measurement_note(m, i); i++)
        printf("  note: %s\n", spacrbench_measurement_note(m, i));
    int64_t item_peak[3] = {-1, -1, -1};
    for (int64_t i = 0; i < f.record_count && i < 3; i++) {
        spacrbench_item_record r;
        memset(&r, 0, sizeof r);
        r.size = sizeof r;
        spacrbench_measurement_record(m, (size_t)i, &r);
        item_peak[i] = r.peak_vram_bytes;
    }
    for (int64_t i = 0; i < f.gpu_count; i++) {
        spacrbench_gpu_info g;
        memset(&g, 0, sizeof g);
        g.size = sizeof g;
        spacrbench_measurement_gpu(m, (size_t)i, &g);
        printf("  GPU %lld %s: total %.1f GiB, free %.1f GiB, this process's peak %.3f GiB\n",
               (long long)g.index, g.name, (double)g.total_bytes / (double)GiB,
               (double)g.free_bytes / (double)GiB, (double)g.process_peak_bytes / (double)GiB);
    }
    spacrbench_measurement_free(m);
    if (f.peak_vram_bytes == SPACRBENCH_NOT_MEASURED) {
        printf("SKIP: VRAM not measured here (see the notes)\n");
        return 2;
    }
    int64_t context = item_peak[0];
    figure("CUDA context alone (cudaFree(0), item 1)", -1, context);
    figure("cudaMalloc 1 GiB (item 2), truth + context", GiB + context, item_peak[1]);
    figure("cudaMalloc 3 GiB (item 3), truth + context", 3 * GiB + context, item_peak[2]);
    figure("run peak, truth 3 GiB + context", 3 * GiB + context, f.peak_vram_bytes);
    printf("peak VRAM %lld bytes = 3 GiB allocation + %.0f MiB (CUDA context %.0f MiB)\n",
           (long long)f.peak_vram_bytes, (double)(f.peak_vram_bytes - 3 * GiB) / (1 << 20),
           (double)context / (1 << 20));
    if (f.vram_source != SPACRBENCH_SOURCE_NVML || f.peak_vram_bytes < 3 * GiB ||
        f.peak_vram_bytes - 3 * GiB >= GiB || context <= 0 || context >= GiB) {
        printf("FAIL: expected a context in (0, 1 GiB) and 3 GiB <= peak VRAM < 4 GiB from NVML "
               "(source %d)\n",
               f.vram_source);
        return 1;
    }
    printf("PASS: VRAM peak found within the context slack\n");
    return 0;
}
