/* macOS. "RSS" is the physical footprint: what Activity Monitor and
 * jetsam count, compressed and swapped dirty memory included, droppable
 * file pages not: what another worker would really cost. Its peak is the
 * kernel ledger's exact lifetime maximum; the calls that reset it are not
 * in the public SDK, so the runner samples. No cgroups, quotas or hard
 * affinity: the host's figures are the answer. */
#include <libproc.h>
#include <mach/mach.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/sysctl.h>
#include <sys/types.h>
#include <unistd.h>

#include "internal.h"
#include "os.h"

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

/* As MemAvailable: free + file-backed (external) + purgeable pages, the
 * speculative ones (in free_count and file-backed) once; not inactive
 * anonymous pages (freeing them means compressing). Capped by hw.memsize. */
static int64_t host_available(void)
{
    vm_statistics64_data_t vm;
    memset(&vm, 0, sizeof vm); /* fields an older kernel does not fill stay 0 */
    mach_msg_type_number_t count = HOST_VM_INFO64_COUNT;
    mach_port_t host = mach_host_self();
    kern_return_t kr = host_statistics64(host, HOST_VM_INFO64, (host_info64_t)&vm, &count);
    mach_port_deallocate(mach_task_self(), host);
    if (kr != KERN_SUCCESS)
        return -1;
    /* The counts are in the kernel's pages (16 KiB on Apple silicon, also
     * for an x86_64 process under Rosetta, whose own pages are 4 KiB). */
    uint64_t page = vm_kernel_page_size;
    uint64_t pages = (uint64_t)vm.free_count + vm.external_page_count + vm.purgeable_count;
    pages = pages > vm.speculative_count ? pages - vm.speculative_count : 0;
    uint64_t bytes = pages * page;

    uint64_t memsize = 0;
    size_t len = sizeof memsize;
    if (sysctlbyname("hw.memsize", &memsize, &len, NULL, 0) == 0 && len == sizeof memsize &&
        memsize > 0 && bytes > memsize)
        bytes = memsize;
    return bytes <= INT64_MAX ? (int64_t)bytes : INT64_MAX;
}

static int64_t sysctl_int(const char *name)
{
    int value = 0;
    size_t len = sizeof value;
    if (sysctlbyname(name, &value, &len, NULL, 0) != 0 || len != sizeof value || value < 1)
        return -1;
    return value;
}

void sb_probe_machine(const struct sb_probe_env *env, sb_probe *out)
{
    (void)env;
    memset(out, 0, sizeof *out);
    out->host_available_bytes = host_available();
    /* activecpu: processors the scheduler uses now (fewer than logicalcpu
     * when some were taken offline); a process cannot be pinned to fewer. */
    out->affinity_cores = sysctl_int("hw.activecpu");
    if (out->affinity_cores < 1)
        out->affinity_cores = sysctl_int("hw.logicalcpu");
    out->affinity_source = SPACRBENCH_SOURCE_SYSCTL;
    out->memory_source = SPACRBENCH_SOURCE_UNKNOWN;
    out->memory_headroom_bytes = -1;
    out->memory_limit_bytes = -1;
    out->quota_source = SPACRBENCH_SOURCE_UNKNOWN;
    out->quota_cores = -1;
    out->cpuset_source = SPACRBENCH_SOURCE_UNKNOWN;
    out->cpuset_cores = -1;
}
