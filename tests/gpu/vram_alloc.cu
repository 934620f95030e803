// Real-GPU check of the VRAM peak: a spacrbench_benchmark whose items
// allocate 1 GiB and then 3 GiB with cudaMalloc, touch it, hold it long
// enough for the sampler to see it, and free it. The measured peak must be
// the 3 GiB plus this process's CUDA context (less than 1 GiB of slack).
// Exit status: 0 pass, 1 fail, 2 could not run (no usable GPU).
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "spacrbench.h"

static const int64_t GiB = INT64_C(1) << 30;

static int alloc_and_hold(void *item, void *payload)
{
    (void)payload;
    size_t bytes = (size_t)(intptr_t)item;
    void *p = NULL;
    if (cudaMalloc(&p, bytes) != cudaSuccess)
        return 1;
    cudaMemset(p, 0x5a, bytes); // touch every page
    cudaDeviceSynchronize();
    struct timespec hold = {0, 300 * 1000 * 1000}; // 30 sampler periods
    nanosleep(&hold, NULL);
    cudaFree(p);
    cudaDeviceSynchronize();
    return 0;
}

int main(void)
{
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        printf("SKIP: no usable CUDA device\n");
        return 2;
    }
    void *items[] = {(void *)(intptr_t)(1 * GiB), (void *)(intptr_t)(3 * GiB)};
    spacrbench_options opts;
    spacrbench_options_init(&opts, sizeof opts);
    opts.warmup = 0;
    opts.sample_interval_us = 10000; // the default, as users get it
    spacrbench_measurement *m = NULL;
    int rc = spacrbench_benchmark(alloc_and_hold, items, 2, NULL, &opts, &m);
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
    for (int64_t i = 0; i < f.record_count; i++) {
        spacrbench_item_record r;
        memset(&r, 0, sizeof r);
        r.size = sizeof r;
        spacrbench_measurement_record(m, (size_t)i, &r);
        printf("  item %lld: peak VRAM %.3f GiB\n", (long long)i,
               (double)r.peak_vram_bytes / (double)GiB);
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
    if (f.peak_vram_bytes == SPACRBENCH_NOT_MEASURED) {
        printf("SKIP: VRAM not measured here (see the notes)\n");
        spacrbench_measurement_free(m);
        return 2;
    }
    int64_t context = f.peak_vram_bytes - 3 * GiB;
    printf("peak VRAM %lld bytes = 3 GiB allocation + %.0f MiB (CUDA context and allocator)\n",
           (long long)f.peak_vram_bytes, (double)context / (1 << 20));
    spacrbench_measurement_free(m);
    if (f.vram_source != SPACRBENCH_SOURCE_NVML || f.peak_vram_bytes < 3 * GiB || context >= GiB) {
        printf("FAIL: expected 3 GiB <= peak VRAM < 4 GiB from NVML (source %d)\n", f.vram_source);
        return 1;
    }
    printf("PASS: VRAM peak found within the context slack\n");
    return 0;
}
