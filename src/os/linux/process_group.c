/* spacrbench_group: the peak of a set of processes: a memory cgroup of its
 * own, else a thread summing their trees' PSS (sb_pss_tracker). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "os.h"

/* statm and smaps_rollup at 0.3 % and 0.2 % of a core: 0.5 % together. */
enum { PSS_INTERVAL_MS = 20, PSS_REFRESH_MS = 100 };

struct spacrbench_group {
    sb_group cg;
    int use_cgroup;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_t thread;
    int thread_started;
    int stop;
    pid_t *pids; /* added processes (their descendants are found per sample) */
    size_t n_pids, cap_pids;
    int64_t pss_peak;            /* largest PSS sum seen; -1 before the first */
    int64_t watch;               /* > 0: a sum over it ends the group (no cgroup holds a limit) */
    int64_t watch_seen;          /* the sum that did, 0 none */
    sb_sample_budget budget;     /* the sampler's statm pace (under lock) */
    pthread_mutex_t sample_lock; /* the sampler thread or the caller samples */
    sb_pss_tracker pss;          /* (under sample_lock) */
    char note[SB_GROUP_FOUND_MAX + 600];
    char sampling[512]; /* spacrbench_group_sampling_note's text */
};

static atomic_uint group_counter;

/* Under sample_lock: a sum over the watch kills the last sample's members. */
static void watch_over(spacrbench_group *g, int64_t sum)
{
    pthread_mutex_lock(&g->lock);
    int over = sb_budget_watch_over(g->watch, g->watch_seen, sum);
    if (over)
        g->watch_seen = sum;
    pthread_mutex_unlock(&g->lock);
    for (size_t i = 0; over && i < g->pss.n; i++)
        kill(g->pss.m[i].pid, SIGKILL);
}

/* paced: the thread's; *smaps_cpu gets the full reads' cost. */
static int64_t pss_sample(spacrbench_group *g, int paced, double *smaps_cpu)
{
    pthread_mutex_lock(&g->lock);
    size_t n = g->n_pids;
    pid_t *roots = n ? malloc(n * sizeof *roots) : NULL;
    if (roots)
        memcpy(roots, g->pids, n * sizeof *roots);
    pthread_mutex_unlock(&g->lock);
    if (n && !roots)
        return -1;
    pthread_mutex_lock(&g->sample_lock);
    int64_t sum = sb_pss_tracker_sample(&g->pss, roots, n, sb_now(), paced);
    if (smaps_cpu)
        *smaps_cpu = g->pss.last_refresh_cpu;
    watch_over(g, sum);
    pthread_mutex_unlock(&g->sample_lock);
    free(roots);
    pthread_mutex_lock(&g->lock);
    if (sum > g->pss_peak)
        g->pss_peak = sum;
    pthread_mutex_unlock(&g->lock);
    return sum;
}

/* The full reads are paced by their own budget: left out here. */
static struct timespec next_sample(spacrbench_group *g, double cpu_before, double smaps_cpu)
{
    double now = sb_now();
    double cost = sb_thread_cpu_seconds() - cpu_before - smaps_cpu;
    pthread_mutex_lock(&g->lock);
    double due = sb_sample_budget_next(&g->budget, now, cost);
    pthread_mutex_unlock(&g->lock);
    struct timespec at;
    at.tv_sec = (time_t)due;
    at.tv_nsec = (long)((due - (double)at.tv_sec) * 1e9);
    return at;
}

static void *sampler_main(void *arg)
{
    spacrbench_group *g = arg;
    double cpu_before = sb_thread_cpu_seconds();
    pthread_mutex_lock(&g->lock);
    while (!g->stop) {
        pthread_mutex_unlock(&g->lock);
        double smaps_cpu = 0;
        pss_sample(g, 1, &smaps_cpu);
        struct timespec next = next_sample(g, cpu_before, smaps_cpu);
        cpu_before = sb_thread_cpu_seconds();
        pthread_mutex_lock(&g->lock);
        while (!g->stop && pthread_cond_timedwait(&g->wake, &g->lock, &next) != ETIMEDOUT)
            ;
    }
    pthread_mutex_unlock(&g->lock);
    return NULL;
}

/* 0, or -1 with why and nothing left. */
static int open_cgroup(spacrbench_group *g, char *why, size_t why_cap)
{
    if (sb_group_locate(&g->cg, NULL, why, why_cap) != 0)
        return -1;
    if (g->cg.place != SB_GROUP_NONE)
        sb_group_clean_stale(&g->cg, "spacrbench-group", NULL, NULL);
    if (sb_group_delegate_acquire(&g->cg, why, why_cap) != 0)
        return -1;
    char name[128], tag[48];
    sb_group_owner_tag(tag, sizeof tag);
    snprintf(name, sizeof name, "spacrbench-group-%s-%u", tag,
             atomic_fetch_add(&group_counter, 1u));
    if (sb_group_create(&g->cg, name, why, why_cap) == 0)
        return 0;
    sb_group_delegate_release(&g->cg);
    return -1;
}

int spacrbench_group_open(uint32_t flags, spacrbench_group **out)
{
    sb_clear_error();
    if (!out)
        return sb_fail(SPACRBENCH_EINVAL, "out must not be NULL");
    *out = NULL;
    if (flags & ~(uint32_t)SPACRBENCH_SCALE_NO_CGROUP)
        return sb_fail(SPACRBENCH_EINVAL, "flags has unknown bits 0x%x",
                       flags & ~(uint32_t)SPACRBENCH_SCALE_NO_CGROUP);
    spacrbench_group *g = calloc(1, sizeof *g);
    if (!g)
        return sb_fail(SPACRBENCH_ENOMEM, "no memory for a process group");
    pthread_mutex_init(&g->lock, NULL);
    g->pss_peak = -1;
    pthread_mutex_init(&g->sample_lock, NULL);
    sb_sample_budget_init(&g->budget, PSS_INTERVAL_MS * 1e-3, SB_SAMPLE_BUDGET_SHARE * 0.6);
    sb_pss_tracker_init(&g->pss, PSS_REFRESH_MS * 1e-3, SB_SAMPLE_BUDGET_SHARE * 0.4);
    char why[SB_GROUP_FOUND_MAX + 200] = "the caller turned it off (SPACRBENCH_SCALE_NO_CGROUP)";
    if (!(flags & SPACRBENCH_SCALE_NO_CGROUP) && open_cgroup(g, why, sizeof why) == 0)
        g->use_cgroup = 1;
    if (g->use_cgroup) {
        sb_group_words_cgroup(g->note, sizeof g->note, g->cg.version, g->cg.found);
    } else {
        char sum[400];
        snprintf(sum, sizeof sum,
                 "the sum of the processes' PSS (forked workers share copy-on-write pages, "
                 "which RSS would count in each): statm's RSS at least %d ms apart less the "
                 "shared part smaps_rollup gave (re-read at least %d ms apart), within 0.5 %% "
                 "of a core",
                 PSS_INTERVAL_MS, PSS_REFRESH_MS);
        sb_group_words_sampled(g->note, sizeof g->note, sum,
                               "not exact, spikes between samples are missed", why);
        if (sb_thread_start(&g->thread, &g->wake, sampler_main, g) != 0) {
            pthread_mutex_destroy(&g->lock);
            pthread_mutex_destroy(&g->sample_lock);
            free(g);
            return sb_fail(SPACRBENCH_ETHREAD, "could not start the group's PSS sampler");
        }
        g->thread_started = 1;
        /* Its cost shows per thread (top -H). */
        pthread_setname_np(g->thread, "spacrbench-pss");
    }
    *out = g;
    return SPACRBENCH_OK;
}

int spacrbench_group_add_process(spacrbench_group *g, int64_t pid)
{
    sb_clear_error();
    if (!g)
        return sb_fail(SPACRBENCH_EINVAL, "group must not be NULL");
    if (pid <= 0 || pid != (int64_t)(pid_t)pid)
        return sb_fail(SPACRBENCH_EINVAL, "pid %lld is not a process id", (long long)pid);
    if (g->use_cgroup) {
        if (sb_group_attach(&g->cg, (pid_t)pid) != 0)
            return sb_fail(SPACRBENCH_ESYSTEM, "cannot move process %lld into %s: %s",
                           (long long)pid, g->cg.dir, strerror(errno));
        return SPACRBENCH_OK;
    }
    if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
        return sb_fail(SPACRBENCH_EINVAL, "no process %lld", (long long)pid);
    pthread_mutex_lock(&g->lock);
    int rc = sb_grow(&g->pids, &g->cap_pids, g->n_pids + 1, sizeof *g->pids) ? SPACRBENCH_ENOMEM
                                                                             : SPACRBENCH_OK;
    if (rc == 0)
        g->pids[g->n_pids++] = (pid_t)pid;
    pthread_mutex_unlock(&g->lock);
    return rc ? sb_fail(rc, "no memory to add a process") : SPACRBENCH_OK;
}

int spacrbench_group_peak(spacrbench_group *g, int64_t *bytes, int32_t *method)
{
    sb_clear_error();
    if (!g || !bytes)
        return sb_fail(SPACRBENCH_EINVAL, "%s must not be NULL", g ? "bytes" : "group");
    if (g->use_cgroup) {
        *bytes = sb_group_peak(&g->cg);
        if (method)
            *method = SPACRBENCH_PEAK_CGROUP;
        return SPACRBENCH_OK;
    }
    pss_sample(g, 0, NULL); /* the caller's thread, never a worker's */
    pthread_mutex_lock(&g->lock);
    *bytes = g->pss_peak;
    pthread_mutex_unlock(&g->lock);
    if (method)
        *method = SPACRBENCH_PEAK_PSS_SUM;
    return SPACRBENCH_OK;
}

const char *spacrbench_group_note(const spacrbench_group *g) { return g ? g->note : ""; }

const char *spacrbench_group_sampling_note(spacrbench_group *g)
{
    if (!g || g->use_cgroup)
        return "";
    pthread_mutex_lock(&g->lock);
    sb_sample_budget ticks = g->budget;
    pthread_mutex_unlock(&g->lock);
    pthread_mutex_lock(&g->sample_lock);
    sb_sample_budget full = g->pss.refresh;
    int64_t reads = g->pss.smaps_reads;
    pthread_mutex_unlock(&g->sample_lock);
    if (ticks.samples == 0)
        return "";
    char how[200];
    sb_sample_budget_describe(&ticks, how, sizeof how);
    double full_ms = sb_sample_budget_mean(&full);
    char shared[96] = "read once per process";
    if (full_ms > 0)
        snprintf(shared, sizeof shared, "re-read every %.0f ms on average", full_ms * 1e3);
    snprintf(g->sampling, sizeof g->sampling,
             "group PSS: statm sampled %s; the shared part from smaps_rollup %s (%lld reads): "
             "a spike shorter than %.0f ms may be missed",
             how, shared, (long long)reads, sb_sample_budget_miss_ms(&ticks));
    return g->sampling;
}

int spacrbench_group_close(spacrbench_group *g)
{
    sb_clear_error();
    if (!g)
        return SPACRBENCH_OK;
    int rc = SPACRBENCH_OK;
    if (g->thread_started) {
        pthread_mutex_lock(&g->lock);
        g->stop = 1;
        pthread_cond_signal(&g->wake);
        pthread_mutex_unlock(&g->lock);
        pthread_join(g->thread, NULL);
        pthread_cond_destroy(&g->wake);
    }
    if (g->use_cgroup && sb_group_remove(&g->cg, NULL) != 0)
        rc = sb_fail(SPACRBENCH_ESYSTEM, "cannot remove cgroup %s: %s", g->cg.dir, strerror(errno));
    if (g->use_cgroup)
        sb_group_delegate_release(&g->cg);
    pthread_mutex_destroy(&g->lock);
    pthread_mutex_destroy(&g->sample_lock);
    sb_pss_tracker_free(&g->pss);
    free(g->pids);
    free(g);
    return rc;
}

int spacrbench_group_set_limit(spacrbench_group *g, int64_t bytes)
{
    sb_clear_error();
    if (!g)
        return sb_fail(SPACRBENCH_EINVAL, "group must not be NULL");
    if (bytes <= 0)
        return sb_fail(SPACRBENCH_EINVAL, "bytes is %lld; a limit must be > 0", (long long)bytes);
    if (!g->use_cgroup)
        return sb_fail(SPACRBENCH_EUNSUPPORTED,
                       "the group has no cgroup (it sums PSS), so it cannot carry a limit");
    if (sb_group_set_limit(&g->cg, bytes) != 0)
        return sb_fail(SPACRBENCH_ESYSTEM, "cannot set the memory limit of %s: %s", g->cg.dir,
                       strerror(errno));
    return SPACRBENCH_OK;
}

int64_t spacrbench_group_oom_kills(const spacrbench_group *g)
{
    return g && g->use_cgroup ? sb_group_oom_kills(&g->cg) : -1;
}

int sb_process_group_watch(spacrbench_group *g, int64_t bytes)
{
    if (!g || g->use_cgroup || bytes <= 0)
        return -1;
    pthread_mutex_lock(&g->lock);
    g->watch = bytes;
    pthread_mutex_unlock(&g->lock);
    return 0;
}

int64_t sb_process_group_watch_ended(spacrbench_group *g)
{
    if (!g)
        return 0;
    pthread_mutex_lock(&g->lock);
    int64_t seen = g->watch_seen;
    pthread_mutex_unlock(&g->lock);
    return seen;
}

int sb_process_group_kill_all(spacrbench_group *g)
{
    if (!g)
        return 0;
    if (g->use_cgroup)
        return sb_group_kill_all(&g->cg) < 0 ? -1 : 0;
    pthread_mutex_lock(&g->lock);
    for (size_t i = 0; i < g->n_pids; i++)
        kill(g->pids[i], SIGKILL);
    pthread_mutex_unlock(&g->lock);
    return 0;
}
