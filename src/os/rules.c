/* os/'s pure rules (os.h): the sampling budget, the OOM verdict, words. */
#include "os.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

double sb_sample_budget_whole(void)
{
    const char *text = getenv("SPACRBENCH_SAMPLER_BUDGET");
    if (!text || !*text)
        return SB_SAMPLE_BUDGET_SHARE;
    char *end;
    double percent = strtod(text, &end);
    if (*end == '%')
        end++;
    if (*end || !(percent > 0) || percent > 100)
        return SB_SAMPLE_BUDGET_SHARE; /* not a percentage of one core: the default */
    return percent / 100;
}

void sb_sample_budget_init(sb_sample_budget *b, double floor_s, double share)
{
    double part = share > 0 && share <= SB_SAMPLE_BUDGET_SHARE ? share : SB_SAMPLE_BUDGET_SHARE;
    *b = (sb_sample_budget){.floor_s = floor_s > 0 ? floor_s : 0.001,
                            .share = part / SB_SAMPLE_BUDGET_SHARE * sb_sample_budget_whole(),
                            .last_at = -1};
}

void sb_sample_budget_series(sb_sample_budget *b) { b->last_at = -1; }

double sb_sample_budget_next(sb_sample_budget *b, double now, double cpu_s)
{
    if (b->last_at >= 0 && now >= b->last_at) {
        double gap = now - b->last_at;
        b->gaps++;
        b->gap_sum_s += gap;
        if (gap > b->longest_s)
            b->longest_s = gap;
    }
    b->last_at = now;
    b->samples++;
    double spaced = cpu_s > 0 ? cpu_s / b->share : 0;
    double gap = spaced > b->floor_s ? spaced : b->floor_s;
    if (gap > b->planned_s)
        b->planned_s = gap;
    return now + gap;
}

double sb_sample_budget_mean(const sb_sample_budget *b)
{
    return b->gaps > 0 ? b->gap_sum_s / (double)b->gaps : -1;
}

double sb_sample_budget_miss_ms(const sb_sample_budget *b)
{
    /* The planned gap counts whether or not the work lived to see it. */
    double s = b->longest_s > b->planned_s ? b->longest_s : b->planned_s;
    return ceil((s > b->floor_s ? s : b->floor_s) * 1e3);
}

void sb_sample_budget_describe(const sb_sample_budget *b, char *buf, size_t cap)
{
    double mean = sb_sample_budget_mean(b);
    char pace[96];
    snprintf(pace, sizeof pace,
             "%g ms at least, more where a sample would cost over %.3g %% of a core",
             b->floor_s * 1e3, b->share * 100);
    if (b->samples == 0)
        snprintf(buf, cap, "never (%s)", pace);
    else if (mean < 0)
        snprintf(buf, cap, "%lld time%s (%s)", (long long)b->samples, b->samples == 1 ? "" : "s",
                 pace);
    else
        snprintf(buf, cap, "%lld times, every %.1f ms on average, at most %.1f ms apart (%s)",
                 (long long)b->samples, mean * 1e3, b->longest_s * 1e3, pace);
}

int sb_oom_verdict(const sb_oom_facts *f)
{
    int foreign_kill = f->sigkilled && !f->ours;
    if (f->outside)
        return f->oom_kills > 0 && foreign_kill ? SB_OOM_AROUND : SB_OOM_NO;
    if (f->oom_kills > 0)
        return SB_OOM_IN_GROUP;
    int64_t slack = f->limit / 16 > (8 << 20) ? f->limit / 16 : (8 << 20);
    int at_limit = f->limit > 0 && f->peak >= 0 && f->peak + slack >= f->limit;
    return f->oom_kills < 0 && foreign_kill && at_limit ? SB_OOM_IN_GROUP : SB_OOM_NO;
}

int sb_budget_watch_over(int64_t limit, int64_t ended, int64_t sum)
{
    return limit > 0 && ended == 0 && sum > limit;
}

void sb_group_words_cgroup(char *buf, size_t cap, int version, const char *found)
{
    snprintf(buf, cap,
             "group peak: a memory cgroup of its own per count (%s), exact, page cache "
             "included; memory a process used before it joined is not counted; %s",
             version == 1 ? "memory.max_usage_in_bytes" : "memory.peak", found);
}

void sb_group_words_sampled(char *buf, size_t cap, const char *sum, const char *caveat,
                            const char *why)
{
    snprintf(buf, cap, "group peak: %s; %s; no cgroup of its own because %s", sum, caveat, why);
}
