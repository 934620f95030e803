/* Windows implementation of the process probe: the working set (resident
 * pages, the RSS analogue) and its peak from the process memory counters,
 * CPU time from GetProcessTimes (the clock is util/clock.c). */
#if defined(_WIN32)

/* PSAPI_VERSION 2 maps GetProcessMemoryInfo to K32GetProcessMemoryInfo in
 * kernel32 (Windows 7 and later): no psapi.dll to link or load. */
#define PSAPI_VERSION 2
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include <math.h>
#include <psapi.h>

#include "internal.h"
#include "proc.h"

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

/* WorkingSetSize and PeakWorkingSetSize; -1 each when unreadable. */
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

/* Windows keeps PeakWorkingSetSize for the life of the process and offers
 * no call that lowers it (emptying the working set trims pages, the peak
 * stays): the runner uses its window rule and the sampler instead. */
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

#else
typedef int sb_proc_windows_is_empty_here; /* ISO C forbids an empty unit */
#endif
