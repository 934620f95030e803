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

#ifdef __cplusplus
}
#endif

#endif
