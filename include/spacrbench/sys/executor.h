/*
 * The scaling check over the caller's own workers (since 1.3): one driver
 * owns every rule, an executor only starts, runs and ends workers.
 *
 * sys/ promises the same stable C ABI as every public header (nothing
 * exported is removed or changed; structs grow by their size field), but
 * it is lower-level: the parts spacrbench's own command and Python binding
 * are built from, for tools that measure or copy measurements themselves.
 * Nothing in <spacrbench.h> or the topic headers depends on it.
 */
/* First spacrbench.h, outside the guard: whichever header a program
 * includes, every header is then read in spacrbench.h's order. */
#include "../../spacrbench.h"

#ifndef SPACRBENCH_PUBLIC_SYS_EXECUTOR_H
#define SPACRBENCH_PUBLIC_SYS_EXECUTOR_H

#ifdef __cplusplus
extern "C" {
#endif

/* SPACRBENCH_CDEF_BEGIN */

/* --- Since 1.3: the scaling check over an executor -------------------- */

/* The most workers of one count, in every front end (the C harness, the
 * command's copies, the Python pool). */
#define SPACRBENCH_SCALE_MAX_WORKERS 1024
/* The most items one worker runs in one round (a timed repeat grown to
 * last min_seconds stops there; min_items is at most this). */
#define SPACRBENCH_SCALE_MAX_ROUND_ITEMS 100000

/* The one scaling driver (spacrbench_scale_execute) owns every rule of the
 * check: the counts and the top count, the warm-up, the timed repeats and
 * how many items each asks, the repeats' spread and when to stop, the
 * budget as each count's memory limit, what an OOM kill or a count ended
 * at the budget means, the notes. An executor only runs what it is asked:
 * it starts a count's k workers (open), runs rounds on them (round: each
 * of the k workers runs `items` items, worker w the items first[w],
 * first[w] + 1, ... modulo the item count, all released at once) and
 * ends them (close). spacrbench_scale_timed is the driver over forked
 * workers; `spacrbench run --scale` and Python's scale() give it their own
 * executors (command copies, a process pool). docs/scaling.md. */
typedef struct spacrbench_scale_driver spacrbench_scale_driver; /* opaque, the driver's */

/* One round, as the driver asks it. */
typedef struct spacrbench_scale_round {
    size_t size;
    int64_t workers;      /* k, as opened */
    int64_t items;        /* items each worker runs in turn */
    const int64_t *first; /* k entries: worker w's first item (0 .. n_items - 1) */
    int32_t warmup;       /* 1: the warm-up round, untimed */
    int32_t index;        /* the count's rounds, from 0 */
} spacrbench_scale_round;

/* How a worker's round ended. */
typedef enum spacrbench_scale_worker_end {
    SPACRBENCH_SCALE_WORKER_DONE = 0,   /* ran its items */
    SPACRBENCH_SCALE_WORKER_FAILED = 1, /* the work failed (non-zero, raised, exit status) */
    SPACRBENCH_SCALE_WORKER_LOST = 2    /* died, was killed or never ran */
} spacrbench_scale_worker_end;

/* What one worker did in a round; the driver sets LOST, 0 items, 0 s. */
typedef struct spacrbench_scale_worker {
    size_t size;
    int64_t items;       /* the items it finished */
    double item_seconds; /* their times, summed */
    int32_t end;         /* spacrbench_scale_worker_end */
    int32_t sigkilled;   /* it died of a SIGKILL spacrbench did not send */
} spacrbench_scale_worker;

/* The answer of open and round beside the workers'; the driver zeroes it. */
typedef struct spacrbench_scale_outcome {
    size_t size;
    double seconds;  /* round: the release to the last worker's end */
    int32_t failed;  /* the round failed as a whole (a timeout, a fork that failed) */
    int32_t stopped; /* 1: a stop request ended it, the check ends; 2: it came before
                        the release (nothing ran) */
    char why[640];   /* what failed, in words ("copy 2 (item b) exited with status 3"),
                        for the note "2 workers: ...; the point is marked failed" */
} spacrbench_scale_outcome;

/* A count's figures from an executor that measures its group itself (no
 * SPACRBENCH_SCALE_EXECUTOR_GROUP); the driver sets the sentinels. */
typedef struct spacrbench_scale_count {
    size_t size;
    int64_t peak_bytes;      /* the group's peak; -1 not measured */
    int64_t vram_peak_bytes; /* -1 not measured */
    int64_t oom_kills;       /* the OOM killer's kills in the group's own cgroup, or (oom_outside)
                                in a cgroup around it, while the count ran; -1 unknown */
    int64_t limit_bytes;     /* the memory limit the group ran under (nearest above); -1 none */
    int32_t peak_method;     /* spacrbench_peak_method */
    int32_t oom_outside;     /* oom_kills counts a cgroup around the group */
    int32_t limit_is_budget; /* 1: the group's own cgroup carried the budget as its limit;
                                2: no cgroup could, spacrbench watched the budget */
    int32_t ours;            /* spacrbench killed the group itself (a timeout, a stop) */
    int32_t ended_at_budget; /* no cgroup could hold the limit: spacrbench ended the count
                                when its sampled memory passed the budget */
    int32_t reserved;
} spacrbench_scale_count;

enum spacrbench_scale_executor_flags {
    /* The driver measures each count in a spacrbench_group of its own (the
     * budget its limit): open gives the workers' pids. */
    SPACRBENCH_SCALE_EXECUTOR_GROUP = 1
};

/* Kinds of the notes the driver makes (spacrbench_scale_executor.note). */
enum spacrbench_scale_note_kind {
    SPACRBENCH_SCALE_NOTE_COUNT = 0,  /* about one count, not a failure */
    SPACRBENCH_SCALE_NOTE_FAILED = 1, /* a count failed: which and why */
    SPACRBENCH_SCALE_NOTE_METHOD = 2  /* how the check measured (timing, budget, group) */
};

/* Callbacks return 0, or a negative spacrbench_error to abort the check
 * (its message in the outcome's why where there is one); open returns 1
 * when it could not start all k workers (why says so; it has cleaned up:
 * no close follows). pids: with SPACRBENCH_SCALE_EXECUTOR_GROUP, open
 * fills k pids (the workers run no item before the first round). close is
 * called once per opened count; failed: a round failed (the driver has
 * already killed a group it measures), so end the workers now. */
typedef struct spacrbench_scale_executor {
    size_t size;
    uint32_t flags; /* spacrbench_scale_executor_flags */
    uint32_t reserved;
    void *payload; /* given to every callback */
    int64_t cores; /* usable cores for the top count; SPACRBENCH_AUTO: discovered */
    int(SPACRBENCH_CALLBACK *open)(spacrbench_scale_driver *driver, int64_t workers,
                                   int64_t budget_bytes, int64_t *pids,
                                   spacrbench_scale_outcome *out, void *payload);
    int(SPACRBENCH_CALLBACK *round)(spacrbench_scale_driver *driver,
                                    const spacrbench_scale_round *round,
                                    spacrbench_scale_worker *workers, spacrbench_scale_outcome *out,
                                    void *payload);
    int(SPACRBENCH_CALLBACK *close)(spacrbench_scale_driver *driver, int32_t failed,
                                    spacrbench_scale_count *count, void *payload);
    /* Hears each note the driver makes (may be NULL): return 0 to keep it
     * in the result, 1 to leave it out (said elsewhere, e.g. stderr). */
    int(SPACRBENCH_CALLBACK *note)(int32_t kind, const char *text, void *payload);
} spacrbench_scale_executor;

SPACRBENCH_EXTERN int spacrbench_scale_executor_init(spacrbench_scale_executor *ex, size_t size);
/* The scaling check of n_items items over ex (opts, timing NULL: the
 * defaults). Every rule is the driver's, so every front end gives the
 * same points and notes for the same rounds. EBUSY while another check
 * runs in this process. On success *out owns a result. */
SPACRBENCH_EXTERN int spacrbench_scale_execute(const spacrbench_scale_executor *ex, size_t n_items,
                                               const spacrbench_scale_options *opts,
                                               const spacrbench_scale_timing *timing,
                                               spacrbench_scale_result **out);
/* A note of the executor's own (about the count being measured), kept in
 * the result in order (the note hook does not hear it). */
SPACRBENCH_EXTERN int spacrbench_scale_driver_note(spacrbench_scale_driver *driver,
                                                   const char *note);
/* First thing in a worker a front end starts itself (a process pool's
 * initializer), as the fork executor's workers do: it ends with its parent
 * (PR_SET_PDEATHSIG; at once when parent_pid is no longer its parent) and
 * is the OOM killer's first choice (oom_score_adj 1000), so a job-wide OOM
 * kill takes a worker, never the caller. 0; SPACRBENCH_EUNSUPPORTED off
 * Linux. */
SPACRBENCH_EXTERN int spacrbench_scale_worker_begin(int64_t parent_pid);

/* SPACRBENCH_CDEF_END */

#ifdef __cplusplus
}
#endif

#endif /* SPACRBENCH_PUBLIC_SYS_EXECUTOR_H */
