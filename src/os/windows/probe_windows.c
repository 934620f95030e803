/* The Windows probe: available physical memory, the process's affinity
 * (across processor groups), and the Job Object limits the process runs
 * under (memory and CPU rate). The rules are pure (probe_windows.h); the
 * combining rule is discover.c's, as on every platform. */
#if defined(_WIN32)

#include "probe_windows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PSAPI_VERSION 2 /* K32GetProcessMemoryInfo, in kernel32 */
#include <psapi.h>

#include "internal.h"

int64_t sb_win_mask_cores(uint64_t mask)
{
    int64_t n = 0;
    for (; mask; mask &= mask - 1)
        n++;
    return n;
}

void sb_win_job_memory(const JOBOBJECT_EXTENDED_LIMIT_INFORMATION *info,
                       int64_t job_committed_bytes, sb_probe *out)
{
    out->memory_source = SPACRBENCH_SOURCE_UNKNOWN;
    out->memory_headroom_bytes = -1;
    out->memory_limit_bytes = -1;
    out->memory_dir[0] = '\0';
    /* A per-process limit (ProcessMemoryLimit) caps each worker process,
     * not the sum the worker count divides: it is no total bound. */
    if (!(info->BasicLimitInformation.LimitFlags & JOB_OBJECT_LIMIT_JOB_MEMORY))
        return;
    int64_t limit = (int64_t)info->JobMemoryLimit;
    if (limit <= 0)
        return;
    int known = job_committed_bytes >= 0;
    int64_t used = known ? job_committed_bytes : (int64_t)info->PeakJobMemoryUsed;
    out->memory_source = SPACRBENCH_SOURCE_JOB_OBJECT;
    out->memory_limit_bytes = limit;
    out->memory_headroom_bytes = used < limit ? limit - used : 0;
    snprintf(out->memory_dir, sizeof out->memory_dir, "%s",
             known ? "job object (JobMemoryLimit)"
                   : "job object (JobMemoryLimit, less the job's peak: its processes "
                     "could not be listed)");
}

double sb_win_job_cpu_rate_cores(const JOBOBJECT_CPU_RATE_CONTROL_INFORMATION *info,
                                 int64_t all_processors)
{
    const DWORD want = JOB_OBJECT_CPU_RATE_CONTROL_ENABLE | JOB_OBJECT_CPU_RATE_CONTROL_HARD_CAP;
    /* A weight is a share against other jobs, not a cap; min/max rates
     * (Windows 10) are left unread: MinGW's structure lacks them. */
    if ((info->ControlFlags & want) != want ||
        (info->ControlFlags & JOB_OBJECT_CPU_RATE_CONTROL_WEIGHT_BASED) || info->CpuRate == 0 ||
        info->CpuRate > 10000 || all_processors < 1)
        return -1.0;
    return (double)info->CpuRate / 10000.0 * (double)all_processors;
}

static int64_t host_available(void)
{
    MEMORYSTATUSEX ms;
    ms.dwLength = sizeof ms;
    return GlobalMemoryStatusEx(&ms) ? (int64_t)ms.ullAvailPhys : -1;
}

/* The processors this process may run on. The affinity mask covers one
 * processor group; a process that spans several groups (Windows 11 by
 * default on machines with more than 64) may use every active processor
 * of those groups. */
static int64_t affinity_cores(void)
{
    HANDLE self = GetCurrentProcess();
    USHORT groups[64];
    USHORT n_groups = (USHORT)(sizeof groups / sizeof groups[0]);
    if (GetProcessGroupAffinity(self, &n_groups, groups) && n_groups > 1) {
        int64_t total = 0;
        for (USHORT i = 0; i < n_groups; i++)
            total += (int64_t)GetActiveProcessorCount(groups[i]);
        if (total > 0)
            return total;
    }
    DWORD_PTR process_mask = 0, system_mask = 0;
    if (GetProcessAffinityMask(self, &process_mask, &system_mask) && process_mask != 0)
        return sb_win_mask_cores((uint64_t)process_mask);
    DWORD all = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
    return all > 0 ? (int64_t)all : -1;
}

/* The memory the job's processes have committed now: the sum of their
 * PrivateUsage, which is what JobMemoryLimit is charged with. -1 when
 * the list or any process cannot be read. */
static int64_t job_committed(void)
{
    DWORD cap = 64;
    for (int tries = 0; tries < 8; tries++, cap *= 4) {
        size_t size = sizeof(JOBOBJECT_BASIC_PROCESS_ID_LIST) + cap * sizeof(ULONG_PTR);
        JOBOBJECT_BASIC_PROCESS_ID_LIST *list = calloc(1, size);
        if (!list)
            return -1;
        if (!QueryInformationJobObject(NULL, JobObjectBasicProcessIdList, list, (DWORD)size,
                                       NULL)) {
            DWORD err = GetLastError();
            free(list);
            if (err == ERROR_MORE_DATA)
                continue;
            return -1;
        }
        if (list->NumberOfProcessIdsInList < list->NumberOfAssignedProcesses) {
            free(list);
            continue;
        }
        int64_t sum = 0;
        for (DWORD i = 0; i < list->NumberOfProcessIdsInList && sum >= 0; i++) {
            HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE,
                                   (DWORD)list->ProcessIdList[i]);
            PROCESS_MEMORY_COUNTERS_EX c;
            if (h && GetProcessMemoryInfo(h, (PROCESS_MEMORY_COUNTERS *)&c, sizeof c))
                sum += (int64_t)c.PrivateUsage;
            else if (list->ProcessIdList[i] != 0)
                sum = -1; /* a process we cannot read: the sum would understate */
            if (h)
                CloseHandle(h);
        }
        int listed = list->NumberOfProcessIdsInList > 0;
        free(list);
        return listed ? sum : -1;
    }
    return -1;
}

void sb_probe_machine(const struct sb_probe_env *env, sb_probe *out)
{
    (void)env; /* Windows reads only the running system */
    memset(out, 0, sizeof *out);
    out->host_available_bytes = host_available();
    out->affinity_cores = affinity_cores();
    out->memory_source = out->quota_source = out->cpuset_source = SPACRBENCH_SOURCE_UNKNOWN;
    out->memory_headroom_bytes = out->memory_limit_bytes = -1;
    out->quota_cores = -1.0;
    out->cpuset_cores = -1;

    /* NULL: the job this process is in (innermost, when jobs nest); the
     * call fails outside any job. IsProcessInJob is not asked first: the
     * query answers both questions. */
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION ext;
    memset(&ext, 0, sizeof ext);
    if (QueryInformationJobObject(NULL, JobObjectExtendedLimitInformation, &ext, sizeof ext,
                                  NULL) &&
        (ext.BasicLimitInformation.LimitFlags & JOB_OBJECT_LIMIT_JOB_MEMORY))
        sb_win_job_memory(&ext, job_committed(), out);

    JOBOBJECT_CPU_RATE_CONTROL_INFORMATION rate;
    memset(&rate, 0, sizeof rate);
    if (QueryInformationJobObject(NULL, JobObjectCpuRateControlInformation, &rate, sizeof rate,
                                  NULL)) {
        double cores = sb_win_job_cpu_rate_cores(
            &rate, (int64_t)GetActiveProcessorCount(ALL_PROCESSOR_GROUPS));
        if (cores > 0) {
            out->quota_source = SPACRBENCH_SOURCE_JOB_OBJECT;
            out->quota_cores = cores;
            snprintf(out->quota_dir, sizeof out->quota_dir, "job object (CpuRate %lu/10000)",
                     (unsigned long)rate.CpuRate);
        }
    }
}

#else
typedef int sb_probe_windows_is_empty_here; /* ISO C forbids an empty unit */
#endif
