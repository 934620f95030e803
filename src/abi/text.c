/* Text handed to a caller snprintf-style (internal.h): the length it
 * needs, as much as fits, always terminated; the buffer freed. */
#include <string.h>

#include "internal.h"

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
