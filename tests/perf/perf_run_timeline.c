/* Side-by-side cost of `spacrbench run`'s memory timeline, measured in one
 * run through the code `run` uses (run_item over the process supervisor,
 * the measurement builder, run_timeline), with and without a cgroup:
 *   1. spacrbench's own CPU (CLOCK_PROCESS_CPUTIME_ID: this process, its
 *      children aside) while an item sleeps, as a share of one core, with
 *      the timeline off and on: the sampler's budget is 0.5 % at 10 ms;
 *   2. the wall time per item of `true` (run's per-item overhead, about
 *      1.2 ms), off and on.
 * Rounds alternate off/on so that a busy machine affects both; medians are
 * shown. Prints figures and ratios; never fails on speed. Usage:
 *   spacrbench_perf_run_timeline [SLEEP_ITEMS [TRUE_ITEMS [ROUNDS]]] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "run_item.h"
#include "run_timeline.h"
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
        it.seconds = o.seconds;
        it.cpu_seconds = o.cpu_seconds;
        it.peak_rss_bytes = o.peak;
        if (spacrbench_measurement_add_item(m, &it) != 0)
            rc = -1;
        else if (timeline)
            run_timeline_mark(&tl, (size_t)i, &o);
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

static void compare(int no_cgroup, int sleep_items, int true_items, int rounds)
{
    sb_supervisor sup;
    sb_supervisor_config cfg = {.no_cgroup = no_cgroup,
                                .machine_limit = -1,
                                .prefix = "sbperf-tl",
                                .owner = "spacrbench_perf"};
    sb_supervisor_init(&sup, &cfg);
    if (!no_cgroup && !sup.use_cgroup) {
        printf("with a cgroup: skipped (%s)\n", sup.why_no_cgroup);
        sb_supervisor_free(&sup);
        return;
    }
    char *sleeper[] = {"sleep", "0.5", NULL}, *truth[] = {"true", NULL};
    double cpu[2][MAX_ROUNDS], per_item[2][MAX_ROUNDS];
    int64_t samples = 0;
    for (int r = 0; r < rounds; r++)
        for (int on = 0; on < 2; on++) {
            figures f;
            if (run_items(&sup, sleeper, sleep_items, on, &f) != 0) {
                printf("a sleeping item failed\n");
                sb_supervisor_free(&sup);
                return;
            }
            cpu[on][r] = f.cpu_share;
            if (on)
                samples = f.samples;
            if (run_items(&sup, truth, true_items, on, &f) != 0) {
                printf("an item of true failed\n");
                sb_supervisor_free(&sup);
                return;
            }
            per_item[on][r] = f.wall_per_item;
        }
    double c_off = median(cpu[0], rounds), c_on = median(cpu[1], rounds);
    double p_off = median(per_item[0], rounds), p_on = median(per_item[1], rounds);
    printf("%s (samples every %.1f ms; %lld timeline samples in the last round)\n",
           sup.use_cgroup ? "with a cgroup of its own" : "without a cgroup (--no-cgroup)",
           sb_supervisor_interval(&sup) * 1e3, (long long)samples);
    printf("  spacrbench's CPU while items sleep   off %6.3f %%  on %6.3f %% of a core  "
           "ratio %.2f  (timeline +%.3f %%)\n",
           c_off * 100, c_on * 100, c_off > 0 ? c_on / c_off : 0, (c_on - c_off) * 100);
    printf("  wall time per item of `true`       off %6.3f ms  on %6.3f ms         "
           "ratio %.2f  (timeline %+.3f ms)\n",
           p_off * 1e3, p_on * 1e3, p_off > 0 ? p_on / p_off : 0, (p_on - p_off) * 1e3);
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
    printf("spacrbench run: the memory timeline off and on, %d round(s) of %d x sleep 0.5 "
           "and %d x true (medians)\n",
           rounds, sleep_items, true_items);
    compare(0, sleep_items, true_items, rounds);
    compare(1, sleep_items, true_items, rounds);
    return 0;
}
