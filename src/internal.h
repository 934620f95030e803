/* Internal helpers shared by the library's translation units: error
 * reporting and size-versioned struct handling. Not installed. */
#ifndef SPACRBENCH_INTERNAL_H
#define SPACRBENCH_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>

#include "spacrbench.h"

#if defined(__GNUC__)
#define SB_PRINTF(fmt_index, first_arg) __attribute__((format(printf, fmt_index, first_arg)))
#else
#define SB_PRINTF(fmt_index, first_arg)
#endif

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
/* Copy our filled output struct into the caller's, honouring its size:
 * a smaller struct gets the prefix, a larger one a zeroed tail. */
int sb_struct_out(void *dst, const void *ours, size_t our_size, const char *name);

/* A growable, always NUL-terminated text buffer. */
typedef struct sb_text {
    char *data;
    size_t len;
    size_t cap;
    int failed; /* set on allocation failure; further appends are ignored */
} sb_text;

void sb_text_printf(sb_text *t, const char *fmt, ...) SB_PRINTF(2, 3);
void sb_text_free(sb_text *t);

/* Human-readable size: "512 B", "12.3 MiB", "1.50 GiB". */
void sb_format_bytes(char *buf, size_t cap, int64_t bytes);

#endif
