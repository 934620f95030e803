/* The GPU variant of the built-in field workload (`spacrbench --gpu`): the
 * same synthetic field, uploaded, converted, smoothed and thresholded on a
 * CUDA device (Otsu from a device histogram); labels and measurements on
 * the host as in field_process. Built from field_gpu.cu with the CUDA
 * runtime when CMake finds the toolkit, else from field_gpu_none.c. Only
 * the command links it: the library never touches the CUDA runtime. */
#ifndef SPACRBENCH_CLI_FIELD_GPU_H
#define SPACRBENCH_CLI_FIELD_GPU_H

#include <stddef.h>

#include "field_workload.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 0 when a CUDA device can run the workload; -1 with why otherwise. Asks
 * cudaGetDeviceCount only, which loads the driver but creates no context,
 * so a machine without a device is left as it was. */
int field_gpu_check(char *why, size_t why_cap);

/* Process one field as field_process does. 0, -1 on bad parameters, -2
 * when host memory ran out, -3 on a CUDA error (field_gpu_error says). */
int field_gpu_process(const field_params *p, field_summary *out);

/* The last CUDA error of field_gpu_process ("" when none). */
const char *field_gpu_error(void);

#ifdef __cplusplus
}
#endif

#endif
