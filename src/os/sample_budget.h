/* How often a fallback sampler may read /proc: never more often than its
 * floor interval, and never so often that its own CPU time passes
 * SB_SAMPLE_BUDGET_SHARE of one core. After each sample the next one waits
 * at least (the CPU seconds that turn of the sampler took, wake-up
 * included) / share, so a costlier sample (a larger tree, a larger
 * smaps_rollup) spaces the samples out instead of costing more. The one
 * cost policy of the supervisor's tree sampler (`spacrbench run`) and the
 * process group's PSS sampler (the scaling check without a cgroup); it
 * also keeps what was really used, for the notes: a peak sampled at gaps
 * of up to N ms may miss spikes shorter than N ms. Platform-neutral: what
 * a sample cost is the caller's to measure (sb_thread_cpu_seconds,
 * os/linux/thread_cpu.h). Not installed. */
#ifndef SPACRBENCH_SAMPLE_BUDGET_H
#define SPACRBENCH_SAMPLE_BUDGET_H

#include <stddef.h>
#include <stdint.h>

#define SB_SAMPLE_BUDGET_SHARE 0.005 /* of one core: 0.5 %, the default */

/* The budget of all samplers together: SB_SAMPLE_BUDGET_SHARE, or the
 * percentage of one core SPACRBENCH_SAMPLER_BUDGET gives ("5", "5%"; above
 * 0, at most 100), for a user who wants denser samples and accepts their
 * cost (and for tests that need many samples soon). */
double sb_sample_budget_whole(void);

typedef struct sb_sample_budget {
    double floor_s;   /* the shortest gap asked for */
    double share;     /* of one core this sampler may use (its part of the 0.5 %) */
    double last_at;   /* monotonic time of the last sample; < 0: a new series */
    int64_t samples;  /* taken */
    int64_t gaps;     /* measured: between two samples of one series */
    double gap_sum_s; /* their sum */
    double longest_s; /* the longest of them */
    double planned_s; /* the longest gap the budget asked for */
    double cpu_s;     /* the CPU time the samples' turns took */
} sb_sample_budget;

/* share: SB_SAMPLE_BUDGET_SHARE, or a part of it for a sampler that
 * reads two things at two paces (their shares add up to it); scaled to
 * sb_sample_budget_whole(). */
void sb_sample_budget_init(sb_sample_budget *b, double floor_s, double share);

/* The next sample starts a new series (a new item, a new group): the
 * time until it is not a gap between samples. */
void sb_sample_budget_series(sb_sample_budget *b);

/* A sample was taken at now (sb_now, clock.h) and its turn cost
 * cpu_s CPU seconds of the sampling thread: when the next one is due. */
double sb_sample_budget_next(sb_sample_budget *b, double now, double cpu_s);

/* The mean gap really used, -1 before two samples of one series. */
double sb_sample_budget_mean(const sb_sample_budget *b);

/* How often it sampled, to follow "sampled": "212 times, every 6.2 ms on
 * average, at most 9.8 ms apart (5 ms at least, more where ...)", "1
 * time (...)" or "never (...)". */
void sb_sample_budget_describe(const sb_sample_budget *b, char *buf, size_t cap);

/* Spikes shorter than this (ms, rounded up) may be missed: the longest
 * gap seen or planned, at least the floor. */
double sb_sample_budget_miss_ms(const sb_sample_budget *b);

#endif
