/* See sb_test_text.h. */
#include "sb_test_text.h"

#include <stdlib.h>
#include <string.h>

char *sb_test_unwrap(const char *text)
{
    static const char cont[] = "\n                      "; /* SB_WRAP_INDENT spaces */
    char *out = malloc(strlen(text) + 1);
    if (!out)
        return NULL;
    char *o = out;
    for (const char *p = text; *p;) {
        if (strncmp(p, cont, sizeof cont - 1) == 0 && p[sizeof cont - 1] != ' ') {
            *o++ = ' ';
            p += sizeof cont - 1;
        } else
            *o++ = *p++;
    }
    *o = '\0';
    return out;
}

size_t sb_test_columns(const char *p, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((unsigned char)p[i] & 0xC0) != 0x80;
    return c;
}

const char *sb_test_wide_line(const char *text, size_t width, const char *const *allowed,
                              size_t *len)
{
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n");
        int exempt = 0;
        for (const char *const *a = allowed; a && *a; a++)
            exempt |= strncmp(p, *a, strlen(*a)) == 0;
        if (!exempt && sb_test_columns(p, n) > width) {
            *len = n;
            return p;
        }
        p += n + (p[n] == '\n');
    }
    return NULL;
}
