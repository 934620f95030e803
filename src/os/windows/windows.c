/* Windows: the process and machine probes and the sampler, whose stop
 * event is part of every sleep. PSAPI_VERSION 2: kernel32's
 * K32GetProcessMemoryInfo, no psapi.dll. */
#define PSAPI_VERSION 2
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include <math.h>
#include <process.h>
#include <psapi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "os.h"

#ifndef CREATE_WAITABLE_TIMER_HIGH_RESOLUTION
#define CREATE_WAITABLE_TIMER_HIGH_RESOLUTION 0x00000002 /* synchapi.h, SDK 10.0.17134 */
#endif

int sb_proc_open(sb_proc *p, int want_hwm_reset)
{
    (void)want_hwm_reset; /* nothing to open: the peak cannot be reset */
    p->process = GetCurrentProcess();
    PROCESS_MEMORY_COUNTERS_EX c;
    if (!GetProcessMemoryInfo(p->process, (PROCESS_MEMORY_COUNTERS *)&c, sizeof c))
        return sb_fail(SPACRBENCH_ESYSTEM, "GetProcessMemoryInfo failed (error %lu)",
                       (unsigned long)GetLastError());
    return SPACRBENCH_OK;
}

void sb_proc_close(sb_proc *p) { p->process = NULL; }

static void counters(const sb_proc *p, int64_t *now, int64_t *peak)
{
    PROCESS_MEMORY_COUNTERS_EX c;
    HANDLE h = p && p->process ? p->process : GetCurrentProcess();
    if (!GetProcessMemoryInfo(h, (PROCESS_MEMORY_COUNTERS *)&c, sizeof c)) {
        *now = *peak = -1;
        return;
    }
    *now = (int64_t)c.WorkingSetSize;
    *peak = (int64_t)c.PeakWorkingSetSize;
}

int64_t sb_proc_rss(const sb_proc *p)
{
    int64_t now, peak;
    counters(p, &now, &peak);
    return now;
}

int64_t sb_proc_hwm(sb_proc *p)
{
    int64_t now, peak;
    counters(p, &now, &peak);
    return peak;
}

/* Emptying the working set trims pages; the peak stays. */
const char *sb_proc_no_reset_reason(void)
{
    return "the peak working set cannot be reset on Windows";
}

static double filetime_seconds(FILETIME t)
{
    ULARGE_INTEGER v;
    v.LowPart = t.dwLowDateTime;
    v.HighPart = t.dwHighDateTime;
    return (double)v.QuadPart / 1e7; /* 100 ns units */
}

double sb_proc_cpu_seconds(void)
{
    FILETIME created, exited, kernel, user;
    if (!GetProcessTimes(GetCurrentProcess(), &created, &exited, &kernel, &user))
        return NAN;
    return filetime_seconds(kernel) + filetime_seconds(user);
}

/* Windows keeps no account of a process's ended children. */
double sb_proc_children_cpu_seconds(int64_t *largest_rss)
{
    *largest_rss = -1;
    return NAN;
}

int64_t sb_self_pid(void) { return (int64_t)GetCurrentProcessId(); }

/* The UCRT returns large blocks when they are freed. */
int sb_heap_release(void) { return 0; }

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

/* The mask covers one processor group; a process spanning several
 * (Windows 11 above 64 CPUs) may use all their active processors. */
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

/* The PrivateUsage JobMemoryLimit is charged with; -1 unreadable. */
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

    /* NULL: our innermost job; fails outside any. */
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

/* ---- the sampler ---- */

struct sb_sampler {
    sb_sampler_config cfg;
    HANDLE thread;
    HANDLE stop;  /* manual-reset event */
    HANDLE timer; /* high-resolution waitable timer, or NULL */
    sb_sampler_peaks peaks;
};

/* The window's slots (os.h), atomic through the Interlocked
 * functions (int64_t is LONG64 here). */
void sb_window_raise(int64_t *slot, int64_t value)
{
    LONG64 seen = *(volatile LONG64 *)slot;
    while (value > seen) {
        LONG64 was = InterlockedCompareExchange64((volatile LONG64 *)slot, value, seen);
        if (was == seen)
            break;
        seen = was;
    }
}

int64_t sb_window_take(int64_t *slot) { return InterlockedExchange64((volatile LONG64 *)slot, -1); }

/* Sleep seconds unless stopped; 1 when the time passed, 0 on a stop. A
 * plain timed wait ends on the system tick (15.6 ms unless some process
 * raised the timer resolution), which would stretch a 10 ms period: the
 * high-resolution timer (Windows 10 1803 and later) keeps it. */
static int wait_until(sb_sampler *s, double seconds)
{
    if (s->timer) {
        LARGE_INTEGER due;
        due.QuadPart = -(LONGLONG)(seconds * 1e7); /* relative, 100 ns units */
        if (SetWaitableTimer(s->timer, &due, 0, NULL, NULL, FALSE)) {
            HANDLE both[2] = {s->stop, s->timer};
            return WaitForMultipleObjects(2, both, FALSE, INFINITE) == WAIT_OBJECT_0 + 1;
        }
    }
    DWORD ms = (DWORD)(seconds * 1000.0 + 0.5);
    return WaitForSingleObject(s->stop, ms) == WAIT_TIMEOUT;
}

static unsigned __stdcall sampler_main(void *arg)
{
    sb_sampler *s = arg;
    /* Waits are whole milliseconds: a shorter interval samples every 1 ms.
     * Deadlines are absolute so the period stays steady; after a stall
     * (or samples slower than the period) it starts afresh instead of
     * catching up with back-to-back samples. */
    double period = (double)s->cfg.interval_us / 1e6;
    if (period < 0.001)
        period = 0.001;
    double next = sb_now();
    for (;;) {
        sb_sampler_sample(&s->cfg, &s->peaks);
        next += period;
        double now = sb_now();
        if (now > next)
            next = now + period;
        if (!wait_until(s, next - now))
            break; /* stopped (or the wait failed: stop rather than spin) */
    }
    return 0;
}

int sb_sampler_start(sb_sampler **out, const sb_sampler_config *cfg)
{
    *out = NULL;
    sb_sampler *s = calloc(1, sizeof *s);
    if (!s)
        return sb_fail(SPACRBENCH_ENOMEM, "cannot allocate the sampler");
    s->cfg = *cfg;
    sb_sampler_peaks_init(&s->peaks);
    s->stop = CreateEventW(NULL, TRUE, FALSE, NULL);
    if (!s->stop) {
        DWORD err = GetLastError();
        free(s);
        return sb_fail(SPACRBENCH_ETHREAD, "cannot create the sampler's stop event (error %lu)",
                       (unsigned long)err);
    }
    /* Older Windows (and Wine) refuse the flag: the plain wait remains. */
    s->timer =
        CreateWaitableTimerExW(NULL, NULL, CREATE_WAITABLE_TIMER_HIGH_RESOLUTION, TIMER_ALL_ACCESS);
    /* _beginthreadex, not CreateThread: the thread may use the C runtime. */
    uintptr_t t = _beginthreadex(NULL, 0, sampler_main, s, 0, NULL);
    if (t == 0) {
        DWORD err = GetLastError();
        if (s->timer)
            CloseHandle(s->timer);
        CloseHandle(s->stop);
        free(s);
        return sb_fail(SPACRBENCH_ETHREAD, "cannot start the sampler thread (error %lu)",
                       (unsigned long)err);
    }
    s->thread = (HANDLE)t;
    *out = s;
    return SPACRBENCH_OK;
}

void sb_sampler_take_window(sb_sampler *s, int64_t *rss, int64_t *vram)
{
    sb_sampler_peaks_take(&s->peaks, rss, vram);
}

double sb_sampler_cpu_seconds(const sb_sampler *s)
{
    FILETIME created, exited, kernel, user;
    if (!GetThreadTimes(s->thread, &created, &exited, &kernel, &user))
        return 0.0;
    return filetime_seconds(kernel) + filetime_seconds(user);
}

void sb_sampler_stop(sb_sampler *s, int64_t *rss_peak, int64_t *vram_peak)
{
    SetEvent(s->stop);
    WaitForSingleObject(s->thread, INFINITE);
    CloseHandle(s->thread);
    if (s->timer)
        CloseHandle(s->timer);
    CloseHandle(s->stop);
    if (rss_peak)
        *rss_peak = s->peaks.life_rss;
    if (vram_peak)
        *vram_peak = s->peaks.life_vram;
    free(s);
}

/* Windows has no fork, so no child ever lacks the thread: this is only
 * reached if the runner's fork check misfires, and stopping is then the
 * one safe way to free. */
void sb_sampler_forget(sb_sampler *s) { sb_sampler_stop(s, NULL, NULL); }
