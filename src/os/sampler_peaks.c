/* The sampler's tick, the same on every platform; see os.h. */
#include "os.h"

void sb_sampler_peaks_init(sb_sampler_peaks *p)
{
    p->window_rss = p->window_vram = -1;
    p->life_rss = p->life_vram = -1;
}

void sb_sampler_sample(const sb_sampler_config *cfg, sb_sampler_peaks *p)
{
    if (cfg->proc) {
        int64_t rss = sb_proc_rss(cfg->proc);
        if (rss >= 0) {
            sb_window_raise(&p->window_rss, rss);
            if (rss > p->life_rss)
                p->life_rss = rss;
            if (cfg->on_rss)
                cfg->on_rss(cfg->on_rss_ctx, sb_now(), rss);
        }
    }
    if (cfg->gpu) {
        int64_t vram = sb_gpu_sample(cfg->gpu);
        if (vram >= 0) {
            sb_window_raise(&p->window_vram, vram);
            if (vram > p->life_vram)
                p->life_vram = vram;
        }
    }
}

void sb_sampler_peaks_take(sb_sampler_peaks *p, int64_t *rss, int64_t *vram)
{
    int64_t r = sb_window_take(&p->window_rss);
    int64_t v = sb_window_take(&p->window_vram);
    if (rss)
        *rss = r;
    if (vram)
        *vram = v;
}
