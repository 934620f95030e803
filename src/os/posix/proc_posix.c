/* The parts of the process probe that POSIX gives alike on Linux and
 * macOS: CPU time (getrusage) and the process id. */
#include <math.h>
#include <sys/resource.h>
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

double sb_proc_children_cpu_seconds(int64_t *largest_rss)
{
    struct rusage ru;
    *largest_rss = -1;
    if (getrusage(RUSAGE_CHILDREN, &ru) != 0)
        return NAN;
#if defined(__APPLE__)
    *largest_rss = (int64_t)ru.ru_maxrss; /* bytes on macOS */
#else
    *largest_rss = (int64_t)ru.ru_maxrss * 1024; /* KiB on Linux */
#endif
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

int64_t sb_self_pid(void) { return (int64_t)getpid(); }
