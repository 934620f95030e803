/* The sentence of the scaling rule (sb_scale_explain): the verdict at the
 * knee and by how much, then how much the repeats differed and why other
 * counts were left out. The arithmetic that picked the points is in
 * scale_rule.c; nothing here decides. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scale.h"

/* "; 8 workers failed", "; 8 workers exceed the budget" tails. */
static void tails(const spacrbench_scale_point *pts, const spacrbench_scale_spread *sps, size_t n,
                  int64_t budget, char *buf, size_t cap)
{
    char a[32], b[32];
    for (size_t i = 0; i < n; i++) {
        const spacrbench_scale_point *p = &pts[i];
        if (sps[i].oom_killed == 2)
            sb_appendf(buf, cap,
                       "; %lld worker%s OOM-killed at a memory limit outside the check's group",
                       (long long)p->workers, p->workers == 1 ? " was" : "s were");
        else if (sps[i].oom_killed == 3) {
            sb_format_bytes(a, sizeof a, budget);
            sb_appendf(buf, cap,
                       "; %lld worker%s ended by spacrbench at the memory budget of %s (no cgroup "
                       "could hold the limit)",
                       (long long)p->workers, p->workers == 1 ? " was" : "s were", a);
        } else if (sps[i].oom_killed) {
            sb_format_bytes(a, sizeof a, sps[i].limit_bytes > 0 ? sps[i].limit_bytes : budget);
            sb_appendf(buf, cap,
                       "; %lld worker%s OOM-killed in %s group at its limit of %s (the "
                       "budget)",
                       (long long)p->workers, p->workers == 1 ? " was" : "s were",
                       p->workers == 1 ? "its" : "their", a);
        } else if (p->failed)
            sb_appendf(buf, cap, "; %lld worker%s failed", (long long)p->workers,
                       p->workers == 1 ? "" : "s");
        else if (p->fits == 0) {
            sb_format_bytes(a, sizeof a, p->peak_bytes);
            sb_format_bytes(b, sizeof b, budget);
            sb_appendf(buf, cap, "; %lld worker%s need%s %s, over the budget of %s",
                       (long long)p->workers, p->workers == 1 ? "" : "s",
                       p->workers == 1 ? "s" : "", a, b);
        }
    }
}

/* "; repeats differ by up to ±4 %" when the noise is known and matters. */
static void noise_tail(const spacrbench_scale_spread *sps, size_t n, char *buf, size_t cap)
{
    double most = -1;
    for (size_t i = 0; i < n; i++)
        if (isfinite(sps[i].spread) && sps[i].spread > most)
            most = sps[i].spread;
    if (most >= 0)
        sb_appendf(buf, cap, "; repeats differ by up to \xc2\xb1%.0f %%", 100.0 * most);
}

/* "memory-bound at 4: ...": a faster count that needs more than the
 * budget, else a larger count OOM-killed at the group's limit. */
static void say_memory_bound(const spacrbench_scale_point *pts, const spacrbench_scale_spread *sps,
                             int64_t budget, const sb_scale_picks *k, char *r, size_t cap)
{
    long long c = (long long)k->chosen->workers;
    char a[32], b[32];
    sb_format_bytes(b, sizeof b, budget);
    if (k->excluded) {
        sb_format_bytes(a, sizeof a, k->excluded->peak_bytes);
        snprintf(r, cap,
                 "memory-bound at %lld: %lld workers would give %.2fx of %lld's throughput "
                 "but need %s, over the budget of %s",
                 c, (long long)k->excluded->workers,
                 k->excluded->items_per_second / k->chosen->items_per_second, c, a, b);
        return;
    }
    const spacrbench_scale_spread *os = &sps[k->oom - pts];
    if (os->oom_killed == 2) {
        snprintf(r, cap,
                 "memory-bound at %lld: %lld workers were OOM-killed at a memory limit outside "
                 "the check's group (the notes name it)",
                 c, (long long)k->oom->workers);
        return;
    }
    sb_format_bytes(a, sizeof a, os->limit_bytes > 0 ? os->limit_bytes : budget);
    snprintf(r, cap,
             os->oom_killed == 3 ? "memory-bound at %lld: %lld workers need more than the budget "
                                   "(ended by spacrbench when their sampled memory passed it, "
                                   "%s: no cgroup could hold the limit)"
                                 : "memory-bound at %lld: %lld workers need more than the budget "
                                   "(OOM-killed in their group at its limit of %s)",
             c, (long long)k->oom->workers, a);
}

/* "still scaling at 8 ..." when the knee is the largest count measured,
 * else "saturates at 4 ..." or "throughput falls beyond 4 ...". */
static void say_scaling(const sb_scale_picks *k, int32_t verdict, char *r, size_t cap)
{
    const spacrbench_scale_point *chosen = k->chosen;
    long long c = (long long)chosen->workers;
    if (verdict == SPACRBENCH_SCALE_LINEAR) {
        if (isfinite(chosen->speedup))
            snprintf(r, cap,
                     "still scaling at %lld, the largest count measured: %.2fx of 1 worker "
                     "(efficiency %.0f %%)",
                     c, chosen->speedup, 100.0 * chosen->efficiency);
        else
            snprintf(r, cap,
                     "best at %lld, the largest count measured (no 1-worker point to "
                     "compare with)",
                     c);
        return;
    }
    /* A larger count measured faster, but by less than the noise: the knee
     * stays (a gain must exceed the noise), and the sentence says so
     * rather than compare with a later, slower count. */
    const spacrbench_scale_point *best = k->best;
    if (best && best != chosen && best->workers > chosen->workers) {
        snprintf(r, cap,
                 "saturates at %lld: %lld workers give %.2fx of %lld's throughput, within the "
                 "noise of the repeats (measure longer for a sharper knee)",
                 c, (long long)best->workers, best->items_per_second / chosen->items_per_second, c);
        return;
    }
    double ratio = k->last->items_per_second / chosen->items_per_second;
    /* "falls" only when it does: 0.996x is printed 1.00x, so it saturates. */
    snprintf(r, cap,
             ratio >= 0.995 ? "saturates at %lld: %lld workers give %.2fx of %lld's throughput "
                              "(memory bandwidth, I/O or another shared resource binds)"
                            : "throughput falls beyond %lld: %lld workers give %.2fx of "
                              "%lld's throughput",
             c, (long long)k->last->workers, ratio, c);
}

void sb_scale_explain(const spacrbench_scale_point *pts, const spacrbench_scale_spread *sps,
                      size_t n, int64_t budget, const sb_scale_picks *k,
                      spacrbench_scale_summary *s)
{
    char *r = s->reason;
    size_t cap = sizeof s->reason;
    if (s->verdict == SPACRBENCH_SCALE_NONE) {
        snprintf(r, cap, "no usable worker count");
        tails(pts, sps, n, budget, r, cap);
        return;
    }
    if (s->verdict == SPACRBENCH_SCALE_MEMORY) {
        /* The memory sentence already names the count left out. */
        say_memory_bound(pts, sps, budget, k, r, cap);
        noise_tail(sps, n, r, cap);
        return;
    }
    say_scaling(k, s->verdict, r, cap);
    noise_tail(sps, n, r, cap);
    tails(pts, sps, n, budget, r, cap);
}
