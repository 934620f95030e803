/* See util.h. */
#include "util.h"

#include <string.h>

/* Columns of the bytes [p, end): one per character (UTF-8 continuation
 * bytes take none). */
static size_t columns(const char *p, const char *end)
{
    size_t n = 0;
    for (; p < end; p++)
        n += ((unsigned char)*p & 0xC0) != 0x80;
    return n;
}

/* Where a line that starts at p and may hold room columns ends: at the
 * last space that keeps it within room (not before min), else at the first
 * space after min (a long word alone), else at the end. */
static const char *line_end(const char *p, const char *min, size_t room)
{
    const char *best = NULL, *q = p;
    size_t used = 0;
    for (; *q; q++) {
        if (*q == ' ' && q >= min) {
            if (used > room)
                break;
            best = q;
        }
        used += ((unsigned char)*q & 0xC0) != 0x80;
    }
    if (!*q && used <= room)
        return q; /* the rest fits */
    if (best)
        return best;
    const char *space = strchr(min > p ? min : p, ' ');
    return space ? space : p + strlen(p);
}

void sb_text_wrapped(sb_text *t, const char *line, size_t keep, size_t width, size_t indent)
{
    size_t len = strlen(line);
    if (columns(line, line + len) <= width || indent >= width) {
        sb_text_printf(t, "%s", line);
        return;
    }
    const char *p = line, *min = line + (keep < len ? keep : len);
    /* A detail in parentheses that fits the next line whole goes there. */
    for (const char *q = strstr(min, " ("); q; q = strstr(q + 1, " (")) {
        if (columns(line, q) > width)
            break;
        if (columns(q + 1, line + len) <= width - indent) {
            sb_text_printf(t, "%.*s\n%*s%s", (int)(q - line), line, (int)indent, "", q + 1);
            return;
        }
    }
    size_t room = width;
    while (*p) {
        const char *end = line_end(p, min, room);
        if (p != line)
            sb_text_printf(t, "\n%*s", (int)indent, "");
        sb_text_printf(t, "%.*s", (int)(end - p), p);
        p = end;
        while (*p == ' ')
            p++;
        room = width - indent;
        min = p;
    }
}
