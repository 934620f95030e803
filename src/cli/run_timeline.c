/* The memory timeline of `spacrbench run` (see cli.h). */
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "util.h"

/* The most processes of one run whose CPU is followed (a larger tree's
 * others are not counted on the timeline; its figures are unaffected). */
#define RUN_CPU_PROCS 4096

struct run_cpu_proc {
    pid_t pid;
    int64_t ns; /* its runtime when last seen */
};

/* A process's CPU time in ns: utime + stime of /proc/PID/stat, every
 * thread of it (/proc/PID/schedstat counts the main thread alone, so a
 * multi-threaded item's CPU came in only at its exit, as a spike); -1 when
 * it is gone. */
static int64_t runtime_ns(pid_t pid)
{
    char text[512];
    snprintf(text, sizeof text, "/proc/%d/stat", (int)pid);
    int fd = open(text, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd < 0 ? -1 : read(fd, text, sizeof text - 1);
    if (fd >= 0)
        close(fd);
    if (n <= 0)
        return -1;
    text[n] = '\0';
    const char *p = strrchr(text, ')'); /* the name may hold spaces and parentheses */
    unsigned long long utime, stime;
    long tick = sysconf(_SC_CLK_TCK);
    if (!p || tick <= 0 ||
        sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime) !=
            2)
        return -1;
    return (int64_t)((utime + stime) * (1000000000ULL / (unsigned long long)tick));
}

/* The current run's CPU seconds as last seen: every process keeps its
 * last runtime (one that exited counts what it had used when last seen). */
static double run_cpu_seen(const run_timeline *t)
{
    int64_t sum = 0;
    for (size_t k = 0; k < t->n_procs; k++)
        sum += t->procs[k].ns;
    return (double)sum * 1e-9;
}

/* The same, after reading the runtime of the processes the sample listed. */
static double run_cpu(run_timeline *t)
{
    const sb_supervisor *sup = t->sup;
    for (size_t i = 0; i < sup->n_pids; i++) {
        int64_t ns = runtime_ns(sup->pids[i]);
        if (ns < 0)
            continue;
        size_t k = 0;
        while (k < t->n_procs && t->procs[k].pid != sup->pids[i])
            k++;
        if (k == t->n_procs) {
            if (k >= RUN_CPU_PROCS || sb_grow(&t->procs, &t->cap_procs, k + 1, sizeof *t->procs))
                continue;
            t->procs[t->n_procs++] = (struct run_cpu_proc){sup->pids[i], 0};
        }
        if (ns > t->procs[k].ns)
            t->procs[k].ns = ns;
    }
    return run_cpu_seen(t);
}

void run_timeline_run_done(run_timeline *t, double cpu_seconds)
{
    if (!t->m)
        return;
    double seen = run_cpu_seen(t);
    /* wait4's figure covers what exited between samples; never less than
     * the curve already showed. */
    t->cpu_done += isnan(cpu_seconds) || cpu_seconds < seen ? seen : cpu_seconds;
    t->n_procs = 0;
}

static void on_sample(void *arg, double now, int64_t rss_bytes, int64_t cgroup_bytes)
{
    run_timeline *t = arg;
    if (t->broken)
        return;
    spacrbench_timeline_point p = {sizeof p, now - t->origin, rss_bytes, cgroup_bytes};
    if (spacrbench_measurement_timeline_add_sample_cpu(t->m, &p, t->cpu_done + run_cpu(t)) != 0) {
        t->broken = 1;
        return;
    }
    int64_t figure = t->peak_is_charge ? cgroup_bytes : rss_bytes;
    if (figure > t->best) {
        t->best = figure;
        t->best_at = p.seconds;
    }
}

void run_timeline_begin(run_timeline *t, spacrbench_measurement *m, sb_supervisor *sup)
{
    memset(t, 0, sizeof *t);
    t->best = -1;
    spacrbench_timeline_info info = {.size = sizeof info, .stride = 1};
    info.interval_us = (int64_t)llround(sb_supervisor_interval(sup) * 1e6);
    if (spacrbench_measurement_timeline_begin(m, &info) != 0) {
        spacrbench_measurement_add_note(m, "no memory timeline: out of memory");
        return;
    }
    t->m = m;
    t->sup = sup;
    t->origin = sb_now();
    t->peak_is_charge = sup->use_cgroup;
    sup->cfg.on_sample = on_sample;
    sup->cfg.sample_arg = t;
}

void run_timeline_mark(run_timeline *t, size_t record, double started_at, double seconds)
{
    if (!t->m || t->broken)
        return;
    spacrbench_item_record rec = {.size = sizeof rec};
    if (spacrbench_measurement_record(t->m, record, &rec) == 0) {
        double start = started_at - t->origin;
        /* No sample of the peak's figure inside the item (shorter than one
         * period): NaN lets the library mark it at the item's end. */
        spacrbench_timeline_item it = {.size = sizeof it,
                                       .index = (int64_t)record,
                                       .is_warmup = rec.is_warmup,
                                       .start_seconds = start,
                                       .end_seconds = start + seconds,
                                       .peak_rss_bytes = rec.peak_rss_bytes,
                                       .peak_seconds = t->best >= 0 ? t->best_at : NAN};
        if (spacrbench_measurement_timeline_add_item(t->m, &it) != 0)
            t->broken = 1;
    }
    t->best = -1;
}

void run_timeline_end(run_timeline *t)
{
    if (!t->m)
        return;
    t->sup->cfg.on_sample = NULL;
    t->sup->cfg.sample_arg = NULL;
    free(t->procs);
    t->procs = NULL;
    t->n_procs = t->cap_procs = 0;
    if (t->broken)
        spacrbench_measurement_add_note(t->m, "the memory timeline stops early: a sample or "
                                              "an item mark could not be added");
    spacrbench_timeline_info info = {.size = sizeof info};
    if (spacrbench_measurement_timeline_info(t->m, &info) != 0 || !info.downsampled)
        return;
    cli_note(t->m,
             "timeline downsampled: %lld RSS samples taken every %.1f ms are shown as %lld "
             "points, each the highest of %lld consecutive samples (at most %lld points are "
             "kept)",
             (long long)info.samples, (double)info.interval_us / 1000.0,
             (long long)info.point_count, (long long)info.stride, (long long)info.max_points);
}
