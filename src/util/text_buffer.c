/* The growing array and text buffer, and the size as every front end writes it. */
#include "util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sb_text_reserve(sb_text *t, size_t need)
{
    if (t->failed)
        return -1;
    if (need > SIZE_MAX / 2 - t->len || sb_grow(&t->data, &t->cap, t->len + need + 1, 1) != 0) {
        t->failed = 1;
        return -1;
    }
    return 0;
}

void sb_text_vprintf(sb_text *t, const char *fmt, va_list ap)
{
    if (t->failed)
        return;
    va_list again;
    va_copy(again, ap);
    size_t room = t->cap - t->len;
    int n = vsnprintf(t->data ? t->data + t->len : NULL, t->data ? room : 0, fmt, ap);
    if (n < 0)
        t->failed = 1;
    else if (t->data && (size_t)n < room)
        t->len += (size_t)n;
    else if (sb_text_reserve(t, (size_t)n) == 0 &&
             vsnprintf(t->data + t->len, (size_t)n + 1, fmt, again) == n)
        t->len += (size_t)n;
    else
        t->failed = 1;
    va_end(again);
}

void sb_text_printf(sb_text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_text_vprintf(t, fmt, ap);
    va_end(ap);
}

int sb_text_append(sb_text *t, sb_text_formatter format, const void *arg)
{
    if (t->failed || sb_text_reserve(t, 0) != 0)
        return -1;
    size_t room = t->cap - t->len;
    int n = format(t->data + t->len, room, arg);
    if (n >= 0 && (size_t)n >= room) { /* cut short: grow to fit, then once more */
        t->data[t->len] = '\0';
        if (sb_text_reserve(t, (size_t)n) != 0)
            return -1;
        n = format(t->data + t->len, (size_t)n + 1, arg) == n ? n : -1;
    }
    if (n < 0) {
        t->data[t->len] = '\0';
        t->failed = 1;
        return -1;
    }
    t->len += (size_t)n;
    return n;
}

void sb_text_clear(sb_text *t)
{
    t->len = 0;
    if (t->data)
        t->data[0] = '\0';
}

char *sb_text_take(sb_text *t)
{
    char *data = t->failed ? NULL : t->data;
    if (!t->failed && !data)
        data = calloc(1, 1);
    if (t->failed)
        free(t->data);
    memset(t, 0, sizeof *t);
    return data;
}

void sb_text_free(sb_text *t)
{
    free(t->data);
    memset(t, 0, sizeof *t);
}

char *sb_vtextf(const char *fmt, va_list ap)
{
    sb_text t = {0};
    sb_text_vprintf(&t, fmt, ap);
    return sb_text_take(&t);
}

char *sb_textf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *text = sb_vtextf(fmt, ap);
    va_end(ap);
    return text;
}

int sb_grow(void *arrayp, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    /* A count no allocation could hold (SIZE_MAX items, say) must fail, not
     * wrap around to a small buffer. */
    if (need > SIZE_MAX / 2 / elem)
        return -1;
    size_t want = *cap ? *cap : 16;
    while (want < need)
        want *= 2;
    void *data;
    /* Copied, not cast: the pointer is a T *, never a void *. */
    memcpy(&data, arrayp, sizeof data);
    void *grown = realloc(data, want * elem);
    if (!grown)
        return -1;
    memcpy(arrayp, &grown, sizeof grown);
    *cap = want;
    return 0;
}

void sb_format_bytes(char *buf, size_t cap, int64_t bytes)
{
    const double kib = 1024.0, mib = kib * 1024.0, gib = mib * 1024.0;
    double b = (double)bytes;
    if (bytes < 0)
        snprintf(buf, cap, "not measured");
    else if (b >= gib)
        snprintf(buf, cap, "%.2f GiB", b / gib);
    else if (b >= mib)
        snprintf(buf, cap, "%.1f MiB", b / mib);
    else if (b >= kib)
        snprintf(buf, cap, "%.1f KiB", b / kib);
    else
        snprintf(buf, cap, "%lld B", (long long)bytes);
}
