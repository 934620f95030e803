/* The one monotonic clock; see clock.h. CLOCK_MONOTONIC where POSIX has
 * it, QueryPerformanceCounter on Windows. */
#include "util.h"

#if defined(_WIN32)
#include <windows.h>

double sb_now(void)
{
    /* Both calls are cheap; caching the fixed frequency in a static would
     * race between the runner and the sampler thread. */
    LARGE_INTEGER freq, now;
    QueryPerformanceFrequency(&freq);
    QueryPerformanceCounter(&now);
    return (double)now.QuadPart / (double)freq.QuadPart;
}
#else
#include <time.h>

double sb_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
#endif
