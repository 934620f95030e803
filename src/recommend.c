/* The worker-count rule: never more than the cores, never more than the
 * memory (and VRAM) budget divided by one worker's need, never fewer than 1
 * nor more than the maximum. Every figure that decided it is kept. */
#include <stdio.h>
#include <string.h>

#include "measurement.h"

int spacrbench_recommend_options_init(spacrbench_recommend_options *opts, size_t size)
{
    sb_clear_error();
    if (!opts)
        return sb_fail(SPACRBENCH_EINVAL, "opts must not be NULL");
    if (size < sizeof(size_t))
        return sb_fail(SPACRBENCH_EINVAL,
                       "size %zu is too small for spacrbench_recommend_options", size);
    const spacrbench_recommend_options defaults = SPACRBENCH_RECOMMEND_OPTIONS_INIT;
    size_t n = size < sizeof defaults ? size : sizeof defaults;
    memset(opts, 0, size);
    memcpy(opts, &defaults, n);
    opts->size = size;
    return SPACRBENCH_OK;
}

static int check_options(const spacrbench_recommend_options *o)
{
    if (o->available_bytes < 0 && o->available_bytes != SPACRBENCH_AUTO)
        return sb_fail(SPACRBENCH_EINVAL, "available_bytes is %lld; it must be >= 0 (or AUTO)",
                       (long long)o->available_bytes);
    if (o->reserve_bytes < 0)
        return sb_fail(SPACRBENCH_EINVAL, "reserve_bytes is %lld; it must be >= 0",
                       (long long)o->reserve_bytes);
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
        snprintf(r->memory_where, sizeof r->memory_where, "host MemAvailable");
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
        snprintf(r->cores_where, sizeof r->cores_where, "cpuset of cgroup %s",
                 mach->cores_cgroup);
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

/* Fill cores and available memory from the caller or from discovery. */
static void gather_machine(spacrbench_recommendation *r, const spacrbench_recommend_options *o)
{
    spacrbench_machine mach;
    memset(&mach, 0, sizeof mach);
    mach.size = sizeof mach;
    mach.memory_limit_bytes = -1;
    mach.cpu_quota_cores = -1;
    if (o->cores == SPACRBENCH_AUTO || o->available_bytes == SPACRBENCH_AUTO) {
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

/* VRAM evidence: per-worker peak and free device memory, when both exist.
 * With per-device figures each device the work used is its own budget (a
 * worker that used cuda:0 does not fit into the free memory of cuda:1);
 * the tightest device decides. Otherwise the sums are compared. */
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
        for (size_t i = 0; m && i < m->gpu_count; i++)
            if (m->gpus[i].free_bytes >= 0)
                r->free_vram_bytes = (r->free_vram_bytes < 0 ? 0 : r->free_vram_bytes) +
                                     m->gpus[i].free_bytes;
    }
    if (r->per_worker_vram_bytes > 0 && r->free_vram_bytes >= 0) {
        int64_t budget = r->free_vram_bytes - r->vram_reserve_bytes;
        r->vram_workers = budget > 0 ? budget / r->per_worker_vram_bytes : 0;
    }
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

static void decide(spacrbench_recommendation *r)
{
    char need[32], budget_text[32], where_note[320] = "";
    /* Unreadable available memory is not "0 B free": the rule is absent. */
    int memory_known = r->memory_source != SPACRBENCH_SOURCE_UNKNOWN;
    int has_memory = r->per_worker_bytes > 0 && memory_known;
    int has_vram = r->vram_workers >= 0;
    int64_t budget = r->available_bytes - r->reserve_bytes;
    if (budget < 0)
        budget = 0;
    if (r->memory_source != SPACRBENCH_SOURCE_HOST && r->memory_source != SPACRBENCH_SOURCE_CALLER)
        snprintf(where_note, sizeof where_note, " (%.300s)", r->memory_where);

    if (has_memory) {
        r->memory_workers = budget / r->per_worker_bytes;
        if (r->memory_workers < 1) {
            sb_format_bytes(need, sizeof need, r->per_worker_bytes);
            sb_format_bytes(budget_text, sizeof budget_text, budget);
            r->workers = 1;
            r->bound = SPACRBENCH_BOUND_ONE;
            snprintf(r->reason, sizeof r->reason,
                     "one worker needs %s and only %s is free after the reserve%s; one worker "
                     "at a time is what fits",
                     need, budget_text, where_note);
            return;
        }
    }
    if (has_vram && r->vram_workers < 1) {
        sb_format_bytes(need, sizeof need, r->per_worker_vram_bytes);
        sb_format_bytes(budget_text, sizeof budget_text,
                        r->free_vram_bytes > r->vram_reserve_bytes
                            ? r->free_vram_bytes - r->vram_reserve_bytes
                            : 0);
        r->workers = 1;
        r->bound = SPACRBENCH_BOUND_ONE;
        snprintf(r->reason, sizeof r->reason,
                 "one worker needs %s of VRAM and only %s of VRAM is free after the VRAM "
                 "reserve; one worker at a time is what fits",
                 need, budget_text);
        return;
    }

    int64_t workers = min64(r->cores, r->maximum);
    if (has_memory)
        workers = min64(workers, r->memory_workers);
    if (has_vram)
        workers = min64(workers, r->vram_workers);
    r->workers = workers > 0 ? workers : 1;

    if (has_memory && r->workers == r->memory_workers && r->memory_workers < r->cores) {
        sb_format_bytes(need, sizeof need, r->per_worker_bytes);
        sb_format_bytes(budget_text, sizeof budget_text, budget);
        r->bound = SPACRBENCH_BOUND_MEMORY;
        snprintf(r->reason, sizeof r->reason,
                 "memory-bound: %s free after the reserve%s, %s per worker, %lld cores "
                 "available",
                 budget_text, where_note, need, (long long)r->cores);
    } else if (has_vram && r->workers == r->vram_workers && r->vram_workers < r->cores) {
        sb_format_bytes(need, sizeof need, r->per_worker_vram_bytes);
        sb_format_bytes(budget_text, sizeof budget_text,
                        r->free_vram_bytes - r->vram_reserve_bytes);
        r->bound = SPACRBENCH_BOUND_VRAM;
        snprintf(r->reason, sizeof r->reason,
                 "VRAM-bound: %s of VRAM free after the VRAM reserve, %s per worker, %lld "
                 "cores available",
                 budget_text, need, (long long)r->cores);
    } else if (!has_memory) {
        const char *why = "";
        if (r->per_worker_bytes == 0)
            why = " (the work measured 0 B above its baseline)";
        else if (r->per_worker_bytes > 0)
            why = " (available memory could not be read)";
        char cap[64] = "";
        if (r->workers < r->cores)
            snprintf(cap, sizeof cap, "; capped at the %lld-worker maximum", (long long)r->maximum);
        r->bound = SPACRBENCH_BOUND_FALLBACK;
        snprintf(r->reason, sizeof r->reason,
                 "%lld core(s); no usable memory measurement%s, so the core count is the only "
                 "bound%s",
                 (long long)r->cores, why, cap);
    } else if (r->workers == r->cores) {
        r->bound = SPACRBENCH_BOUND_CORES;
        snprintf(r->reason, sizeof r->reason, "core-bound: %lld core(s), and memory would allow %lld",
                 (long long)r->cores, (long long)r->memory_workers);
    } else {
        r->bound = SPACRBENCH_BOUND_MAXIMUM;
        snprintf(r->reason, sizeof r->reason, "capped at the %lld-worker maximum",
                 (long long)r->maximum);
    }
}

int spacrbench_recommend(const spacrbench_measurement *m,
                         const spacrbench_recommend_options *opts,
                         spacrbench_recommendation *out)
{
    sb_clear_error();
    if (!out)
        return sb_fail(SPACRBENCH_EINVAL, "out must not be NULL");
    spacrbench_recommend_options o = SPACRBENCH_RECOMMEND_OPTIONS_INIT;
    int rc = opts ? sb_struct_in(&o, sizeof o, opts, "spacrbench_recommend_options") : 0;
    if (rc || (rc = check_options(&o)))
        return rc;

    spacrbench_recommendation r;
    memset(&r, 0, sizeof r);
    r.size = sizeof r;
    r.reserve_bytes = o.reserve_bytes;
    r.maximum = o.maximum;
    r.vram_reserve_bytes = o.vram_reserve_bytes;
    r.memory_workers = -1;
    r.per_worker_bytes = m ? spacrbench_measurement_work_rss_bytes(m) : -1;
    gather_machine(&r, &o);
    gather_vram(&r, m, &o);
    decide(&r);
    return sb_struct_out(out, &r, sizeof r, "spacrbench_recommendation");
}
