/* spacrbench_benchmark: the serial run. Timing, exact peaks through the
 * kernel's resettable high-water mark (or a sampler when it cannot be
 * reset), per-item records, progress, and a clean stop on request. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "measurement.h"
#include "proc.h"
#include "sampler.h"

enum { SB_DEFAULT_INTERVAL_US = 10000 };

/* Peaks are per process (clear_refs resets the whole process's mark), so
 * two benchmarks at once would corrupt each other: the second is refused. */
static pthread_mutex_t run_lock = PTHREAD_MUTEX_INITIALIZER;

int spacrbench_options_init(spacrbench_options *opts, size_t size)
{
    sb_clear_error();
    if (!opts)
        return sb_fail(SPACRBENCH_EINVAL, "opts must not be NULL");
    const spacrbench_options defaults = SPACRBENCH_OPTIONS_INIT;
    if (size < sizeof(size_t))
        return sb_fail(SPACRBENCH_EINVAL, "size %zu is too small for spacrbench_options", size);
    size_t n = size < sizeof defaults ? size : sizeof defaults;
    memset(opts, 0, size);
    memcpy(opts, &defaults, n);
    opts->size = size;
    return SPACRBENCH_OK;
}

/* Everything one run holds, so that every exit path releases the same way. */
typedef struct run_state {
    spacrbench_options opt;
    sb_proc proc;
    int proc_open;
    sb_gpu *gpu;
    sb_sampler *sampler;
    spacrbench_measurement *m;
    int exact;    /* the high-water mark was reset: per-window peaks are exact */
    int hwm_lost; /* the mark could not be read back at some item */
    char gpu_why[256];
    int64_t first_vram; /* the sample taken before the first item */
} run_state;

static int check_args(spacrbench_work_fn work, void *const *items, size_t n_items,
                      const spacrbench_options *opts, spacrbench_measurement **out,
                      spacrbench_options *opt)
{
    if (!out)
        return sb_fail(SPACRBENCH_EINVAL, "out must not be NULL");
    *out = NULL;
    if (!work)
        return sb_fail(SPACRBENCH_EINVAL, "work must not be NULL");
    if (n_items == 0)
        return sb_fail(SPACRBENCH_ENOITEMS, "benchmark needs at least one item to measure");
    if (!items)
        return sb_fail(SPACRBENCH_EINVAL, "items must not be NULL when n_items is %zu",
                       n_items);
    const spacrbench_options defaults = SPACRBENCH_OPTIONS_INIT;
    *opt = defaults;
    if (opts) {
        int rc = sb_struct_in(opt, sizeof *opt, opts, "spacrbench_options");
        if (rc)
            return rc;
    }
    if (opt->warmup < 0)
        return sb_fail(SPACRBENCH_EINVAL, "options.warmup is %lld; it must be >= 0",
                       (long long)opt->warmup);
    if (opt->sample_interval_us < 0 || opt->sample_interval_us > 10000000)
        return sb_fail(SPACRBENCH_EINVAL,
                       "options.sample_interval_us is %lld; use 0 (default) to 10000000",
                       (long long)opt->sample_interval_us);
    if (opt->sample_interval_us == 0)
        opt->sample_interval_us = SB_DEFAULT_INTERVAL_US;
    const uint32_t known = SPACRBENCH_FLAG_NO_HWM_RESET | SPACRBENCH_FLAG_NO_GPU |
                           SPACRBENCH_FLAG_KEEP_PARTIAL;
    if (opt->flags & ~known)
        return sb_fail(SPACRBENCH_EINVAL, "options.flags has unknown bits 0x%x",
                       opt->flags & ~known);
    return SPACRBENCH_OK;
}

/* Open probes and start the sampler when it has something to do. */
static int prepare(run_state *st)
{
    int want_reset = !(st->opt.flags & SPACRBENCH_FLAG_NO_HWM_RESET);
    int rc = sb_proc_open(&st->proc, want_reset);
    if (rc)
        return rc;
    st->proc_open = 1;
    /* Exact only when the mark can be both reset and read back. */
    st->exact = sb_proc_reset_hwm(&st->proc) == 0 && sb_proc_hwm(&st->proc) >= 0;

    if (st->opt.flags & SPACRBENCH_FLAG_NO_GPU)
        snprintf(st->gpu_why, sizeof st->gpu_why, "GPU probing was turned off by the caller");
    else
        st->gpu = sb_gpu_open(st->gpu_why, sizeof st->gpu_why);
    st->first_vram = st->gpu ? sb_gpu_sample(st->gpu) : -1;

    if (!st->exact || st->gpu) {
        sb_sampler_config cfg = {st->opt.sample_interval_us, st->exact ? NULL : &st->proc,
                                 st->gpu};
        rc = sb_sampler_start(&st->sampler, &cfg);
        if (rc)
            return rc;
    }
    return SPACRBENCH_OK;
}

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

static void release(run_state *st)
{
    if (st->sampler)
        sb_sampler_stop(st->sampler, NULL, NULL);
    st->sampler = NULL;
    if (st->gpu)
        sb_gpu_close(st->gpu);
    st->gpu = NULL;
    if (st->proc_open)
        sb_proc_close(&st->proc);
    st->proc_open = 0;
    spacrbench_measurement_free(st->m);
    st->m = NULL;
}


/* Start an item's window: reset the mark (exact) or restart the sampler's
 * window, so what ran between items (harness, progress) is not counted. */
static int64_t item_begin(run_state *st)
{
    if (st->sampler)
        sb_sampler_take_window(st->sampler, NULL, NULL);
    if (st->exact) {
        sb_proc_reset_hwm(&st->proc);
        return -1;
    }
    return sb_proc_rss(&st->proc);
}

/* Peak RSS of the item that just ended: the high-water mark (exact), or the
 * window's samples and the RSS at both ends. */
static int64_t item_end(run_state *st, int64_t rss_before, int64_t *vram)
{
    int64_t window_rss = -1;
    *vram = -1;
    if (st->sampler)
        sb_sampler_take_window(st->sampler, &window_rss, vram);
    int64_t now = sb_proc_rss(&st->proc);
    if (st->exact) {
        int64_t hwm = sb_proc_hwm(&st->proc);
        if (hwm >= 0)
            return hwm;
        st->hwm_lost = 1; /* the figure below is only a lower bound */
    }
    return max64(max64(window_rss, rss_before), now);
}

static void add_peak_notes(run_state *st, int64_t h0, int64_t h1)
{
    spacrbench_measurement *m = st->m;
    double ms = (double)st->opt.sample_interval_us / 1000.0;
    if (st->hwm_lost) {
        m->fig.peak_method = SPACRBENCH_PEAK_SAMPLED;
        sb_measurement_notef(m, "peak RSS is a lower bound: the kernel high-water mark "
                                "(VmHWM) could not be read back during the run");
    } else if (st->exact) {
        m->fig.peak_method = SPACRBENCH_PEAK_HWM_RESET;
        sb_measurement_notef(m, "peak RSS is exact: the kernel high-water mark (VmHWM) was "
                                "reset through /proc/self/clear_refs, so a spike of any "
                                "length counts");
        sb_measurement_notef(m, "side effect: resetting VmHWM also lowers this process's "
                                "getrusage() ru_maxrss");
    } else if (h1 > h0 && h0 >= 0) {
        m->fig.peak_method = SPACRBENCH_PEAK_HWM_WINDOW;
        sb_measurement_notef(m, "peak RSS is exact: the high-water mark could not be reset "
                                "but rose during the run; per-item peaks are sampled every "
                                "%.1f ms",
                             ms);
    } else {
        m->fig.peak_method = SPACRBENCH_PEAK_SAMPLED;
        sb_measurement_notef(m, "peak RSS was sampled every %.1f ms (the high-water mark "
                                "could not be reset): a spike shorter than that can be missed",
                             ms);
    }
}


int spacrbench_benchmark(spacrbench_work_fn work, void *const *items, size_t n_items,
                         void *payload, const spacrbench_options *opts,
                         spacrbench_measurement **out)
{
    sb_clear_error();
    run_state st;
    memset(&st, 0, sizeof st);
    st.proc.statm_fd = st.proc.status_fd = st.proc.clear_refs_fd = -1;
    int rc = check_args(work, items, n_items, opts, out, &st.opt);
    if (rc)
        return rc;
    if (pthread_mutex_trylock(&run_lock) != 0)
        return sb_fail(SPACRBENCH_EBUSY, "another spacrbench_benchmark is running in this "
                                         "process; peaks are per process, so runs must not "
                                         "overlap");

    size_t warmup = (size_t)st.opt.warmup;
    size_t clamped = warmup > n_items - 1 ? n_items - 1 : warmup;
    int records = st.opt.item_records != 0;
    int timed = records || st.opt.progress;

    st.m = sb_measurement_new();
    if (!st.m) {
        rc = sb_fail(SPACRBENCH_ENOMEM, "cannot allocate a measurement");
        goto done;
    }
    if (records && (rc = sb_measurement_reserve_records(st.m, n_items)))
        goto done;
    if ((rc = prepare(&st)))
        goto done;

    spacrbench_measurement *m = st.m;
    int64_t h0 = st.exact ? -1 : sb_proc_hwm(&st.proc);
    /* Reset again now that NVML is loaded and the sampler runs: their own
     * memory is not the work's. */
    if (st.exact)
        sb_proc_reset_hwm(&st.proc);
    m->fig.baseline_rss_bytes = max64(sb_proc_rss(&st.proc), 0);
    if (st.sampler)
        sb_sampler_take_window(st.sampler, NULL, NULL);

    /* Per-item windows whenever anything runs between items (records or a
     * progress function), so that its time and memory stay out. */
    int track = records || st.opt.progress;
    double t_start = sb_now(), t_measure = t_start;
    double cpu_measure = sb_proc_cpu_seconds(), sampler_cpu_measure = 0.0;
    double progress_seconds = 0.0, progress_cpu = 0.0; /* within the measured window */
    double warmup_progress_seconds = 0.0;
    int64_t run_peak = -1;
    size_t done_items = 0;
    int stop_value = 0;
    for (size_t i = 0; i < n_items; i++) {
        if (i == clamped) {
            t_measure = sb_now();
            cpu_measure = sb_proc_cpu_seconds();
            sampler_cpu_measure = st.sampler ? sb_sampler_cpu_seconds(st.sampler) : 0.0;
        }
        int64_t rss_before = track ? item_begin(&st) : -1;
        double t0 = timed ? sb_now() : 0.0;
        int value = work(items[i], payload);
        double t1 = timed ? sb_now() : 0.0;
        done_items = i + 1;
        int64_t peak = -1, vram = -1;
        if (track) {
            peak = item_end(&st, rss_before, &vram);
            run_peak = max64(run_peak, peak);
        }
        if (records) {
            spacrbench_item_record *r = &m->records[m->record_count++];
            *r = (spacrbench_item_record){sizeof *r, (int64_t)i, i < clamped, 0, t1 - t0, peak,
                                          vram};
        }
        if (value == 0 && st.opt.progress) {
            spacrbench_progress p = {sizeof p,     (int64_t)i, (int64_t)n_items, i < clamped, 0,
                                     t1 - t0,      t1 - t_start, peak};
            double cpu0 = sb_proc_cpu_seconds();
            value = st.opt.progress(&p, st.opt.progress_payload);
            double spent = sb_now() - t1;
            if (i < clamped) {
                warmup_progress_seconds += spent;
            } else {
                progress_seconds += spent;
                progress_cpu += sb_proc_cpu_seconds() - cpu0;
            }
        }
        if (value != 0) {
            stop_value = value;
            break;
        }
    }
    double t_end = sb_now();
    double cpu_end = sb_proc_cpu_seconds();
    double sampler_cpu = st.sampler ? sb_sampler_cpu_seconds(st.sampler) - sampler_cpu_measure
                                    : 0.0;

    /* Stop sampling before reading the final figures. */
    int64_t sampled_rss = -1, sampled_vram = -1;
    if (st.sampler) {
        sb_sampler_stop(st.sampler, &sampled_rss, &sampled_vram);
        st.sampler = NULL;
    }
    if (st.gpu)
        sampled_vram = max64(max64(sampled_vram, st.first_vram), sb_gpu_sample(st.gpu));

    size_t measured = done_items > clamped ? done_items - clamped : 0;
    m->fig.items = (int64_t)measured;
    m->fig.seconds = measured ? t_end - t_measure - progress_seconds : 0.0;
    m->fig.warmup_items = (int64_t)(done_items < clamped ? done_items : clamped);
    m->fig.warmup_seconds = (measured ? t_measure : t_end) - t_start - warmup_progress_seconds;
    /* The work's CPU: the process's, less the sampler thread and progress. */
    m->fig.cpu_seconds = measured ? cpu_end - cpu_measure - sampler_cpu - progress_cpu : NAN;
    if (measured && m->fig.cpu_seconds < 0)
        m->fig.cpu_seconds = 0.0;
    m->fig.sample_interval_us = st.sampler || !st.exact || st.gpu ? st.opt.sample_interval_us : 0;

    int64_t h1 = sb_proc_hwm(&st.proc);
    if (st.exact && !track && h1 < 0)
        st.hwm_lost = 1;
    if (st.exact && !st.hwm_lost)
        run_peak = track ? run_peak : h1;
    else if (!st.exact && h1 > h0 && h0 >= 0)
        run_peak = h1;
    else
        run_peak = max64(max64(run_peak, sampled_rss), sb_proc_rss(&st.proc));
    m->fig.peak_rss_bytes = max64(run_peak, m->fig.baseline_rss_bytes);

    if (clamped)
        sb_measurement_notef(m, "%zu warm-up item(s) excluded from the timing (their memory "
                                "still counts toward the peak)",
                             clamped);
    if (clamped < warmup)
        sb_measurement_notef(m, "warm-up of %zu clamped to %zu so the last item is measured",
                             warmup, clamped);
    add_peak_notes(&st, h0, h1);

    if (st.gpu && sampled_vram < 0) {
        snprintf(m->vram_why, sizeof m->vram_why, "every NVML sample failed: %s",
                 sb_gpu_last_error(st.gpu));
        sb_measurement_notef(m, "VRAM not measured: %s", m->vram_why);
    } else if (st.gpu) {
        m->fig.peak_vram_bytes = sampled_vram;
        if (sb_gpu_failed_samples(st.gpu) > 0)
            sb_measurement_notef(m, "%lld NVML sample(s) failed (last: %s); the VRAM peak is "
                                    "that of the others",
                                 (long long)sb_gpu_failed_samples(st.gpu), sb_gpu_last_error(st.gpu));
        m->fig.vram_source = SPACRBENCH_SOURCE_NVML;
        size_t n_gpus = sb_gpu_count(st.gpu);
        for (size_t g = 0; g < n_gpus; g++) {
            spacrbench_gpu_info info;
            memset(&info, 0, sizeof info);
            info.size = sizeof info;
            if (sb_gpu_info(st.gpu, g, &info) == 0 &&
                (rc = spacrbench_measurement_add_gpu(m, &info)))
                goto done;
        }
        sb_measurement_notef(m, "peak VRAM is this process's GPU memory (CUDA context "
                                "included) sampled every %.1f ms through NVML",
                             (double)st.opt.sample_interval_us / 1000.0);
    } else {
        snprintf(m->vram_why, sizeof m->vram_why, "%s", st.gpu_why);
        sb_measurement_notef(m, "VRAM not measured: %s", st.gpu_why);
    }

    if (stop_value != 0) {
        m->fig.stopped = 1;
        m->fig.work_result = stop_value;
        m->fig.stopped_item = (int64_t)done_items - 1;
        sb_measurement_notef(m, "stopped at item %zu: the work or progress function "
                                "returned %d",
                             done_items - 1, stop_value);
        sb_set_stop(stop_value, (int64_t)done_items - 1);
        rc = sb_fail(SPACRBENCH_EUSER, "stopped at item %zu: returned %d", done_items - 1,
                     stop_value);
        /* sb_fail keeps the stop values set just above. */
        if (st.opt.flags & SPACRBENCH_FLAG_KEEP_PARTIAL) {
            *out = m;
            st.m = NULL;
        }
        goto done;
    }
    *out = m;
    st.m = NULL;
    rc = SPACRBENCH_OK;
done:
    release(&st);
    pthread_mutex_unlock(&run_lock);
    return rc;
}
