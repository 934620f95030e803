/* What every platform's sampler thread does on each tick, written once
 * (sampler_peaks.c): read the memory through proc.h and the GPU, keep the
 * window's and the life's peaks, hand each RSS sample to on_rss. Only the
 * thread, its timed wait and raising or taking a window's peak atomically
 * are the platform's (posix/sampler.c, windows/sampler_windows.c). Not
 * installed. */
#ifndef SPACRBENCH_SAMPLER_PEAKS_H
#define SPACRBENCH_SAMPLER_PEAKS_H

#include <stdint.h>

#include "sampler.h"

typedef struct sb_sampler_peaks {
    /* -1: nothing sampled in this window. Touched only through
     * sb_window_raise and sb_window_take: the sampler thread raises, the
     * runner's thread takes. */
    int64_t window_rss, window_vram;
    int64_t life_rss, life_vram; /* the sampler thread's, read after it is joined */
} sb_sampler_peaks;

/* Every peak -1, before the thread starts. */
void sb_sampler_peaks_init(sb_sampler_peaks *p);

/* One sample of what cfg asks for, into p (the sampler thread only). */
void sb_sampler_sample(const sb_sampler_config *cfg, sb_sampler_peaks *p);

/* The window's peaks (-1 for a figure not sampled in it), and a new window. */
void sb_sampler_peaks_take(sb_sampler_peaks *p, int64_t *rss, int64_t *vram);

/* The platform's primitives, atomic against each other: raise *slot to
 * value if it is larger; return *slot and leave -1 there. */
void sb_window_raise(int64_t *slot, int64_t value);
int64_t sb_window_take(int64_t *slot);

#endif
