/* macOS implementation of the process probe. The figure called RSS
 * elsewhere is the task's physical footprint (task_vm_info.phys_footprint):
 * what Activity Monitor shows as Memory and what the kernel's memory limits
 * (jetsam) count. Unlike resident_size it includes dirty memory the
 * compressor squeezed or swapped out and leaves out clean file pages the
 * system can drop, so it is what another worker would really cost.
 *
 * Its peak is the kernel ledger's lifetime maximum, updated on every
 * change of the footprint, so it is exact to the page. The only calls that
 * reset it (proc_reset_footprint_interval, proc_rlimit_control with
 * RLIMIT_FOOTPRINT_INTERVAL) are not declared in the public SDK headers, so
 * the mark is never reset here: the runner's window rule and the sampler
 * apply (runner_probes.c). */
#include <libproc.h>
#include <mach/mach.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "internal.h"
#include "proc.h"

/* 0 and the kernel's count of filled words, or -1. The kernel fills as
 * much of the struct as its revision knows and says how much. */
static int vm_info(task_vm_info_data_t *info, mach_msg_type_number_t *count)
{
    *count = TASK_VM_INFO_COUNT;
    kern_return_t kr = task_info(mach_task_self(), TASK_VM_INFO, (task_info_t)info, count);
    return kr == KERN_SUCCESS ? 0 : -1;
}

int sb_proc_open(sb_proc *p, int want_hwm_reset)
{
    (void)want_hwm_reset; /* nothing to open: there is no public reset */
    task_vm_info_data_t info;
    mach_msg_type_number_t count;
    p->has_ledger_peak = 0;
    if (vm_info(&info, &count) != 0 || count < TASK_VM_INFO_REV1_COUNT)
        return sb_fail(SPACRBENCH_ESYSTEM,
                       "task_info(TASK_VM_INFO) gives no phys_footprint on this macOS");
    p->has_ledger_peak = count >= TASK_VM_INFO_REV3_COUNT;
    return SPACRBENCH_OK;
}

void sb_proc_close(sb_proc *p) { p->has_ledger_peak = 0; }

int64_t sb_proc_rss(const sb_proc *p)
{
    (void)p;
    task_vm_info_data_t info;
    mach_msg_type_number_t count;
    if (vm_info(&info, &count) != 0 || count < TASK_VM_INFO_REV1_COUNT)
        return -1;
    return info.phys_footprint <= INT64_MAX ? (int64_t)info.phys_footprint : -1;
}

int64_t sb_proc_hwm(sb_proc *p)
{
    if (p->has_ledger_peak) {
        task_vm_info_data_t info;
        mach_msg_type_number_t count;
        if (vm_info(&info, &count) == 0 && count >= TASK_VM_INFO_REV3_COUNT)
            return info.ledger_phys_footprint_peak >= 0 ? info.ledger_phys_footprint_peak : -1;
    }
    /* Older kernels: the same ledger maximum through proc_pid_rusage. */
    struct rusage_info_v4 ri;
    memset(&ri, 0, sizeof ri);
    if (proc_pid_rusage(getpid(), RUSAGE_INFO_V4, (rusage_info_t *)&ri) != 0)
        return -1;
    return ri.ri_lifetime_max_phys_footprint <= INT64_MAX
               ? (int64_t)ri.ri_lifetime_max_phys_footprint
               : -1;
}

const char *sb_proc_no_reset_reason(void)
{
    return "macOS has no public call that resets the footprint high-water mark "
           "(ledger_phys_footprint_peak)";
}
