/* The process supervisor (Linux): N copies of a command in one group (a
 * memory cgroup where possible, else the sampled tree), released at one
 * instant, waited for without polling, sampled, timed out, cleaned up.
 * `spacrbench run` is its N=1 case, a --scale point its N=k. This process
 * is a child subreaper: a group is its copies' whole tree until that tree
 * ends (what a SLURM task's cgroup counts). Also every child's primitives. */
#ifndef SPACRBENCH_SUPERVISOR_H
#define SPACRBENCH_SUPERVISOR_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "os.h"

/* ---- children: the one fork, the one wait4, and waiting without
 * polling (pidfds, Linux >= 5.3, else a SIGCHLD signalfd) ---- */
#define SB_CHILD_DEFAULT_HANDLERS 1u  /* every handled signal back to SIG_DFL (ignored stay) */
#define SB_CHILD_DIE_WITH_PARENT  2u  /* PR_SET_PDEATHSIG(SIGKILL); ends at once if orphaned */
#define SB_CHILD_OOM_FIRST        4u  /* oom_score_adj 1000: a job-wide OOM kill picks it */
#define SB_CHILD_ORPHANED         125 /* exit code of an orphaned child (DIE_WITH_PARENT) */

/* Must _exit(); async-signal-safe before an exec (the parent has threads). */
typedef void (*sb_child_main)(void *arg);

/* Signals blocked across the fork, so no handler of ours runs in the child
 * before flags apply. The pid, or -1 (errno). */
pid_t sb_child_start(unsigned flags, sb_child_main main, void *arg);
/* The same for a child started otherwise (a Python pool's worker). */
void sb_child_begin(unsigned flags, pid_t parent);
/* wait4, EINTR retried; status and ru may be NULL. */
pid_t sb_child_wait(pid_t pid, int options, int *status, struct rusage *ru);
/* Its exit status, 128 + signal, or -1 (errno) when it could not start. */
int sb_child_run(char *const argv[], int stdout_to_stderr);

typedef struct sb_waiter {
    int *pidfd; /* n entries (all or none), NULL: the signalfd */
    struct pollfd *fds;
    size_t n;
    int sfd;
} sb_waiter;

void sb_waiter_open(sb_waiter *w, const pid_t *pids, size_t n);
void sb_waiter_close(sb_waiter *w);
int sb_waiter_by_pidfd(const sb_waiter *w);
/* Until a live child (live NULL: all) may have exited, fd is readable, a
 * signal arrives or wait seconds pass (< 0: none; at most the fallback
 * without pidfds or signalfd). */
#define SB_WAITER_FALLBACK_S 0.1
void sb_waiter_sleep(sb_waiter *w, const int *live, int fd, double wait, const sigset_t *mask);
/* Until pids (children or not) have exited or deadline (sb_now()); without
 * pidfds one pause of at most 20 ms. How many still run. */
size_t sb_wait_exited(const pid_t *pids, size_t n, double deadline);

/* ---- the launcher (issue 41): wait4's ru_maxrss keeps the mark of the
 * memory before exec (vfork/posix_spawn share the parent's), so `true`
 * forked from a spacrbench holding 10^6 items read 108 MiB. The launcher
 * is forked while spacrbench is small and forks each copy with
 * CLONE_PARENT: our child, with the launcher's small memory ---- */
typedef struct sb_launcher {
    pid_t pid; /* -1: not running */
    int sock;  /* requests go out, the copies' pids come back */
} sb_launcher;

/* One copy: wait for go, run lines[0..m-1) as children, then exec
 * lines[m-1]; a failing line ends it with its status, a failed exec is
 * written to err. */
typedef struct sb_copy_spec {
    unsigned flags; /* SB_CHILD_* */
    int stdout_to_stderr;
    int64_t index; /* in the sb_exec_failure */
    int go, err;   /* the release pipe's read end, the failure pipe's write end */
    sigset_t mask; /* the copy's signal mask */
    char **const *lines;
    int64_t m; /* >= 1 */
} sb_copy_spec;

/* < PIPE_BUF: atomic among copies. */
typedef struct sb_exec_failure {
    int64_t copy;
    int err;
} sb_exec_failure;

/* in_child (may be NULL) runs first in every copy. 0, or -1 (errno). */
int sb_launcher_start(sb_launcher *l, void (*in_child)(void));
/* The copy's pid, -1 its fork failed (errno), -2 the launcher is gone. */
pid_t sb_launcher_fork(sb_launcher *l, const sb_copy_spec *c);
void sb_launcher_stop(sb_launcher *l);

/* ---- the tree sampler, the peak without a cgroup: the larger of the
 * largest sum of live processes' VmHWM in one sample (a lifetime peak, so
 * a late sample still sees a spike; processes that ran one after another
 * never add up) and the child's ru_maxrss (adding it would count a
 * descendant twice). A process shorter than a gap shows only there ---- */
typedef struct tree_proc {
    pid_t pid;
    int64_t hwm_bytes;
} tree_proc;

typedef struct tree_sampler {
    pid_t self;       /* descendants of this pid are sampled */
    tree_proc *procs; /* every descendant seen since the last reset */
    size_t count, cap;
    int64_t peak_sum;      /* the largest sum of live VmHWMs in one sample */
    int64_t hugetlb_peak;  /* the largest sum of HugetlbPages in one sample */
    const char *proc_root; /* "/proc" (tests may point elsewhere) */
    sb_pid_list old;       /* descendants that predate the current item: skipped */
    int64_t rss_now;       /* VmRSS summed over the processes the last sample read */
} tree_sampler;

void tree_sampler_init(tree_sampler *t, pid_t self);
void tree_sampler_reset(tree_sampler *t);
void tree_sampler_free(tree_sampler *t);
/* Leave out the descendants alive now (earlier items' leftovers) and their
 * children. How many, -1 (nothing excluded). */
int tree_sampler_exclude_current(tree_sampler *t);
int tree_sampler_is_old(const tree_sampler *t, pid_t pid);
/* One walk: the number of descendants seen, -1 on failure. */
int tree_sample(tree_sampler *t);
int tree_sample_pids(tree_sampler *t, const pid_t *pids, size_t n);
/* each(pid) for every live descendant: how many returned 0, or -1. */
int tree_signal_each(const tree_sampler *t, int (*each)(pid_t pid, void *arg), void *arg);
int64_t tree_peak(const tree_sampler *t, pid_t child, int64_t child_maxrss_bytes);
size_t tree_others(const tree_sampler *t, pid_t child);

/* ---- the supervisor; the budget may space samples out (os.h) ---- */
#define SB_SUPERVISOR_SAMPLE_NS      5000000L  /* the tree without a cgroup */
#define SB_SUPERVISOR_RSS_SAMPLE_NS  10000000L /* the group's RSS with a cgroup */
#define SB_SUPERVISOR_VRAM_NS        10000000L /* NVML, as the library's sampler */
#define SB_SUPERVISOR_GRACE_S        5.0       /* after a stop signal, before SIGKILL */
#define SB_SUPERVISOR_LEFTOVER_SAY_S 1.0       /* waiting for what the copies left: said after */
#define SB_SUPERVISOR_MAX_COPIES     SPACRBENCH_SCALE_MAX_WORKERS /* < PIPE_BUF: one release write */

/* Stop signals (INT, TERM, HUP, QUIT, USR1/2) end and clean up the group
 * instead of killing spacrbench; one inherited as ignored (nohup) stays
 * so. Installing clears the pending one. */
void sb_stop_signals_catch(int on);
int sb_stop_signal(void);

/* VRAM of a group: NVML over its PIDs. */
typedef struct sb_vram {
    sb_gpu *gpu;   /* NULL: not measured, for the reason in why */
    char why[512]; /* "" when measured */
    int64_t peak;  /* this group's peak, -1 until a sample succeeded */
    int64_t failed_samples;
    size_t groups_unmeasured; /* groups where every sample failed */
    unsigned int *pids;       /* reused between samples */
    size_t n, cap;
} sb_vram;

typedef struct sb_supervisor_config {
    int no_cgroup;          /* never make a cgroup (the tree sampler instead) */
    int stdout_to_stderr;   /* the copies write their stdout to stderr */
    int64_t machine_limit;  /* discovery's binding limit, -1 none */
    double timeout_s;       /* per command line, 0 none */
    const char *prefix;     /* group names: PREFIX-PID-tSTART-NAME, e.g. "spacrbench-run" */
    sb_launcher *launcher;  /* started while small; NULL: start one now */
    void (*in_child)(void); /* for that one */
    void (*on_stale)(void *arg, const sb_stale_group *stale);
    void *stale_arg;
    int64_t interval_us; /* 0: the defaults above */
    /* Each sample, for a timeline (-1: unknown or no cgroup); called from
     * the wait loop: must not block. */
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

/* Built when a copy starts, freed once it is forked: one copy's lines
 * exist at a time. NULL: out of memory. */
typedef char **(*sb_argv_fn)(void *arg, int64_t copy, int64_t line);

typedef struct sb_launch {
    int64_t copies; /* N, 1..SB_SUPERVISOR_MAX_COPIES */
    int64_t lines;  /* command lines each copy runs in turn, >= 1 */
    sb_argv_fn argv_for;
    void (*argv_free)(char **argv); /* NULL: the argvs are the caller's */
    void *arg;
    const char *name; /* the group's cgroup: PREFIX-PID-tSTART-NAME */
    /* The grace after sig ran out: what 0 the copies, 1 their leftovers
     * were SIGKILLed (may be NULL). */
    void (*on_grace_kill)(void *arg, int what, int sig);
    int64_t memory_limit; /* the group cgroup's; <= 0: none */
    unsigned child_flags; /* SB_CHILD_* beyond the handlers' reset */
    int64_t watch_limit;  /* > 0 without a cgroup: an RSS sum over it ends the group */
    /* Once: the copies exited SB_SUPERVISOR_LEFTOVER_SAY_S ago and names
     * still run (may be NULL). */
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
    double started_at;      /* the release (sb_now()), 0 never released */
    double seconds;         /* the release to the end of the copies' whole tree */
    int64_t peak;           /* the cgroup's charge, else rss_peak; -1 */
    int64_t rss_peak;       /* sampled VmHWM sum or ru_maxrss; -1 */
    int64_t hugetlb_peak;   /* sampled; in neither peak, so added to both */
    int64_t vram_peak;      /* -1 not measured */
    int64_t oom_kills;      /* the group's cgroup's, or the rise of ours; -1 unknown */
    int oom_outside;        /* oom_kills is our own cgroup's */
    int64_t limit;          /* the nearest above the copies, -1 none */
    int outlived;           /* processes the copies left, waited for and measured */
    int leftovers_killed;   /* of those, killed at the timeout */
    int left_behind;        /* still there when the group was removed */
    char leftovers[240];    /* "python3 (pid 123), sleep (pid 9)" */
    int64_t orphan_maxrss;  /* the largest ru_maxrss of orphans reaped here, 0 none */
    double orphan_cpu;      /* their CPU seconds (not in the copies' rusage) */
    int timed_out;          /* the timeout killed the group */
    int interrupted;        /* N > 1: a stop signal before the release: nothing ran */
    int stopped_by;         /* a stop signal while the copies ran, 0 none */
    int killed_after_grace; /* SIGKILLed SB_SUPERVISOR_GRACE_S after it */
    int start_errno;        /* a copy could not be forked: none was released */
    int64_t started;        /* copies forked */
    int earlier_unlisted;   /* no cgroup: earlier leftovers may count in the peak */
    int64_t watch_ended;    /* the RSS sum that ended the group, 0 none */
} sb_outcome;

/* Choose how groups are measured (why_no_cgroup), clean stale groups,
 * open NVML. */
void sb_supervisor_init(sb_supervisor *s, const sb_supervisor_config *cfg);
void sb_supervisor_free(sb_supervisor *s);

/* 0 when the copies ran, were never released or were stopped (see o); -1
 * with why when spacrbench failed. No cgroup or child is left either way. */
int sb_supervisor_run(sb_supervisor *s, const sb_launch *l, sb_copy *copies, sb_outcome *o,
                      char *why, size_t why_cap);

/* NULL when NVML measured, else why not (NVML's PIDs from another
 * namespace: closed now). */
const char *sb_supervisor_vram_verdict(sb_supervisor *s);

double sb_supervisor_interval(const sb_supervisor *s);

/* The sampling so far in words; returns the ms of spikes it may miss. */
double sb_supervisor_sampling(const sb_supervisor *s, char *how, size_t cap);

int64_t sb_supervisor_group_usage(const sb_supervisor *s);

#endif
