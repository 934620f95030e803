/* See util.h. */
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static size_t digits_at(const char *text)
{
    size_t n = 0;
    while (text[n] >= '0' && text[n] <= '9')
        n++;
    return n;
}

/* The unit's multiplier, or 0 when s is no unit. */
static double unit_at(const char *s)
{
    static const char letters[] = "KMGTPE";
    if (*s == '\0' || strcmp(s, "B") == 0 || strcmp(s, "b") == 0)
        return 1;
    char c = *s >= 'a' && *s <= 'z' ? (char)(*s - 'a' + 'A') : *s;
    const char *at = c ? strchr(letters, c) : NULL;
    if (!at)
        return 0;
    int power = (int)(at - letters) + 1;
    const char *rest = s + 1;
    /* Any case, as the letter: 4GIB is 4GiB, 4gb is 4GB. */
    int decimal = (rest[0] == 'B' || rest[0] == 'b') && rest[1] == '\0';
    int binary = *rest == '\0' ||
                 ((rest[0] == 'i' || rest[0] == 'I') &&
                  (rest[1] == '\0' || ((rest[1] == 'B' || rest[1] == 'b') && rest[2] == '\0')));
    if (!decimal && !binary)
        return 0;
    return decimal ? pow(1000.0, power) : ldexp(1.0, 10 * power);
}

const char *sb_parse_size_text(const char *text, int64_t *bytes)
{
    if (!text || !*text)
        return "is empty (expected a size such as 4G, 4GiB, 4GB or 1048576)";
    size_t len = strnlen(text, SB_SIZE_TEXT_MAX + 1);
    if (len > SB_SIZE_TEXT_MAX)
        return "is too long for a size";
    if (*text == '-')
        return "is negative";
    size_t whole = digits_at(text), end = whole;
    if (whole == 0)
        return "does not start with a number (expected a size such as 4G, 4GiB, 4GB or "
               "1048576)";
    int fraction = text[end] == '.';
    if (fraction) {
        size_t k = digits_at(text + end + 1);
        if (k == 0)
            return "has no digit after its '.'";
        end += 1 + k;
    }
    double unit = unit_at(text + end);
    if (unit == 0)
        return "has an unknown unit (K, M, G, T, P, E alone or with iB: powers of 1024; "
               "with B: powers of 1000; B or none: bytes)";
    if (fraction && unit == 1)
        return "is a fraction of a byte (give a unit, e.g. 0.5G)";
    const char *too_big = "is too large (the largest size is 8 EiB - 1 byte)";
    if (!fraction) {
        /* Whole numbers stay exact: a double is not, beyond 2^53. */
        if (whole > 19)
            return too_big;
        uint64_t v = 0;
        for (size_t i = 0; i < whole; i++)
            v = v * 10 + (uint64_t)(text[i] - '0');
        uint64_t u = (uint64_t)unit; /* exact: 1000^k and 1024^k, k <= 6, fit */
        if (v > (uint64_t)INT64_MAX || (u > 1 && v > (uint64_t)INT64_MAX / u))
            return too_big;
        *bytes = (int64_t)(v * u);
        return NULL;
    }
    char number[SB_SIZE_TEXT_MAX + 1];
    memcpy(number, text, end);
    number[end] = '\0';
    double v = ceil(strtod(number, NULL) * unit);   /* only digits and one '.' */
    if (!isfinite(v) || v >= 9223372036854775808.0) /* 2^63, exactly a double */
        return too_big;
    *bytes = (int64_t)v;
    return NULL;
}
