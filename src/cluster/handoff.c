/* Cluster hand-off: one worker's measured peak and the recommendation into
 * SLURM and Dask settings, by the rule of docs/scheduler-handoff.md ("The
 * rule"), where each number's reason is given. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cluster.h"
#include "internal.h"

#define SB_MARGIN_FRACTION 0.25
#define SB_MARGIN_FLOOR    (256 * SB_MIB)
/* distributed.worker.memory.target, its smallest default fraction. */
#define SB_DASK_FRACTION 0.6
/* --time: a cluster node may run an item twice as slowly as the
 * measuring machine (older cores, a loaded shared filesystem), and a task
 * over its limit loses all its work, while a generous limit only ranks it
 * a little later for backfill; the floor covers start-up the measurement
 * never saw (prolog, modules, cold caches). */
#define SB_TIME_FACTOR        2.0
#define SB_TIME_FLOOR_MINUTES 5

static int64_t round_up_mib(int64_t bytes) { return (bytes + SB_MIB - 1) / SB_MIB * SB_MIB; }

int64_t sb_handoff_mem_bytes(int64_t peak)
{
    if (peak < 0)
        peak = 0;
    if (peak > INT64_MAX / 4)
        peak = INT64_MAX / 4;
    int64_t margin = (peak + 3) / 4; /* ceil(25%) */
    if (margin < SB_MARGIN_FLOOR)
        margin = SB_MARGIN_FLOOR;
    return round_up_mib(peak + margin);
}

/* The caller's recommendation in, by its own size: it must hold at least
 * the worker and core counts, both >= 1. */
static int read_recommendation(const spacrbench_recommendation *rec, spacrbench_recommendation *r)
{
    if (rec == NULL)
        return sb_fail(SPACRBENCH_EINVAL,
                       "recommendation is NULL: call spacrbench_recommend first");
    memset(r, 0, sizeof *r);
    r->size = sizeof *r;
    int rc = sb_struct_in(r, sizeof *r, rec, "spacrbench_recommendation");
    if (rc < 0)
        return rc;
    /* sb_struct_in keeps our own size: check the caller's. */
    if (rec->size < offsetof(spacrbench_recommendation, reserved))
        return sb_fail(SPACRBENCH_EINVAL,
                       "recommendation size %zu is too small to hold the worker and core counts",
                       rec->size);
    if (r->workers < 1)
        return sb_fail(SPACRBENCH_EINVAL, "recommendation.workers is %" PRId64 ", expected >= 1",
                       r->workers);
    if (r->cores < 1)
        return sb_fail(SPACRBENCH_EINVAL, "recommendation.cores is %" PRId64 ", expected >= 1",
                       r->cores);
    return 0;
}

/* The measurement's figures, with a peak a memory request can come from. */
static int read_peak(const spacrbench_measurement *m, spacrbench_figures *f)
{
    *f = (spacrbench_figures){.size = sizeof *f};
    int rc = spacrbench_measurement_figures(m, f);
    if (rc < 0)
        return rc;
    if (f->peak_method == SPACRBENCH_PEAK_NONE || f->peak_rss_bytes <= 0)
        return sb_fail(SPACRBENCH_EINVAL,
                       "the measurement has no usable peak memory (peak %" PRId64
                       " bytes): no memory request can be derived",
                       f->peak_rss_bytes);
    /* Leave room for margin and rounding without overflowing int64. */
    if (f->peak_rss_bytes > INT64_MAX / 4)
        return sb_fail(SPACRBENCH_ERANGE, "peak of %" PRId64 " bytes is too large",
                       f->peak_rss_bytes);
    return 0;
}

/* The recommended workers, lowered until concurrency * cpus fits the
 * cores and, where the available memory is known, concurrency * mem fits
 * available - reserve; at least 1. */
static int64_t concurrency_of(const spacrbench_recommendation *r, int64_t cpus, int64_t mem)
{
    int64_t concurrency = r->workers;
    if (concurrency > r->cores / cpus) /* concurrency * cpus > cores, without overflow */
        concurrency = r->cores / cpus > 0 ? r->cores / cpus : 1;
    if (r->available_bytes > 0) {
        int64_t room = r->available_bytes - (r->reserve_bytes > 0 ? r->reserve_bytes : 0);
        int64_t fit = room > 0 ? room / mem : 0;
        if (concurrency > fit)
            concurrency = fit > 0 ? fit : 1;
    }
    return concurrency;
}

static int schedule_compute(const spacrbench_measurement *m, const spacrbench_recommendation *rec,
                            spacrbench_schedule *s)
{
    if (m == NULL)
        return sb_fail(SPACRBENCH_EINVAL,
                       "measurement is NULL: the hand-off needs a measured peak");
    spacrbench_recommendation r;
    int rc = read_recommendation(rec, &r);
    if (rc < 0)
        return rc;
    spacrbench_figures f;
    rc = read_peak(m, &f);
    if (rc < 0)
        return rc;
    int64_t mem = sb_handoff_mem_bytes(f.peak_rss_bytes);
    /* The recommendation's own rule (sb_cores_per_worker), capped by cores. */
    double parallelism;
    int64_t cpus = sb_cores_per_worker(f.cpu_seconds, f.seconds, &parallelism);
    if (cpus > r.cores)
        cpus = r.cores;
    int64_t concurrency = concurrency_of(&r, cpus, mem);
    *s = (spacrbench_schedule){.size = sizeof *s,
                               .cpus_per_task = cpus,
                               .mem_per_task_bytes = mem,
                               .array_concurrency = concurrency,
                               .n_workers = concurrency,
                               .threads_per_worker = cpus,
                               .memory_limit_bytes =
                                   round_up_mib((int64_t)ceil((double)mem / SB_DASK_FRACTION)),
                               .margin = SB_MARGIN_FRACTION,
                               .margin_floor_bytes = SB_MARGIN_FLOOR};
    return 0;
}

SPACRBENCH_EXTERN int spacrbench_schedule_compute(const spacrbench_measurement *m,
                                                  const spacrbench_recommendation *rec,
                                                  spacrbench_schedule *out)
{
    SB_REFUSE(out == NULL, "out is NULL");
    if (out->size < sizeof(size_t))
        return sb_fail(SPACRBENCH_EINVAL, "out->size %zu is smaller than a size_t", out->size);
    spacrbench_schedule s;
    int rc = schedule_compute(m, rec, &s);
    if (rc < 0)
        return rc;
    return sb_struct_out(out, &s, sizeof s, "spacrbench_schedule");
}

void sb_vram_comment(char *buf, size_t cap, const spacrbench_figures *f)
{
    buf[0] = '\0';
    if (f->peak_vram_bytes > 0) {
        char v[32];
        sb_format_bytes(v, sizeof v, f->peak_vram_bytes);
        snprintf(buf, cap,
                 "# GPU: each worker peaked at %s of VRAM; request a GPU (--gres=gpu:1) "
                 "or share one only if that much fits per worker\n",
                 v);
    }
}

/* What both hand-off texts show: the schedule, what the #SBATCH lines
 * request (SLURM and Dask both take whole MiB) and the figures as text. */
typedef struct handoff {
    spacrbench_schedule s;
    sb_slurm_settings set;
    char peak[32], vram[256];
    double slowest;
    const spacrbench_measurement *m;
} handoff;

/* The figures of a schedule already computed, as text. */
static int handoff_from(const spacrbench_measurement *m, const spacrbench_schedule *sched,
                        handoff *h)
{
    spacrbench_figures f = {.size = sizeof f};
    int rc = spacrbench_measurement_figures(m, &f);
    if (rc < 0)
        return rc;
    h->s = (spacrbench_schedule){.size = sizeof h->s};
    if ((rc = sb_struct_in(&h->s, sizeof h->s, sched, "spacrbench_schedule")) < 0)
        return rc;
    if (h->s.cpus_per_task < 1 || h->s.array_concurrency < 1 || h->s.n_workers < 1 ||
        h->s.threads_per_worker < 1 || h->s.mem_per_task_bytes < 1)
        return sb_fail(SPACRBENCH_EINVAL, "the schedule has a count below 1 or no memory: "
                                          "compute it with spacrbench_schedule_compute");
    h->set = (sb_slurm_settings){.mem_bytes = h->s.mem_per_task_bytes / SB_MIB * SB_MIB,
                                 .cpus = h->s.cpus_per_task};
    if ((rc = sb_measurement_time_limit(m, 0, &h->set.minutes)) < 0)
        return rc;
    sb_format_bytes(h->peak, sizeof h->peak, f.peak_rss_bytes);
    sb_vram_comment(h->vram, sizeof h->vram, &f);
    h->slowest = spacrbench_measurement_slowest_item_seconds(m);
    h->m = m;
    return 0;
}

void sb_slurm_rules(sb_text *t, const spacrbench_measurement *m, const char *peak, double slowest,
                    const sb_slurm_settings *set, int item_timeout)
{
    const char *word = sb_measurement_peak_word(m);
    if (set->mem_given)
        sb_text_printf(t, "# --mem = as given (%s peak %s)\n", word, peak);
    else
        sb_text_printf(t,
                       "# --mem = %s peak %s + margin max(25%%, 256 MiB), rounded up to "
                       "a MiB\n",
                       word, peak);
    sb_text_printf(t, "# --cpus-per-task = %s\n",
                   set->cpus_given ? "as given" : "measured CPU seconds per wall second, rounded");
    if (set->time_given)
        sb_text_printf(t, "# --time = as given\n");
    else
        sb_text_printf(t,
                       "# --time = 2 x the %sslowest item (%.3g s), whole minutes, at least 5%s\n",
                       sb_measurement_slowest_word(m), slowest,
                       item_timeout ? ", at least the item timeout + 1" : "");
}

void sb_slurm_requests(sb_text *t, const sb_slurm_settings *set)
{
    char time[32];
    sb_format_time_limit(time, sizeof time, set->minutes);
    sb_text_printf(t,
                   "#SBATCH --cpus-per-task=%" PRId64 "\n"
                   "#SBATCH --mem=%" PRId64 "M\n"
                   "#SBATCH --time=%s\n",
                   set->cpus, (set->mem_bytes + SB_MIB - 1) / SB_MIB, time);
}

/* "5" minutes as sbatch --time and SLURMCluster's walltime take it. */
void sb_format_time_limit(char *buf, size_t cap, int64_t minutes)
{
    int64_t d = minutes / (24 * 60), h = minutes / 60 % 24, mi = minutes % 60;
    if (d > 0)
        snprintf(buf, cap, "%" PRId64 "-%02" PRId64 ":%02" PRId64 ":00", d, h, mi);
    else
        snprintf(buf, cap, "%02" PRId64 ":%02" PRId64 ":00", h, mi);
}

/* The --time of a measurement by the rule above ("" when it cannot say). */
int sb_measurement_time_limit(const spacrbench_measurement *m, double timeout_seconds,
                              int64_t *minutes)
{
    double slowest = spacrbench_measurement_slowest_item_seconds(m);
    if (isnan(slowest))
        slowest = 0;
    return spacrbench_time_limit_minutes(slowest, timeout_seconds, minutes);
}

static int slurm_text(const handoff *h, char *buf, size_t cap)
{
    sb_text t = {0};
    sb_text_printf(&t, "# spacrbench %s: one array task per item\n", SPACRBENCH_VERSION_STRING);
    sb_slurm_rules(&t, h->m, h->peak, h->slowest, &h->set, 0);
    sb_text_printf(&t, "%s", h->vram);
    sb_slurm_requests(&t, &h->set);
    sb_text_printf(&t,
                   "# %" PRId64 " such tasks fit one node like this one; SLURM packs them by\n"
                   "# --mem and --cpus-per-task (a %%K on --array would limit the whole array)\n"
                   "#SBATCH --array=0-ITEMS\n"
                   "# replace ITEMS by your last item index, or submit with\n"
                   "#   sbatch --array=0-$((N_ITEMS - 1)) job.sh\n",
                   h->s.array_concurrency);
    return sb_text_deliver(&t, buf, cap);
}

static int dask_text(const handoff *h, char *buf, size_t cap)
{
    int64_t mib =
        (h->s.memory_limit_bytes > 0 ? h->s.memory_limit_bytes : h->s.mem_per_task_bytes) / SB_MIB;
    sb_text t = {0};
    sb_text_printf(&t,
                   "# spacrbench %s: Dask workers for a machine like this one\n"
                   "# memory_limit = (%s peak %s + margin max(25%%, 256 MiB)) / 0.6,\n"
                   "# rounded up to a MiB: 0.6 is distributed's default target fraction, the\n"
                   "# smallest of target/spill/pause/terminate, so the peak never reaches\n"
                   "# them (with other fractions configured, spacrbench's Python to_dask()\n"
                   "# reads them)\n"
                   "%s"
                   "n_workers = %" PRId64 "\n"
                   "threads_per_worker = %" PRId64 "\n"
                   "memory_limit = \"%" PRId64 "MiB\"\n"
                   "# from dask.distributed import LocalCluster\n"
                   "# cluster = LocalCluster(n_workers=%" PRId64 ", threads_per_worker=%" PRId64
                   ", memory_limit=\"%" PRId64 "MiB\")\n",
                   SPACRBENCH_VERSION_STRING, sb_measurement_peak_word(h->m), h->peak, h->vram,
                   h->s.n_workers, h->s.threads_per_worker, mib, h->s.n_workers,
                   h->s.threads_per_worker, mib);
    return sb_text_deliver(&t, buf, cap);
}

static int format_computed(const spacrbench_measurement *m, const spacrbench_recommendation *rec,
                           int kind, char *buf, size_t cap)
{
    sb_clear_error();
    spacrbench_schedule s;
    int rc = schedule_compute(m, rec, &s);
    if (rc < 0)
        return rc;
    return spacrbench_format_schedule(m, &s, kind, buf, cap);
}

SPACRBENCH_EXTERN int spacrbench_format_slurm(const spacrbench_measurement *m,
                                              const spacrbench_recommendation *rec, char *buf,
                                              size_t cap)
{
    return format_computed(m, rec, SPACRBENCH_HANDOFF_SLURM, buf, cap);
}

SPACRBENCH_EXTERN int spacrbench_format_dask(const spacrbench_measurement *m,
                                             const spacrbench_recommendation *rec, char *buf,
                                             size_t cap)
{
    return format_computed(m, rec, SPACRBENCH_HANDOFF_DASK, buf, cap);
}

int spacrbench_format_schedule(const spacrbench_measurement *m, const spacrbench_schedule *schedule,
                               int kind, char *buf, size_t cap)
{
    SB_REFUSE(!m || !schedule, "measurement and schedule must not be NULL");
    if (kind != SPACRBENCH_HANDOFF_SLURM && kind != SPACRBENCH_HANDOFF_DASK)
        return sb_fail(SPACRBENCH_EINVAL, "kind %d is not SPACRBENCH_HANDOFF_SLURM or _DASK", kind);
    handoff h;
    int rc = handoff_from(m, schedule, &h);
    if (rc < 0)
        return rc;
    return kind == SPACRBENCH_HANDOFF_SLURM ? slurm_text(&h, buf, cap) : dask_text(&h, buf, cap);
}

SPACRBENCH_EXTERN int spacrbench_time_limit_minutes(double slowest_seconds, double timeout_seconds,
                                                    int64_t *minutes)
{
    SB_REFUSE(!minutes, "minutes is NULL");
    if (!isfinite(slowest_seconds) || slowest_seconds < 0)
        return sb_fail(SPACRBENCH_EINVAL, "slowest item time %g s is not a finite time >= 0",
                       slowest_seconds);
    if (!isfinite(timeout_seconds) || timeout_seconds < 0)
        return sb_fail(SPACRBENCH_EINVAL, "item timeout %g s is not a finite time >= 0 (0: none)",
                       timeout_seconds);
    double want = ceil(slowest_seconds * SB_TIME_FACTOR / 60.0);
    if (timeout_seconds > 0 && want < ceil(timeout_seconds / 60.0) + 1)
        want = ceil(timeout_seconds / 60.0) + 1;
    if (want < SB_TIME_FLOOR_MINUTES)
        want = SB_TIME_FLOOR_MINUTES;
    if (want > SB_TIME_MAX_MINUTES)
        return sb_fail(SPACRBENCH_ERANGE,
                       "a --time of %.0f minutes (from an item of %g s) is beyond 365 days", want,
                       slowest_seconds);
    *minutes = (int64_t)want;
    return 0;
}

SPACRBENCH_EXTERN int spacrbench_format_time_limit(const spacrbench_measurement *m, char *buf,
                                                   size_t cap)
{
    SB_REFUSE(!m, "measurement is NULL");
    int64_t minutes = 0;
    int rc = sb_measurement_time_limit(m, 0, &minutes);
    if (rc < 0)
        return rc;
    sb_text t = {0};
    char text[32];
    sb_format_time_limit(text, sizeof text, minutes);
    sb_text_printf(&t, "%s", text);
    return sb_text_deliver(&t, buf, cap);
}

SPACRBENCH_EXTERN int spacrbench_dask_memory_limit(int64_t mem_per_task_bytes, double fraction,
                                                   int64_t *memory_limit_bytes)
{
    SB_REFUSE(!memory_limit_bytes, "memory_limit_bytes is NULL");
    if (!(fraction > 0 && fraction <= 1))
        return sb_fail(SPACRBENCH_EINVAL,
                       "fraction %g is not in (0, 1]: give the smallest enabled Dask worker "
                       "memory fraction (target, spill, pause, terminate)",
                       fraction);
    if (mem_per_task_bytes < 1 || (double)mem_per_task_bytes / fraction > (double)(INT64_MAX / 2))
        return sb_fail(SPACRBENCH_ERANGE, "memory per task %" PRId64 " bytes is out of range",
                       mem_per_task_bytes);
    *memory_limit_bytes = round_up_mib((int64_t)ceil((double)mem_per_task_bytes / fraction));
    return 0;
}
