/* Real-GPU check that measuring has no side effect: a benchmark whose
 * work never touches the GPU must report 0 bytes of VRAM (measured, none)
 * and leave no CUDA context, i.e. no NVML process entry for this process.
 * Plain C, linked with libspacrbench only: no CUDA runtime in the process.
 * Exit status: 0 pass, 1 fail, 2 could not run. */
#define _POSIX_C_SOURCE 200809L /* popen */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spacrbench.h"

static int cpu_work(void *item, void *payload)
{
    (void)payload;
    volatile double x = 0;
    for (long i = 0; i < 20000000L; i++)
        x += (double)i * (double)(intptr_t)item;
    return 0;
}

/* Is pid listed by nvidia-smi as a compute process? -1 if it cannot tell. */
static int listed_by_nvidia_smi(long pid)
{
    FILE *p = popen("nvidia-smi --query-compute-apps=pid --format=csv,noheader 2>/dev/null", "r");
    if (!p)
        return -1;
    char line[64];
    int listed = 0;
    while (fgets(line, sizeof line, p)) {
        listed |= atol(line) == pid;
    }
    int status = pclose(p);
    return status == 0 ? listed : -1;
}

int main(void)
{
    void *items[] = {(void *)(intptr_t)1, (void *)(intptr_t)2, (void *)(intptr_t)3};
    spacrbench_measurement *m = NULL;
    if (spacrbench_benchmark(cpu_work, items, 3, NULL, NULL, &m) != 0) {
        printf("FAIL: spacrbench_benchmark: %s\n", spacrbench_last_error_message());
        return 1;
    }
    spacrbench_figures f;
    memset(&f, 0, sizeof f);
    f.size = sizeof f;
    spacrbench_measurement_figures(m, &f);
    for (size_t i = 0; spacrbench_measurement_note(m, i); i++)
        printf("  note: %s\n", spacrbench_measurement_note(m, i));
    printf("peak VRAM %lld bytes (source %d, %lld GPUs seen)\n", (long long)f.peak_vram_bytes,
           f.vram_source, (long long)f.gpu_count);
    spacrbench_measurement_free(m);
    if (f.peak_vram_bytes == SPACRBENCH_NOT_MEASURED) {
        printf("SKIP: VRAM not measured here (see the note)\n");
        return 2;
    }
    printf("figure|CPU-only work, no CUDA in the process|0|%lld\n", (long long)f.peak_vram_bytes);
    int listed = listed_by_nvidia_smi((long)getpid());
    printf("nvidia-smi lists this process (pid %ld): %s\n", (long)getpid(),
           listed < 0 ? "cannot tell"
           : listed   ? "YES"
                      : "no");
    if (f.peak_vram_bytes != 0 || listed == 1) {
        printf("FAIL: measuring must not create a CUDA context\n");
        return 1;
    }
    printf("PASS: no VRAM used, no CUDA context created\n");
    return 0;
}
