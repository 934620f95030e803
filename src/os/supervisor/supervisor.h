/* The one process supervisor (Linux): start N copies of a command (each
 * runs its command lines one after another) in ONE group of their own,
 * release them at the same instant, wait for them without polling (pidfds,
 * else SIGCHLD), meanwhile sample the process tree and VRAM, apply a
 * timeout and a grace kill after a stop signal, then read the group's peak,
 * OOM kills and limit, and clean up every process and the group. `spacrbench
 * run` measures one item as its N=1 case and one --scale point as its N=k
 * case. The group is a memory cgroup of its own where one can be made
 * (os.h); else the tree sampler watches every descendant of this process.
 * Either way this process is a child subreaper, and a group is its copies'
 * whole process tree until that tree has ended (what a SLURM task's cgroup
 * counts): what the copies leave running is waited for, bounded by the
 * timeout, and the orphans reaped here count with their wait4 ru_maxrss.
 * Also the OS primitives of every child the project starts. Not installed;
 * the command links it through the internal util archive. */
#ifndef SPACRBENCH_SUPERVISOR_H
#define SPACRBENCH_SUPERVISOR_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "os.h"
#include "util.h" /* sb_write_all: the pipes to and from children */

/* ---- children (the command's copies, the scaling check's forked workers,
 * the plot helper): the one fork (signals blocked across it, handlers
 * reset, dying with the parent, the OOM killer's first choice where
 * asked), the one wait4, and waiting without polling: pidfds (Linux >= 5.3)
 * in ppoll, else a SIGCHLD signalfd ---- */
#define SB_CHILD_DEFAULT_HANDLERS 1u  /* every handled signal back to SIG_DFL (ignored stay) */
#define SB_CHILD_DIE_WITH_PARENT  2u  /* PR_SET_PDEATHSIG(SIGKILL); ends at once if orphaned */
#define SB_CHILD_OOM_FIRST        4u  /* oom_score_adj 1000: a job-wide OOM kill picks it */
#define SB_CHILD_ORPHANED         125 /* exit code of an orphaned child (DIE_WITH_PARENT) */

/* The child's code; it must not return (it _exit()s). Only
 * async-signal-safe calls before an exec: the parent may have threads. */
typedef void (*sb_child_main)(void *arg);

/* Fork a child that runs main(arg), every signal blocked across the fork
 * (no handler of the caller runs in the child before flags are applied);
 * the child then gets the caller's mask back. Its pid, or -1 (errno set). */
pid_t sb_child_start(unsigned flags, sb_child_main main, void *arg);
/* What sb_child_start does in the child before main, for a child started
 * otherwise (a Python pool's worker); parent: the expected parent.
 * Async-signal-safe. */
void sb_child_begin(unsigned flags, pid_t parent);
/* The one wait4: pid (-1: any child), options (WNOHANG), EINTR retried;
 * status and ru may be NULL. The pid, 0 (WNOHANG: none has exited), or -1
 * (errno set, ECHILD when there is none). */
pid_t sb_child_wait(pid_t pid, int options, int *status, struct rusage *ru);
/* Run argv (PATH searched) to its end: its exit status, 128 + the signal
 * that ended it, or -1 with errno set when it could not be started. Its
 * stdout goes to stderr where asked (stdout carries spacrbench's JSON). */
int sb_child_run(char *const argv[], int stdout_to_stderr);

/* Waits on a set of children: a pidfd each where the kernel has them (all
 * or none), else a SIGCHLD signalfd (SIGCHLD blocked in the waiting
 * thread). */
typedef struct sb_waiter {
    int *pidfd; /* n entries, NULL: the signalfd (or nothing) */
    struct pollfd *fds;
    size_t n;
    int sfd;
} sb_waiter;

void sb_waiter_open(sb_waiter *w, const pid_t *pids, size_t n);
void sb_waiter_close(sb_waiter *w);
/* Whether pidfds wake it (else SIGCHLD, or at most every fallback). */
int sb_waiter_by_pidfd(const sb_waiter *w);
/* Sleep until child i (live[i] non-zero; live NULL: all) may have exited,
 * fd (when >= 0) is readable or hung up, a signal mask leaves open arrives
 * (mask NULL: the current one), or `wait` seconds pass (< 0: no limit; with
 * neither pidfds nor a signalfd, at most SB_WAITER_FALLBACK_S). */
#define SB_WAITER_FALLBACK_S 0.1
void sb_waiter_sleep(sb_waiter *w, const int *live, int fd, double wait, const sigset_t *mask);
/* Wait until every process of pids (children or not) has exited, or until
 * `deadline` (sb_now() seconds): pidfds in ppoll (without pidfds, one pause
 * of at most 20 ms). How many still run. */
size_t sb_wait_exited(const pid_t *pids, size_t n, double deadline);

/* ---- the launcher (issue 41). A process's wait4 ru_maxrss keeps the
 * high-water mark of the memory it had before exec, and a vfork or
 * posix_spawn child shares its parent's address space, so its figure is the
 * parent's peak: `true` forked from a spacrbench holding 10^6 items read
 * 108 MiB (GNU time: 1 MiB). The launcher is forked while spacrbench is
 * still small, before the items are read, and forks each copy with
 * CLONE_PARENT: the copy is spacrbench's own child whose memory before exec
 * is a copy of the launcher's ---- */
typedef struct sb_launcher {
    pid_t pid; /* -1: not running */
    int sock;  /* requests go out, the copies' pids come back */
} sb_launcher;

/* One copy: wait for a byte on go, run lines[0..m-1) one after another as
 * its children, then become lines[m-1]. A failing line ends it with that
 * line's status (a signal as 128 + its number); an exec that fails is
 * written to err as an sb_exec_failure. */
typedef struct sb_copy_spec {
    unsigned flags; /* SB_CHILD_* */
    int stdout_to_stderr;
    int64_t index; /* in the sb_exec_failure */
    int go, err;   /* the release pipe's read end, the failure pipe's write end */
    sigset_t mask; /* the copy's signal mask */
    char **const *lines;
    int64_t m; /* >= 1 */
} sb_copy_spec;

/* One write, smaller than PIPE_BUF: atomic among copies. */
typedef struct sb_exec_failure {
    int64_t copy;
    int err;
} sb_exec_failure;

/* Fork the launcher; in_child (may be NULL) runs first in every copy
 * (async-signal-safe calls only). It ends with this process (and with
 * sb_launcher_stop). 0, or -1 with errno set. */
int sb_launcher_start(sb_launcher *l, void (*in_child)(void));
/* Start one copy: its pid (a child of this process), -1 when its fork
 * failed (errno: the launcher's fork's), -2 when the launcher is gone. */
pid_t sb_launcher_fork(sb_launcher *l, const sb_copy_spec *c);
/* End the launcher and reap it. */
void sb_launcher_stop(sb_launcher *l);

/* ---- the tree sampler: the fallback peak of a command's process tree
 * when no cgroup of its own can be made, the larger of
 *   - the largest sum, over the samples, of the VmHWM of the processes
 *     alive at that sample (VmHWM is each process's lifetime peak, so a
 *     late sample still sees an earlier spike; the sum is an upper bound;
 *     processes that ran one after another are never added together), and
 *   - wait4's ru_maxrss of the direct child (the child and the descendants
 *     it reaped, but only as the largest single process; adding it to the
 *     samples would count a descendant twice).
 * A process that lives less than one interval is seen only through
 * ru_maxrss. A sample reads the tree only (the children files) and per
 * process /proc/PID/status, the one cheap file with VmHWM ---- */
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
    pid_t *old;            /* descendants that predate the current item: skipped */
    size_t n_old, old_cap;
    int64_t rss_now; /* VmRSS summed over the processes the last sample read */
} tree_sampler;

void tree_sampler_init(tree_sampler *t, pid_t self);
void tree_sampler_reset(tree_sampler *t);
void tree_sampler_free(tree_sampler *t);
/* Record the descendants alive now (leftovers of earlier items, which as a
 * child subreaper we inherit) so that later samples count neither them nor
 * their children. How many, -1 on failure (then nothing is excluded). */
int tree_sampler_exclude_current(tree_sampler *t);
/* Whether pid was excluded above. */
int tree_sampler_is_old(const tree_sampler *t, pid_t pid);
/* Walk the tree once and update the descendants' peaks (the excluded
 * aside): the number of descendants seen, -1 on failure. */
int tree_sample(tree_sampler *t);
/* The same over the given processes only (a cgroup's members). */
int tree_sample_pids(tree_sampler *t, const pid_t *pids, size_t n);
/* Call each(pid, arg) for every live (not zombie) descendant, the excluded
 * aside: how many it returned 0 for, -1 on failure. */
int tree_signal_each(const tree_sampler *t, int (*each)(pid_t pid, void *arg), void *arg);
/* max(largest sum of one sample's live peaks, child_maxrss_bytes). */
int64_t tree_peak(const tree_sampler *t, pid_t child, int64_t child_maxrss_bytes);
/* How many descendants other than child were seen. */
size_t tree_others(const tree_sampler *t, pid_t child);

/* ---- the supervisor ---- */
#define SB_SUPERVISOR_SAMPLE_NS     5000000L  /* the tree without a cgroup: 5 ms */
#define SB_SUPERVISOR_RSS_SAMPLE_NS 10000000L /* the group's RSS with a cgroup: 10 ms; */
/* both or longer, to cost at most 0.5 % of a core (os.h) */
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
    /* Where the copies start (the launcher), started while this process was
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
    /* SB_CHILD_* for each copy beyond the handlers' reset (the
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

/* ---- shared by the supervisor's files ---- */
void sb_vram_sample(sb_vram *v, const pid_t *pids, size_t n);
void sb_stop_signals_caught_set(sigset_t *set);
void sb_stop_signals_set_child(pid_t pid);
/* SIGKILL the unreaped copies, then everything else in the group (its
 * cgroup, else the watched descendants; passes until none is left). */
int sb_sv_kill_group(const sb_supervisor *s, sb_copy *copies, int64_t k);
/* The group's live (not zombie) processes: how many, -1 when they could
 * not be listed; names (may be NULL) gets "comm (pid N), ..." cut to cap. */
int sb_sv_leftovers(const sb_supervisor *s, char *names, size_t cap);
/* One sample of the group: its tree's RSS (rss: with a cgroup, the VmHWM
 * of its processes; scan_tree: without one, the tree) and its VRAM. The CPU
 * seconds the RSS part took; *listed (may be NULL) is 0 when the group's
 * processes could not be listed. */
double sb_sv_sample(sb_supervisor *s, const sb_copy *copies, int64_t k, int scan_tree, int rss,
                    int *listed);
/* Reap what has exited (WNOHANG): the copies (status, time, CPU and
 * ru_maxrss) and the tree's orphans (o->orphan_maxrss, o->orphan_cpu; this
 * process is their subreaper; what was alive before the group aside). How
 * many copies, -1 when this process has no child at all. */
int64_t sb_sv_reap(const sb_supervisor *s, sb_copy *copies, int64_t k, double t0, sb_outcome *o);
/* Reap every released copy, applying the timeout (lines x timeout for the
 * group) and the grace kill after a stop signal, sampling meanwhile; then
 * wait for what the copies left running until the tree has ended (killed,
 * and named in o->leftovers, at the timeout). */
void sb_sv_wait(sb_supervisor *s, const sb_launch *l, sb_copy *copies, double t0, sb_outcome *o);

#endif
