/* The process probe's POSIX parts (Linux and macOS). */
#include <math.h>
#include <sys/resource.h>
#include <unistd.h>

#include "os.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

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

/* glibc raises its mmap threshold after a large free, so later blocks stay
 * resident once freed and the next item's footprint reads as 0;
 * malloc_trim(0) returns them. musl and macOS need nothing. */
int sb_heap_release(void)
{
#if defined(__GLIBC__)
    return malloc_trim(0);
#else
    return 0;
#endif
}
