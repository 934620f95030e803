/* This thread's CPU time; see thread_cpu.h. */
#include "thread_cpu.h"

#include <time.h>

#include "clock.h"

double sb_thread_cpu_seconds(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return sb_now();
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
