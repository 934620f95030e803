/* See sb_foreign_pids in gpu.h. */
#include "gpu.h"

/* Entries still need checking (neither proven nor confirmed). */
static int watching(const sb_foreign_pids *f) { return !f->proven && f->confirmed == 0; }

void sb_foreign_sample_begins(sb_foreign_pids *f) { f->n_cur = 0; }

void sb_foreign_measured_listed(sb_foreign_pids *f) { f->proven = 1; }

void sb_foreign_other_listed(sb_foreign_pids *f, unsigned int pid)
{
    /* PID 0 is no process anywhere (some setups list it): no evidence. */
    if (!watching(f) || pid == 0 || f->n_cur == SB_FOREIGN_MAX)
        return;
    if (!sb_gpu_pid_exists_here(pid))
        f->cur[f->n_cur++] = pid;
}

void sb_foreign_sample_ends(sb_foreign_pids *f)
{
    if (!watching(f))
        return;
    for (size_t i = 0; i < f->n_cur && !f->confirmed; i++)
        for (size_t j = 0; j < f->n_prev; j++)
            if (f->cur[i] == f->prev[j]) {
                f->confirmed = f->cur[i];
                break;
            }
    for (size_t i = 0; i < f->n_cur; i++)
        f->prev[i] = f->cur[i];
    f->n_prev = f->n_cur;
}
