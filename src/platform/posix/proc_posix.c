/* The parts of the process probe that POSIX gives alike on Linux and
 * macOS: CPU time (getrusage), the process id and the monotonic clock. */
#include <math.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "proc.h"

double sb_proc_cpu_seconds(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return NAN;
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

int64_t sb_self_pid(void) { return (int64_t)getpid(); }

double sb_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
