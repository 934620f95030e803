/* Cluster hand-off: turn one worker's measured peak and the recommendation
 * into SLURM and Dask settings. The rule (docs/scheduler-handoff.md):
 *   memory per task/worker = peak + max(25% of peak, 256 MiB), rounded up
 *                            to a whole MiB;
 *   cpus per task          = the recommendation's cores per worker:
 *                            measured CPU seconds / wall seconds, rounded
 *                            to the nearest whole core, 1..cores;
 *   concurrency            = recommended workers, lowered so that
 *                            concurrency * cpus fits this machine's cores
 *                            and, when the available memory is known,
 *                            concurrency * memory per task fits
 *                            available - reserve (at least 1): the margin
 *                            is requested per task, so it must fit too. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

#define SB_MIB             INT64_C(1048576)
#define SB_MARGIN_FRACTION 0.25
#define SB_MARGIN_FLOOR    (256 * SB_MIB)

static int64_t round_up_mib(int64_t bytes) { return (bytes + SB_MIB - 1) / SB_MIB * SB_MIB; }

static int schedule_compute(const spacrbench_measurement *m, const spacrbench_recommendation *rec,
                            spacrbench_schedule *s, spacrbench_figures *figs_out)
{
    if (m == NULL)
        return sb_fail(SPACRBENCH_EINVAL,
                       "measurement is NULL: the hand-off needs a measured peak");
    if (rec == NULL)
        return sb_fail(SPACRBENCH_EINVAL,
                       "recommendation is NULL: call spacrbench_recommend first");

    spacrbench_recommendation r;
    memset(&r, 0, sizeof r);
    r.size = sizeof r;
    int rc = sb_struct_in(&r, sizeof r, rec, "spacrbench_recommendation");
    if (rc < 0)
        return rc;
    /* sb_struct_in keeps our own size: check the caller's. */
    if (rec->size < offsetof(spacrbench_recommendation, reserved))
        return sb_fail(SPACRBENCH_EINVAL,
                       "recommendation size %zu is too small to hold the worker and core counts",
                       rec->size);
    if (r.workers < 1)
        return sb_fail(SPACRBENCH_EINVAL, "recommendation.workers is %" PRId64 ", expected >= 1",
                       r.workers);
    if (r.cores < 1)
        return sb_fail(SPACRBENCH_EINVAL, "recommendation.cores is %" PRId64 ", expected >= 1",
                       r.cores);

    spacrbench_figures f;
    memset(&f, 0, sizeof f);
    f.size = sizeof f;
    rc = spacrbench_measurement_figures(m, &f);
    if (rc < 0)
        return rc;
    if (f.peak_method == SPACRBENCH_PEAK_NONE || f.peak_rss_bytes <= 0)
        return sb_fail(SPACRBENCH_EINVAL,
                       "the measurement has no usable peak memory (peak %" PRId64
                       " bytes): no memory request can be derived",
                       f.peak_rss_bytes);
    /* Leave room for margin and rounding without overflowing int64. */
    if (f.peak_rss_bytes > INT64_MAX / 4)
        return sb_fail(SPACRBENCH_ERANGE, "peak of %" PRId64 " bytes is too large",
                       f.peak_rss_bytes);

    int64_t margin = (f.peak_rss_bytes + 3) / 4; /* ceil(25%) */
    if (margin < SB_MARGIN_FLOOR)
        margin = SB_MARGIN_FLOOR;
    int64_t mem = round_up_mib(f.peak_rss_bytes + margin);

    /* The recommendation's own rule (sb_cores_per_worker), capped by cores. */
    double parallelism;
    int64_t cpus = sb_cores_per_worker(f.cpu_seconds, f.seconds, &parallelism);
    if (cpus > r.cores)
        cpus = r.cores;
    int64_t concurrency = r.workers;
    if (concurrency > r.cores / cpus) /* concurrency * cpus > cores, without overflow */
        concurrency = r.cores / cpus > 0 ? r.cores / cpus : 1;
    if (r.available_bytes > 0) {
        int64_t room = r.available_bytes - (r.reserve_bytes > 0 ? r.reserve_bytes : 0);
        int64_t fit = room > 0 ? room / mem : 0;
        if (concurrency > fit)
            concurrency = fit > 0 ? fit : 1;
    }

    memset(s, 0, sizeof *s);
    s->size = sizeof *s;
    s->cpus_per_task = cpus;
    s->mem_per_task_bytes = mem;
    s->array_concurrency = concurrency;
    s->n_workers = concurrency;
    s->threads_per_worker = cpus;
    s->memory_limit_bytes = mem;
    s->margin = SB_MARGIN_FRACTION;
    s->margin_floor_bytes = SB_MARGIN_FLOOR;
    if (figs_out)
        *figs_out = f;
    return 0;
}

SPACRBENCH_EXTERN int spacrbench_schedule_compute(const spacrbench_measurement *m,
                                                  const spacrbench_recommendation *rec,
                                                  spacrbench_schedule *out)
{
    sb_clear_error();
    if (out == NULL)
        return sb_fail(SPACRBENCH_EINVAL, "out is NULL");
    if (out->size < sizeof(size_t))
        return sb_fail(SPACRBENCH_EINVAL, "out->size %zu is smaller than a size_t", out->size);
    spacrbench_schedule s;
    int rc = schedule_compute(m, rec, &s, NULL);
    if (rc < 0)
        return rc;
    return sb_struct_out(out, &s, sizeof s, "spacrbench_schedule");
}

/* snprintf-style copy of text into buf; returns the full length. */
static int deliver(const char *text, int len, char *buf, size_t cap)
{
    if (len < 0)
        return sb_fail(SPACRBENCH_ESYSTEM, "could not format the hand-off text");
    if (buf == NULL && cap > 0)
        return sb_fail(SPACRBENCH_EINVAL, "buf is NULL but cap is %zu", cap);
    if (cap > 0) {
        size_t n = (size_t)len < cap - 1 ? (size_t)len : cap - 1;
        memcpy(buf, text, n);
        buf[n] = '\0';
    }
    return len;
}

/* "1536M": SLURM and Dask both accept whole MiB. */
static void mib_text(char *buf, size_t cap, int64_t bytes)
{
    snprintf(buf, cap, "%" PRId64, bytes / SB_MIB);
}

static void vram_comment(char *buf, size_t cap, const spacrbench_figures *f)
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

/* What both hand-off texts show: the settings and their figures as text. */
typedef struct handoff {
    spacrbench_schedule s;
    char peak[32], mem[32], vram[256];
} handoff;

/* The figures of a schedule already computed, as text. */
static int handoff_from(const spacrbench_measurement *m, const spacrbench_schedule *sched,
                        handoff *h)
{
    spacrbench_figures f;
    memset(&f, 0, sizeof f);
    f.size = sizeof f;
    int rc = spacrbench_measurement_figures(m, &f);
    if (rc < 0)
        return rc;
    memset(&h->s, 0, sizeof h->s);
    h->s.size = sizeof h->s;
    if ((rc = sb_struct_in(&h->s, sizeof h->s, sched, "spacrbench_schedule")) < 0)
        return rc;
    if (h->s.cpus_per_task < 1 || h->s.array_concurrency < 1 || h->s.n_workers < 1 ||
        h->s.threads_per_worker < 1 || h->s.mem_per_task_bytes < 1)
        return sb_fail(SPACRBENCH_EINVAL, "the schedule has a count below 1 or no memory: "
                                          "compute it with spacrbench_schedule_compute");
    sb_format_bytes(h->peak, sizeof h->peak, f.peak_rss_bytes);
    mib_text(h->mem, sizeof h->mem, h->s.mem_per_task_bytes); /* == memory_limit_bytes */
    vram_comment(h->vram, sizeof h->vram, &f);
    return 0;
}

static int slurm_text(const handoff *h, char *buf, size_t cap)
{
    char text[1536];
    int len =
        snprintf(text, sizeof text,
                 "# spacrbench %s: one array task per item\n"
                 "# --mem = measured peak %s + margin max(25%%, 256 MiB), rounded up to a MiB\n"
                 "# --cpus-per-task = measured CPU seconds per wall second, rounded\n"
                 "%s"
                 "#SBATCH --cpus-per-task=%" PRId64 "\n"
                 "#SBATCH --mem=%sM\n"
                 "# at most %" PRId64 " tasks at once fit one node like this one:\n"
                 "#SBATCH --array=0-ITEMS%%%" PRId64 "\n"
                 "# replace ITEMS by your last item index, or submit with\n"
                 "#   sbatch --array=0-$((N_ITEMS - 1))%%%" PRId64 " job.sh\n",
                 SPACRBENCH_VERSION_STRING, h->peak, h->vram, h->s.cpus_per_task, h->mem,
                 h->s.array_concurrency, h->s.array_concurrency, h->s.array_concurrency);
    return deliver(text, len, buf, cap);
}

static int dask_text(const handoff *h, char *buf, size_t cap)
{
    char text[1536];
    int len =
        snprintf(text, sizeof text,
                 "# spacrbench %s: Dask workers for a machine like this one\n"
                 "# memory_limit = measured peak %s + margin max(25%%, 256 MiB), rounded up "
                 "to a MiB\n"
                 "%s"
                 "n_workers = %" PRId64 "\n"
                 "threads_per_worker = %" PRId64 "\n"
                 "memory_limit = \"%sMiB\"\n"
                 "# from dask.distributed import LocalCluster\n"
                 "# cluster = LocalCluster(n_workers=%" PRId64 ", threads_per_worker=%" PRId64
                 ", memory_limit=\"%sMiB\")\n",
                 SPACRBENCH_VERSION_STRING, h->peak, h->vram, h->s.n_workers,
                 h->s.threads_per_worker, h->mem, h->s.n_workers, h->s.threads_per_worker, h->mem);
    return deliver(text, len, buf, cap);
}

static int format_computed(const spacrbench_measurement *m, const spacrbench_recommendation *rec,
                           int kind, char *buf, size_t cap)
{
    spacrbench_schedule s;
    int rc = schedule_compute(m, rec, &s, NULL);
    if (rc < 0)
        return rc;
    return spacrbench_format_schedule(m, &s, kind, buf, cap);
}

SPACRBENCH_EXTERN int spacrbench_format_slurm(const spacrbench_measurement *m,
                                              const spacrbench_recommendation *rec, char *buf,
                                              size_t cap)
{
    sb_clear_error();
    return format_computed(m, rec, SPACRBENCH_HANDOFF_SLURM, buf, cap);
}

SPACRBENCH_EXTERN int spacrbench_format_dask(const spacrbench_measurement *m,
                                             const spacrbench_recommendation *rec, char *buf,
                                             size_t cap)
{
    sb_clear_error();
    return format_computed(m, rec, SPACRBENCH_HANDOFF_DASK, buf, cap);
}

int spacrbench_format_schedule(const spacrbench_measurement *m, const spacrbench_schedule *schedule,
                               int kind, char *buf, size_t cap)
{
    sb_clear_error();
    if (!m || !schedule)
        return sb_fail(SPACRBENCH_EINVAL, "measurement and schedule must not be NULL");
    if (kind != SPACRBENCH_HANDOFF_SLURM && kind != SPACRBENCH_HANDOFF_DASK)
        return sb_fail(SPACRBENCH_EINVAL, "kind %d is not SPACRBENCH_HANDOFF_SLURM or _DASK", kind);
    handoff h;
    int rc = handoff_from(m, schedule, &h);
    if (rc < 0)
        return rc;
    return kind == SPACRBENCH_HANDOFF_SLURM ? slurm_text(&h, buf, cap) : dask_text(&h, buf, cap);
}
