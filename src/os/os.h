/* The contract of os/: the machine probe, this process, the sampler, the
 * sampling budget, the OOM verdict; on Linux cgroups, process groups and
 * trees. One implementation per platform (posix/: Linux and macOS). */
#ifndef SPACRBENCH_OS_H
#define SPACRBENCH_OS_H

#include <stddef.h>
#include <stdint.h>

#include "gpu.h"
#include "spacrbench.h"
#include "util.h"

/* So a Windows or macOS report does not speak of /proc. */
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

/* ---- the machine probe, raw (core/discover.c reads it) ---- */
struct sb_probe_env; /* NULL: the running system */

#define SB_PROBE_PATH_MAX 1024

typedef struct sb_probe {
    int64_t host_available_bytes;  /* MemAvailable; -1 if unreadable */
    int64_t affinity_cores;        /* CPUs we may run on; -1 if unknown */
    int32_t affinity_source;       /* where that count came from; UNKNOWN = AFFINITY */
    int32_t memory_source;         /* UNKNOWN when there is none */
    int64_t memory_headroom_bytes; /* -1 if none */
    int64_t memory_limit_bytes;    /* -1 if none */
    char memory_dir[SB_PROBE_PATH_MAX];
    int32_t quota_source; /* UNKNOWN when there is none */
    double quota_cores;   /* quota / period; -1 if none */
    char quota_dir[SB_PROBE_PATH_MAX];
    int32_t cpuset_source; /* UNKNOWN when there is none */
    int64_t cpuset_cores;  /* -1 if unknown */
    char cpuset_dir[SB_PROBE_PATH_MAX];
} sb_probe;

void sb_probe_machine(const struct sb_probe_env *env, sb_probe *out);

#if defined(_WIN32)
/* The Windows probe's pure rules, testable with any job's figures. Job
 * memory headroom = JobMemoryLimit - committed (-1 unknown: the peak
 * stands in, which can only understate it); a per-process limit does not
 * bound the workers together. */
struct _JOBOBJECT_EXTENDED_LIMIT_INFORMATION;
struct _JOBOBJECT_CPU_RATE_CONTROL_INFORMATION;
void sb_win_job_memory(const struct _JOBOBJECT_EXTENDED_LIMIT_INFORMATION *info,
                       int64_t job_committed_bytes, sb_probe *out);
/* Cores a hard CPU rate cap allows; -1 when none. */
double sb_win_job_cpu_rate_cores(const struct _JOBOBJECT_CPU_RATE_CONTROL_INFORMATION *info,
                                 int64_t all_processors);
int64_t sb_win_mask_cores(uint64_t mask);
#endif

/* ---- this process: memory and CPU time ---- */
typedef struct sb_proc {
#if defined(__linux__)
    int statm_fd;      /* /proc/self/statm, for current RSS */
    int status_fd;     /* /proc/self/status, for VmHWM */
    int clear_refs_fd; /* /proc/self/clear_refs, -1 when not writable */
    int64_t page_size;
    char *status_buf; /* grows to hold /proc/self/status (runner thread only) */
    size_t status_cap;
#elif defined(_WIN32)
    /* The working set's peak cannot be reset: the runner samples. */
    void *process; /* GetCurrentProcess(): nothing to close */
#elif defined(__APPLE__)
    int has_ledger_peak; /* TASK_VM_INFO rev3, else proc_pid_rusage */
#endif
} sb_proc;

/* SPACRBENCH_ESYSTEM without statm/status; clear_refs is optional
 * (gVisor and hardened kernels lack it). */
int sb_proc_open(sb_proc *p, int want_hwm_reset);
void sb_proc_close(sb_proc *p);
/* Bytes or -1. rss is thread-safe; hwm reuses p's buffer. */
int64_t sb_proc_rss(const sb_proc *p);
int64_t sb_proc_hwm(sb_proc *p);
int sb_proc_reset_hwm(const sb_proc *p);
/* 0 when the mark really fell to about the RSS: some kernels accept the
 * write and keep the old mark (seen through bind mounts). */
int sb_proc_reset_hwm_verified(sb_proc *p);
const char *sb_proc_no_reset_reason(void);
#if defined(__linux__)
/* HugetlbPages of the last sb_proc_hwm read (in neither RSS nor VmHWM);
 * -1 absent. */
int64_t sb_proc_hugetlb_last(const sb_proc *p);
/* 0 when MAP_HUGETLB must fail here. */
int64_t sb_hugetlb_pages_possible(void);
/* Who would read our ru_maxrss lowered by a mark reset: "a SLURM step",
 * "GNU time" or NULL. */
const char *sb_proc_maxrss_reader(void);
#endif
/* Return freed heap to the system (glibc keeps it resident), so an item's
 * pages are counted. 1 when some was returned. */
int sb_heap_release(void);
double sb_proc_cpu_seconds(void);
/* Of the waited-for children; *largest_rss -1 unknown. NaN unknown. */
double sb_proc_children_cpu_seconds(int64_t *largest_rss);
int64_t sb_self_pid(void);

/* ---- the sampler thread: RSS (when the mark cannot be reset) and GPU
 * memory; never calls user code ---- */
typedef struct sb_sampler sb_sampler;

typedef struct sb_sampler_config {
    int64_t interval_us;
    const sb_proc *proc; /* sample RSS through it; NULL = do not */
    sb_gpu *gpu;         /* sample GPU memory; NULL = do not */
    /* Each RSS sample, from the thread: read after sb_sampler_stop. */
    void (*on_rss)(void *ctx, double now, int64_t rss);
    void *on_rss_ctx;
} sb_sampler_config;

/* SPACRBENCH_ETHREAD or ENOMEM with nothing left behind. */
int sb_sampler_start(sb_sampler **out, const sb_sampler_config *cfg);
/* Peaks since the last call (-1: not sampled), then a new window. */
void sb_sampler_take_window(sb_sampler *s, int64_t *rss, int64_t *vram);
/* The thread's CPU seconds (0 unknown), left out of the work's. */
double sb_sampler_cpu_seconds(const sb_sampler *s);
/* Join, give the lifetime peaks (-1 never sampled) and free. */
void sb_sampler_stop(sb_sampler *s, int64_t *rss_peak, int64_t *vram_peak);
/* In a forked child (no thread there): free the memory only. */
void sb_sampler_forget(sb_sampler *s);
#if !defined(_WIN32)
#include <pthread.h>
/* Start main(arg), every signal blocked in it, and init *wake on the
 * monotonic clock (macOS: relative waits). 0, a pthread error, or its
 * negative when *wake could not be made (nothing left). */
int sb_thread_start(pthread_t *thread, pthread_cond_t *wake, void *(*main)(void *), void *arg);
#endif

/* Every platform's tick; window slots (-1: none) only through
 * sb_window_raise (thread) and sb_window_take (runner). */
typedef struct sb_sampler_peaks {
    int64_t window_rss, window_vram;
    int64_t life_rss, life_vram; /* the thread's, read after it is joined */
} sb_sampler_peaks;

void sb_sampler_peaks_init(sb_sampler_peaks *p);
void sb_sampler_sample(const sb_sampler_config *cfg, sb_sampler_peaks *p);
void sb_sampler_peaks_take(sb_sampler_peaks *p, int64_t *rss, int64_t *vram);
void sb_window_raise(int64_t *slot, int64_t value);
int64_t sb_window_take(int64_t *slot);

/* ---- the sampling budget: a sampler waits at least the floor, and after
 * a sample at least its CPU cost / share, so a costlier sample spaces the
 * samples out instead of costing more than its share of one core. The
 * gaps really used say which spikes may be missed ---- */
#define SB_SAMPLE_BUDGET_SHARE 0.005 /* of one core: 0.5 %, the default */

/* All samplers': the default, or SPACRBENCH_SAMPLER_BUDGET ("5", "5%",
 * (0, 100]). */
double sb_sample_budget_whole(void);

typedef struct sb_sample_budget {
    double floor_s, share; /* the shortest gap; of one core */
    double last_at;        /* the last sample; < 0: a new series */
    int64_t samples, gaps; /* gaps: within one series */
    double gap_sum_s, longest_s, planned_s;
} sb_sample_budget;

/* share: a part of SB_SAMPLE_BUDGET_SHARE, scaled to the whole. */
void sb_sample_budget_init(sb_sample_budget *b, double floor_s, double share);
/* The time until the next sample is no gap. */
void sb_sample_budget_series(sb_sample_budget *b);
/* A sample at now cost cpu_s: when the next is due. */
double sb_sample_budget_next(sb_sample_budget *b, double now, double cpu_s);
double sb_sample_budget_mean(const sb_sample_budget *b);
/* "212 times, every 6.2 ms on average, at most 9.8 ms apart (...)". */
void sb_sample_budget_describe(const sb_sample_budget *b, char *buf, size_t cap);
/* Spikes shorter than this (ms) may be missed. */
double sb_sample_budget_miss_ms(const sb_sample_budget *b);

/* ---- was it the kernel's OOM killer? (run and the scaling check) ---- */
typedef struct sb_oom_facts {
    int64_t oom_kills; /* the group's cgroup's, or outside's rise; -1 unknown (< 4.13) */
    int outside;       /* the counter is a cgroup's around the group */
    int sigkilled;     /* a process of the group died of SIGKILL */
    int ours;          /* we sent it (a timeout, a stop's grace) */
    int64_t peak;      /* the group's peak, -1 unknown */
    int64_t limit;     /* the memory limit it ran under, -1 none */
} sb_oom_facts;

enum { SB_OOM_NO = 0, SB_OOM_IN_GROUP = 1, SB_OOM_AROUND = 2 /* from outside the group */ };

/* Without a counter (old kernels) a SIGKILL we did not send with the peak
 * within 1/16 (>= 8 MiB) of the limit counts; a counter around the group
 * counts only with such a SIGKILL (it rose for anyone below it). */
int sb_oom_verdict(const sb_oom_facts *f);

/* Without a cgroup to hold the limit: 1 when sum ends the group (ended:
 * the sum that ended it earlier, 0 none). */
int sb_budget_watch_over(int64_t limit, int64_t ended, int64_t sum);

void sb_group_words_cgroup(char *buf, size_t cap, int version, const char *found);
void sb_group_words_sampled(char *buf, size_t cap, const char *sum, const char *caveat,
                            const char *why);

/* ---- spacrbench_group's internals (unsupported.c off Linux) ---- */
/* 0, or -1 when the processes cannot be listed. */
int sb_process_group_kill_all(spacrbench_group *g);
/* Without a cgroup: end the group when a sample's PSS sum passes bytes.
 * -1 with a cgroup (set a limit). */
int sb_process_group_watch(spacrbench_group *g, int64_t bytes);
int64_t sb_process_group_watch_ended(spacrbench_group *g);

#if defined(__linux__)
#include <sys/types.h>

/* What a sample costs the budget (wall time would count waiting for a
 * CPU on a busy machine); the monotonic clock where unreadable. */
double sb_thread_cpu_seconds(void);

/* ---- cgroup discovery (parsing is util.h's); tests point the env at
 * recorded trees ---- */
typedef struct sb_probe_env {
    const char *proc_self_cgroup; /* "/proc/self/cgroup" */
    const char *mountinfo;        /* "/proc/self/mountinfo" */
    const char *meminfo;          /* "/proc/meminfo" */
    const char *prefix;           /* prepended to every mount point; "" live */
    int64_t affinity_cores;       /* > 0 replaces sched_getaffinity (tests) */
    /* Read once per discovery, not once per controller. */
    const char *cgroup_text;
    size_t cgroup_len;
    const char *mountinfo_text;
    size_t mountinfo_len;
} sb_probe_env;

sb_probe_env sb_probe_env_live(void);

/* A whole file, NUL-terminated, cut at limit (*truncated). 0, or -1 with
 * errno; the caller frees *text. */
int sb_cg_read_file(const char *path, size_t limit, char **text, size_t *len, int *truncated);
/* A control value into buf (len may be NULL): 0, or -1 unreadable or too
 * long. */
int sb_cg_read_small(const char *path, char *buf, size_t cap, size_t *len);
int sb_cg_read_in(const char *dir, const char *file, char *buf, size_t cap, size_t *len);
/* One write(): 0, or -1 (errno; short: EIO). */
int sb_cg_write_in(const char *dir, const char *file, const char *text);
int sb_cg_move(const char *dir, pid_t pid);
/* The reason into why: -1, for `return sb_why(...)`. */
int sb_why(char *why, size_t cap, const char *fmt, ...) SB_TEXT_PRINTF(3, 4);

/* From env's loaded texts: sb_locate_cgroup's SB_PARSE_*, or -2 when
 * /proc/self/cgroup lists none. No prefix applied. */
int sb_cgroup_in(const sb_probe_env *env, int version, const char *controller,
                 sb_cgroup_location *loc);

/* visit(dir) up to the mount point, until it returns non-zero. */
void sb_cgroup_walk_up(const sb_cgroup_location *loc, int (*visit)(const char *dir, void *ctx),
                       void *ctx);
/* dir's parent, in place; 0 once dir is the mount point. */
int sb_cgroup_up(char *dir, const char *mount);

/* ---- a memory cgroup of its own for a group of processes, so its peak
 * covers the whole tree exactly, page cache included: a child of this
 * process's cgroup, or on v2 of one delegated to this user above it ---- */
#define SB_GROUP_PATH_MAX  (SB_MOUNT_PATH_MAX + 128)
#define SB_GROUP_FOUND_MAX 400

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
    /* For a note: which cgroup was found, why another was not usable. */
    char found[SB_GROUP_FOUND_MAX];
} sb_group;

/* Find this process's memory cgroup (v1 wins where mounted) and choose
 * where groups go. 0, or -1 with why. Changes nothing. */
int sb_group_locate(sb_group *g, const sb_probe_env *env, char *why, size_t why_cap);

/* Set g->parent, place and found from g->version and g->own. */
void sb_group_choose(sb_group *g, const char *mount, uid_t uid, pid_t self);

/* SB_GROUP_LEAF: move this process's cgroup into own/spacrbench-leaf-TAG-0
 * and enable memory in own's subtree_control, once per process (counted).
 * 0, or -1 with why and everything undone (SB_GROUP_NONE: always). */
int sb_group_delegate_acquire(sb_group *g, char *why, size_t why_cap);
/* The last release undoes what acquire did. */
void sb_group_delegate_release(sb_group *g);

/* ".../app.slice/run-r1.scope": at most 52 bytes. */
void sb_group_short_path(const char *path, char *out, size_t cap);

/* Create g->parent/name, check it reports a peak: 0, or -1 with why. */
int sb_group_create(sb_group *g, const char *name, char *why, size_t why_cap);
int sb_group_attach(const sb_group *g, pid_t pid);
/* Bytes, -1 unknown or none. */
int64_t sb_group_peak(const sb_group *g);
int64_t sb_group_usage(const sb_group *g);
/* Linux >= 4.13; -1 unknown. */
int64_t sb_group_oom_kills(const sb_group *g);
int64_t sb_group_limit(const sb_group *g);
/* Before processes join, so a group over it is OOM-killed inside (v2:
 * memory.oom.group), never a process above it. */
int sb_group_set_limit(const sb_group *g, int64_t bytes);
/* The number signalled (0 by cgroup.kill), or -1. */
int sb_group_kill_all(const sb_group *g);
/* Processes still in it move to the parent (*left_behind). Safe without
 * a group. */
int sb_group_remove(sb_group *g, int *left_behind);

/* each(pid) for DIR/cgroup.procs until non-zero (NULL: count). How many,
 * -1 unreadable. */
int sb_cgroup_procs_each(const char *dir, int (*each)(pid_t pid, void *arg), void *arg);
int sb_group_procs(const sb_group *g, int (*each)(pid_t pid, void *arg), void *arg);

/* A group whose owner died without removing it (SIGKILL, OOM, reboot). */
typedef struct sb_stale_group {
    const char *parent; /* the directory it was found in */
    const char *name;   /* PREFIX-PID-... (letters, digits, '-' and '_' only) */
    long owner;         /* PID, which no longer runs (as its owner) */
    int processes;      /* how many are still in it (-1 unreadable): then left alone */
    int removed;        /* empty and removed */
    const char *what;   /* "empty, removed", "process(es) 12 34 still in it: ..." */
} sb_stale_group;

/* "PID-tSTART" (START in clock ticks since boot): a reused pid is
 * another owner. 0 or -1. */
int sb_group_owner_tag(char *buf, size_t cap);
int sb_group_owner_tag_of(pid_t pid, char *buf, size_t cap);

/* Groups PREFIX-PID-tSTART-... (older: PREFIX-PID-...) in g->parent whose
 * owner no longer runs: the empty ones are removed, the others left alone
 * (nobody knows what they do now). How many, -1 unlistable. */
int sb_group_clean_stale(const sb_group *g, const char *prefix,
                         void (*found)(void *arg, const sb_stale_group *stale), void *arg);

/* ---- a process tree from the children files, so a sample costs in
 * proportion to the tree, not the machine (login nodes run thousands);
 * without them one scan of every /proc/PID/stat ---- */
/* A fork bomb stays bounded. */
#define SB_PROC_TREE_MAX 16384

typedef struct sb_pid_list {
    pid_t *pid;
    size_t n, cap;
} sb_pid_list;

typedef int (*sb_pid_skip)(pid_t pid, const void *arg);

/* out = the descendants of roots, each once, skip()'s subtrees left out.
 * 0, or -1 (/proc unreadable, no memory). */
int sb_proc_tree_descendants(const char *proc_root, const pid_t *roots, size_t n, sb_pid_skip skip,
                             const void *arg, sb_pid_list *out);
/* From ROOT/PID/stat; 0 or -1 when gone. */
char sb_proc_state(const char *proc_root, pid_t pid);
int sb_proc_stat(const char *proc_root, pid_t pid, char *state, pid_t *ppid,
                 unsigned long long *start);
int sb_pid_list_add(sb_pid_list *l, pid_t pid);
void sb_pid_list_free(sb_pid_list *l);

/* ---- PSS of a tree, cheaply: smaps_rollup walks every page table (about
 * 17 us/MiB), statm costs 1.5 us. So the shared part (Rss - Pss) comes
 * from smaps_rollup when a process is first seen and then at a budgeted
 * pace, and PSS = statm's RSS - shared between (an RSS below it: read
 * again at once) ---- */
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

void sb_pss_tracker_init(sb_pss_tracker *t, double refresh_floor_s, double share);
void sb_pss_tracker_free(sb_pss_tracker *t);
/* The PSS of roots and descendants (paced 0: full reads only for new
 * processes). -1 when nothing could be listed. */
int64_t sb_pss_tracker_sample(sb_pss_tracker *t, const pid_t *roots, size_t n, double now,
                              int paced);
#endif

#endif
