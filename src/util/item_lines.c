/* The items of a list, one per line, bounded; see util.h. */
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#if !defined(_WIN32)
#include <unistd.h>
#endif

#if defined(_WIN32)
#define sb_getc getc
#else
#define sb_getc getc_unlocked
#endif

static size_t items_line_limit(void)
{
    /* ARG_MAX bounds the arguments and environment of an exec together:
     * a longer line can never reach the command as an argument. glibc
     * derives it from the stack limit (a quarter of it), so an unlimited
     * stack would give no bound at all: it is kept within these. */
#if defined(_WIN32)
    long arg_max = 0;
#else
    long arg_max = sysconf(_SC_ARG_MAX);
#endif
    size_t lo = (size_t)128 << 10, hi = (size_t)64 << 20;
    if (arg_max <= 0)
        return (size_t)2 << 20;
    return (size_t)arg_max < lo ? lo : (size_t)arg_max > hi ? hi : (size_t)arg_max;
}

/* The line read (a trailing CR dropped) to keep, unless it is empty. */
static sb_items_fault end_line(char *line, size_t len, size_t *count,
                               int (*keep)(const char *, size_t, void *), void *payload)
{
    if (len > 0 && line[len - 1] == '\r')
        len--;
    if (len == 0)
        return SB_ITEMS_OK;
    if (*count == SB_ITEMS_MAX_COUNT)
        return SB_ITEMS_TOO_MANY;
    line[len] = '\0';
    ++*count;
    return keep(line, len, payload) == 0 ? SB_ITEMS_OK : SB_ITEMS_ERRNO;
}

sb_items_fault sb_items_read(FILE *f, int (*keep)(const char *item, size_t len, void *payload),
                             void *payload, size_t *line)
{
    size_t line_max = items_line_limit(), total = 0, count = 0, len = 0, cap = 0;
    char *buf = NULL;
    sb_items_fault fault = SB_ITEMS_OK;
    errno = 0;
    *line = 1;
    for (;;) {
        int c = sb_getc(f);
        if (c != EOF && ++total > SB_ITEMS_MAX_BYTES) {
            fault = SB_ITEMS_TOO_LARGE;
            break;
        }
        if (c == EOF && ferror(f)) {
            if (!errno)
                errno = EIO;
            fault = SB_ITEMS_ERRNO;
            break;
        }
        if (c == EOF || c == '\n') { /* the last line may lack its newline */
            fault = end_line(buf, len, &count, keep, payload);
            len = 0;
            if (fault != SB_ITEMS_OK || c == EOF)
                break;
            ++*line;
            continue;
        }
        if (c == '\0') {
            fault = SB_ITEMS_NUL;
            break;
        }
        if (len >= line_max) {
            fault = SB_ITEMS_LONG_LINE;
            break;
        }
        if (sb_grow(&buf, &cap, len + 2, 1)) {
            fault = SB_ITEMS_ERRNO;
            break;
        }
        buf[len++] = (char)c;
    }
    free(buf);
    return fault;
}

char *sb_items_refusal(sb_items_fault fault, size_t line, const char *file)
{
    char *shown = file ? sb_escape_text(file) : NULL;
    if (file && !shown)
        return NULL;
    const char *q = file ? "'" : "", *where = file ? shown : "standard input";
    sb_text t = {0};
    switch (fault) {
    case SB_ITEMS_NUL:
        sb_text_printf(&t, "line %zu holds a NUL byte, which no item can contain (%s%s%s)", line, q,
                       where, q);
        break;
    case SB_ITEMS_LONG_LINE:
        sb_text_printf(&t,
                       "line %zu of %s%s%s is longer than %zu bytes (ARG_MAX, the most an exec "
                       "can pass), so no item can be that long: is it a list of items, one per "
                       "line?",
                       line, q, where, q, items_line_limit());
        break;
    case SB_ITEMS_TOO_LARGE:
        sb_text_printf(&t,
                       "%s%s%s holds more than %zu bytes (1 GiB) by line %zu: far more than any "
                       "item list; is it a list of items, one per line?",
                       q, where, q, SB_ITEMS_MAX_BYTES, line);
        break;
    default:
        sb_text_printf(&t,
                       "%s%s%s holds more than %zu items (at line %zu): far more than any item "
                       "list; is it a list of items, one per line?",
                       q, where, q, SB_ITEMS_MAX_COUNT, line);
        break;
    }
    free(shown);
    return sb_text_take(&t);
}
