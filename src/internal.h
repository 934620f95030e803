/* Internal helpers shared by the library's translation units: error
 * reporting and size-versioned struct handling. Not installed. */
#ifndef SPACRBENCH_INTERNAL_H
#define SPACRBENCH_INTERNAL_H

#include "spacrbench.h"
#include "util.h"

#define SB_PRINTF SB_TEXT_PRINTF

/* Record a detailed message for spacrbench_last_error_message() in this
 * thread and return code, so callers can write `return sb_fail(...)`. */
int sb_fail(int code, const char *fmt, ...) SB_PRINTF(2, 3);
/* Clear this thread's error state at the start of a public call. */
void sb_clear_error(void);
/* Record why a run stopped (read by spacrbench_last_work_result). */
void sb_set_stop(int work_result, int64_t item);

/* Copy a caller's size-versioned input struct into ours (already holding
 * defaults). name is used in error messages. Fails with EINVAL if src is
 * smaller than a size_t, EUNKNOWN_FIELDS if it is larger than ours with a
 * non-zero tail. */
int sb_struct_in(void *ours, size_t our_size, const void *src, const char *name);
/* sb_struct_in for a struct whose smaller sizes must be ones an earlier
 * version had (`older`, n of them): a size that cuts through a field is
 * EINVAL, never a mix of the caller's bytes and our defaults. */
int sb_struct_in_versions(void *ours, size_t our_size, const void *src, const char *name,
                          const size_t *older, size_t n);
/* A caller's struct of `size` bytes initialised with our defaults (the
 * prefix it has room for, a zeroed tail) and its size set: every *_init.
 * arg and name for the messages (EINVAL for NULL or a size below size_t). */
int sb_struct_init(void *dst, size_t size, const void *defaults, size_t default_size,
                   const char *arg, const char *name);
/* Copy our filled output struct into the caller's, honouring its size:
 * a smaller struct gets the prefix, a larger one a zeroed tail. */
int sb_struct_out(void *dst, const void *ours, size_t our_size, const char *name);

/* A caller's recommendation (any version) as ours: fields an older struct
 * lacks read as absent, the texts are NUL-terminated. */
int sb_recommendation_in(spacrbench_recommendation *r, const spacrbench_recommendation *rec);

/* Hand t to a caller snprintf-style (at most cap bytes, NUL included) and
 * free it: the full length, or a negative code (ENOMEM after a failed
 * append). */
int sb_text_deliver(sb_text *t, char *buf, size_t cap);

/* CPU seconds per wall second of the work, and the whole cores one worker
 * keeps busy: max(1, round(parallelism)); parallelism -1 when unknown. The
 * recommendation and the scheduler hand-off share this one rule. */
int64_t sb_cores_per_worker(double cpu_seconds, double seconds, double *parallelism);

#endif
