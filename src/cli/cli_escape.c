/* See cli_escape.h. */
#include "cli_escape.h"

#include <stdio.h>
#include <stdlib.h>

/* The escape of byte c, or NULL when it is shown as itself. */
static const char *escape_of(unsigned char c, char buf[5])
{
    if (c >= 0x20 && c != 0x7f)
        return NULL;
    if (c == '\n')
        return "\\n";
    if (c == '\t')
        return "\\t";
    if (c == '\r')
        return "\\r";
    snprintf(buf, 5, "\\x%02x", c);
    return buf;
}

size_t cli_escaped_length(const char *text)
{
    size_t n = 0;
    char buf[5];
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        const char *e = escape_of(*p, buf);
        n += e ? (e[1] == 'x' ? 4 : 2) : 1;
    }
    return n;
}

char *cli_escape_into(char *out, const char *text)
{
    char buf[5];
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        const char *e = escape_of(*p, buf);
        if (!e)
            *out++ = (char)*p;
        else
            while (*e)
                *out++ = *e++;
    }
    *out = '\0';
    return out;
}

char *cli_escape_label(const char *text)
{
    char *out = malloc(cli_escaped_length(text) + 1);
    if (out)
        cli_escape_into(out, text);
    return out;
}
