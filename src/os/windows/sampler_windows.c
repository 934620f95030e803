/* The sampler on a Win32 thread (sampler.h). The stop event is part of
 * every sleep (WaitForSingleObject(stop, interval), or with a timer), so a
 * stop never waits out a whole interval. What each tick samples is every
 * platform's (sampler_peaks.c). */
#if defined(_WIN32)

#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include <process.h>
#include <stdlib.h>

#include "internal.h"
#include "sampler.h"
#include "sampler_peaks.h"

#ifndef CREATE_WAITABLE_TIMER_HIGH_RESOLUTION
#define CREATE_WAITABLE_TIMER_HIGH_RESOLUTION 0x00000002 /* synchapi.h, SDK 10.0.17134 */
#endif

struct sb_sampler {
    sb_sampler_config cfg;
    HANDLE thread;
    HANDLE stop;  /* manual-reset event */
    HANDLE timer; /* high-resolution waitable timer, or NULL */
    sb_sampler_peaks peaks;
};

/* The window's slots (sampler_peaks.h), atomic through the Interlocked
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
    ULARGE_INTEGER k, u;
    k.LowPart = kernel.dwLowDateTime;
    k.HighPart = kernel.dwHighDateTime;
    u.LowPart = user.dwLowDateTime;
    u.HighPart = user.dwHighDateTime;
    return (double)(k.QuadPart + u.QuadPart) / 1e7; /* 100 ns units */
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

#else
typedef int sb_sampler_windows_is_empty_here; /* ISO C forbids an empty unit */
#endif
