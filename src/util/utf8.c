/* See utf8.h. */
#include "utf8.h"

size_t sb_utf8_length(const unsigned char *p)
{
    unsigned char c = p[0];
    if (c < 0x80)
        return 1;
    unsigned char lo = 0x80, hi = 0xbf;
    size_t n;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        if (c == 0xe0)
            lo = 0xa0; /* overlong */
        else if (c == 0xed)
            hi = 0x9f; /* surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        if (c == 0xf0)
            lo = 0x90; /* overlong */
        else if (c == 0xf4)
            hi = 0x8f; /* above U+10FFFF */
    } else
        return 0;
    if (p[1] < lo || p[1] > hi) /* the NUL that ends the string fails here */
        return 0;
    for (size_t i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xbf)
            return 0;
    return n;
}

int sb_utf8_is_c1(const unsigned char *p, size_t n)
{
    return n == 2 && p[0] == 0xc2 && p[1] <= 0x9f;
}
