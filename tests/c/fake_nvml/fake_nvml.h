/* A scripted stand-in for libnvidia-ml.so.1, built by the tests so the GPU
 * probe can be exercised on machines without a GPU.
 *
 * The script is read at nvmlInit_v2 (when no other init is live) from the
 * file named by SPACRBENCH_FAKE_NVML_SCRIPT; without it there is one idle
 * 16 GiB device. One directive per line, '#' starts a comment, sizes are
 * bytes with an optional K, M, G or T (binary) suffix:
 *
 *   device TOTAL FREE NAME...   add a device (index = order of appearance)
 *   used DEV STEP STEP ...      this process's compute memory on DEV: each
 *                               successful full compute query moves to the
 *                               next step, the last one sticks. A step is a
 *                               size (0 = not listed), "na" (listed with
 *                               NVML_VALUE_NOT_AVAILABLE) or "fail" (the
 *                               query fails with NVML_ERROR_GPU_IS_LOST)
 *   graphics DEV SIZE           this process is also in DEV's graphics list
 *   other DEV PID SIZE          another process's compute entry
 *   others DEV N                N other processes (1 GiB each)
 *   pids_in DEV DIR SIZE        every live process whose PID names a file
 *                               in DIR (read at each query) uses SIZE on
 *                               DEV: tests of `spacrbench run` let their
 *                               commands' processes register themselves
 *   pid getpid|outer|NUMBER     the PID reported for this process: ours,
 *                               the outermost one of the NSpid line (as a
 *                               driver outside our PID namespace sees it),
 *                               or a fixed number
 *   init_fail CODE              nvmlInit_v2 returns CODE
 *   count_fail CODE             nvmlDeviceGetCount_v2 returns CODE
 *   handle_fail DEV CODE        nvmlDeviceGetHandleByIndex_v2(DEV) fails
 *   compute_fail DEV CODE       every compute query of DEV fails
 *   graphics_fail CODE          every graphics query fails
 *   memory_fail                 nvmlDeviceGetMemoryInfo fails
 *   insufficient_first          the first full compute query of each device
 *                               says NVML_ERROR_INSUFFICIENT_SIZE (a
 *                               process appeared in between)
 *   insufficient_always [N]     every full compute query says so, asking
 *                               for N entries (default: one more than given)
 *
 * Variants (compile definitions): FAKE_NVML_NO_V3 lacks the _v3 process
 * queries, FAKE_NVML_V1_ONLY has only the original ones, and
 * FAKE_NVML_NO_MEMORY_INFO lacks nvmlDeviceGetMemoryInfo. */
#ifndef FAKE_NVML_H
#define FAKE_NVML_H

/* Control functions for the tests, found with dlsym on the loaded fake. */
void fake_nvml_set_used(unsigned int device, unsigned long long bytes);
/* Full compute queries of the device so far (failed ones included). */
unsigned long fake_nvml_queries(unsigned int device);
/* From now on every compute query of the device returns code (0: none). */
void fake_nvml_fail(unsigned int device, int code);
int fake_nvml_live_inits(void);
int fake_nvml_last_version(void);

typedef void (*fake_nvml_set_used_fn)(unsigned int device, unsigned long long bytes);
typedef unsigned long (*fake_nvml_queries_fn)(unsigned int device);
typedef void (*fake_nvml_fail_fn)(unsigned int device, int code);
typedef int (*fake_nvml_live_inits_fn)(void);
typedef int (*fake_nvml_last_version_fn)(void);

#endif
