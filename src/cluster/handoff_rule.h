/* The hand-off rule's pieces that the script and summarize share with
 * handoff.c (the one rule; docs/scheduler-handoff.md). */
#ifndef SPACRBENCH_HANDOFF_RULE_H
#define SPACRBENCH_HANDOFF_RULE_H

#include <stddef.h>
#include <stdint.h>

#include "spacrbench.h"

/* The memory rule: peak + max(25% of peak, 256 MiB), rounded up to a
 * MiB (peak clamped to 0..INT64_MAX/4). */
int64_t sb_handoff_mem_bytes(int64_t peak);

/* minutes as sbatch --time and SLURMCluster's walltime take them:
 * "HH:MM:00", or "D-HH:MM:00" from a day on. */
void sb_format_time_limit(char *buf, size_t cap, int64_t minutes);
/* The --time rule applied to m's slowest item (5 minutes when m has no
 * timed item). 0 or a negative code. */
int sb_measurement_time_limit(const spacrbench_measurement *m, double timeout_seconds,
                              int64_t *minutes);

/* The manifest and the index beside the task reports. */
#define SB_SLURM_MANIFEST    "spacrbench-array.json"
#define SB_SLURM_INDEX       "spacrbench-items.idx"
#define SB_SLURM_SCRIPT      "spacrbench-job.sh" /* the script, for summarize's command line */
#define SB_SLURM_INDEX_WIDTH 40                  /* "%019d %019d\n" */

#endif
