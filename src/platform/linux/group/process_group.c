/* spacrbench_group: the aggregate peak memory of a set of processes that
 * a binding started itself (a Python pool) or the scaling check forked.
 * Preferred: a memory cgroup of its own (group.h), exact. Fallback: a
 * sampler thread summing the PSS of the added processes and their
 * descendants. PSS rather than RSS because forked workers share their
 * parent's copy-on-write pages, which RSS would count once per worker.
 * smaps_rollup is costly on large processes and takes their mmap lock, so
 * the interval is a modest 20 ms and only the group's processes are read. */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "group.h"
#include "internal.h"
#include "parse.h"
#include "process_group.h"

enum { PSS_INTERVAL_MS = 20, PROC_SCAN_LIMIT = 65536 };

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
    int64_t pss_peak;   /* largest PSS sum seen; -1 before the first */
    int64_t watch;      /* > 0: a sum over it ends the group (no cgroup can hold a limit) */
    int64_t watch_seen; /* the sum that did, 0 none */
    char note[SB_GROUP_PATH_MAX + 900];
};

static atomic_uint group_counter;

/* PSS of one process in bytes, -1 if it is gone or unreadable. */
static int64_t read_pss(pid_t pid)
{
    char path[64], text[4096];
    size_t len = 0;
    int64_t bytes = -1;
    snprintf(path, sizeof path, "/proc/%ld/smaps_rollup", (long)pid);
    if (sb_cg_read_small(path, text, sizeof text, &len) != 0 ||
        sb_parse_meminfo(text, len, "Pss", &bytes) != SB_PARSE_OK)
        return -1;
    return bytes;
}

/* Parent pid from /proc/PID/stat (the comm field may hold spaces and ')'). */
static pid_t read_ppid(pid_t pid)
{
    char path[64], text[1024];
    size_t len = 0;
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    if (sb_cg_read_small(path, text, sizeof text, &len) != 0)
        return -1;
    const char *close = strrchr(text, ')');
    long ppid = -1;
    if (!close || sscanf(close + 1, " %*c %ld", &ppid) != 1)
        return -1;
    return (pid_t)ppid;
}

static int contains(const pid_t *set, size_t n, pid_t pid)
{
    for (size_t i = 0; i < n; i++)
        if (set[i] == pid)
            return 1;
    return 0;
}

/* The watched limit: a sampled sum over it SIGKILLs the whole set (the
 * added processes and their descendants) once, and says so. */
static void watch_over(spacrbench_group *g, const pid_t *set, size_t n, int64_t sum)
{
    pthread_mutex_lock(&g->lock);
    int over = g->watch > 0 && sum > g->watch && !g->watch_seen;
    if (over)
        g->watch_seen = sum;
    pthread_mutex_unlock(&g->lock);
    for (size_t i = 0; over && i < n; i++)
        kill(set[i], SIGKILL);
}

/* One sample: the added processes plus every descendant alive now. */
static int64_t pss_sample(spacrbench_group *g)
{
    pthread_mutex_lock(&g->lock);
    size_t n = g->n_pids;
    pid_t *set = n ? malloc((n + 256) * sizeof *set) : NULL;
    if (set)
        memcpy(set, g->pids, n * sizeof *set);
    pthread_mutex_unlock(&g->lock);
    if (!set)
        return n ? -1 : 0;
    size_t cap = n + 256;
    /* pid -> ppid table of the whole system, then grow the set until no new
     * descendant joins (a grandchild may appear before its parent). */
    pid_t(*table)[2] = NULL;
    size_t rows = 0, table_cap = 0;
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d)) && rows < PROC_SCAN_LIMIT) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0)
            continue;
        if (rows == table_cap) {
            size_t want = table_cap ? 2 * table_cap : 512;
            pid_t(*grown)[2] = realloc(table, want * sizeof *table);
            if (!grown)
                break;
            table = grown;
            table_cap = want;
        }
        table[rows][0] = (pid_t)pid;
        table[rows][1] = read_ppid((pid_t)pid);
        rows++;
    }
    if (d)
        closedir(d);
    for (int grew = 1; grew;) {
        grew = 0;
        for (size_t i = 0; i < rows; i++)
            if (contains(set, n, table[i][1]) && !contains(set, n, table[i][0]) && n < cap) {
                set[n++] = table[i][0];
                grew = 1;
            }
    }
    int64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t pss = read_pss(set[i]);
        sum += pss > 0 ? pss : 0;
    }
    watch_over(g, set, n, sum);
    free(table);
    free(set);
    pthread_mutex_lock(&g->lock);
    if (sum > g->pss_peak)
        g->pss_peak = sum;
    pthread_mutex_unlock(&g->lock);
    return sum;
}

static void *sampler_main(void *arg)
{
    spacrbench_group *g = arg;
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    pthread_mutex_lock(&g->lock);
    while (!g->stop) {
        pthread_mutex_unlock(&g->lock);
        pss_sample(g);
        next.tv_nsec += PSS_INTERVAL_MS * 1000000L;
        while (next.tv_nsec >= 1000000000L) {
            next.tv_nsec -= 1000000000L;
            next.tv_sec++;
        }
        pthread_mutex_lock(&g->lock);
        while (!g->stop && pthread_cond_timedwait(&g->wake, &g->lock, &next) != ETIMEDOUT) {
        }
    }
    pthread_mutex_unlock(&g->lock);
    return NULL;
}

static int start_sampler(spacrbench_group *g)
{
    pthread_condattr_t attr;
    if (pthread_condattr_init(&attr) != 0)
        return -1;
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    int rc = pthread_cond_init(&g->wake, &attr);
    pthread_condattr_destroy(&attr);
    if (rc != 0)
        return -1;
    /* The thread inherits this mask: signals stay with the caller's threads. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = pthread_create(&g->thread, NULL, sampler_main, g);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        pthread_cond_destroy(&g->wake);
        return -1;
    }
    g->thread_started = 1;
    return 0;
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
    char why[SB_GROUP_PATH_MAX + 200] = "turned off by the caller (SPACRBENCH_SCALE_NO_CGROUP)";
    if (!(flags & SPACRBENCH_SCALE_NO_CGROUP) &&
        sb_group_locate(&g->cg, NULL, why, sizeof why) == 0) {
        /* Groups of a caller that was killed (SIGKILL, the OOM killer)
         * are removed here when empty; one still holding processes is
         * left alone (never killed). */
        sb_group_clean_stale(&g->cg, "spacrbench-group", NULL, NULL);
        char name[128], tag[48];
        sb_group_owner_tag(tag, sizeof tag);
        snprintf(name, sizeof name, "spacrbench-group-%s-%u", tag,
                 atomic_fetch_add(&group_counter, 1u));
        g->use_cgroup = sb_group_create(&g->cg, name, why, sizeof why) == 0;
    }
    if (g->use_cgroup) {
        snprintf(g->note, sizeof g->note,
                 "group peak: memory cgroup %s (cgroup v%d), exact, page cache included; memory "
                 "a process used before it joined is not counted",
                 g->cg.dir, g->cg.version);
    } else {
        snprintf(g->note, sizeof g->note,
                 "group peak: sum of the processes' PSS (/proc/PID/smaps_rollup), sampled every "
                 "%d ms, may miss spikes shorter than that; no cgroup: %s",
                 PSS_INTERVAL_MS, why);
        if (start_sampler(g) != 0) {
            pthread_mutex_destroy(&g->lock);
            free(g);
            return sb_fail(SPACRBENCH_ETHREAD, "could not start the group's PSS sampler");
        }
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
    int rc = SPACRBENCH_OK;
    if (g->n_pids == g->cap_pids) {
        size_t want = g->cap_pids ? 2 * g->cap_pids : 16;
        pid_t *grown = realloc(g->pids, want * sizeof *grown);
        if (grown) {
            g->pids = grown;
            g->cap_pids = want;
        } else {
            rc = SPACRBENCH_ENOMEM;
        }
    }
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
    pss_sample(g); /* the caller's thread, never a worker's */
    pthread_mutex_lock(&g->lock);
    *bytes = g->pss_peak;
    pthread_mutex_unlock(&g->lock);
    if (method)
        *method = SPACRBENCH_PEAK_PSS_SUM;
    return SPACRBENCH_OK;
}

const char *spacrbench_group_note(const spacrbench_group *g) { return g ? g->note : ""; }

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
    pthread_mutex_destroy(&g->lock);
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

/* For the scaling driver: end every process of the group (internal). */
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
