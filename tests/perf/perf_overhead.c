/* Side-by-side costs of the harness, measured in one run:
 *   1. per-item overhead of spacrbench_benchmark on empty work, with and
 *      without per-item records, against a bare loop calling the same
 *      function pointer;
 *   2. the sampler thread's CPU share at the default interval, without and
 *      with the memory timeline, side by side (the timeline's cost is its
 *      share over the plain sampler's).
 * Targets: <= 20 us/item with records, <= 0.2 us/item without, sampler
 * <= 0.5 % of one core. Prints figures; never fails on speed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "core.h"
#include "os.h"
#include "spacrbench.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_now(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static int empty_work(void *item, void *payload)
{
    (void)item;
    (void)payload;
    return 0;
}

static int sleep_work(void *item, void *payload)
{
    (void)item;
    (void)payload;
    struct timespec ts = {0, 100 * 1000 * 1000};
    nanosleep(&ts, NULL);
    return 0;
}

/* The bare loop the harness is compared with: same pointer, same items. */
static double bare_loop(spacrbench_work_fn volatile fn, void *const *items, size_t n)
{
    double t0 = now();
    for (size_t i = 0; i < n; i++)
        if (fn(items[i], NULL))
            break;
    return now() - t0;
}

static double harness(void *const *items, size_t n, int records)
{
    spacrbench_options o;
    spacrbench_options_init(&o, sizeof o);
    o.item_records = records;
    o.warmup = 0;
    o.flags = SPACRBENCH_FLAG_NO_GPU;
    spacrbench_measurement *m = NULL;
    double t0 = now();
    int rc = spacrbench_benchmark(empty_work, items, n, NULL, &o, &m);
    double t = now() - t0;
    if (rc) {
        fprintf(stderr, "benchmark failed: %s\n", spacrbench_last_error_message());
        exit(1);
    }
    spacrbench_measurement_free(m);
    return t;
}

/* CPU used by the process while the work sleeps, with and without the
 * sampler: the difference is the sampler's cost. */
static double sleeping_cpu_share(int with_sampler, size_t n, uint32_t more_flags)
{
    void **items = calloc(n, sizeof *items);
    spacrbench_options o;
    spacrbench_options_init(&o, sizeof o);
    o.flags =
        SPACRBENCH_FLAG_NO_GPU | (with_sampler ? SPACRBENCH_FLAG_NO_HWM_RESET : 0) | more_flags;
    o.warmup = 0;
    spacrbench_measurement *m = NULL;
    double c0 = cpu_now(), t0 = now();
    spacrbench_benchmark(sleep_work, items, n, NULL, &o, &m);
    double share = (cpu_now() - c0) / (now() - t0);
    spacrbench_measurement_free(m);
    free(items);
    return share;
}

/* The sampler thread's own CPU clock over a 2 s run: precise, unlike the
 * tick-based process totals above. timeline: also put every sample on a
 * memory timeline. Returns the share of one core (0 on failure). */
static double sampler_thread_share(int with_timeline)
{
    sb_proc proc;
    if (sb_proc_open(&proc, 0) != 0)
        return 0.0;
    sb_timeline *tl = with_timeline ? sb_timeline_new(10000, 0) : NULL;
    sb_sampler *s = NULL;
    sb_sampler_config cfg = {10000, &proc, NULL, tl ? sb_timeline_on_rss : NULL, tl};
    if ((with_timeline && !tl) || sb_sampler_start(&s, &cfg) != 0) {
        sb_timeline_free(tl);
        sb_proc_close(&proc);
        return 0.0;
    }
    double t0 = now();
    struct timespec ts = {2, 0};
    nanosleep(&ts, NULL);
    double cpu = sb_sampler_cpu_seconds(s);
    double wall = now() - t0;
    sb_sampler_stop(s, NULL, NULL);
    sb_proc_close(&proc);
    printf("  sampler thread's own CPU clock, %-8s %6.3f %% of one core (%.1f us per 10 ms "
           "wake)\n",
           with_timeline ? "timeline" : "plain", cpu / wall * 100, cpu / (wall / 0.01) * 1e6);
    sb_timeline_free(tl);
    return cpu / wall;
}

/* The timeline's own cost per sample, with no sleeping in between: the
 * downsampler itself (merging pairs when full) over many samples. */
static void timeline_per_sample(void)
{
    sb_timeline *tl = sb_timeline_new(10000, 0);
    if (!tl)
        return;
    const long n = 10 * 1000 * 1000;
    double t0 = now();
    for (long i = 0; i < n; i++)
        sb_timeline_sample_add(tl, (double)i * 0.01, (int64_t)(i % 977) << 12, -1);
    double per = (now() - t0) / (double)n * 1e9;
    printf("  timeline downsampler alone         %8.1f ns per sample (%ld samples kept as "
           "%zu points, %lld per point)\n",
           per, n, sb_timeline_count(tl), (long long)tl->stride);
    sb_timeline_free(tl);
}

/* Interleaved rounds (plain, timeline, plain, ...) so drift hits both. */
static void sampler_with_and_without_timeline(void)
{
    double plain = 0, with = 0;
    int rounds = 3;
    for (int r = 0; r < rounds; r++) {
        plain += sampler_thread_share(0);
        with += sampler_thread_share(1);
    }
    plain /= rounds;
    with /= rounds;
    printf("  mean of %d rounds: plain %.3f %%, timeline %.3f %% of one core: timeline/plain "
           "%.2fx (budget 0.5 %%)\n",
           rounds, plain * 100, with * 100, plain > 0 ? with / plain : 0.0);
    timeline_per_sample();
}

int main(int argc, char **argv)
{
    size_t n_fast = argc > 1 ? strtoull(argv[1], NULL, 10) : 5000000;
    size_t n_records = n_fast / 50;
    void **items = calloc(n_fast, sizeof *items);
    if (!items)
        return 1;

    bare_loop(empty_work, items, n_fast); /* warm caches and page-in */
    double bare = bare_loop(empty_work, items, n_fast);
    double without = harness(items, n_fast, 0);
    double bare_small = bare_loop(empty_work, items, n_records);
    double with = harness(items, n_records, 1);

    double per_bare = bare / (double)n_fast * 1e6;
    double per_without = (without - bare) / (double)n_fast * 1e6;
    double per_with = (with - bare_small) / (double)n_records * 1e6;
    printf("spacrbench harness overhead per item (empty work)\n");
    printf("  bare loop, same function pointer   %8.4f us/item (%zu items)\n", per_bare, n_fast);
    printf("  benchmark, no per-item records     %8.4f us/item over the bare loop "
           "(%.2fx the loop; target <= 0.2 us)\n",
           per_without, without / bare);
    printf("  benchmark, per-item records        %8.4f us/item over the bare loop "
           "(%zu items; target <= 20 us)\n",
           per_with, n_records);

    double idle = sleeping_cpu_share(0, 20, 0);
    double sampled = sleeping_cpu_share(1, 20, 0);
    /* Exact peak (nothing to sample) but a timeline asked for: the sampler
     * runs for the picture alone. */
    double pictured = sleeping_cpu_share(0, 20, SPACRBENCH_FLAG_TIMELINE);
    printf("sampler at the default 10 ms interval, work sleeping for 2 s\n");
    printf("  CPU share without sampler          %8.3f %% of one core\n", idle * 100);
    printf("  CPU share with sampler             %8.3f %% of one core\n", sampled * 100);
    printf("  sampler cost                       %8.3f %% of one core (target <= 0.5 %%)\n",
           (sampled - idle) * 100);
    printf("  CPU share, exact peak + timeline   %8.3f %% of one core (timeline cost %.3f %%; "
           "%.2fx the fallback sampler's)\n",
           pictured * 100, (pictured - idle) * 100,
           sampled > idle ? (pictured - idle) / (sampled - idle) : 0.0);
    sampler_with_and_without_timeline();
    free(items);
    return 0;
}
