/* The one process supervisor: start N copies of a command (each copy runs
 * its command lines one after another) in ONE group of their own, release
 * them at the same instant, wait for them without polling (pidfds, else
 * SIGCHLD), meanwhile sample the process tree and VRAM, apply a timeout and
 * a grace kill after a stop signal, then read the group's peak, OOM kills
 * and limit, and clean up every process and the group. `spacrbench run`
 * measures one item as its N=1 case and one --scale point as its N=k case.
 *
 * The group is a memory cgroup of its own (group.h) where one can be made;
 * else the tree sampler watches every descendant of this process. Either
 * way this process is a child subreaper, and a group is its copies' whole
 * process tree until that tree has ended (what a SLURM task's cgroup
 * counts): what the copies leave running is waited for, bounded by the
 * timeout, and the orphans reaped here count with their wait4 ru_maxrss.
 * Groups a killed supervisor left behind are
 * cleaned when the next supervisor starts (sb_group_clean_stale). Not
 * installed; used by the command through the internal util archive. */
#ifndef SPACRBENCH_SUPERVISOR_H
#define SPACRBENCH_SUPERVISOR_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "clock.h"
#include "gpu.h"
#include "group.h"
#include "launcher.h"
#include "sample_budget.h"
#include "spacrbench.h"
#include "tree_sampler.h"

#define SB_SUPERVISOR_SAMPLE_NS     5000000L  /* the tree without a cgroup: 5 ms */
#define SB_SUPERVISOR_RSS_SAMPLE_NS 10000000L /* the group's RSS with a cgroup: 10 ms; */
/* both or longer, to cost at most 0.5 % of a core (sample_budget.h) */
#define SB_SUPERVISOR_VRAM_NS        10000000L /* NVML, as the library's sampler */
#define SB_SUPERVISOR_GRACE_S        5.0       /* after a stop signal, before SIGKILL */
#define SB_SUPERVISOR_LEFTOVER_SAY_S 1.0       /* waiting for what the copies left: said after */
#define SB_SUPERVISOR_MAX_COPIES     SPACRBENCH_SCALE_MAX_WORKERS /* < PIPE_BUF: one release write */

/* ---- stop signals (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1/2) ----
 * Caught so that the current command (and its group) is ended and cleaned
 * up instead of spacrbench dying with it. A signal inherited as ignored
 * (nohup) stays ignored. Installing clears the pending signal. */
void sb_stop_signals_catch(int on);
/* The stop signal received, 0 if none. */
int sb_stop_signal(void);

/* ---- VRAM of a group: NVML (dlopen'd, no CUDA context) over its PIDs ---- */
typedef struct sb_vram {
    sb_gpu *gpu;   /* NULL: not measured, for the reason in why */
    char why[512]; /* "" when measured */
    int64_t peak;  /* this group's peak, -1 until a sample succeeded */
    int64_t failed_samples;
    size_t groups_unmeasured; /* groups where every sample failed */
    unsigned int *pids;       /* reused between samples */
    size_t n, cap;
} sb_vram;

/* ---- the supervisor ---- */
typedef struct sb_supervisor_config {
    int no_cgroup;         /* never make a cgroup (the tree sampler instead) */
    int stdout_to_stderr;  /* the copies write their stdout to stderr */
    int64_t machine_limit; /* discovery's binding limit, -1 none */
    double timeout_s;      /* per command line, 0 none */
    const char *prefix;    /* group names: PREFIX-PID-tSTART-NAME, e.g. "spacrbench-run" */
    /* Where the copies start (launcher.h), started while this process was
     * small; NULL: the supervisor starts its own now, with in_child. */
    sb_launcher *launcher;
    /* In each copy right after fork (async-signal-safe calls only). */
    void (*in_child)(void);
    /* Hears about each stale group found at init (may be NULL). */
    void (*on_stale)(void *arg, const sb_stale_group *stale);
    void *stale_arg;
    /* The tree's (and with a cgroup, the group's) sampling period in us;
     * 0: SB_SUPERVISOR_SAMPLE_NS without a cgroup, SB_SUPERVISOR_RSS_SAMPLE_NS
     * with one. VRAM keeps SB_SUPERVISOR_VRAM_NS. */
    int64_t interval_us;
    /* Hears each sample of a running group, for a memory timeline (may be
     * NULL; may be changed between runs): when (sb_now()), the
     * tree's RSS now (VmRSS summed, -1 unknown) and the group's cgroup
     * usage now (memory.usage_in_bytes v1, memory.current v2; -1 none). It
     * is called from the wait loop: it must not block. */
    void (*on_sample)(void *arg, double now, int64_t rss_bytes, int64_t cgroup_bytes);
    void *sample_arg;
} sb_supervisor_config;

typedef struct sb_supervisor {
    sb_supervisor_config cfg;
    int use_cgroup;        /* a cgroup per group (cg.parent located) */
    int exit_by_pidfd;     /* the last wait used pidfds (else SIGCHLD) */
    sb_group cg;           /* located (also without a cgroup, when possible) */
    sb_launcher *launcher; /* NULL: none could be started (launcher_errno) */
    sb_launcher own_launcher;
    int launcher_errno;
    char why_no_cgroup[600];
    tree_sampler tree;
    sb_sample_budget budget; /* the tree sampler's gaps, over the whole run */
    sb_vram vram;
    pid_t *pids; /* the group's PIDs of one sample, reused */
    size_t n_pids, cap_pids;
} sb_supervisor;

/* The argv of copy `copy`'s command line `line` (malloc'd, NULL-terminated;
 * NULL: out of memory), built when that copy starts and freed with
 * argv_free once it is forked: only one copy's lines exist at a time. */
typedef char **(*sb_argv_fn)(void *arg, int64_t copy, int64_t line);

typedef struct sb_launch {
    int64_t copies; /* N, 1..SB_SUPERVISOR_MAX_COPIES */
    int64_t lines;  /* command lines each copy runs in turn, >= 1 */
    sb_argv_fn argv_for;
    void (*argv_free)(char **argv); /* NULL: the argvs are the caller's */
    void *arg;
    const char *name; /* the group's cgroup: PREFIX-PID-tSTART-NAME */
    /* Hears, as it happens, that the grace period after stop signal sig
     * ran out: what == 0 the copies, what == 1 what they left were
     * SIGKILLed (may be NULL). */
    void (*on_grace_kill)(void *arg, int what, int sig);
    /* The group cgroup's memory limit (sb_group_set_limit, before any copy
     * joins), so the group is OOM-killed inside it; <= 0 or no cgroup: none. */
    int64_t memory_limit;
    /* child.h's SB_CHILD_* for each copy beyond the handlers' reset (the
     * scaling check's: dying with spacrbench, the OOM killer's first pick). */
    unsigned child_flags;
    /* > 0 without a cgroup of the group's own (none could carry a limit):
     * a sample whose RSS sum passes it ends the whole group. */
    int64_t watch_limit;
    /* Hears, once, that every copy exited SB_SUPERVISOR_LEFTOVER_SAY_S ago
     * and the processes they left, named in names, still run: the group
     * waits for them (may be NULL). */
    void (*on_leftovers)(void *arg, const char *names);
} sb_launch;

typedef struct sb_copy {
    pid_t pid;
    int done;       /* reaped */
    int status;     /* wait status, valid when done */
    int exec_errno; /* its (last) command line could not be started */
    double seconds; /* from the release to its exit */
    double cpu_seconds;
    int64_t maxrss; /* wait4's ru_maxrss in bytes */
} sb_copy;

typedef struct sb_outcome {
    double started_at;      /* the release (sb_now()), 0 when never released */
    double seconds;         /* the release to the end of the copies' tree (the last copy's
                               exit, or after it what they left running) */
    int64_t peak;           /* the cgroup's charge, or the tree's RSS peak without one; -1 */
    int64_t rss_peak;       /* the tree's RSS peak: sampled VmHWM sum or ru_maxrss; -1 */
    int64_t hugetlb_peak;   /* HugetlbPages of the tree, sampled (in neither peak, so added
                               to both); 0 none seen */
    int64_t vram_peak;      /* NVML over the group's PIDs, -1 not measured */
    int64_t oom_kills;      /* in the group's cgroup, or (oom_outside) the rise of the
                            counter of the cgroup spacrbench runs in; -1 unknown */
    int oom_outside;        /* oom_kills comes from spacrbench's own cgroup */
    int64_t limit;          /* the limit the copies ran under (the nearest above), -1 none */
    int outlived;           /* processes still running when the last copy exited: the group
                               is its whole tree, so they were waited for (and measured) */
    int leftovers_killed;   /* of those, killed when the timeout came */
    int left_behind;        /* processes still there when the group was removed (unkillable,
                               or past a stop signal's grace) */
    char leftovers[240];    /* the killed or left ones: "python3 (pid 123), sleep (pid 9)" */
    int64_t orphan_maxrss;  /* the largest wait4 ru_maxrss of the tree's processes that were
                               reaped here (orphans: this process is the subreaper), 0 none */
    double orphan_cpu;      /* their wait4 user+system CPU seconds, summed (the copies' own
                               rusage holds only what they waited for) */
    int timed_out;          /* the timeout killed the group */
    int interrupted;        /* N > 1: a stop signal came before the release: nothing ran */
    int stopped_by;         /* a stop signal that came while the copies ran, 0 none */
    int killed_after_grace; /* still running SB_SUPERVISOR_GRACE_S after it: SIGKILLed */
    int start_errno;        /* a copy could not be forked (pids.max ...): none was released */
    int64_t started;        /* copies forked */
    int earlier_unlisted;   /* no cgroup: the leftovers of earlier groups could not be
                             listed, so they may be counted in this peak */
    int64_t watch_ended;    /* the RSS sum over watch_limit that ended the group, 0 none */
} sb_outcome;

/* Decide once how groups are measured (a cgroup unless cfg->no_cgroup or
 * impossible: the reason is in why_no_cgroup), clean stale groups, open
 * NVML. Free with sb_supervisor_free. */
void sb_supervisor_init(sb_supervisor *s, const sb_supervisor_config *cfg);
void sb_supervisor_free(sb_supervisor *s);

/* Run l->copies copies (copies[] has as many), measured into *o. 0 when
 * they ran (whatever their status), were never released (o->interrupted,
 * o->start_errno) or were stopped by a signal (o->stopped_by); -1 with the
 * reason in why when spacrbench could not do its part. No cgroup or child
 * is left either way. */
int sb_supervisor_run(sb_supervisor *s, const sb_launch *l, sb_copy *copies, sb_outcome *o,
                      char *why, size_t why_cap);

/* The memory limit a group in g ran under, the nearest above it: g's own
 * (when g->dir is set), else its parent's, else machine_limit. */
int64_t sb_supervisor_limit_above(const sb_group *g, int64_t machine_limit);

/* What the VRAM sampling found, for the caller's notes. NULL when
 * measured by NVML (which then has ngpus GPUs), else why not. When NVML's
 * PIDs turned out to be another namespace's, VRAM is not measured after
 * all: the reason is kept and NVML closed. */
const char *sb_supervisor_vram_verdict(sb_supervisor *s);

/* The tree's sampling period in seconds: cfg.interval_us, else the default
 * for how groups are measured (with or without a cgroup). */
double sb_supervisor_interval(const sb_supervisor *s);

/* How the tree was really sampled over the run so far, in words ("every
 * 6.1 ms on average, at most 9.8 ms apart (5 ms at least, ...)"); returns
 * the longest gap in ms, rounded up: spikes shorter than that may be
 * missed. */
double sb_supervisor_sampling(const sb_supervisor *s, char *how, size_t cap);

/* The group's cgroup usage now (memory.usage_in_bytes v1, memory.current
 * v2), -1 without a cgroup or when unreadable. */
int64_t sb_supervisor_group_usage(const sb_supervisor *s);

/* Internal to the supervisor's files. */
void sb_vram_open(sb_vram *v);
void sb_vram_close(sb_vram *v);
void sb_vram_begin(sb_vram *v);
void sb_vram_sample(sb_vram *v, const pid_t *pids, size_t n);
int64_t sb_vram_end(sb_vram *v);
void sb_stop_signals_caught_set(sigset_t *set);
void sb_stop_signals_block(sigset_t *before);
void sb_stop_signals_set_child(pid_t pid);

#endif
