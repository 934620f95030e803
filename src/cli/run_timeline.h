/* The memory timeline of `spacrbench run`: every sample the supervisor
 * takes of an item's tree (its RSS now) and of the item's cgroup (its
 * usage now) goes through the library's builder (bounded, downsampled),
 * and each measured item is marked with its boundaries and its exact peak
 * (the record's), at the time its highest sample of that figure was seen.
 * Each sample also carries the CPU the items' processes have used since
 * the run began (utime + stime of /proc/PID/stat, every thread, read for
 * the processes the sample listed; an exited run's its wait4
 * figure), for CPU % over time beside the memory. */
#ifndef SPACRBENCH_CLI_RUN_TIMELINE_H
#define SPACRBENCH_CLI_RUN_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "run_item.h"
#include "spacrbench.h"
#include "supervisor.h"

typedef struct run_timeline {
    spacrbench_measurement *m; /* NULL: no timeline is recorded */
    sb_supervisor *sup;        /* whose samples it hears */
    double origin;             /* sb_now() when it began: time 0 */
    int peak_is_charge;        /* items' peaks are cgroup charges: mark at the usage */
    int64_t best;              /* the current item's highest sample of that figure, -1 */
    double best_at;
    int broken;                 /* a builder call failed: nothing more is added */
    double cpu_done;            /* CPU seconds of the runs that ended */
    struct run_cpu_proc *procs; /* the current run's processes seen, their runtime */
    size_t n_procs, cap_procs;
} run_timeline;

/* Start m's timeline at the supervisor's sampling period and listen to its
 * samples. Out of memory leaves it off with a note saying so. */
void run_timeline_begin(run_timeline *t, spacrbench_measurement *m, sb_supervisor *sup);

/* A run of an item ended, having used cpu_seconds (wait4's, of its tree). */
void run_timeline_run_done(run_timeline *t, double cpu_seconds);

/* Mark the record just added: its item ran from started_at
 * (sb_supervisor_now()) for seconds (its runs, one after another). */
void run_timeline_mark(run_timeline *t, size_t record, double started_at, double seconds);

/* Stop listening (a --scale check after the serial run is not part of
 * it); the note when the timeline was downsampled. */
void run_timeline_end(run_timeline *t);

#endif
