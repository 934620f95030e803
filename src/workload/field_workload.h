/* The built-in representative workload of the default mode: one synthetic
 * microscopy field per item, processed like a spaCR segmentation step
 * (16-bit multi-channel field -> float -> smoothing -> Otsu threshold ->
 * connected components -> per-object measurements). Every buffer is
 * allocated for the field and freed at its end, so one item has the memory
 * profile of one real field. */
#ifndef SPACRBENCH_CLI_FIELD_WORKLOAD_H
#define SPACRBENCH_CLI_FIELD_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct field_params {
    int64_t width;
    int64_t height;
    int64_t channels;
    uint64_t seed; /* each field has its own seed: same seed, same field */
} field_params;

typedef struct field_summary {
    int64_t objects; /* connected components above the threshold */
    int64_t foreground_pixels;
    double threshold;         /* Otsu threshold of the smoothed nuclear channel */
    double mean_area;         /* pixels per object, 0 when none */
    double mean_intensity0;   /* mean of channel 0 over all objects' pixels */
    double centroid_checksum; /* sum of object centroids (x + y): catches drift */
} field_summary;

/* Bytes one field needs at its peak (the estimate the help text prints). */
int64_t field_estimated_bytes(const field_params *p);

/* Check the parameters; returns NULL when valid or a message naming the
 * parameter that is not. */
const char *field_params_problem(const field_params *p);

/* Generate and process one field. Returns 0, -1 on bad parameters, -2 when
 * memory could not be allocated. */
int field_process(const field_params *p, field_summary *out);

/* The generator alone (exposed for tests): fills raw (channels planes of
 * width*height values, channel-major) deterministically from p->seed. */
void field_generate(const field_params *p, uint16_t *raw);

/* Otsu threshold of values (n > 0) over 256 bins between their min and max. */
double field_otsu_threshold(const float *values, size_t n);

/* The same from a 256-bin histogram of n values between lo and hi, as
 * the GPU variant computes it on the device. */
double field_otsu_from_histogram(const double hist[256], double lo, double hi, size_t n);

/* Per-object area, centroid and intensity of every channel of img
 * (channel-major float planes) into out. 0, or -2 when memory ran out. */
int field_measure_objects(const float *img, const int32_t *labels, int64_t n, const field_params *p,
                          field_summary *out);

/* Label 8-connected foreground pixels (mask != 0) with 1..N in labels
 * (0 = background). Returns N, or -1 when memory ran out. */
int64_t field_label(const uint8_t *mask, int64_t width, int64_t height, int32_t *labels);

/* The GPU variant (`spacrbench --gpu`): the same field uploaded, converted,
 * smoothed and thresholded on a CUDA device (Otsu from a device histogram);
 * labels and measurements on the host as in field_process. Built from
 * field_gpu.cu when CMake finds the CUDA toolkit, else field_gpu_none.c.
 * Only the command links it: the library never touches the CUDA runtime. */

/* 0 when a CUDA device can run the workload; -1 with why otherwise. Asks
 * cudaGetDeviceCount only, which loads the driver but creates no context. */
int field_gpu_check(char *why, size_t why_cap);
/* field_process on the device: 0, -1 on bad parameters, -2 when host
 * memory ran out, -3 on a CUDA error (field_gpu_error says). */
int field_gpu_process(const field_params *p, field_summary *out);
/* The last CUDA error of field_gpu_process ("" when none). */
const char *field_gpu_error(void);

/* Every buffer field_gpu.cu holds on the device for one field, sized here
 * once, so the workload and the GPU check's truth (bytes allocated vs the
 * measured VRAM peak) cannot drift apart. Plain C, with or without CUDA. */
#define FIELD_GPU_BINS 256 /* the device histogram Otsu reads */

typedef struct field_gpu_layout {
    size_t raw;      /* the 16-bit field, every channel */
    size_t img;      /* float copy, every channel */
    size_t smoothed; /* smoothed float planes, every channel */
    size_t scratch;  /* one float plane between the two box passes */
    size_t mask;     /* one byte per pixel */
    size_t hist;     /* FIELD_GPU_BINS counters */
    size_t lohi;     /* min and max of channel 0 */
} field_gpu_layout;

/* 0 and the sizes, or -1 (layout zeroed) for bad parameters. */
int field_gpu_layout_of(const field_params *p, field_gpu_layout *out);
/* Sum of the layout: the bytes one field holds on the device at once,
 * before the CUDA context and the allocator's rounding; -1 for bad
 * parameters. */
int64_t field_gpu_device_bytes(const field_params *p);

#ifdef __cplusplus
}
#endif

#endif
