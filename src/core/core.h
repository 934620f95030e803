/* The core's contract: the serial run, the measurement behind
 * spacrbench_measurement (built, read back from JSON, its plate section),
 * the memory timeline, machine discovery and the worker-count rule. Not
 * installed. */
#ifndef SPACRBENCH_CORE_H
#define SPACRBENCH_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "gpu.h"
#include "internal.h"
#include "os.h"
#include "record.h"
#include "spacrbench.h"

static inline int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* A public function's first step: clear the error, refuse bad arguments. */
#define SB_REFUSE(bad, msg)                                                                        \
    do {                                                                                           \
        sb_clear_error();                                                                          \
        if (bad)                                                                                   \
            return sb_fail(SPACRBENCH_EINVAL, msg);                                                \
    } while (0)

/* Discovery: available = min(host, container headroom), never negative, 0
 * when neither is known; cores = min(affinity, cpuset, ceil(quota)), >= 1;
 * ties go to the host / the affinity mask. Probe env (NULL: this system). */
void sb_machine_from_probe(const sb_probe *probe, spacrbench_machine *out);
void sb_discover_with(const struct sb_probe_env *env, spacrbench_machine *out);

/* The memory timeline: sampled RSS (and a command's cgroup usage) in a
 * buffer of fixed size. When it fills, neighbouring points merge in pairs
 * (each keeps the higher sample) and later points stand for twice as many
 * samples, so any run fits in SPACRBENCH_TIMELINE_MAX_POINTS points and no
 * spike is flattened. The sampler thread writes the points, the runner the
 * items; both are read only after the sampler is joined. */
typedef struct sb_timeline_sample {
    double seconds; /* since the timeline's origin */
    int64_t rss_bytes;
    int64_t cgroup_bytes;
    double cpu_seconds; /* the watched work's CPU since the origin; NaN none */
} sb_timeline_sample;

typedef struct sb_timeline {
    double origin;       /* sb_now() at creation: time 0 */
    double cpu_origin;   /* sb_proc_cpu_seconds() then: the runner's CPU 0 */
    int64_t interval_us; /* the sampling period */
    int64_t samples;     /* samples taken (or, for a copy, as the source said) */
    int64_t stride;      /* samples per full point */
    sb_timeline_sample *points;
    size_t count;               /* full points; always < SPACRBENCH_TIMELINE_MAX_POINTS */
    sb_timeline_sample pending; /* the point being filled */
    int64_t pending_n;          /* samples in it */
    spacrbench_timeline_item *items;
    size_t item_count, item_cap;
} sb_timeline;

/* Point memory and room for n_items written now, before a run's baseline. */
sb_timeline *sb_timeline_new(int64_t interval_us, size_t n_items);
void sb_timeline_free(sb_timeline *tl);
/* A sample without a CPU figure through the downsampler (no allocation). */
void sb_timeline_sample_add(sb_timeline *tl, double seconds, int64_t rss, int64_t cgroup);
/* A sampler's on_rss: an RSS sample at sb_now() `now`, with our CPU. */
void sb_timeline_on_rss(void *ctx, double now, int64_t rss);
/* An item mark (ENOMEM past the reserved room if it cannot grow). */
int sb_timeline_item_add(sb_timeline *tl, const spacrbench_timeline_item *item);
/* Points as shown: the full ones and a partly filled last one. */
size_t sb_timeline_count(const sb_timeline *tl);
sb_timeline_sample sb_timeline_point(const sb_timeline *tl, size_t index);
/* The item; a NaN peak time becomes its highest point's, else its end. */
spacrbench_timeline_item sb_timeline_item(const sb_timeline *tl, size_t index);

/* spaCR's words when no CUDA device could be used: the reason is "no CUDA
 * device: <why>"; the report keeps "not measured (no CUDA device)" first. */
#define SB_WORDS_NO_CUDA "no CUDA device"

/* What a record holds beyond spacrbench_item_record (measurement_items.c):
 * its two memory figures and the timed runs it summarises. */
typedef struct sb_item_extra {
    int64_t charge;            /* cgroup charge peak, -1 none */
    int64_t tree_rss;          /* the process tree's RSS peak, -1 none */
    spacrbench_item_run *runs; /* NULL: the record is its one run */
    size_t run_count;
} sb_item_extra;

struct spacrbench_measurement {
    spacrbench_figures fig; /* the *_count fields are filled on read */
    char **notes;
    size_t note_count, note_cap;
    spacrbench_item_record *records;
    size_t record_count, record_cap;
    spacrbench_gpu_info *gpus;
    size_t gpu_count, gpu_cap;
    char *vram_reason; /* why VRAM was not measured, for the report; NULL: none */
    char **labels;     /* of the first label_count records, read back from JSON */
    size_t label_count;

    struct sb_timeline *timeline; /* memory over time; NULL: none */
    double *item_cpu;             /* per record, NaN unknown; NULL: none known */
    size_t item_cpu_cap;
    sb_item_extra *extras; /* per record; NULL: none set */
    size_t extra_cap;
    /* The builder's state (spacrbench_measurement_begin .. _end). */
    int building;             /* begun and not yet ended */
    int keep_records;         /* the plan asked for a record per item */
    int cpu_unknown;          /* a measured item had no CPU figure */
    size_t plan_items;        /* items planned, warm-up included */
    size_t warmup;            /* requested warm-up */
    size_t clamped;           /* warm-up after the clamp: the last item is measured */
    size_t added;             /* items added so far */
    int64_t item_peak;        /* largest item peak so far, -1 none */
    int64_t item_vram;        /* largest item VRAM so far, -1 none */
    int32_t plan_vram_source; /* where the items' VRAM came from */
    size_t spacr_notes;       /* notes up to here are spaCR's own words (the warm-up) */
    int hugetlb_uncovered;    /* hugetlb pages could escape the peak: never "exact" */

    struct sb_measured_plate *plate; /* the plate section (measurement_plate.c); NULL: none */
    /* A plate's hand-off: its peak (its slowest item) is a prediction of
     * an item not measured, not a measurement. */
    int peak_predicted, slowest_predicted;
};

typedef struct sb_measured_plate {
    spacrbench_plate_section info;
    spacrbench_plate_pick *picks; /* one per record, in order; their figures unused */
    size_t pick_count, pick_cap;
    char **notes;
    size_t note_count, note_cap;
} sb_measured_plate;
void sb_measured_plate_free(sb_measured_plate *p);
/* A plate's hand-off says which of its figures are predicted: "predicted"
 * or "measured" (its peak), "predicted " or "" (before "slowest item"). */
const char *sb_measurement_peak_word(const spacrbench_measurement *m);
const char *sb_measurement_slowest_word(const spacrbench_measurement *m);
/* A copy of m for a plate's hand-off: its peak largest bytes above m's
 * baseline (when more than m's own), one more record of `slowest` seconds
 * (when finite); largest_measured: the plate's largest item was itself
 * measured (its texts then say "measured", else "predicted"). */
int sb_plate_handoff_of(const spacrbench_measurement *m, int64_t largest, int largest_measured,
                        double slowest, spacrbench_measurement **out);
/* Whether any record has a memory figure, keeps runs. */
int sb_measurement_has_memory_figures(const spacrbench_measurement *m);
int sb_measurement_has_runs(const spacrbench_measurement *m);
/* What the JSON, CSV and Markdown write of record i beyond its struct
 * (records.h: label, CPU, memory figures, the spread of its runs), and of
 * the measurement beyond its figures. */
struct sb_item_more;
struct sb_measurement_more;
void sb_measurement_item_more(const spacrbench_measurement *m, size_t i, const char *label,
                              struct sb_item_more *out);
void sb_measurement_more_of(const spacrbench_measurement *m, struct sb_measurement_more *out);
void sb_measurement_free_extras(spacrbench_measurement *m);

/* An empty measurement with "not measured" sentinels. */
spacrbench_measurement *sb_measurement_new(void);
/* Room for n records, committed (touched) now: a run's record memory is
 * part of the baseline, never of the work's footprint. */
int sb_measurement_commit_records(spacrbench_measurement *m, size_t n);
/* For a runner that times the measured window as a whole (no per-item
 * calls): the builder's item counts after done_items items ran. */
void sb_measurement_count_items(spacrbench_measurement *m, size_t done_items);
int sb_measurement_vram_reason(spacrbench_measurement *m, const char *reason);
/* VRAM turned out not to be measured after all: the run's figure and
 * every record's become -1 (the caller gives the reason). */
void sb_measurement_drop_vram(spacrbench_measurement *m);
/* Append a formatted note (spacr_notef: in spaCR's words, measurement.c). */
int sb_measurement_notef(spacrbench_measurement *m, const char *fmt, ...) SB_PRINTF(2, 3);
int sb_measurement_spacr_notef(spacrbench_measurement *m, const char *fmt, ...) SB_PRINTF(2, 3);

/* The rule with one worker's need given (need: the memory footprint one
 * worker needs, -1 none; m's work_rss_bytes for spacrbench_recommend_on,
 * the plate's predicted largest for spacrbench_plate_recommend) into r, a
 * whole struct of this library's size. 0 or a negative code. */
int sb_recommend_into(const spacrbench_measurement *m, const spacrbench_recommend_options *opts,
                      const spacrbench_machine *machine, int64_t need,
                      spacrbench_recommendation *r);
/* The workers r's need allows in budget bytes of memory given by the
 * caller, after the reserve --available's budget keeps (the caller's own,
 * else the host's 2 GiB): the report's what-if line. -1 when r has no
 * need or budget is not > 0. */
int64_t sb_memory_workers_within(const spacrbench_recommendation *r, int64_t budget);
/* Append to the text in buf (cap bytes); a reason never overflows its
 * field, a long one is cut. */
void sb_appendf(char *buf, size_t cap, const char *fmt, ...) SB_PRINTF(3, 4);
#define sb_reason_add(r, ...) sb_appendf((r)->reason, sizeof(r)->reason, __VA_ARGS__)

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

/* Open probes and start the sampler when it has something to do; stop
 * it, close them and free an unfinished measurement. in_child: a forked
 * child that returned from the work drops the parent's run without joining
 * its thread (it does not exist here) or touching NVML. */
int sb_run_prepare(sb_run *st);
void sb_run_release(sb_run *st, int in_child);
/* An item's window: the RSS before it (-1 when exact); after it, its peak
 * RSS and VRAM (-1 unknown). */
int64_t sb_run_item_begin(sb_run *st);
int64_t sb_run_item_end(sb_run *st, int64_t rss_before, int64_t *vram);
/* The run's peak from the item peaks (-1 when untracked) and what the
 * sampler saw; sets the peak method and writes its notes. */
void sb_run_finish_peak(sb_run *st, int tracked, int64_t item_peak, int64_t sampled_rss);
/* VRAM figures, GPUs and notes (or why VRAM was not measured). */
int sb_run_finish_vram(sb_run *st, int64_t sampled_vram);

#endif
