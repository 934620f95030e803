/* field_gpu_layout.h: the device buffers of one field, sized once. */
#include "field_gpu_layout.h"

#include <string.h>

int field_gpu_layout_of(const field_params *p, field_gpu_layout *out)
{
    if (out == NULL)
        return -1;
    memset(out, 0, sizeof *out);
    /* field_params_problem bounds width, height and channels, so these
     * products fit (the CPU variant allocates the same planes on the host). */
    if (p == NULL || field_params_problem(p) != NULL)
        return -1;
    size_t plane = (size_t)p->width * (size_t)p->height;
    size_t all = plane * (size_t)p->channels;
    out->raw = all * sizeof(uint16_t);
    out->img = all * sizeof(float);
    out->smoothed = all * sizeof(float);
    out->scratch = plane * sizeof(float);
    out->mask = plane;
    out->hist = FIELD_GPU_BINS * sizeof(unsigned);
    out->lohi = 2 * sizeof(unsigned);
    return 0;
}

int64_t field_gpu_device_bytes(const field_params *p)
{
    field_gpu_layout l;
    if (field_gpu_layout_of(p, &l) != 0)
        return -1;
    return (int64_t)(l.raw + l.img + l.smoothed + l.scratch + l.mask + l.hist + l.lohi);
}
