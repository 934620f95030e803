/* Side-by-side cost of `spacrbench run`'s memory timeline, measured in one
 * run through the code `run` uses (run_item over the process supervisor,
 * the measurement builder, run_timeline), with and without a cgroup, in
 * three modes: no sampling (a 10 s period: what an item costs without any
 * sample), the sampler as it was before the timeline (the samples, no
 * listener), and the sampler with the timeline (what `run` does now):
 *   1. spacrbench's own CPU (CLOCK_PROCESS_CPUTIME_ID: this process, its
 *      children aside) while an item sleeps, as a share of one core; the
 *      sampler's own cost is the difference to no sampling (its budget:
 *      0.5 % of a core at 10 ms), the timeline's the difference to the
 *      sampler alone;
 *   2. the wall time per item of `true` (run's per-item overhead, about
 *      1.3 ms), in the same three modes.
 * Rounds alternate the modes so that a busy machine affects all; medians
 * are shown. Prints figures and ratios; never fails on speed. Usage:
 *   spacrbench_perf_run_timeline [SLEEP_ITEMS [TRUE_ITEMS [ROUNDS]]] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "spacrbench.h"
#include "supervisor.h"

typedef struct figures {
    double cpu_share;     /* of one core, while the items ran */
    double wall_per_item; /* seconds */
    int64_t samples;      /* the timeline's, 0 when off */
} figures;

static double clock_of(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* n items of argv, as `run` measures them; the timeline on or off. */
static int run_items(sb_supervisor *sup, char **argv, int n, int timeline, figures *f)
{
    spacrbench_run_plan plan;
    spacrbench_run_plan_init(&plan, sizeof plan);
    plan.items = n;
    plan.records = 1;
    plan.peak_method = sup->use_cgroup ? SPACRBENCH_PEAK_CGROUP : SPACRBENCH_PEAK_CHILD_RUSAGE;
    spacrbench_measurement *m = NULL;
    if (spacrbench_measurement_begin(&plan, &m) != 0)
        return -1;
    run_timeline tl = {0};
    if (timeline)
        run_timeline_begin(&tl, m, sup);
    double c0 = clock_of(CLOCK_PROCESS_CPUTIME_ID), t0 = clock_of(CLOCK_MONOTONIC);
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        run_outcome o;
        if (run_item(sup, argv, (size_t)i, &o) != 0 || !run_outcome_ok(&o)) {
            rc = -1;
            break;
        }
        spacrbench_item_figures it;
        spacrbench_item_figures_init(&it, sizeof it);
        it.seconds = o.group.seconds;
        it.cpu_seconds = o.copy.cpu_seconds;
        it.peak_rss_bytes = o.group.peak;
        if (spacrbench_measurement_add_item(m, &it) != 0)
            rc = -1;
        else if (timeline) {
            run_timeline_run_done(&tl, o.copy.cpu_seconds);
            run_timeline_mark(&tl, (size_t)i, o.group.started_at, o.group.seconds);
        }
    }
    double wall = clock_of(CLOCK_MONOTONIC) - t0;
    double cpu = clock_of(CLOCK_PROCESS_CPUTIME_ID) - c0;
    run_timeline_end(&tl);
    spacrbench_timeline_info info = {.size = sizeof info};
    f->samples = spacrbench_measurement_timeline_info(m, &info) == 0 ? info.samples : 0;
    f->cpu_share = cpu / wall;
    f->wall_per_item = wall / n;
    spacrbench_measurement_end(m);
    spacrbench_measurement_free(m);
    return rc;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#define MAX_ROUNDS 32

enum { NO_SAMPLING, SAMPLER, TIMELINE, MODES };

/* The period of each mode: none within an item (10 s), the default. */
static const int64_t k_interval_us[MODES] = {10000000, 0, 0};

static void compare(int no_cgroup, int sleep_items, int true_items, int rounds)
{
    sb_supervisor sup;
    sb_supervisor_config cfg = {.no_cgroup = no_cgroup, .machine_limit = -1, .prefix = "sbperf-tl"};
    sb_supervisor_init(&sup, &cfg);
    if (!no_cgroup && !sup.use_cgroup) {
        printf("with a cgroup: skipped (%s)\n", sup.why_no_cgroup);
        sb_supervisor_free(&sup);
        return;
    }
    char *sleeper[] = {"sleep", "0.5", NULL}, *truth[] = {"true", NULL};
    double cpu[MODES][MAX_ROUNDS], per_item[MODES][MAX_ROUNDS];
    int64_t samples = 0;
    for (int r = 0; r < rounds; r++)
        for (int mode = 0; mode < MODES; mode++) {
            figures f;
            sup.cfg.interval_us = k_interval_us[mode];
            if (run_items(&sup, sleeper, sleep_items, mode == TIMELINE, &f) != 0) {
                printf("a sleeping item failed\n");
                sb_supervisor_free(&sup);
                return;
            }
            cpu[mode][r] = f.cpu_share;
            if (mode == TIMELINE)
                samples = f.samples;
            if (run_items(&sup, truth, true_items, mode == TIMELINE, &f) != 0) {
                printf("an item of true failed\n");
                sb_supervisor_free(&sup);
                return;
            }
            per_item[mode][r] = f.wall_per_item;
        }
    double c[MODES], p[MODES];
    for (int mode = 0; mode < MODES; mode++) {
        c[mode] = median(cpu[mode], rounds) * 100;
        p[mode] = median(per_item[mode], rounds) * 1e3;
    }
    sup.cfg.interval_us = 0;
    printf("%s (samples every %.1f ms; %lld timeline samples in the last round)\n",
           sup.use_cgroup ? "with a cgroup of its own" : "without a cgroup (--no-cgroup)",
           sb_supervisor_interval(&sup) * 1e3, (long long)samples);
    printf("  spacrbench's CPU while items sleep, %% of a core: no sampling %6.3f  sampler "
           "%6.3f  sampler+timeline %6.3f\n",
           c[NO_SAMPLING], c[SAMPLER], c[TIMELINE]);
    printf("    the sampler's cost %+.3f %%, the timeline's %+.3f %%; with/without the "
           "timeline %.2fx\n",
           c[SAMPLER] - c[NO_SAMPLING], c[TIMELINE] - c[SAMPLER],
           c[SAMPLER] > 0 ? c[TIMELINE] / c[SAMPLER] : 0);
    printf("  wall time per item of `true`, ms:          no sampling %6.3f  sampler "
           "%6.3f  sampler+timeline %6.3f\n",
           p[NO_SAMPLING], p[SAMPLER], p[TIMELINE]);
    printf("    with/without the timeline %.2fx (%+.3f ms)\n",
           p[SAMPLER] > 0 ? p[TIMELINE] / p[SAMPLER] : 0, p[TIMELINE] - p[SAMPLER]);
    sb_supervisor_free(&sup);
}

int main(int argc, char **argv)
{
    int sleep_items = argc > 1 ? atoi(argv[1]) : 4;
    int true_items = argc > 2 ? atoi(argv[2]) : 200;
    int rounds = argc > 3 ? atoi(argv[3]) : 3;
    if (sleep_items < 1 || true_items < 1 || rounds < 1 || rounds > MAX_ROUNDS) {
        fprintf(stderr, "usage: %s [SLEEP_ITEMS [TRUE_ITEMS [ROUNDS (1..%d)]]]\n", argv[0],
                MAX_ROUNDS);
        return 2;
    }
    printf("spacrbench run: no sampling, the sampler, the sampler with the memory timeline; "
           "%d round(s) of %d x sleep 0.5 and %d x true (medians)\n",
           rounds, sleep_items, true_items);
    compare(0, sleep_items, true_items, rounds);
    compare(1, sleep_items, true_items, rounds);
    return 0;
}
