/* The contract of os/: what the operating system says about the machine
 * (the probe) and this process (proc), the background sampler, the
 * samplers' cost policy, the OOM verdict and the group peak's words; on
 * Linux the cgroups, process groups and process trees. One implementation
 * per platform (linux/, posix/: what Linux and macOS share, darwin/,
 * windows/). Not installed. */
#ifndef SPACRBENCH_OS_H
#define SPACRBENCH_OS_H

#include <stddef.h>
#include <stdint.h>

#include "gpu.h"
#include "spacrbench.h"
#include "util.h"

/* How the report and the evidence name this platform's sources, so a
 * Windows or macOS report does not speak of /proc (docs/platforms.md). */
#if defined(_WIN32)
#define SB_PLATFORM_NAME     "Windows"
#define SB_WORDS_HOST_MEMORY "host available physical memory"
#define SB_WORDS_EXACT_PEAK  "exact, peak working set"
#elif defined(__APPLE__)
#define SB_PLATFORM_NAME     "macOS"
#define SB_WORDS_HOST_MEMORY "host free and reclaimable pages"
#define SB_WORDS_EXACT_PEAK  "exact, footprint high-water mark"
#else
#define SB_PLATFORM_NAME     "this platform"
#define SB_WORDS_HOST_MEMORY "host MemAvailable"
#define SB_WORDS_EXACT_PEAK  "exact, kernel high-water mark"
#endif

/* ---- the machine probe: what the OS says, raw; core/discover.c turns it
 * into a spacrbench_machine ---- */

/* Where a probe reads from (Linux: below); NULL means the running system. */
struct sb_probe_env;

#define SB_PROBE_PATH_MAX 1024

/* Sources are spacrbench_source values. */
typedef struct sb_probe {
    int64_t host_available_bytes; /* MemAvailable; -1 if unreadable */
    int64_t affinity_cores;       /* CPUs we may run on; -1 if unknown */
    int32_t affinity_source;      /* where that count came from; UNKNOWN = AFFINITY */
    /* The tightest container memory bound (cgroup, job object...). */
    int32_t memory_source;         /* UNKNOWN when there is none */
    int64_t memory_headroom_bytes; /* -1 if none */
    int64_t memory_limit_bytes;    /* -1 if none */
    char memory_dir[SB_PROBE_PATH_MAX];
    /* The tightest CPU quota. */
    int32_t quota_source; /* UNKNOWN when there is none */
    double quota_cores;   /* quota / period; -1 if none */
    char quota_dir[SB_PROBE_PATH_MAX];
    /* The CPU set the container may use. */
    int32_t cpuset_source; /* UNKNOWN when there is none */
    int64_t cpuset_cores;  /* -1 if unknown */
    char cpuset_dir[SB_PROBE_PATH_MAX];
} sb_probe;

/* Fill every field (sentinels where the platform cannot tell). */
void sb_probe_machine(const struct sb_probe_env *env, sb_probe *out);

#if defined(_WIN32)
/* The Windows probe's pure rules, over the structures Windows fills in
 * (struct tags: no <windows.h> here), so a test can hand them any job's
 * figures. The memory bound of a job: JOB_OBJECT_LIMIT_JOB_MEMORY gives
 * headroom = JobMemoryLimit - committed (the sum of its processes'
 * PrivateUsage; -1 unknown: then PeakJobMemoryUsed stands in, which can
 * only understate the headroom); a per-process limit alone bounds each
 * process, not the workers together: no bound. Sets memory_* only. */
struct _JOBOBJECT_EXTENDED_LIMIT_INFORMATION;
struct _JOBOBJECT_CPU_RATE_CONTROL_INFORMATION;
void sb_win_job_memory(const struct _JOBOBJECT_EXTENDED_LIMIT_INFORMATION *info,
                       int64_t job_committed_bytes, sb_probe *out);
/* The cores a hard CPU rate cap allows (CpuRate is in 1/100 % of all the
 * machine's processors); -1 when it is no hard cap. */
double sb_win_job_cpu_rate_cores(const struct _JOBOBJECT_CPU_RATE_CONTROL_INFORMATION *info,
                                 int64_t all_processors);
/* Set bits of an affinity mask. */
int64_t sb_win_mask_cores(uint64_t mask);
#endif

/* ---- this process: memory (Linux /proc, Windows' process memory
 * counters, macOS Mach task_info) and CPU time ---- */
typedef struct sb_proc {
#if defined(__linux__)
    int statm_fd;      /* /proc/self/statm, for current RSS */
    int status_fd;     /* /proc/self/status, for VmHWM */
    int clear_refs_fd; /* /proc/self/clear_refs, -1 when not writable */
    int64_t page_size;
    char *status_buf; /* grows to hold /proc/self/status (runner thread only) */
    size_t status_cap;
#elif defined(_WIN32)
    /* The working set is the RSS analogue; its peak cannot be reset, so the
     * reset calls return -1 and the runner falls back to its window rule
     * and the sampler. */
    void *process; /* GetCurrentProcess()'s pseudo handle: nothing to close */
#elif defined(__APPLE__)
    /* "RSS" is the physical footprint; its peak comes from task_info when
     * the kernel's TASK_VM_INFO has ledger_phys_footprint_peak (rev3),
     * else from proc_pid_rusage. */
    int has_ledger_peak;
#endif
} sb_proc;

/* Open the probe's files; SPACRBENCH_ESYSTEM when statm/status are missing.
 * clear_refs is optional (gVisor, hardened kernels lack it). */
int sb_proc_open(sb_proc *p, int want_hwm_reset);
void sb_proc_close(sb_proc *p);
/* Current resident set size in bytes, or -1. Thread-safe (pread). */
int64_t sb_proc_rss(const sb_proc *p);
/* Kernel high-water mark of RSS (VmHWM) in bytes, or -1. Not thread-safe:
 * it reuses p's buffer (status grows with the process's group list). */
int64_t sb_proc_hwm(sb_proc *p);
/* Reset VmHWM to the current RSS; 0 on success, -1 when unavailable. */
int sb_proc_reset_hwm(const sb_proc *p);
/* Reset VmHWM and check that it took: afterwards the mark must not stand
 * above the current RSS (plus slack for the kernel's batched per-CPU
 * counters). A kernel that accepts the write but keeps the old mark (seen
 * through some bind mounts) fails this. 0 when the reset worked. */
int sb_proc_reset_hwm_verified(sb_proc *p);
/* Why the high-water mark could not be reset here, for the run's note. */
const char *sb_proc_no_reset_reason(void);
#if defined(__linux__)
/* HugetlbPages (Linux >= 4.4) of the status text the last sb_proc_hwm
 * read, in bytes; -1 when absent. hugetlb pages are in neither RSS nor
 * VmHWM. */
int64_t sb_proc_hugetlb_last(const sb_proc *p);
/* hugetlb pages this system could hand out (HugePages_Total, or an
 * overcommit allowance); 0 when MAP_HUGETLB must fail here. */
int64_t sb_hugetlb_pages_possible(void);
/* Who reads this process's ru_maxrss when it ends, and so reads it lowered
 * by a high-water mark reset: "a SLURM step" (SLURM_JOB_ID or
 * SLURM_STEP_ID set), "GNU time" (the parent is `time`); NULL when neither. */
const char *sb_proc_maxrss_reader(void);
#endif
/* Return the allocator's free memory to the system, so that an item's
 * pages are counted even where earlier work freed as much (glibc keeps
 * freed blocks resident). 1 when some was returned. */
int sb_heap_release(void);
/* User + system CPU seconds of the whole process so far, or NaN. */
double sb_proc_cpu_seconds(void);
/* User + system CPU seconds of this process's children that ended and
 * were waited for, and the largest one's peak RSS in bytes (-1 unknown);
 * NaN where the platform does not say. */
double sb_proc_children_cpu_seconds(int64_t *largest_rss);
/* This process's id (fork detection). */
int64_t sb_self_pid(void);

/* ---- the background sampler thread: polls RSS (when the high-water mark
 * cannot be reset) and GPU memory; never calls user code or Python ---- */
typedef struct sb_sampler sb_sampler;

typedef struct sb_sampler_config {
    int64_t interval_us;
    const sb_proc *proc; /* sample RSS through it; NULL = do not */
    sb_gpu *gpu;         /* sample GPU memory; NULL = do not */
    /* Also hand each RSS sample and its sb_now() to on_rss (needs proc),
     * from the thread only, so what keeps them (the runner's timeline) is
     * read after sb_sampler_stop. NULL = nobody. */
    void (*on_rss)(void *ctx, double now, int64_t rss);
    void *on_rss_ctx;
} sb_sampler_config;

/* Start the thread (all signals blocked in it). SPACRBENCH_ETHREAD or
 * ENOMEM on failure, with nothing left behind. */
int sb_sampler_start(sb_sampler **out, const sb_sampler_config *cfg);
/* Peaks seen since the previous call, then a new window; -1 for a figure
 * not sampled in the window. */
void sb_sampler_take_window(sb_sampler *s, int64_t *rss, int64_t *vram);
/* CPU seconds the sampler thread has used so far (0 if unknown), so the
 * work's CPU time can leave it out. */
double sb_sampler_cpu_seconds(const sb_sampler *s);
/* Stop and join the thread, give the peaks of its whole life (-1 if never
 * sampled) and free it. */
void sb_sampler_stop(sb_sampler *s, int64_t *rss_peak, int64_t *vram_peak);
/* In a forked child, where the sampler thread does not exist: free the
 * memory without joining or destroying what the parent's thread uses. */
void sb_sampler_forget(sb_sampler *s);
#if !defined(_WIN32)
#include <pthread.h>
/* Start main(arg) with every signal blocked in it (signals stay with the
 * caller's threads) and init *wake, which it waits on, on the monotonic
 * clock (macOS: a plain one, waited on relatively). 0; a pthread error
 * when the thread could not start, its negative when *wake could not be
 * made (nothing is left then). */
int sb_thread_start(pthread_t *thread, pthread_cond_t *wake, void *(*main)(void *), void *arg);
#endif

/* What every platform's sampler thread does on each tick (sampler_peaks.c);
 * only the thread, its timed wait and the atomic window slots are the
 * platform's. The window slots (-1: nothing sampled in it) are touched only
 * through sb_window_raise (the thread) and sb_window_take (the runner). */
typedef struct sb_sampler_peaks {
    int64_t window_rss, window_vram;
    int64_t life_rss, life_vram; /* the thread's, read after it is joined */
} sb_sampler_peaks;

void sb_sampler_peaks_init(sb_sampler_peaks *p);
void sb_sampler_sample(const sb_sampler_config *cfg, sb_sampler_peaks *p);
void sb_sampler_peaks_take(sb_sampler_peaks *p, int64_t *rss, int64_t *vram);
/* Atomic against each other: raise *slot to value if larger; return *slot
 * and leave -1 there. */
void sb_window_raise(int64_t *slot, int64_t value);
int64_t sb_window_take(int64_t *slot);

/* ---- the samplers' cost policy (the supervisor's tree sampler and the
 * process group's PSS sampler): never more often than the floor interval,
 * and never so often that the sampler's own CPU time passes its share of
 * one core. After each sample the next waits at least (the CPU seconds
 * that turn took) / share, so a costlier sample spaces the samples out
 * instead of costing more. It keeps what was really used, for the notes:
 * a peak sampled at gaps of up to N ms may miss spikes shorter than N ms.
 * What a sample cost is the caller's to measure (sb_thread_cpu_seconds). */
#define SB_SAMPLE_BUDGET_SHARE 0.005 /* of one core: 0.5 %, the default */

/* The budget of all samplers together: SB_SAMPLE_BUDGET_SHARE, or the
 * percentage of one core SPACRBENCH_SAMPLER_BUDGET gives ("5", "5%"; above
 * 0, at most 100). */
double sb_sample_budget_whole(void);

typedef struct sb_sample_budget {
    double floor_s;   /* the shortest gap asked for */
    double share;     /* of one core this sampler may use */
    double last_at;   /* monotonic time of the last sample; < 0: a new series */
    int64_t samples;  /* taken */
    int64_t gaps;     /* measured: between two samples of one series */
    double gap_sum_s; /* their sum */
    double longest_s; /* the longest of them */
    double planned_s; /* the longest gap the budget asked for */
} sb_sample_budget;

/* share: SB_SAMPLE_BUDGET_SHARE, or a part of it for a sampler that reads
 * two things at two paces; scaled to sb_sample_budget_whole(). */
void sb_sample_budget_init(sb_sample_budget *b, double floor_s, double share);
/* The next sample starts a new series: the time until it is no gap. */
void sb_sample_budget_series(sb_sample_budget *b);
/* A sample was taken at now (sb_now) and its turn cost cpu_s CPU seconds
 * of the sampling thread: when the next one is due. */
double sb_sample_budget_next(sb_sample_budget *b, double now, double cpu_s);
/* The mean gap really used, -1 before two samples of one series. */
double sb_sample_budget_mean(const sb_sample_budget *b);
/* "212 times, every 6.2 ms on average, at most 9.8 ms apart (5 ms at
 * least, more where ...)", "1 time (...)" or "never (...)". */
void sb_sample_budget_describe(const sb_sample_budget *b, char *buf, size_t cap);
/* Spikes shorter than this (ms, rounded up) may be missed: the longest
 * gap seen or planned, at least the floor. */
double sb_sample_budget_miss_ms(const sb_sample_budget *b);

/* ---- was it the kernel's OOM killer? One decision for a serial item of
 * `spacrbench run` and every count of the scaling check ---- */
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

/* A counter that rose in the group's own cgroup is the OOM killer; without
 * a counter (old kernels) a SIGKILL we did not send with the peak at the
 * limit (within 1/16, at least 8 MiB) is too. A counter around the group
 * rose for anyone below it: only a SIGKILL we did not send makes it ours. */
int sb_oom_verdict(const sb_oom_facts *f);

/* The budget watched without a cgroup to hold it: 1 when this sample's sum
 * ends the group (a limit watched, the sum over it, no earlier sample ended
 * it: ended is that sample's sum, 0 none). */
int sb_budget_watch_over(int64_t limit, int64_t ended, int64_t sum);

/* ---- how a scaling count's group peak was measured, in one wording for
 * the library's spacrbench_group and the command's supervisor ---- */
/* "group peak: a memory cgroup of its own per count (memory.peak), exact,
 * page cache included; ..." (version 1 or 2, found: which and where). */
void sb_group_words_cgroup(char *buf, size_t cap, int version, const char *found);
/* "group peak: SUM; CAVEAT; no cgroup of its own because WHY". */
void sb_group_words_sampled(char *buf, size_t cap, const char *sum, const char *caveat,
                            const char *why);

/* ---- the library's side of a spacrbench_group, for the scaling driver
 * (process_group.c on Linux; unsupported.c elsewhere) ---- */
/* SIGKILL every process of the group. 0, or -1 when they cannot be listed. */
int sb_process_group_kill_all(spacrbench_group *g);
/* Where no cgroup can hold a limit (the group sums PSS): end the group
 * when a sample's sum passes bytes, at the sampler's pace. 0, or -1 with a
 * cgroup (set a limit). */
int sb_process_group_watch(spacrbench_group *g, int64_t bytes);
/* The sampled sum that ended the group, 0 when the watch did not. */
int64_t sb_process_group_watch_ended(spacrbench_group *g);

#if defined(__linux__)
#include <sys/types.h>

/* This thread's CPU seconds (CLOCK_THREAD_CPUTIME_ID; the monotonic clock
 * where that cannot be read): what a sample costs the budget. Wall time
 * would count the time it waited for a CPU on a busy machine. */
double sb_thread_cpu_seconds(void);

/* ---- cgroup discovery: which cgroup this process is in (v1 or v2, the
 * hierarchy that really holds the controller) and the memory and CPU
 * bounds of it and every visible ancestor. The text parsing is parse.h's;
 * this layer reads files and walks directories ---- */

/* Where discovery reads from. sb_probe_env_live() is the running system;
 * tests point the fields at recorded trees. */
typedef struct sb_probe_env {
    const char *proc_self_cgroup; /* "/proc/self/cgroup" */
    const char *mountinfo;        /* "/proc/self/mountinfo" */
    const char *meminfo;          /* "/proc/meminfo" */
    const char *prefix;           /* prepended to every mount point; "" live */
    int64_t affinity_cores;       /* > 0 replaces sched_getaffinity (tests) */
    /* Texts already read: one discovery reads /proc/self/cgroup and
     * mountinfo once, not once per controller. */
    const char *cgroup_text;
    size_t cgroup_len;
    const char *mountinfo_text;
    size_t mountinfo_len;
} sb_probe_env;

sb_probe_env sb_probe_env_live(void);

/* Read a whole file into a fresh NUL-terminated heap buffer of at most
 * limit bytes (the rest is dropped, *truncated set). 0, or -1 with errno
 * set; the caller frees *text. */
int sb_cg_read_file(const char *path, size_t limit, char **text, size_t *len, int *truncated);
/* Read a small file (a control value) into buf; 0, or -1 if it cannot be
 * read or does not fit. */
int sb_cg_read_small(const char *path, char *buf, size_t cap, size_t *len);
/* The same for DIR/FILE. */
int sb_cg_read_in(const char *dir, const char *file, char *buf, size_t cap, size_t *len);
/* Write text to DIR/FILE (a cgroup control file) in one write(): 0, or -1
 * (errno set; a short write is EIO). */
int sb_cg_write_in(const char *dir, const char *file, const char *text);

/* Locate this process's cgroup of hierarchy version (1 or 2) holding
 * controller, from env's texts (loaded): sb_locate_cgroup's SB_PARSE_*, or
 * -2 when /proc/self/cgroup lists none. No prefix applied. */
int sb_cgroup_in(const sb_probe_env *env, int version, const char *controller,
                 sb_cgroup_location *loc);

/* Call visit(dir) for the cgroup directory and each ancestor up to and
 * including the mount point; stops early when visit returns non-zero. */
void sb_cgroup_walk_up(const sb_cgroup_location *loc, int (*visit)(const char *dir, void *ctx),
                       void *ctx);

/* ---- a memory cgroup of its own for a group of processes (one measured
 * command, or the k workers of a scaling check), so their peak covers the
 * whole process tree exactly, page cache included. The group is a child of
 * THIS process's memory cgroup (v1, or v2 where the child gets
 * memory.peak), or on v2 of a cgroup delegated to this user above it
 * (group_delegate.c: what a user without root gets) ---- */
#define SB_GROUP_PATH_MAX  (SB_MOUNT_PATH_MAX + 128)
#define SB_GROUP_FOUND_MAX 400

/* Where groups are made (sb_group_choose). */
enum sb_group_place {
    SB_GROUP_OWN = 0, /* this process's own cgroup: v1, the v2 root, or memory already enabled */
    SB_GROUP_LEAF,    /* v2: its own, once its processes moved into a leaf of it */
    SB_GROUP_ABOVE,   /* v2: a cgroup above its own, delegated to this user */
    SB_GROUP_NONE     /* v2: none is usable (found says why) */
};

typedef struct sb_group {
    int version;                    /* 1 or 2 */
    int place;                      /* enum sb_group_place */
    int holds_leaf;                 /* sb_group_delegate_acquire moved this process */
    char own[SB_MOUNT_PATH_MAX];    /* this process's memory cgroup directory */
    char parent[SB_MOUNT_PATH_MAX]; /* where groups are made (own, or the one above) */
    char dir[SB_GROUP_PATH_MAX];    /* the group's cgroup; "" when none exists */
    /* One short sentence for a note: which cgroup was found and why
     * another was not usable (paths shortened, sb_group_short_path). */
    char found[SB_GROUP_FOUND_MAX];
} sb_group;

/* Find this process's memory cgroup (env NULL: the running system; the v1
 * memory hierarchy wins where it is mounted) and choose where groups go
 * for this euid. 0, or -1 with the reason in why. Changes nothing. */
int sb_group_locate(sb_group *g, const sb_probe_env *env, char *why, size_t why_cap);

/* Given g->version and g->own under the mount point mount, set g->parent,
 * g->place and g->found for process self of user uid (group_delegate.c
 * says where and why). */
void sb_group_choose(sb_group *g, const char *mount, uid_t uid, pid_t self);

/* For SB_GROUP_LEAF: move this process (and its descendants in the same
 * cgroup) into own/spacrbench-leaf-TAG-0 and enable memory in own's
 * cgroup.subtree_control, once per process (counted: every group that
 * acquired releases). Other places: nothing to do (SB_GROUP_NONE: -1, why
 * is g->found). 0, or -1 with the reason in why and everything undone. */
int sb_group_delegate_acquire(sb_group *g, char *why, size_t why_cap);
/* The last release disables memory there again (only if acquire enabled
 * it), moves the leaf's processes back and removes the leaf. */
void sb_group_delegate_release(sb_group *g);

/* path shortened for a note (".../app.slice/run-r1.scope"): at most 52
 * bytes, the trailing components kept. */
void sb_group_short_path(const char *path, char *out, size_t cap);

/* Create the child cgroup `name` under g->parent and check that it reports
 * a peak. 0, or -1 with the reason in why (nothing is left behind). */
int sb_group_create(sb_group *g, const char *name, char *why, size_t why_cap);
/* Move process pid into the group. 0 or -1 (errno set). */
int sb_group_attach(const sb_group *g, pid_t pid);
/* The group's peak memory in bytes, -1 if unreadable. */
int64_t sb_group_peak(const sb_group *g);
/* The group's charge now (v2 memory.current, v1 memory.usage_in_bytes); -1
 * unknown. */
int64_t sb_group_usage(const sb_group *g);
/* Times the kernel's OOM killer ran in the group (v2 memory.events
 * oom_kill, v1 memory.oom_control oom_kill, Linux >= 4.13); -1 unknown. */
int64_t sb_group_oom_kills(const sb_group *g);
/* The group's memory limit in bytes (-1 none or unreadable). */
int64_t sb_group_limit(const sb_group *g);
/* Give the group a memory limit (v1 memory.limit_in_bytes; v2 memory.max
 * and memory.oom.group=1), so that a group over it is OOM-killed inside,
 * never a process above it. Before processes join. 0 or -1 (errno set). */
int sb_group_set_limit(const sb_group *g, int64_t bytes);
/* SIGKILL every process in the group (v2 cgroup.kill where present).
 * The number signalled (0 for cgroup.kill), or -1. */
int sb_group_kill_all(const sb_group *g);
/* Remove the group. Processes still in it are first moved back to the
 * parent; their number is stored in *left_behind. 0 or -1 (errno set).
 * Safe to call when no group exists. */
int sb_group_remove(sb_group *g, int *left_behind);

/* The one reader of cgroup.procs: each(pid, arg) for every process listed
 * in DIR/cgroup.procs (non-zero stops early; each may be NULL to count).
 * How many were listed, -1 when the file cannot be read (errno set). */
int sb_cgroup_procs_each(const char *dir, int (*each)(pid_t pid, void *arg), void *arg);
/* The same for the group's own cgroup (g->dir; -1 when none exists). */
int sb_group_procs(const sb_group *g, int (*each)(pid_t pid, void *arg), void *arg);

/* A group left behind by a process that died without removing it (SIGKILL,
 * the OOM killer, a node reboot), found beside where new groups are made. */
typedef struct sb_stale_group {
    const char *parent; /* the directory it was found in */
    const char *name;   /* PREFIX-PID-... (letters, digits, '-' and '_' only) */
    long owner;         /* PID, which no longer runs (as its owner) */
    int processes;      /* how many are still in it (-1 unreadable): then left alone */
    int removed;        /* empty and removed */
    const char *what;   /* "empty, removed", "process(es) 12 34 still in it: left alone ..." */
} sb_stale_group;

/* This process in the names of its groups: "PID-tSTART", START when it
 * started (clock ticks since boot), so a group's owner is known by
 * identity (a reused pid is another process). 0 or -1. */
int sb_group_owner_tag(char *buf, size_t cap);
/* The same for another process (the owner of a delegated leaf). */
int sb_group_owner_tag_of(pid_t pid, char *buf, size_t cap);

/* Look in g->parent for groups named PREFIX-PID-tSTART-... (or, from an
 * older version, PREFIX-PID-...) whose owner no longer runs (no process
 * PID, a zombie, or one that started at another time); its program's name
 * is not looked at. Remove the EMPTY ones and leave those still holding
 * processes alone (never killed: nobody can know what they are doing
 * now); found (may be NULL) hears about each. Groups of this process are
 * not touched. How many were found, -1 when g->parent cannot be listed. */
int sb_group_clean_stale(const sb_group *g, const char *prefix,
                         void (*found)(void *arg, const sb_stale_group *stale), void *arg);

/* ---- the processes of one tree, read from the tree itself: the children
 * of each process from /proc/PID/task/TID/children (Linux >= 3.5 with
 * CONFIG_PROC_CHILDREN), so a sample costs in proportion to the tree,
 * never to the machine (a login node runs thousands of processes); where
 * the kernel has no children files, one scan of every /proc/PID/stat ---- */

/* More descendants than this are not listed (a fork bomb stays bounded). */
#define SB_PROC_TREE_MAX 16384

typedef struct sb_pid_list {
    pid_t *pid;
    size_t n, cap;
} sb_pid_list;

/* Non-zero: leave pid, and everything below it, out. */
typedef int (*sb_pid_skip)(pid_t pid, const void *arg);

/* Replace out's contents with the descendants of roots[0..n) (not the
 * roots themselves), each once, those skip() refuses and their subtrees
 * left out (skip may be NULL). proc_root is "/proc" (tests may point
 * elsewhere). 0, or -1 when /proc cannot be read or memory runs out. */
int sb_proc_tree_descendants(const char *proc_root, const pid_t *roots, size_t n, sb_pid_skip skip,
                             const void *arg, sb_pid_list *out);
/* The state letter of /proc/PID/stat ('R', 'S', 'Z', ...), 0 when gone. */
char sb_proc_state(const char *proc_root, pid_t pid);
/* From ROOT/PID/stat: the state letter, the parent's pid and when it
 * started (clock ticks since boot; each may be NULL). 0, or -1 gone. */
int sb_proc_stat(const char *proc_root, pid_t pid, char *state, pid_t *ppid,
                 unsigned long long *start);
/* Append pid: 0, or -1 out of memory. */
int sb_pid_list_add(sb_pid_list *l, pid_t pid);
void sb_pid_list_free(sb_pid_list *l);

/* ---- the PSS of a process tree at a cheap pace. PSS (smaps_rollup) is
 * the figure for forked workers (RSS counts their shared copy-on-write
 * pages once per worker), but smaps_rollup walks every page table (about
 * 17 us per MiB) while statm costs about 1.5 us whatever the size. So each
 * process's shared part (Rss - Pss) is read from smaps_rollup when it is
 * first seen and then on a slower, budgeted pace, and every sample in
 * between reads only statm: PSS now = statm's RSS now - the shared part.
 * Only a change of sharing waits for the next smaps_rollup; a process
 * whose RSS fell below its shared part (an exec) is read again at once.
 * spacrbench_group's sampler without a cgroup ---- */
typedef struct sb_pss_member {
    pid_t pid;
    int64_t shared_bytes; /* Rss - Pss at its last smaps_rollup */
} sb_pss_member;

typedef struct sb_pss_tracker {
    const char *proc_root;
    sb_pss_member *m; /* the members of the last sample */
    size_t n, cap;
    sb_sample_budget refresh; /* the smaps_rollup pace */
    double refresh_due;       /* monotonic time of the next full read */
    double last_refresh_cpu;  /* CPU seconds the last sample spent in smaps_rollup */
    double debt_cpu;          /* ... and those since the last full read */
    int64_t smaps_reads;      /* how many smaps_rollup files were read */
    long page_size;
} sb_pss_tracker;

/* refresh_floor_s: the shortest gap between two full reads; share: the
 * part of a core they may take. */
void sb_pss_tracker_init(sb_pss_tracker *t, double refresh_floor_s, double share);
void sb_pss_tracker_free(sb_pss_tracker *t);
/* The PSS summed over roots[0..n) and their descendants at time now; the
 * full reads where due (paced 0: only those of new processes). -1 when
 * nothing could be listed. */
int64_t sb_pss_tracker_sample(sb_pss_tracker *t, const pid_t *roots, size_t n, double now,
                              int paced);
#endif

#endif
