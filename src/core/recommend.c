/* The worker-count rule: never more than the cores, never more than the
 * memory (and VRAM) budget divided by one worker's need, never fewer than 1
 * nor more than the maximum. Every figure that decided it is kept, and the
 * reason says it in spaCR's words and number format first ("core-bound: 16
 * core(s), and memory would allow 11"), spacrbench's after "; ". Its first
 * words are stable (docs/advice.md). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core.h"
#include "os.h"

/* Which "one worker at a time" case decided, when bound is ONE. */
typedef enum sb_one_case {
    SB_ONE_NONE,   /* not one of these: r->bound says what decided */
    SB_ONE_OOM,    /* an item was OOM-killed */
    SB_ONE_MEMORY, /* one worker's need is above the memory budget */
    SB_ONE_VRAM    /* one worker's VRAM is above the VRAM budget */
} sb_one_case;

/* What the arithmetic found, beside the recommendation's own fields. */
typedef struct sb_decision {
    int64_t budget; /* available memory - reserve, at least 0 */
    int has_memory; /* a usable memory measurement and a known budget */
    int has_vram;   /* a VRAM bound exists */
    sb_one_case one;
} sb_decision;

void sb_appendf(char *buf, size_t cap, const char *fmt, ...)
{
    size_t len = strnlen(buf, cap);
    if (len + 1 >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, cap - len, fmt, ap);
    va_end(ap);
}

/* Ours after upstream's words: how many cores one worker keeps busy. */
static void reason_cores_per_worker(spacrbench_recommendation *r)
{
    if (r->cores_per_worker > 1)
        sb_reason_add(r, "; each worker keeps %.1f cores busy, so %lld worker(s)",
                      r->cpu_parallelism, (long long)r->core_workers);
}

static void reason_start_method(spacrbench_recommendation *r)
{
    char base[32];
    if (r->baseline_bytes <= 0)
        return;
    sb_format_bytes(base, sizeof base, r->baseline_bytes);
    sb_reason_add(r, "; %s workers each also load the %s baseline",
                  spacrbench_start_method_name(r->start_method), base);
}

/* Upstream's branches print sizes as "%.2f GiB": their sentence comes
 * first, unchanged, and what spacrbench adds follows after "; ". */
#define GIB (1024.0 * 1024.0 * 1024.0)

/* One worker at a time where an item was OOM-killed or one worker's
 * memory or VRAM exceeds what is free; else the bound decides. */
static void sb_recommend_explain(spacrbench_recommendation *r, const sb_decision *d)
{
    /* Where the memory figure came from, unless the host or the caller:
     * " (...)" inside a sentence, "; memory from ..." after one. */
    char where_note[320] = "", where_tail[320] = "", need[32], budget_text[32];
    if (r->memory_source != SPACRBENCH_SOURCE_HOST &&
        r->memory_source != SPACRBENCH_SOURCE_CALLER) {
        snprintf(where_note, sizeof where_note, " (%.300s)", r->memory_where);
        snprintf(where_tail, sizeof where_tail, "; memory from %.300s", r->memory_where);
    }
    r->reason[0] = '\0';
    switch (d->one) {
    case SB_ONE_OOM:
        sb_format_bytes(need, sizeof need, r->oom_limit_bytes);
        sb_format_bytes(budget_text, sizeof budget_text, d->budget);
        sb_reason_add(r,
                      "one worker needs more than %s (an item was OOM-killed at that limit) and %s "
                      "is free after the reserve%s; one worker at a time is what fits, if any does",
                      need, budget_text, where_note);
        return;
    case SB_ONE_MEMORY:
        snprintf(r->reason, sizeof r->reason,
                 "one worker needs %.2f GiB and only %.2f GiB is free after the reserve; one "
                 "worker at a time is what fits%s",
                 (double)r->per_worker_bytes / GIB, (double)d->budget / GIB, where_tail);
        reason_start_method(r);
        return;
    case SB_ONE_VRAM:
        sb_format_bytes(need, sizeof need, r->per_worker_vram_bytes);
        sb_format_bytes(budget_text, sizeof budget_text,
                        r->free_vram_bytes > r->vram_reserve_bytes
                            ? r->free_vram_bytes - r->vram_reserve_bytes
                            : 0);
        snprintf(r->reason, sizeof r->reason,
                 "one worker needs %s of VRAM and only %s of VRAM is free after the VRAM "
                 "reserve; one worker at a time is what fits",
                 need, budget_text);
        return;
    case SB_ONE_NONE:
        break;
    }
    switch (r->bound) {
    case SPACRBENCH_BOUND_MEMORY:
        snprintf(r->reason, sizeof r->reason,
                 "memory-bound: %.2f GiB free after the reserve, %.2f GiB per worker, %lld "
                 "cores available%s",
                 (double)d->budget / GIB, (double)r->per_worker_bytes / GIB, (long long)r->cores,
                 where_tail);
        reason_start_method(r);
        break;
    case SPACRBENCH_BOUND_VRAM:
        sb_format_bytes(need, sizeof need, r->per_worker_vram_bytes);
        sb_format_bytes(budget_text, sizeof budget_text,
                        r->free_vram_bytes - r->vram_reserve_bytes);
        snprintf(r->reason, sizeof r->reason,
                 "VRAM-bound: %s of VRAM free after the VRAM reserve, %s per worker, %lld "
                 "cores available",
                 budget_text, need, (long long)r->cores);
        break;
    case SPACRBENCH_BOUND_FALLBACK: {
        /* No usable memory measurement: the cores decide, and the reason
         * says why the memory could not. */
        const char *why = r->per_worker_bytes == 0  ? "; the work measured 0 B above its baseline"
                          : r->per_worker_bytes > 0 ? "; available memory could not be read"
                                                    : "";
        char cap[64] = "";
        if (r->workers < r->core_workers)
            snprintf(cap, sizeof cap, "; capped at the %lld-worker maximum", (long long)r->maximum);
        snprintf(r->reason, sizeof r->reason,
                 "%lld core(s); no usable memory measurement, so the core count is the only "
                 "bound%s%s",
                 (long long)r->cores, why, cap);
        reason_cores_per_worker(r);
        break;
    }
    case SPACRBENCH_BOUND_CORES:
        snprintf(r->reason, sizeof r->reason,
                 "core-bound: %lld core(s), and memory would allow %lld", (long long)r->cores,
                 (long long)r->memory_workers);
        reason_cores_per_worker(r);
        break;
    default:
        snprintf(r->reason, sizeof r->reason, "capped at the %lld-worker maximum",
                 (long long)r->maximum);
        break;
    }
}

int spacrbench_recommend_options_init(spacrbench_recommend_options *opts, size_t size)
{
    sb_clear_error();
    const spacrbench_recommend_options defaults = SPACRBENCH_RECOMMEND_OPTIONS_INIT;
    return sb_struct_init(opts, size, &defaults, sizeof defaults, "opts",
                          "spacrbench_recommend_options");
}

static int check_options(const spacrbench_recommend_options *o)
{
    if (o->available_bytes < 0 && o->available_bytes != SPACRBENCH_AUTO)
        return sb_fail(SPACRBENCH_EINVAL, "available_bytes is %lld; it must be >= 0 (or AUTO)",
                       (long long)o->available_bytes);
    if (o->reserve_bytes < 0 && o->reserve_bytes != SPACRBENCH_AUTO)
        return sb_fail(SPACRBENCH_EINVAL, "reserve_bytes is %lld; it must be >= 0 (or AUTO)",
                       (long long)o->reserve_bytes);
    if (o->start_method < SPACRBENCH_START_FORK || o->start_method > SPACRBENCH_START_FORKSERVER)
        return sb_fail(SPACRBENCH_EINVAL,
                       "start_method is %d; use SPACRBENCH_START_FORK, _SPAWN or _FORKSERVER",
                       (int)o->start_method);
    if (o->reserved != 0)
        return sb_fail(SPACRBENCH_EINVAL, "reserved must be 0");
    if (o->maximum < 1)
        return sb_fail(SPACRBENCH_EINVAL, "maximum is %lld; it must be >= 1",
                       (long long)o->maximum);
    if (o->vram_reserve_bytes < 0)
        return sb_fail(SPACRBENCH_EINVAL, "vram_reserve_bytes is %lld; it must be >= 0",
                       (long long)o->vram_reserve_bytes);
    if (o->free_vram_bytes < 0 && o->free_vram_bytes != SPACRBENCH_AUTO)
        return sb_fail(SPACRBENCH_EINVAL, "free_vram_bytes is %lld; it must be >= 0 (or AUTO)",
                       (long long)o->free_vram_bytes);
    return SPACRBENCH_OK;
}

static const char *cgroup_version(int source)
{
    return source == SPACRBENCH_SOURCE_CGROUP_V1 ? "v1" : "v2";
}

/* Where the memory figure came from, in words a user can check. */
static void describe_memory(spacrbench_recommendation *r, const spacrbench_machine *mach)
{
    char limit[32];
    switch (r->memory_source) {
    case SPACRBENCH_SOURCE_CALLER:
        snprintf(r->memory_where, sizeof r->memory_where, "given by the caller");
        break;
    case SPACRBENCH_SOURCE_HOST:
        snprintf(r->memory_where, sizeof r->memory_where, SB_WORDS_HOST_MEMORY);
        break;
    case SPACRBENCH_SOURCE_JOB_OBJECT: /* memory_cgroup holds the job's description */
        sb_format_bytes(limit, sizeof limit, mach->memory_limit_bytes);
        snprintf(r->memory_where, sizeof r->memory_where, "%s, limit %s", mach->memory_cgroup,
                 limit);
        break;
    case SPACRBENCH_SOURCE_CGROUP_V1:
    case SPACRBENCH_SOURCE_CGROUP_V2:
        sb_format_bytes(limit, sizeof limit, mach->memory_limit_bytes);
        snprintf(r->memory_where, sizeof r->memory_where, "cgroup %s %s, limit %s",
                 cgroup_version(r->memory_source), mach->memory_cgroup, limit);
        break;
    default:
        snprintf(r->memory_where, sizeof r->memory_where,
                 "unknown: available memory could not be read");
    }
}

static void describe_cores(spacrbench_recommendation *r, const spacrbench_machine *mach)
{
    switch (r->cores_source) {
    case SPACRBENCH_SOURCE_CALLER:
        snprintf(r->cores_where, sizeof r->cores_where, "given by the caller");
        break;
    case SPACRBENCH_SOURCE_AFFINITY:
        snprintf(r->cores_where, sizeof r->cores_where, "CPU affinity");
        break;
    case SPACRBENCH_SOURCE_CPUSET:
        snprintf(r->cores_where, sizeof r->cores_where, "cpuset of cgroup %s", mach->cores_cgroup);
        break;
    case SPACRBENCH_SOURCE_JOB_OBJECT:
        snprintf(r->cores_where, sizeof r->cores_where, "%s, CPU rate cap %.2f cores",
                 mach->cores_cgroup, mach->cpu_quota_cores);
        break;
    case SPACRBENCH_SOURCE_SYSCTL:
        snprintf(r->cores_where, sizeof r->cores_where, "sysctl hw.activecpu");
        break;
    case SPACRBENCH_SOURCE_CGROUP_V1:
    case SPACRBENCH_SOURCE_CGROUP_V2:
        snprintf(r->cores_where, sizeof r->cores_where, "cgroup %s %s, CPU quota %.2f",
                 cgroup_version(r->cores_source), mach->cores_cgroup, mach->cpu_quota_cores);
        break;
    default:
        snprintf(r->cores_where, sizeof r->cores_where, "unknown");
    }
}

/* A machine of which nothing is known yet. */
#define MACHINE_UNKNOWN                                                                            \
    {                                                                                              \
        .size = sizeof(spacrbench_machine), .memory_limit_bytes = -1, .cpu_quota_cores = -1        \
    }

/* Fill cores and available memory from the caller, the caller's snapshot
 * or discovery (run only when a figure is still missing). */
static void gather_machine(spacrbench_recommendation *r, const spacrbench_recommend_options *o,
                           const spacrbench_machine *snapshot)
{
    spacrbench_machine mach = MACHINE_UNKNOWN;
    if (snapshot) {
        mach = *snapshot;
        mach.memory_cgroup[sizeof mach.memory_cgroup - 1] = '\0';
        mach.cores_cgroup[sizeof mach.cores_cgroup - 1] = '\0';
    } else if (o->cores == SPACRBENCH_AUTO || o->available_bytes == SPACRBENCH_AUTO) {
        if (spacrbench_discover(&mach) != 0) {
            mach.cores = 1;
            mach.available_bytes = 0;
            mach.memory_source = mach.cores_source = SPACRBENCH_SOURCE_UNKNOWN;
        }
    }
    if (o->cores == SPACRBENCH_AUTO) {
        r->cores = mach.cores > 0 ? mach.cores : 1;
        r->cores_source = mach.cores_source;
    } else {
        r->cores = o->cores > 0 ? o->cores : 1;
        r->cores_source = SPACRBENCH_SOURCE_CALLER;
    }
    if (o->available_bytes == SPACRBENCH_AUTO) {
        r->available_bytes = mach.available_bytes > 0 ? mach.available_bytes : 0;
        r->memory_source = mach.memory_source;
        r->memory_limit_bytes = mach.memory_limit_bytes;
    } else {
        r->available_bytes = o->available_bytes;
        r->memory_source = SPACRBENCH_SOURCE_CALLER;
        r->memory_limit_bytes = -1;
    }
    describe_memory(r, &mach);
    describe_cores(r, &mach);
}

/* VRAM evidence, when both figures exist. With per-device figures each
 * device is its own budget (a worker of cuda:0 does not fit cuda:1's free
 * memory) and the tightest decides; otherwise the sums are compared. */
static void gather_vram(spacrbench_recommendation *r, const spacrbench_measurement *m,
                        const spacrbench_recommend_options *o)
{
    r->per_worker_vram_bytes = m ? m->fig.peak_vram_bytes : -1;
    r->free_vram_bytes = o->free_vram_bytes;
    r->vram_workers = -1;
    if (r->free_vram_bytes == SPACRBENCH_AUTO) {
        r->free_vram_bytes = -1;
        for (size_t i = 0; m && i < m->gpu_count; i++) {
            const spacrbench_gpu_info *g = &m->gpus[i];
            if (g->process_peak_bytes <= 0 || g->free_bytes < 0)
                continue;
            int64_t budget = g->free_bytes - r->vram_reserve_bytes;
            int64_t fits = budget > 0 ? budget / g->process_peak_bytes : 0;
            if (r->vram_workers < 0 || fits < r->vram_workers) {
                r->vram_workers = fits;
                r->per_worker_vram_bytes = g->process_peak_bytes;
                r->free_vram_bytes = g->free_bytes;
            }
        }
        if (r->vram_workers >= 0)
            return;
        for (size_t i = 0; m && i < m->gpu_count; i++) {
            int64_t add = m->gpus[i].free_bytes,
                    sum = r->free_vram_bytes < 0 ? 0 : r->free_vram_bytes;
            if (add >= 0) /* saturate: absurd figures must not wrap around */
                r->free_vram_bytes = sum > INT64_MAX - add ? INT64_MAX : sum + add;
        }
    }
    if (r->per_worker_vram_bytes > 0 && r->free_vram_bytes >= 0) {
        int64_t budget = r->free_vram_bytes - r->vram_reserve_bytes;
        r->vram_workers = budget > 0 ? budget / r->per_worker_vram_bytes : 0;
    }
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

#define SB_MIB (INT64_C(1) << 20)
#define SB_GIB (INT64_C(1) << 30)
/* The reserve rule (docs/discovery.md, "The reserve"). */
#define SB_HOST_RESERVE      (2 * SB_GIB)
#define SB_LIMIT_RESERVE_MIN (64 * SB_MIB)
#define SB_LIMIT_RESERVE_MAX (2 * SB_GIB)

static void choose_reserve(spacrbench_recommendation *r, const spacrbench_recommend_options *o)
{
    if (o->reserve_bytes != SPACRBENCH_AUTO) {
        r->reserve_bytes = o->reserve_bytes;
        r->reserve_rule = SPACRBENCH_RESERVE_CALLER;
    } else if ((r->memory_source == SPACRBENCH_SOURCE_CGROUP_V1 ||
                r->memory_source == SPACRBENCH_SOURCE_CGROUP_V2 ||
                r->memory_source == SPACRBENCH_SOURCE_JOB_OBJECT) &&
               r->memory_limit_bytes > 0) {
        /* A host keeps 2 GiB for the OS and desktop. Inside a memory limit
         * (a cgroup, a Windows Job Object) the OS lives outside it, and a
         * flat 2 GiB would eat a 1 GiB job whole: keep 10% of the limit
         * (64 MiB to 2 GiB) for what the limit also charges (page cache,
         * kernel memory, variation). */
        int64_t tenth = r->memory_limit_bytes / 10;
        r->reserve_bytes = tenth < SB_LIMIT_RESERVE_MIN   ? SB_LIMIT_RESERVE_MIN
                           : tenth > SB_LIMIT_RESERVE_MAX ? SB_LIMIT_RESERVE_MAX
                                                          : tenth;
        r->reserve_rule = SPACRBENCH_RESERVE_LIMIT;
    } else {
        r->reserve_bytes = SB_HOST_RESERVE;
        r->reserve_rule = SPACRBENCH_RESERVE_HOST;
    }
}

int64_t sb_memory_workers_within(const spacrbench_recommendation *r, int64_t budget)
{
    if (r->per_worker_bytes <= 0 || budget <= 0)
        return -1;
    /* A budget given by the caller, as --available gives one: the
     * caller's reserve if given, else the host's (choose_reserve). */
    int64_t reserve =
        r->reserve_rule == SPACRBENCH_RESERVE_CALLER ? r->reserve_bytes : SB_HOST_RESERVE;
    return budget > reserve ? (budget - reserve) / r->per_worker_bytes : 0;
}

int64_t sb_cores_per_worker(double cpu_seconds, double seconds, double *parallelism)
{
    *parallelism = -1.0;
    if (!(seconds > 0) || !isfinite(cpu_seconds) || cpu_seconds < 0 || !isfinite(seconds))
        return 1;
    double p = cpu_seconds / seconds;
    *parallelism = p;
    if (!(p >= 1.5))
        return 1;
    return p > 1e15 ? INT64_C(1000000000000000) : (int64_t)llround(p);
}

/* Cores per worker from the serial run, and what the start method adds. */
static void per_worker(spacrbench_recommendation *r, const spacrbench_measurement *m,
                       const spacrbench_recommend_options *o)
{
    r->start_method = o->start_method;
    r->cores_per_worker =
        m ? sb_cores_per_worker(m->fig.cpu_seconds, m->fig.seconds, &r->cpu_parallelism) : 1;
    if (!m)
        r->cpu_parallelism = -1.0;
    /* A worker cannot run more threads than the usable cores; the
     * hand-off (schedule.c) caps its CPUs the same way. */
    r->threads_per_worker =
        r->cores >= 1 && r->cores < r->cores_per_worker ? r->cores : r->cores_per_worker;
    r->core_workers = r->cores / r->cores_per_worker > 0 ? r->cores / r->cores_per_worker : 1;
    r->baseline_bytes = 0;
    /* spawn and forkserver start a fresh interpreter: nothing is shared
     * with the measured process, so each worker pays its baseline too. */
    if (m && o->start_method != SPACRBENCH_START_FORK && r->per_worker_bytes >= 0) {
        r->baseline_bytes = m->fig.baseline_rss_bytes;
        if (r->per_worker_bytes <= INT64_MAX - r->baseline_bytes)
            r->per_worker_bytes += r->baseline_bytes;
    }
}

/* The arithmetic of the rule: the worker count and the bound that decided
 * it; sb_recommend_explain says it. */
static void choose(spacrbench_recommendation *r, sb_decision *d)
{
    /* Unreadable available memory is not "0 B free": the rule is absent. */
    int memory_known = r->memory_source != SPACRBENCH_SOURCE_UNKNOWN;
    d->has_memory = r->per_worker_bytes > 0 && memory_known;
    d->has_vram = r->vram_workers >= 0;
    d->budget = r->available_bytes > r->reserve_bytes ? r->available_bytes - r->reserve_bytes : 0;
    d->one = SB_ONE_NONE;
    r->workers = 1;
    r->bound = SPACRBENCH_BOUND_ONE;
    if (r->oom_limit_bytes > 0) {
        /* An item was OOM-killed: what one worker needs is unknown beyond
         * "more than the limit", so the cores must not decide. */
        r->memory_workers = 0;
        d->one = SB_ONE_OOM;
        return;
    }
    if (d->has_memory) {
        r->memory_workers = d->budget / r->per_worker_bytes;
        if (r->memory_workers < 1) {
            d->one = SB_ONE_MEMORY;
            return;
        }
    }
    if (d->has_vram && r->vram_workers < 1) {
        d->one = SB_ONE_VRAM;
        return;
    }
    int64_t workers = min64(r->core_workers, r->maximum);
    if (d->has_memory)
        workers = min64(workers, r->memory_workers);
    if (d->has_vram)
        workers = min64(workers, r->vram_workers);
    r->workers = workers > 0 ? workers : 1;
    if (d->has_memory && r->workers == r->memory_workers && r->memory_workers < r->core_workers)
        r->bound = SPACRBENCH_BOUND_MEMORY;
    else if (d->has_vram && r->workers == r->vram_workers && r->vram_workers < r->core_workers)
        r->bound = SPACRBENCH_BOUND_VRAM;
    else if (!d->has_memory)
        r->bound = SPACRBENCH_BOUND_FALLBACK;
    else if (r->workers == r->core_workers)
        r->bound = SPACRBENCH_BOUND_CORES;
    else
        r->bound = SPACRBENCH_BOUND_MAXIMUM;
}

int sb_recommend_into(const spacrbench_measurement *m, const spacrbench_recommend_options *opts,
                      const spacrbench_machine *machine, int64_t need,
                      spacrbench_recommendation *out)
{
    spacrbench_recommend_options o = SPACRBENCH_RECOMMEND_OPTIONS_INIT;
    int rc = opts ? sb_struct_in(&o, sizeof o, opts, "spacrbench_recommend_options") : 0;
    if (rc || (rc = check_options(&o)))
        return rc;
    spacrbench_machine snapshot = MACHINE_UNKNOWN;
    if (machine) {
        snapshot.cores = 1;
        if ((rc = sb_struct_in(&snapshot, sizeof snapshot, machine, "spacrbench_machine")))
            return rc;
        if (snapshot.cores < 1 || snapshot.available_bytes < 0)
            return sb_fail(SPACRBENCH_EINVAL,
                           "machine.cores is %lld and machine.available_bytes %lld; a "
                           "snapshot from spacrbench_discover has cores >= 1 and available "
                           ">= 0",
                           (long long)snapshot.cores, (long long)snapshot.available_bytes);
    }

    spacrbench_recommendation r;
    memset(&r, 0, sizeof r);
    r.size = sizeof r;
    r.maximum = o.maximum;
    r.vram_reserve_bytes = o.vram_reserve_bytes;
    r.memory_workers = -1;
    r.per_worker_bytes = need;
    r.oom_limit_bytes = m ? m->fig.oom_limit_bytes : 0;
    gather_machine(&r, &o, machine ? &snapshot : NULL);
    choose_reserve(&r, &o);
    per_worker(&r, m, &o);
    gather_vram(&r, m, &o);
    sb_decision d;
    choose(&r, &d);
    sb_recommend_explain(&r, &d);
    *out = r;
    return SPACRBENCH_OK;
}

int spacrbench_recommend_on(const spacrbench_measurement *m,
                            const spacrbench_recommend_options *opts,
                            const spacrbench_machine *machine, spacrbench_recommendation *out)
{
    SB_REFUSE(!out, "out must not be NULL");
    spacrbench_recommendation r;
    int rc =
        sb_recommend_into(m, opts, machine, m ? spacrbench_measurement_work_rss_bytes(m) : -1, &r);
    return rc ? rc : sb_struct_out(out, &r, sizeof r, "spacrbench_recommendation");
}

int spacrbench_recommend(const spacrbench_measurement *m, const spacrbench_recommend_options *opts,
                         spacrbench_recommendation *out)
{
    return spacrbench_recommend_on(m, opts, NULL, out);
}
