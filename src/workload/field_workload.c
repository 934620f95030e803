/* Synthetic field generation and its processing; see field_workload.h. */
#include "field_workload.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FIELD_MAX_SIDE     65536
#define FIELD_MAX_CHANNELS 64
#define SMOOTH_RADIUS      2

/* splitmix64: small, fast, and good enough for synthetic images. */
static uint64_t next_u64(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static double next_unit(uint64_t *state) { return (double)(next_u64(state) >> 11) * 0x1.0p-53; }

const char *field_params_problem(const field_params *p)
{
    if (p->width < 8 || p->width > FIELD_MAX_SIDE)
        return "width must be between 8 and 65536 pixels";
    if (p->height < 8 || p->height > FIELD_MAX_SIDE)
        return "height must be between 8 and 65536 pixels";
    if (p->channels < 1 || p->channels > FIELD_MAX_CHANNELS)
        return "channels must be between 1 and 64";
    return NULL;
}

int64_t field_estimated_bytes(const field_params *p)
{
    int64_t px = p->width * p->height;
    /* raw u16 + float copy + smoothed float per channel, one float scratch
     * plane, mask, labels, and a union-find table of up to px/4 entries. */
    return px * p->channels * (2 + 4 + 4) + px * (4 + 1 + 4);
}

void field_generate(const field_params *p, uint16_t *raw)
{
    uint64_t rng = p->seed ^ UINT64_C(0x5EEDF1E1D);
    size_t w = (size_t)p->width, h = (size_t)p->height, plane = w * h;
    size_t nch = (size_t)p->channels;

    /* Noisy background: camera offset plus roughly gaussian noise. */
    for (size_t c = 0; c < nch; c++) {
        double offset = 90.0 + 20.0 * (double)c;
        for (size_t i = 0; i < plane; i++) {
            double noise = (next_unit(&rng) + next_unit(&rng) - 1.0) * 25.0;
            raw[c * plane + i] = (uint16_t)(offset + noise);
        }
    }

    /* Nuclei: gaussian spots, brightest in channel 0, dimmer and variable
     * in the others (cytoplasm / reporter channels). About one per 4000 px. */
    size_t blobs = plane / 4000 + 1;
    double amp[FIELD_MAX_CHANNELS];
    for (size_t b = 0; b < blobs; b++) {
        double cx = next_unit(&rng) * (double)w;
        double cy = next_unit(&rng) * (double)h;
        double sigma = 2.5 + 4.0 * next_unit(&rng);
        for (size_t c = 0; c < nch; c++)
            amp[c] =
                (800.0 + 1600.0 * next_unit(&rng)) * (c == 0 ? 1.0 : 0.2 + 0.6 * next_unit(&rng));
        double reach = 3.0 * sigma;
        long x0 = (long)fmax(0.0, cx - reach), x1 = (long)fmin((double)w - 1, cx + reach);
        long y0 = (long)fmax(0.0, cy - reach), y1 = (long)fmin((double)h - 1, cy + reach);
        double inv = -1.0 / (2.0 * sigma * sigma);
        for (long y = y0; y <= y1; y++) {
            for (long x = x0; x <= x1; x++) {
                double dx = (double)x - cx, dy = (double)y - cy;
                double g = exp((dx * dx + dy * dy) * inv);
                size_t i = (size_t)y * w + (size_t)x;
                for (size_t c = 0; c < nch; c++) {
                    double v = raw[c * plane + i] + amp[c] * g;
                    raw[c * plane + i] = (uint16_t)(v > 65535.0 ? 65535.0 : v);
                }
            }
        }
    }
}

/* Box filter of radius r along one line (n values, stride apart), edges
 * clamped; a running sum makes it O(n) whatever r is. */
static void box_line(const float *in, float *out, size_t n, size_t stride, size_t r)
{
    double sum = 0;
    double width = (double)(2 * r + 1);
    for (size_t k = 0; k <= 2 * r; k++) {
        size_t j = k < r ? 0 : (k - r < n ? k - r : n - 1);
        sum += in[j * stride];
    }
    for (size_t i = 0; i < n; i++) {
        out[i * stride] = (float)(sum / width);
        size_t leave = i < r ? 0 : i - r;
        size_t enter = i + r + 1 < n ? i + r + 1 : n - 1;
        sum += (double)in[enter * stride] - (double)in[leave * stride];
    }
}

static void smooth_plane(const float *in, float *scratch, float *out, size_t w, size_t h)
{
    for (size_t y = 0; y < h; y++)
        box_line(in + y * w, scratch + y * w, w, 1, SMOOTH_RADIUS);
    for (size_t x = 0; x < w; x++)
        box_line(scratch + x, out + x, h, w, SMOOTH_RADIUS);
}

double field_otsu_threshold(const float *values, size_t n)
{
    float lo = values[0], hi = values[0];
    for (size_t i = 1; i < n; i++) {
        if (values[i] < lo)
            lo = values[i];
        if (values[i] > hi)
            hi = values[i];
    }
    if (!(hi > lo))
        return (double)hi;
    double hist[256] = {0};
    double scale = 255.0 / ((double)hi - (double)lo);
    for (size_t i = 0; i < n; i++)
        hist[(size_t)(((double)values[i] - lo) * scale)] += 1.0;
    return field_otsu_from_histogram(hist, lo, hi, n);
}

double field_otsu_from_histogram(const double hist[256], double lo, double hi, size_t n)
{
    if (!(hi > lo))
        return hi;
    double scale = 255.0 / (hi - lo);
    double total_sum = 0;
    for (int b = 0; b < 256; b++)
        total_sum += b * hist[b];
    double w0 = 0, sum0 = 0, best = -1;
    int best_bin = 0;
    for (int b = 0; b < 256; b++) {
        w0 += hist[b];
        if (w0 == 0)
            continue;
        double w1 = (double)n - w0;
        if (w1 == 0)
            break;
        sum0 += b * hist[b];
        double m0 = sum0 / w0, m1 = (total_sum - sum0) / w1;
        double between = w0 * w1 * (m0 - m1) * (m0 - m1);
        if (between > best) {
            best = between;
            best_bin = b;
        }
    }
    /* Values in bins above best_bin are foreground. */
    return lo + (best_bin + 1) / scale;
}

static int32_t find_root(int32_t *parent, int32_t a)
{
    while (parent[a] != a) {
        parent[a] = parent[parent[a]]; /* path halving */
        a = parent[a];
    }
    return a;
}

static void unite(int32_t *parent, int32_t a, int32_t b)
{
    a = find_root(parent, a);
    b = find_root(parent, b);
    if (a < b)
        parent[b] = a;
    else if (b < a)
        parent[a] = b;
}

int64_t field_label(const uint8_t *mask, int64_t width, int64_t height, int32_t *labels)
{
    size_t w = (size_t)width, h = (size_t)height;
    size_t cap = 1024, next = 1;
    int32_t *parent = malloc(cap * sizeof *parent);
    if (parent == NULL)
        return -1;
    parent[0] = 0;
    /* First pass: provisional labels from the already visited neighbours
     * (west, north-west, north, north-east), recording equivalences. */
    for (size_t y = 0; y < h; y++) {
        for (size_t x = 0; x < w; x++) {
            size_t i = y * w + x;
            labels[i] = 0;
            if (!mask[i])
                continue;
            int32_t nb[4];
            int k = 0;
            if (x > 0 && labels[i - 1])
                nb[k++] = labels[i - 1];
            if (y > 0) {
                if (x > 0 && labels[i - w - 1])
                    nb[k++] = labels[i - w - 1];
                if (labels[i - w])
                    nb[k++] = labels[i - w];
                if (x + 1 < w && labels[i - w + 1])
                    nb[k++] = labels[i - w + 1];
            }
            if (k == 0) {
                if (next == cap) {
                    if (cap > (size_t)INT32_MAX / 2) {
                        free(parent);
                        return -1;
                    }
                    int32_t *grown = realloc(parent, 2 * cap * sizeof *parent);
                    if (grown == NULL) {
                        free(parent);
                        return -1;
                    }
                    parent = grown;
                    cap *= 2;
                }
                parent[next] = (int32_t)next;
                labels[i] = (int32_t)next++;
                continue;
            }
            int32_t smallest = nb[0];
            for (int j = 1; j < k; j++)
                if (nb[j] < smallest)
                    smallest = nb[j];
            labels[i] = smallest;
            for (int j = 0; j < k; j++)
                unite(parent, smallest, nb[j]);
        }
    }
    /* Second pass: compact the roots to 1..N in order of appearance. A
     * non-root always points to a smaller index, already rewritten to its
     * final label by the time we reach it. */
    int32_t count = 0;
    for (size_t l = 1; l < next; l++)
        parent[l] = parent[l] == (int32_t)l ? ++count : parent[parent[l]];
    for (size_t i = 0; i < w * h; i++)
        if (labels[i])
            labels[i] = parent[labels[i]];
    free(parent);
    return count;
}

/* Per-object area, centroid and intensity of every channel. */
int field_measure_objects(const float *img, const int32_t *labels, int64_t n, const field_params *p,
                          field_summary *out)
{
    size_t w = (size_t)p->width, plane = w * (size_t)p->height;
    size_t nch = (size_t)p->channels, objects = (size_t)n + 1;
    double *area = calloc(objects, sizeof *area);
    double *sx = calloc(objects, sizeof *sx);
    double *sy = calloc(objects, sizeof *sy);
    double *sums = calloc(objects * nch, sizeof *sums);
    if (!area || !sx || !sy || !sums) {
        free(area), free(sx), free(sy), free(sums);
        return -2;
    }
    for (size_t i = 0; i < plane; i++) {
        size_t l = (size_t)labels[i];
        if (l == 0)
            continue;
        area[l] += 1;
        sx[l] += (double)(i % w);
        sy[l] += (double)(i / w);
        for (size_t c = 0; c < nch; c++)
            sums[l * nch + c] += img[c * plane + i];
    }
    double total_area = 0, total_i0 = 0, checksum = 0;
    for (size_t l = 1; l < objects; l++) {
        total_area += area[l];
        total_i0 += sums[l * nch];
        checksum += (sx[l] + sy[l]) / area[l];
    }
    out->objects = n;
    out->foreground_pixels = (int64_t)total_area;
    out->mean_area = n > 0 ? total_area / (double)n : 0;
    out->mean_intensity0 = total_area > 0 ? total_i0 / total_area : 0;
    out->centroid_checksum = checksum;
    free(area), free(sx), free(sy), free(sums);
    return 0;
}

int field_process(const field_params *p, field_summary *out)
{
    if (p == NULL || out == NULL || field_params_problem(p) != NULL)
        return -1;
    memset(out, 0, sizeof *out);
    size_t w = (size_t)p->width, h = (size_t)p->height, plane = w * h;
    size_t nch = (size_t)p->channels;
    int rc = -2;
    uint16_t *raw = malloc(plane * nch * sizeof *raw);
    float *img = malloc(plane * nch * sizeof *img);
    float *smoothed = malloc(plane * nch * sizeof *smoothed);
    float *scratch = malloc(plane * sizeof *scratch);
    uint8_t *mask = malloc(plane);
    int32_t *labels = malloc(plane * sizeof *labels);
    if (!raw || !img || !smoothed || !scratch || !mask || !labels)
        goto done;

    field_generate(p, raw);
    for (size_t i = 0; i < plane * nch; i++)
        img[i] = (float)raw[i];
    for (size_t c = 0; c < nch; c++)
        smooth_plane(img + c * plane, scratch, smoothed + c * plane, w, h);

    out->threshold = field_otsu_threshold(smoothed, plane);
    for (size_t i = 0; i < plane; i++)
        mask[i] = smoothed[i] > out->threshold;

    int64_t n = field_label(mask, p->width, p->height, labels);
    if (n < 0)
        goto done;
    rc = field_measure_objects(img, labels, n, p, out);
done:
    free(raw), free(img), free(smoothed), free(scratch), free(mask), free(labels);
    return rc;
}

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
