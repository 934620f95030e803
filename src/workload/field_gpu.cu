// The GPU variant of the field workload; see field_gpu.h. Small kernels,
// one thread per pixel: the point is a real segmentation step's VRAM
// profile (raw, float and smoothed planes, scratch, mask on the device),
// not the fastest filter.
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "field_workload.h"

#define SMOOTH_RADIUS 2 /* as the CPU variant */
#define BINS          FIELD_GPU_BINS
#define THREADS       256

static char g_error[256];

static unsigned blocks_for(size_t n) { return (unsigned)((n + THREADS - 1) / THREADS); }

__global__ void to_float(const unsigned short *raw, float *img, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        img[i] = (float)raw[i];
}

// Box filter of radius r along x (step 1) or y (step w), edges clamped.
__global__ void box(const float *in, float *out, int w, int h, int along_y, int r)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)w * h)
        return;
    int x = (int)(i % (size_t)w), y = (int)(i / (size_t)w);
    float sum = 0;
    for (int k = -r; k <= r; k++) {
        int xx = along_y ? x : min(max(x + k, 0), w - 1);
        int yy = along_y ? min(max(y + k, 0), h - 1) : y;
        sum += in[(size_t)yy * w + xx];
    }
    out[i] = sum / (float)(2 * r + 1);
}

// Non-negative floats order as their bit patterns: atomicMin/Max on them.
__global__ void min_max(const float *v, size_t n, unsigned *lohi)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned bits = __float_as_uint(fmaxf(v[i], 0.0f));
        atomicMin(&lohi[0], bits);
        atomicMax(&lohi[1], bits);
    }
}

__global__ void histogram(const float *v, size_t n, float lo, float scale, unsigned *hist)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int b = (int)((v[i] - lo) * scale);
        atomicAdd(&hist[min(max(b, 0), BINS - 1)], 1u);
    }
}

__global__ void threshold(const float *v, size_t n, float t, unsigned char *mask)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        mask[i] = v[i] > t;
}

extern "C" int field_gpu_check(char *why, size_t why_cap)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        snprintf(why, why_cap, "no usable CUDA device: %s (%s from cudaGetDeviceCount)",
                 cudaGetErrorString(e), cudaGetErrorName(e));
        return -1;
    }
    if (count == 0) {
        snprintf(why, why_cap, "no usable CUDA device: the driver reports none");
        return -1;
    }
    return 0;
}

extern "C" const char *field_gpu_error(void) { return g_error; }

// Record the first CUDA error of a field; true when there was one.
static bool failed(cudaError_t e, const char *what)
{
    if (e == cudaSuccess)
        return false;
    snprintf(g_error, sizeof g_error, "%s: %s", what, cudaGetErrorString(e));
    return true;
}

typedef struct device_buffers {
    unsigned short *raw;
    float *img, *smoothed, *scratch;
    unsigned char *mask;
    unsigned *hist, *lohi;
} device_buffers;

static void free_device(device_buffers *d)
{
    cudaFree(d->raw), cudaFree(d->img), cudaFree(d->smoothed), cudaFree(d->scratch);
    cudaFree(d->mask), cudaFree(d->hist), cudaFree(d->lohi);
}

// Upload, smooth every channel, threshold channel 0 (Otsu); download the
// float planes and the mask. 0, -1 (bad parameters) or -3.
static int on_device(const field_params *p, const unsigned short *raw, float *img,
                     unsigned char *mask, double *threshold_out)
{
    size_t w = (size_t)p->width, h = (size_t)p->height, plane = w * h;
    size_t all = plane * (size_t)p->channels;
    device_buffers d;
    memset(&d, 0, sizeof d);
    int rc = -3;
    unsigned hist[BINS], lohi[2] = {0xFFFFFFFFu, 0};
    double dhist[BINS];
    float lo, hi;
    field_gpu_layout size; // the sizes the GPU check takes as its truth
    if (field_gpu_layout_of(p, &size) != 0)
        return -1;
    if (failed(cudaMalloc(&d.raw, size.raw), "cudaMalloc") ||
        failed(cudaMalloc(&d.img, size.img), "cudaMalloc") ||
        failed(cudaMalloc(&d.smoothed, size.smoothed), "cudaMalloc") ||
        failed(cudaMalloc(&d.scratch, size.scratch), "cudaMalloc") ||
        failed(cudaMalloc(&d.mask, size.mask), "cudaMalloc") ||
        failed(cudaMalloc(&d.hist, size.hist), "cudaMalloc") ||
        failed(cudaMalloc(&d.lohi, size.lohi), "cudaMalloc") ||
        failed(cudaMemcpy(d.raw, raw, all * sizeof *raw, cudaMemcpyHostToDevice), "upload"))
        goto done;
    to_float<<<blocks_for(all), THREADS>>>(d.raw, d.img, all);
    for (size_t c = 0; c < (size_t)p->channels; c++) {
        box<<<blocks_for(plane), THREADS>>>(d.img + c * plane, d.scratch, (int)w, (int)h, 0,
                                            SMOOTH_RADIUS);
        box<<<blocks_for(plane), THREADS>>>(d.scratch, d.smoothed + c * plane, (int)w, (int)h, 1,
                                            SMOOTH_RADIUS);
    }
    if (failed(cudaMemcpy(d.lohi, lohi, sizeof lohi, cudaMemcpyHostToDevice), "upload"))
        goto done;
    min_max<<<blocks_for(plane), THREADS>>>(d.smoothed, plane, d.lohi);
    if (failed(cudaMemcpy(lohi, d.lohi, sizeof lohi, cudaMemcpyDeviceToHost), "min/max"))
        goto done;
    memcpy(&lo, &lohi[0], sizeof lo);
    memcpy(&hi, &lohi[1], sizeof hi);
    *threshold_out = hi;
    if (hi > lo) {
        float scale = 255.0f / (hi - lo);
        if (failed(cudaMemset(d.hist, 0, sizeof hist), "cudaMemset"))
            goto done;
        histogram<<<blocks_for(plane), THREADS>>>(d.smoothed, plane, lo, scale, d.hist);
        if (failed(cudaMemcpy(hist, d.hist, sizeof hist, cudaMemcpyDeviceToHost), "histogram"))
            goto done;
        for (int b = 0; b < BINS; b++)
            dhist[b] = hist[b];
        *threshold_out = field_otsu_from_histogram(dhist, lo, hi, plane);
    }
    threshold<<<blocks_for(plane), THREADS>>>(d.smoothed, plane, (float)*threshold_out, d.mask);
    if (failed(cudaMemcpy(mask, d.mask, plane, cudaMemcpyDeviceToHost), "download") ||
        failed(cudaMemcpy(img, d.img, all * sizeof *img, cudaMemcpyDeviceToHost), "download"))
        goto done;
    rc = 0;
done:
    free_device(&d);
    return rc;
}

extern "C" int field_gpu_process(const field_params *p, field_summary *out)
{
    if (p == NULL || out == NULL || field_params_problem(p) != NULL)
        return -1;
    memset(out, 0, sizeof *out);
    g_error[0] = '\0';
    size_t plane = (size_t)p->width * (size_t)p->height, all = plane * (size_t)p->channels;
    unsigned short *raw = (unsigned short *)malloc(all * sizeof *raw);
    float *img = (float *)malloc(all * sizeof *img);
    unsigned char *mask = (unsigned char *)malloc(plane);
    int32_t *labels = (int32_t *)malloc(plane * sizeof *labels);
    int rc = -2;
    if (raw && img && mask && labels) {
        field_generate(p, raw);
        rc = on_device(p, raw, img, mask, &out->threshold);
    }
    if (rc == 0) {
        int64_t n = field_label(mask, p->width, p->height, labels);
        rc = n < 0 ? -2 : field_measure_objects(img, labels, n, p, out);
    }
    free(raw), free(img), free(mask), free(labels);
    return rc;
}
