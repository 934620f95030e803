/* field_workload.h's GPU part for a command built without the CUDA toolkit. */
#include <stdio.h>

#include "field_workload.h"

int field_gpu_check(char *why, size_t why_cap)
{
    snprintf(why, why_cap,
             "built without CUDA: this spacrbench has no GPU workload (configure with "
             "-DSPACRBENCH_CUDA=ON where the CUDA toolkit is installed)");
    return -1;
}

int field_gpu_process(const field_params *p, field_summary *out)
{
    (void)p;
    (void)out;
    return -3;
}

const char *field_gpu_error(void) { return "built without CUDA"; }
