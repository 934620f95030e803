/* What ended a group's memory: was it the kernel's OOM killer? The one
 * decision, for a serial item of `spacrbench run` and for every count of
 * the scaling check, over the facts each measured: a cgroup's oom_kill
 * counter (the group's own, or one around it), how its processes died and
 * whether spacrbench itself killed them. And, where no cgroup could hold
 * the budget as a limit, whether a sample passed it (the one rule of the
 * supervisor's watch and the library group's). Pure, so util/: the command
 * and the library share it. Not installed. */
#ifndef SPACRBENCH_OOM_VERDICT_H
#define SPACRBENCH_OOM_VERDICT_H

#include <stdint.h>

typedef struct sb_oom_facts {
    int64_t oom_kills; /* kills counted in the group's own cgroup, or (outside) the rise of
                          the counter of a cgroup around it; -1 unknown (Linux < 4.13) */
    int outside;       /* the counter is a cgroup's around the group (no cgroup of its own) */
    int sigkilled;     /* a process of the group died of SIGKILL */
    int ours;          /* spacrbench sent that SIGKILL itself (a timeout, a stop's grace) */
    int64_t peak;      /* the group's peak, -1 unknown */
    int64_t limit;     /* the memory limit it ran under, -1 none */
} sb_oom_facts;

enum {
    SB_OOM_NO = 0,
    SB_OOM_IN_GROUP = 1, /* in the group's own cgroup */
    SB_OOM_AROUND = 2    /* in a cgroup around it: the kill came from outside the group */
};

/* SB_OOM_NO, SB_OOM_IN_GROUP or SB_OOM_AROUND. A counter that rose in the
 * group's own cgroup is the OOM killer; without a counter (old kernels) a
 * SIGKILL we did not send with the peak at the limit (within 1/16, at
 * least 8 MiB) is too. A counter around the group rose for anyone below
 * it: only a SIGKILL we did not send makes it ours. */
int sb_oom_verdict(const sb_oom_facts *f);

/* The budget watched without a cgroup to hold it: 1 when this sample's
 * sum ends the group, that is when a limit is watched (> 0), the sum is
 * over it and no earlier sample ended it (ended: that sample's sum, 0
 * none). The caller keeps the sum in ended and kills the group. */
int sb_budget_watch_over(int64_t limit, int64_t ended, int64_t sum);

#endif
