/* One point of `spacrbench run --scale`: k copies of the command started
 * at the same instant, all in ONE memory cgroup of their own (or, without
 * cgroups, watched by the tree sampler), waited for, and measured: the
 * group's wall time, its peak, its GPU memory, its OOM kills, each copy's
 * exit. */
#ifndef SPACRBENCH_CLI_SCALE_GROUP_H
#define SPACRBENCH_CLI_SCALE_GROUP_H

#include <stdint.h>
#include <sys/types.h>

#include "group.h"
#include "run_vram.h"
#include "tree_sampler.h"

typedef struct scale_copy {
    pid_t pid;
    int status;     /* wait status, valid when done */
    int done;       /* reaped */
    double seconds; /* from the start to its exit */
    int64_t maxrss; /* wait4's ru_maxrss in bytes */
} scale_copy;

typedef struct scale_setup {
    int use_cgroup;        /* a cgroup per group (parent located in cg) */
    const sb_group *cg;    /* located: its parent directory is used */
    int stdout_is_output;  /* stdout carries JSON: the copies write to stderr */
    tree_sampler *tree;    /* the fallback's sampler (use_cgroup 0) */
    run_vram *vram;        /* the serial run's NVML, sampled over the copies; NULL: not */
    int64_t machine_limit; /* discovery's binding limit, -1 none: the limit above all else */
} scale_setup;

typedef struct scale_outcome {
    double seconds;         /* start to the last copy's exit */
    int64_t peak;           /* bytes, -1 unknown */
    int64_t oom_kills;      /* in the group; -1 unknown */
    int oom_outside;        /* oom_kills was counted in spacrbench's own cgroup (no group cgroup) */
    int64_t limit;          /* the limit the copies ran under (the nearest above), -1 none */
    int64_t vram_peak;      /* the copies' GPU memory together (NVML), -1 not measured */
    int left_behind;        /* processes that outlived their copy */
    int interrupted;        /* a stop signal came before the start: nothing ran */
    int stopped_by;         /* a stop signal that came while the copies ran, 0 none */
    int killed_after_grace; /* the group still ran RUN_KILL_GRACE_S after it: SIGKILLed */
} scale_outcome;

/* Run k copies, copy i running argvs[i*m .. i*m+m-1] one after another,
 * released together once every copy sits in the group named `name`.
 * copies has k elements. 0 when the copies ran (whatever their status;
 * o->stopped_by when a stop signal came meanwhile: the copies got it, and
 * the whole group gets SIGKILL RUN_KILL_GRACE_S later if still there) or
 * were never released (o->interrupted); -1 with a message printed when
 * spacrbench could not do its part. No cgroup or child is left either way. */
int scale_group_run(const scale_setup *setup, char **const *argvs, int64_t k, int64_t m,
                    const char *name, scale_copy *copies, scale_outcome *o);

#endif
