/* Growable text for reports, and human-readable byte sizes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void sb_text_printf(sb_text *t, const char *fmt, ...)
{
    if (t->failed)
        return;
    for (;;) {
        size_t room = t->cap - t->len;
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->data ? t->data + t->len : NULL, t->data ? room : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->failed = 1;
            return;
        }
        if (t->data && (size_t)n < room) {
            t->len += (size_t)n;
            return;
        }
        size_t want = t->len + (size_t)n + 1;
        size_t cap = t->cap ? t->cap : 256;
        while (cap < want)
            cap *= 2;
        char *grown = realloc(t->data, cap);
        if (!grown) {
            t->failed = 1;
            return;
        }
        t->data = grown;
        t->cap = cap;
    }
}

void sb_text_free(sb_text *t)
{
    free(t->data);
    memset(t, 0, sizeof *t);
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
