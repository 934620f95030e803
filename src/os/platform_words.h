/* How the report and the evidence name this platform's sources, so a
 * Windows or macOS report does not speak of /proc. The figures' meaning is
 * in docs/platforms.md. Not installed. */
#ifndef SPACRBENCH_PLATFORM_WORDS_H
#define SPACRBENCH_PLATFORM_WORDS_H

#if defined(_WIN32)
#define SB_PLATFORM_NAME     "Windows"
#define SB_WORDS_HOST_MEMORY "host available physical memory"
#define SB_WORDS_EXACT_PEAK  "exact, peak working set"
#elif defined(__APPLE__)
#define SB_PLATFORM_NAME     "macOS"
#define SB_WORDS_HOST_MEMORY "host free and reclaimable pages"
#define SB_WORDS_EXACT_PEAK  "exact, footprint high-water mark"
#else
#define SB_PLATFORM_NAME     "this platform"
#define SB_WORDS_HOST_MEMORY "host MemAvailable"
#define SB_WORDS_EXACT_PEAK  "exact, kernel high-water mark"
#endif

#endif
