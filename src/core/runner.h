/* The serial run's state and the steps around the timed loop (runner.c):
 * opening probes and the sampler, per-item windows, the peak method and
 * its notes (runner_probes.c), and the VRAM figures (runner_vram.c). Not
 * installed. */
#ifndef SPACRBENCH_RUNNER_H
#define SPACRBENCH_RUNNER_H

#include "gpu.h"
#include "measurement.h"
#include "proc.h"
#include "sampler.h"

/* Everything one run holds, so that every exit path releases the same way. */
typedef struct sb_run {
    spacrbench_options opt;
    sb_proc proc;
    int proc_open;
    sb_gpu *gpu;
    sb_sampler *sampler;
    spacrbench_measurement *m;
    int exact;            /* the high-water mark was reset: per-window peaks are exact */
    int hwm_lost;         /* the mark could not be read back at some item */
    int64_t hugetlb_peak; /* largest HugetlbPages seen (not in VmHWM); 0 none */
    char gpu_why[256];
    int64_t first_vram;   /* the sample taken before the first item */
    int64_t h0;           /* VmHWM before the first item when it cannot be reset */
    double children_cpu0; /* the ended children's CPU before the first item; NaN */
    int64_t pid;          /* the process that started the run (fork detection) */
    int stream;           /* spacrbench_benchmark_stream: the count is found by running */
} sb_run;

/* Stream mode (runner_stream.c): the count is known only when the work
 * says SPACRBENCH_ITEMS_END, so the loop keeps where each call began and,
 * for a warm-up item, what a late clamp needs to make it the measured one. */
typedef struct sb_stream_marks {
    int ended;               /* the work said SPACRBENCH_ITEMS_END */
    double t_call, cpu_call; /* when the latest call began */
    double t_last, cpu_last; /* when the latest warm-up item began */
    double sampler_cpu_last; /* the sampler's CPU then */
    double progress_seconds; /* the progress function after it */
    double progress_cpu;
} sb_stream_marks;

/* The warm-up as asked (clamped only when the items end). */
void sb_stream_begin(sb_run *st);
/* Before item i: room for its record (ENOMEM) and the call's start. */
int sb_stream_item_start(sb_run *st, sb_stream_marks *marks, size_t i);
/* After the run's own arrays grew between items (rss_before: RSS read just
 * before): the resident growth joins the baseline, as a counted run's
 * records do (committed before it), so it is never the work's footprint. */
void sb_stream_grown(sb_run *st, int64_t rss_before);
/* The items ended after n <= warm-up of them: the last is measured. */
void sb_stream_clamp_late(sb_run *st, size_t n);

/* The run lock (run_lock.c). frame: an address in the caller's stack
 * frame. 0 (and *took_over set when an abandoned run of this thread was
 * released first), or SPACRBENCH_EBUSY. */
int sb_run_lock_acquire(const void *frame, int *took_over);
/* The state a later call releases if this run is abandoned. */
void sb_run_lock_publish(sb_run *st);
void sb_run_lock_release(void);

/* Open probes and start the sampler when it has something to do. */
int sb_run_prepare(sb_run *st);
/* Stop the sampler, close probes, free an unfinished measurement. */
void sb_run_release(sb_run *st);
/* In a forked child that returned from the work: drop the parent's run
 * without joining its thread (it does not exist here) or touching NVML. */
void sb_run_forget_in_child(sb_run *st);
/* Start an item's window; returns the RSS before it (or -1 when exact). */
int64_t sb_run_item_begin(sb_run *st);
/* Peak RSS of the item that just ended, and its VRAM (-1 unknown). */
int64_t sb_run_item_end(sb_run *st, int64_t rss_before, int64_t *vram);
/* The run's peak from the item peaks (-1 when untracked) and what the
 * sampler saw; sets the peak method and writes its notes. */
void sb_run_finish_peak(sb_run *st, int tracked, int64_t item_peak, int64_t sampled_rss);
/* The memory timeline (runner_timeline.c): an item's boundaries and
 * exact peak on it (never allocates: the room was reserved; in stream mode
 * it grows between items, ENOMEM when it cannot), and the note
 * that says a long run was downsampled. */
int sb_run_start_timeline(sb_run *st, struct sb_timeline **out);
int sb_run_mark_item(sb_run *st, int64_t index, int warm, double t0, double t1, int64_t peak);
int sb_run_finish_timeline(sb_run *st);
/* VRAM figures, GPUs and notes (or why VRAM was not measured). */
int sb_run_finish_vram(sb_run *st, int64_t sampled_vram);

#endif
