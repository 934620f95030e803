/* NVML PIDs that are no process here. The driver reports PIDs as the
 * initial PID namespace sees them; where this process cannot see that
 * namespace and the usual signs of a container are absent (a sandbox such
 * as gVisor, whose own kernel shows no nested namespace), this process's
 * entries come under PIDs it cannot recognise, and a sum over its own PIDs
 * would be a false 0. The tracker notices such a sandbox: a PID that NVML
 * lists in two samples running (so not a process that just exited) and
 * that names no process here, while no PID being measured was ever listed
 * (once one is, NVML's PIDs are proven to be ours, and checking stops). */
#ifndef SPACRBENCH_GPU_FOREIGN_H
#define SPACRBENCH_GPU_FOREIGN_H

#include <stddef.h>

#define SB_FOREIGN_MAX 8 /* unseen PIDs kept per sample: plenty to confirm one */

typedef struct sb_foreign_pids {
    int proven;             /* a measured PID was listed: NVML's PIDs are ours */
    unsigned int confirmed; /* listed twice running, no process here; 0: none */
    unsigned int prev[SB_FOREIGN_MAX], cur[SB_FOREIGN_MAX];
    size_t n_prev, n_cur;
} sb_foreign_pids;

/* Whether entries still need checking (neither proven nor confirmed). */
int sb_foreign_watching(const sb_foreign_pids *f);
void sb_foreign_sample_begins(sb_foreign_pids *f);
/* An entry of a measured PID was listed. */
void sb_foreign_measured_listed(sb_foreign_pids *f);
/* An entry of another PID was listed: is it a process here? */
void sb_foreign_other_listed(sb_foreign_pids *f, unsigned int pid);
/* A complete sample ended: a PID unseen here in this sample and the last
 * one is confirmed. A failed sample does not call this (nor move on). */
void sb_foreign_sample_ends(sb_foreign_pids *f);

#endif
