/* Background sampler thread: polls RSS (when the kernel's high-water mark
 * cannot be reset) and GPU memory. It never calls user code or Python. */
#ifndef SPACRBENCH_SAMPLER_H
#define SPACRBENCH_SAMPLER_H

#include <stdint.h>

#include "gpu.h"
#include "proc.h"

typedef struct sb_sampler sb_sampler;

typedef struct sb_sampler_config {
    int64_t interval_us;
    const sb_proc *proc; /* sample RSS through it; NULL = do not */
    sb_gpu *gpu;         /* sample GPU memory; NULL = do not */
    /* Also hand each RSS sample and its sb_now() to on_rss(on_rss_ctx, ...)
     * (needs proc), from the thread only, so what keeps them (the runner's
     * timeline) is read after sb_sampler_stop. NULL = nobody. */
    void (*on_rss)(void *ctx, double now, int64_t rss);
    void *on_rss_ctx;
} sb_sampler_config;

/* Start the thread (all signals blocked in it). SPACRBENCH_ETHREAD or
 * ENOMEM on failure, with nothing left behind. */
int sb_sampler_start(sb_sampler **out, const sb_sampler_config *cfg);
/* Peaks seen since the previous call, then start a new window; -1 for a
 * figure not sampled in the window. */
void sb_sampler_take_window(sb_sampler *s, int64_t *rss, int64_t *vram);
/* CPU seconds the sampler thread has used so far (0 if unknown), so the
 * work's CPU time can leave it out. */
double sb_sampler_cpu_seconds(const sb_sampler *s);
/* Stop and join the thread, give the peaks of its whole life (-1 if never
 * sampled) and free it. */
void sb_sampler_stop(sb_sampler *s, int64_t *rss_peak, int64_t *vram_peak);
/* In a forked child, where the sampler thread does not exist: free the
 * memory without joining or destroying what the parent's thread uses. */
void sb_sampler_forget(sb_sampler *s);

#endif
