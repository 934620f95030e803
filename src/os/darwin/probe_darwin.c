/* macOS machine discovery: the system's available memory and CPUs. macOS
 * has no cgroups, CPU quotas or hard CPU affinity for a process, so there is
 * no container or job bound to read: the memory and CPU bound sources stay
 * UNKNOWN and the host's figures are the answer. The env is ignored (there
 * are no files to point a test at). */
#include <mach/mach.h>
#include <string.h>
#include <sys/sysctl.h>
#include <sys/types.h>

#include "probe.h"

/* Memory that can be had without compressing or swapping anyone's data,
 * as Linux's MemAvailable means it: free pages plus file-backed pages
 * (external: their contents are on disk, so they can be dropped) plus
 * purgeable pages (volatile memory the system may discard). free_count
 * already counts the speculative pages (read-ahead file data, per
 * <mach/vm_statistics.h>), and those are file-backed too, so they are
 * taken out once. Inactive anonymous pages are not counted: freeing them
 * means compressing them. Capped by hw.memsize. */
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
