/* Loading a shared library at run time (NVML), the same on every platform:
 * dlopen/dlsym on POSIX, LoadLibrary/GetProcAddress on Windows. Not
 * installed. */
#ifndef SPACRBENCH_DYNLOAD_H
#define SPACRBENCH_DYNLOAD_H

#include <stddef.h>

/* Load path; NULL with the system's reason in why (never NULL why). */
void *sb_dl_open(const char *path, char *why, size_t why_cap);
/* The address of name in lib, or NULL. */
void *sb_dl_symbol(void *lib, const char *name);
void sb_dl_close(void *lib);
/* getenv, except in a setuid or file-capability program on Linux, where a
 * library named by an unprivileged caller's environment must not load. */
const char *sb_secure_getenv(const char *name);

#endif
