/*
 * Versions, export macros, sentinels and errors: what every spacrbench
 * header uses. Included by <spacrbench.h>, which is the one to include.
 */
#ifndef SPACRBENCH_PUBLIC_COMMON_H
#define SPACRBENCH_PUBLIC_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* SPACRBENCH_CDEF_BEGIN */

#define SPACRBENCH_VERSION_MAJOR 1
#define SPACRBENCH_VERSION_MINOR 3
#define SPACRBENCH_VERSION_PATCH 0
#define SPACRBENCH_VERSION_NUMBER                                                                  \
    (SPACRBENCH_VERSION_MAJOR * 10000 + SPACRBENCH_VERSION_MINOR * 100 + SPACRBENCH_VERSION_PATCH)
#define SPACRBENCH_VERSION_STRING "1.3.0"

#if defined(_WIN32) && defined(SPACRBENCH_BUILDING)
#define SPACRBENCH_EXTERN __declspec(dllexport)
#elif defined(_WIN32)
#define SPACRBENCH_EXTERN __declspec(dllimport)
#elif defined(__GNUC__)
#define SPACRBENCH_EXTERN __attribute__((visibility("default")))
#else
#define SPACRBENCH_EXTERN
#endif

/* Pins the calling convention of function pointers the caller passes in. */
#if defined(_WIN32)
#define SPACRBENCH_CALLBACK __cdecl
#else
#define SPACRBENCH_CALLBACK
#endif

#define SPACRBENCH_NOT_MEASURED (-1)
#define SPACRBENCH_AUTO         (-1)

/* The version of the library loaded at run time (compare with the macros). */
SPACRBENCH_EXTERN unsigned spacrbench_version_number(void);
SPACRBENCH_EXTERN const char *spacrbench_version_string(void);

/* --- Errors ------------------------------------------------------------- */

/* One X-macro lists every error code with its message: it makes the
 * strerror table and spacrbench_error_name, and src/abi/errors.c checks at
 * compile time that the enum below holds exactly these codes with these
 * values. Codes are never renumbered; a retired code stays as a placeholder. */
#define SPACRBENCH_ERROR_MAP(X)                                                                    \
    X(EINVAL, -1, "invalid argument")                                                              \
    X(ENOMEM, -2, "out of memory")                                                                 \
    X(EUSER, -3, "stopped: the work or progress function returned non-zero")                       \
    X(EUNKNOWN_FIELDS, -4,                                                                         \
      "struct is larger than this library knows and its unknown fields are "                       \
      "not zero")                                                                                  \
    X(ENOITEMS, -5, "no items to measure")                                                         \
    X(EBUSY, -6, "another benchmark is running in this process (peaks are per process)")           \
    X(ESYSTEM, -7, "an operating-system call failed")                                              \
    X(ERANGE, -8, "index out of range")                                                            \
    X(ETHREAD, -9, "could not start the sampler thread")                                           \
    X(ENOSPACE, -10, "buffer too small")                                                           \
    X(EFORKED, -11,                                                                                \
      "the work forked and the child returned into spacrbench_benchmark; the child's "             \
      "measurement was dropped")                                                                   \
    X(EUNSUPPORTED, -12, "not available on this platform")                                         \
    X(ETYPE, -13, "a value of the wrong type")

/* Written out (not generated) so that readers and cffi see the names. */
typedef enum spacrbench_error {
    SPACRBENCH_OK = 0,
    SPACRBENCH_EINVAL = -1,
    SPACRBENCH_ENOMEM = -2,
    SPACRBENCH_EUSER = -3,
    SPACRBENCH_EUNKNOWN_FIELDS = -4,
    SPACRBENCH_ENOITEMS = -5,
    SPACRBENCH_EBUSY = -6,
    SPACRBENCH_ESYSTEM = -7,
    SPACRBENCH_ERANGE = -8,
    SPACRBENCH_ETHREAD = -9,
    SPACRBENCH_ENOSPACE = -10,
    SPACRBENCH_EFORKED = -11,      /* since 1.1 */
    SPACRBENCH_EUNSUPPORTED = -12, /* since 1.1: not on this platform (see docs/platforms.md) */
    SPACRBENCH_ETYPE = -13         /* since 1.3: a document's field of the wrong type */
} spacrbench_error;

SPACRBENCH_EXTERN const char *spacrbench_strerror(int code);
/* Detailed message of this thread's last failed call ("" if none). */
SPACRBENCH_EXTERN const char *spacrbench_last_error_message(void);
/* After SPACRBENCH_EUSER in this thread: the stopping function's value and
 * the item index (0 and -1 when the last call was not stopped). */
SPACRBENCH_EXTERN int spacrbench_last_work_result(void);
SPACRBENCH_EXTERN int64_t spacrbench_last_stopped_item(void);

/* SPACRBENCH_CDEF_END */

#ifdef __cplusplus
}
#endif

#endif /* SPACRBENCH_PUBLIC_COMMON_H */
