/* The probes of a serial run: the resettable high-water mark, the sampler
 * fallback, per-item windows, how the run's peak was obtained, and the
 * VRAM side (the peak NVML saw, the GPUs, or why VRAM was not measured). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core.h"

/* hugetlb pages mapped now (read with the last VmHWM), kept as the run's
 * largest: they are in neither RSS nor VmHWM, so the peak adds them. */
static int64_t hugetlb_seen(sb_run *st)
{
#if defined(__linux__)
    int64_t huge = sb_proc_hugetlb_last(&st->proc);
    if (huge > st->hugetlb_peak)
        st->hugetlb_peak = huge;
    return huge > 0 ? huge : 0;
#else
    (void)st;
    return 0;
#endif
}

/* Whether hugetlb pages could have escaped the peak (the system has some
 * to hand out): then the peak is never called exact. */
static int hugetlb_possible(void)
{
#if defined(__linux__)
    return sb_hugetlb_pages_possible() > 0;
#else
    return 0;
#endif
}

static int start_timeline(sb_run *st, struct sb_timeline **out)
{
    spacrbench_measurement *m = st->m;
    /* Room for every item now: the loop never allocates. */
    size_t items = st->opt.item_records ? m->plan_items : 0;
    if (!(m->timeline = sb_timeline_new(st->opt.sample_interval_us, items)))
        return sb_fail(SPACRBENCH_ENOMEM, "cannot allocate the memory timeline");
    *out = m->timeline;
    return SPACRBENCH_OK;
}

int sb_run_prepare(sb_run *st)
{
    int want_reset = !(st->opt.flags & SPACRBENCH_FLAG_NO_HWM_RESET);
    int rc = sb_proc_open(&st->proc, want_reset);
    if (rc)
        return rc;
    st->proc_open = 1;
    st->exact = want_reset && sb_proc_reset_hwm_verified(&st->proc) == 0;

    if (st->opt.flags & SPACRBENCH_FLAG_NO_GPU)
        snprintf(st->gpu_why, sizeof st->gpu_why, "GPU probing was turned off by the caller");
    else
        st->gpu = sb_gpu_open(st->gpu_why, sizeof st->gpu_why);
    st->first_vram = st->gpu ? sb_gpu_sample(st->gpu) : -1;

    struct sb_timeline *timeline = NULL;
    if ((st->opt.flags & SPACRBENCH_FLAG_TIMELINE) && (rc = start_timeline(st, &timeline)))
        return rc;
    if (!st->exact || st->gpu || timeline) {
        sb_sampler_config cfg = {st->opt.sample_interval_us,
                                 st->exact && !timeline ? NULL : &st->proc, st->gpu,
                                 timeline ? sb_timeline_on_rss : NULL, timeline};
        rc = sb_sampler_start(&st->sampler, &cfg);
        if (rc)
            return rc;
    }
    st->h0 = st->exact ? -1 : sb_proc_hwm(&st->proc);
    int64_t unused;
    st->children_cpu0 = sb_proc_children_cpu_seconds(&unused);
    /* Reset again now that NVML is loaded and the sampler runs: their own
     * memory is not the work's, nor is what the allocator kept from earlier
     * work (handed back first, so the baseline is the memory in use). */
    sb_heap_release();
    if (st->exact)
        sb_proc_reset_hwm(&st->proc);
    return SPACRBENCH_OK;
}

void sb_run_release(sb_run *st, int in_child)
{
    if (st->sampler && in_child)
        sb_sampler_forget(st->sampler);
    else if (st->sampler)
        sb_sampler_stop(st->sampler, NULL, NULL);
    if (st->gpu && !in_child) /* NVML is not fork-safe: the child leaves it alone */
        sb_gpu_close(st->gpu);
    if (st->proc_open)
        sb_proc_close(&st->proc);
    st->sampler = NULL;
    st->gpu = NULL;
    st->proc_open = 0;
    spacrbench_measurement_free(st->m);
    st->m = NULL;
}

int64_t sb_run_item_begin(sb_run *st)
{
    if (st->sampler)
        sb_sampler_take_window(st->sampler, NULL, NULL);
    if (st->exact) {
        sb_proc_reset_hwm(&st->proc);
        return -1;
    }
    return sb_proc_rss(&st->proc);
}

int64_t sb_run_item_end(sb_run *st, int64_t rss_before, int64_t *vram)
{
    int64_t window_rss = -1;
    *vram = -1;
    if (st->sampler)
        sb_sampler_take_window(st->sampler, &window_rss, vram);
    int64_t now = sb_proc_rss(&st->proc);
    if (st->exact) {
        int64_t hwm = sb_proc_hwm(&st->proc);
        int64_t huge = hugetlb_seen(st);
        if (hwm >= 0)
            return hwm + huge;
        st->hwm_lost = 1; /* the figure below is only a lower bound */
    }
    return max64(max64(window_rss, rss_before), now);
}

/* The work ran processes of its own (a shell, a pool it ended): their
 * memory is not in this process's peak, so it is not one worker's whole
 * need. Seen by their CPU once waited for. */
static void note_children(sb_run *st)
{
    int64_t largest = -1;
    double cpu = sb_proc_children_cpu_seconds(&largest);
    if (isnan(cpu) || isnan(st->children_cpu0) || cpu - st->children_cpu0 < 0.001)
        return;
    char rss[32] = "";
    if (largest > 0)
        sb_format_bytes(rss, sizeof rss, largest);
    sb_measurement_notef(st->m,
                         "the work started processes of its own (%.2f s of CPU in them%s%s): "
                         "their memory is not in the peak RSS, this process's own; to count "
                         "the whole process tree, measure the work as a command with "
                         "`spacrbench run`",
                         cpu - st->children_cpu0,
                         largest > 0 ? "; the largest child ever "
                                       "waited for here peaked at "
                                     : "",
                         rss);
}

void sb_run_finish_peak(sb_run *st, int tracked, int64_t item_peak, int64_t sampled_rss)
{
    note_children(st);
    spacrbench_measurement *m = st->m;
    int64_t h1 = sb_proc_hwm(&st->proc);
    int64_t huge_now = h1 >= 0 ? hugetlb_seen(st) : 0;
    if (st->exact && !tracked && h1 < 0)
        st->hwm_lost = 1;
    int64_t peak;
    if (st->exact && !st->hwm_lost)
        peak = tracked ? item_peak : h1 + max64(huge_now, st->hugetlb_peak);
    else if (!st->exact && h1 > st->h0 && st->h0 >= 0)
        peak = h1;
    else
        peak = max64(max64(item_peak, sampled_rss), sb_proc_rss(&st->proc));
    m->fig.peak_rss_bytes = max64(peak, m->fig.baseline_rss_bytes);

    double ms = (double)st->opt.sample_interval_us / 1000.0;
    /* The platform says why it could not reset the mark (os.h). */
    const char *no_reset = st->opt.flags & SPACRBENCH_FLAG_NO_HWM_RESET
                               ? "the high-water mark could not be reset, as the caller asked"
                               : sb_proc_no_reset_reason();
    int huge = st->hugetlb_peak > 0 || hugetlb_possible();
    m->hugetlb_uncovered = huge;
    if (huge) {
        char seen[32];
        sb_format_bytes(seen, sizeof seen, st->hugetlb_peak);
        sb_measurement_notef(m,
                             "hugetlb pages (MAP_HUGETLB) are in neither RSS nor VmHWM and this "
                             "system has some to hand out: the peak adds the largest "
                             "HugetlbPages seen at an item's end (%s); hugetlb pages mapped and "
                             "freed within an item are not covered, so the peak is not exact",
                             st->hugetlb_peak > 0 ? seen : "none");
    }
    if (st->hwm_lost) {
        m->fig.peak_method = SPACRBENCH_PEAK_SAMPLED;
        sb_measurement_notef(m, "peak RSS is a lower bound: the kernel high-water mark "
                                "(VmHWM) could not be read back during the run");
    } else if (st->exact) {
        m->fig.peak_method = SPACRBENCH_PEAK_HWM_RESET;
        sb_measurement_notef(m,
                             "peak RSS is %s: the kernel high-water mark (VmHWM) was "
                             "reset through /proc/self/clear_refs, so a spike of any "
                             "length counts",
                             huge ? "exact for ordinary pages (not hugetlb pages, above)"
                                  : "exact");
        sb_measurement_notef(m, "side effect: resetting VmHWM also lowers this process's "
                                "getrusage() ru_maxrss");
#if defined(__linux__)
        /* A note a user acts on: the figure the other tool shows is
         * lowered, and ours is not the process's lifetime peak either. */
        const char *reader = sb_proc_maxrss_reader();
        if (reader)
            sb_measurement_notef(m,
                                 "under %s, which reads this process's ru_maxrss: the reset "
                                 "lowers what it reads; the peak RSS here is the benchmark's "
                                 "since the reset, not the process's lifetime peak",
                                 reader);
#endif
    } else if (h1 > st->h0 && st->h0 >= 0) {
        m->fig.peak_method = SPACRBENCH_PEAK_HWM_WINDOW;
        sb_measurement_notef(m,
                             "peak RSS is %s: %s, but the mark rose during the run; "
                             "per-item peaks are sampled every %.1f ms",
                             huge ? "exact for ordinary pages" : "exact", no_reset, ms);
    } else {
        m->fig.peak_method = SPACRBENCH_PEAK_SAMPLED;
        sb_measurement_notef(m,
                             "peak RSS was sampled every %.1f ms (%s): a spike shorter "
                             "than that can be missed",
                             ms, no_reset);
    }
}

int sb_run_finish_vram(sb_run *st, int64_t sampled_vram)
{
    spacrbench_measurement *m = st->m;
    char why[512];
    if (!st->gpu && !(st->opt.flags & SPACRBENCH_FLAG_NO_GPU)) {
        /* No device could be opened: spaCR's words first (its tests and
         * users match them), the library's reason after them. */
        snprintf(why, sizeof why, "%s: %s", SB_WORDS_NO_CUDA, st->gpu_why);
        int rc = sb_measurement_vram_reason(m, why);
        return rc ? rc
                  : sb_measurement_spacr_notef(m, "%s, so VRAM was not measured (%s)",
                                               SB_WORDS_NO_CUDA, st->gpu_why);
    }
    if (!st->gpu) {
        sb_measurement_vram_reason(m, st->gpu_why);
        return sb_measurement_notef(m, "VRAM not measured: %s", st->gpu_why);
    }
    sampled_vram = max64(max64(sampled_vram, st->first_vram), sb_gpu_sample(st->gpu));
    if (sampled_vram < 0) {
        snprintf(why, sizeof why, "every NVML sample failed: %s", sb_gpu_last_error(st->gpu));
        sb_measurement_vram_reason(m, why);
        return sb_measurement_notef(m, "VRAM not measured: %s", why);
    }
    if (sb_gpu_pids_unverified(st->gpu, why, sizeof why)) {
        sb_measurement_drop_vram(m); /* the items' figures may be false 0s */
        int rc = sb_measurement_vram_reason(m, why);
        return rc ? rc : sb_measurement_notef(m, "VRAM not measured: %s", why);
    }
    m->fig.peak_vram_bytes = sampled_vram;
    m->fig.vram_source = SPACRBENCH_SOURCE_NVML;
    if (sb_gpu_failed_samples(st->gpu) > 0)
        sb_measurement_notef(m,
                             "%lld NVML sample(s) failed (last: %s); the VRAM peak is that "
                             "of the others",
                             (long long)sb_gpu_failed_samples(st->gpu), sb_gpu_last_error(st->gpu));
    size_t n_gpus = sb_gpu_count(st->gpu);
    for (size_t g = 0; g < n_gpus; g++) {
        spacrbench_gpu_info info;
        memset(&info, 0, sizeof info);
        info.size = sizeof info;
        int rc;
        if (sb_gpu_info(st->gpu, g, &info) == 0 && (rc = spacrbench_measurement_add_gpu(m, &info)))
            return rc;
    }
    return sb_measurement_notef(m,
                                "peak VRAM is this process's GPU memory (CUDA context "
                                "included) sampled every %.1f ms through NVML",
                                (double)st->opt.sample_interval_us / 1000.0);
}
