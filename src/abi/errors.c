/* Error codes, their messages, this thread's last detailed message, the
 * library version, and text handed to a caller snprintf-style (the length
 * it needs, as much as fits, always terminated; the buffer freed). */
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* Thread-local so concurrent callers never see each other's messages.
 * Room for two whole paths (an array's refusal names its directory and the
 * other array's items file) and the words around them. */
static _Thread_local char last_message[3 * 4096];
static _Thread_local int last_work_result;
static _Thread_local int64_t last_stopped_item = -1;

unsigned spacrbench_version_number(void) { return SPACRBENCH_VERSION_NUMBER; }

const char *spacrbench_version_string(void) { return SPACRBENCH_VERSION_STRING; }

/* spacrbench.h writes the enum out (for readers and cffi) beside the
 * X-macro that makes the messages; these two checks keep them one list.
 * 1. Every code of the map is the enum constant of that name and value. */
#define SB_ERROR_IN_ENUM(name, value, text)                                                        \
    _Static_assert(SPACRBENCH_##name == (value),                                                   \
                   "SPACRBENCH_" #name " differs between enum spacrbench_error and "               \
                   "SPACRBENCH_ERROR_MAP");
SPACRBENCH_ERROR_MAP(SB_ERROR_IN_ENUM)
#undef SB_ERROR_IN_ENUM

/* 2. Every constant of the enum is in the map: this switch over the enum
 * has no default, so a constant without a case is an error (-Wswitch, an
 * error here whatever the build's flags), and two codes of one value are a
 * duplicate case. tests/abi/check_error_map.sh proves both checks fire. */
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic error "-Wswitch"
#endif
const char *spacrbench_strerror(int code)
{
    switch ((spacrbench_error)code) {
    case SPACRBENCH_OK:
        return "success";
#define SB_ERROR_CASE(name, value, text)                                                           \
    case SPACRBENCH_##name:                                                                        \
        return text;
        SPACRBENCH_ERROR_MAP(SB_ERROR_CASE)
#undef SB_ERROR_CASE
    }
    return "unknown error code";
}
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

const char *spacrbench_last_error_message(void) { return last_message; }

int spacrbench_last_work_result(void) { return last_work_result; }

int64_t spacrbench_last_stopped_item(void) { return last_stopped_item; }

void sb_clear_error(void)
{
    last_message[0] = '\0';
    last_work_result = 0;
    last_stopped_item = -1;
}

void sb_set_stop(int work_result, int64_t item)
{
    last_work_result = work_result;
    last_stopped_item = item;
}

int sb_fail(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(last_message, sizeof last_message, fmt, ap);
    va_end(ap);
    if (n < 0)
        snprintf(last_message, sizeof last_message, "%s", spacrbench_strerror(code));
    return code;
}

int sb_text_deliver(sb_text *t, char *buf, size_t cap)
{
    if (!buf && cap) {
        sb_text_free(t);
        return sb_fail(SPACRBENCH_EINVAL, "buf is NULL but cap is %zu", cap);
    }
    if (t->failed) {
        sb_text_free(t);
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory formatting text");
    }
    if (t->len > (size_t)INT32_MAX) {
        sb_text_free(t);
        return sb_fail(SPACRBENCH_ENOSPACE, "text too long");
    }
    if (cap) {
        size_t n = t->len < cap - 1 ? t->len : cap - 1;
        if (n)
            memcpy(buf, t->data, n);
        buf[n] = '\0';
    }
    int len = (int)t->len;
    sb_text_free(t);
    return len;
}
