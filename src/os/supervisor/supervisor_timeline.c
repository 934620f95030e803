/* What the supervisor lends a memory timeline: its sampling period and the
 * group's cgroup usage now (the picture's second line beside the tree's
 * RSS; the exact peak stays memory.peak / max_usage_in_bytes). */

#include "supervisor.h"

double sb_supervisor_interval(const sb_supervisor *s)
{
    if (s->cfg.interval_us > 0)
        return (double)s->cfg.interval_us * 1e-6;
    return (s->use_cgroup ? SB_SUPERVISOR_RSS_SAMPLE_NS : SB_SUPERVISOR_SAMPLE_NS) * 1e-9;
}

double sb_supervisor_sampling(const sb_supervisor *s, char *how, size_t cap)
{
    sb_sample_budget b = s->budget;
    if (b.share <= 0) /* nothing sampled yet */
        sb_sample_budget_init(&b, 0, SB_SAMPLE_BUDGET_SHARE);
    b.floor_s = sb_supervisor_interval(s);
    sb_sample_budget_describe(&b, how, cap);
    return sb_sample_budget_miss_ms(&b);
}

int64_t sb_supervisor_group_usage(const sb_supervisor *s)
{
    return s->use_cgroup ? sb_group_usage(&s->cg) : -1;
}
