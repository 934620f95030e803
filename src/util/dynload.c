/* What differs between POSIX and Windows: loading a library (NVML) and
 * the monotonic clock (CLOCK_MONOTONIC, QueryPerformanceCounter). */
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(_WIN32)
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

void *sb_dl_open(const char *path, char *why, size_t why_cap)
{
    /* No search of the current directory: only the system's and the
     * application's folders, or the exact path given. */
    HMODULE lib = LoadLibraryExA(path, NULL, LOAD_LIBRARY_SEARCH_DEFAULT_DIRS);
    if (!lib)
        snprintf(why, why_cap, "LoadLibrary failed (Windows error %lu)", GetLastError());
    return (void *)lib;
}

void *sb_dl_symbol(void *lib, const char *name)
{
    FARPROC f = GetProcAddress((HMODULE)lib, name);
    void *p;
    /* A function pointer travels as an object pointer here, as with dlsym. */
    memcpy(&p, &f, sizeof p);
    return p;
}

void sb_dl_close(void *lib)
{
    if (lib)
        FreeLibrary((HMODULE)lib);
}

const char *sb_secure_getenv(const char *name) { return getenv(name); }

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
#include <dlfcn.h>
#include <time.h>

void *sb_dl_open(const char *path, char *why, size_t why_cap)
{
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *err = dlerror();
        snprintf(why, why_cap, "%s", err ? err : "unknown error");
    }
    return lib;
}

void *sb_dl_symbol(void *lib, const char *name)
{
    dlerror();
    return dlsym(lib, name);
}

void sb_dl_close(void *lib)
{
    if (lib)
        dlclose(lib);
}

const char *sb_secure_getenv(const char *name)
{
#if defined(__linux__)
    return secure_getenv(name);
#else
    return getenv(name); /* macOS: dyld already ignores such variables for setuid programs */
#endif
}

double sb_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
#endif
