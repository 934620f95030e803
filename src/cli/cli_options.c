/* Parsing of numbers, sizes and the shared options; see cli_options.h. */
#include "cli_options.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cli_common_init(cli_common *c)
{
    memset(c, 0, sizeof *c);
    spacrbench_recommend_options_init(&c->rec, sizeof c->rec);
}

/* Length of the run of decimal digits at text. */
static size_t digits_at(const char *text)
{
    size_t n = 0;
    while (text[n] >= '0' && text[n] <= '9')
        n++;
    return n;
}

/* Plain decimal digits only: strtoll alone would take " 4", "+4" and
 * "-0", which no documented form allows. */
int cli_parse_int(const char *text, int64_t min, int64_t max, int64_t *out)
{
    if (text == NULL || *text == '\0' || text[digits_at(text)] != '\0')
        return -1;
    char *end = NULL;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno != 0 || *end != '\0' || v < min || v > max)
        return -1;
    *out = (int64_t)v;
    return 0;
}

/* Digits with an optional fraction ("1.5"), then a documented suffix:
 * strtod alone would also take hex ("0x10"), exponents ("1e3"), "inf". */
int cli_parse_bytes(const char *text, int64_t *out)
{
    if (text == NULL)
        return -1;
    size_t len = digits_at(text);
    if (len == 0)
        return -1;
    if (text[len] == '.') {
        size_t fraction = digits_at(text + len + 1);
        if (fraction == 0)
            return -1;
        len += 1 + fraction;
    }
    char number[64];
    if (len >= sizeof number)
        return -1;
    memcpy(number, text, len);
    number[len] = '\0';
    errno = 0;
    double v = strtod(number, NULL);
    if (errno != 0 || !isfinite(v) || v < 0)
        return -1;
    double unit = 1;
    const char *s = text + len;
    switch (*s) {
    case 'k':
    case 'K':
        unit = 1024.0;
        s++;
        break;
    case 'm':
    case 'M':
        unit = 1024.0 * 1024;
        s++;
        break;
    case 'g':
    case 'G':
        unit = 1024.0 * 1024 * 1024;
        s++;
        break;
    case 't':
    case 'T':
        unit = 1024.0 * 1024 * 1024 * 1024;
        s++;
        break;
    default:
        break;
    }
    if (unit > 1 && *s == 'i')
        s++;
    if (*s == 'B' || *s == 'b')
        s++;
    if (*s != '\0')
        return -1;
    double bytes = ceil(v * unit);
    if (bytes >= 9.2e18)
        return -1;
    *out = (int64_t)bytes;
    return 0;
}

int cli_parse_size(const char *text, int64_t *width, int64_t *height)
{
    const char *x = text ? strchr(text, 'x') : NULL;
    if (x == NULL || x == text)
        return -1;
    char w[32];
    size_t n = (size_t)(x - text);
    if (n >= sizeof w)
        return -1;
    memcpy(w, text, n);
    w[n] = '\0';
    return cli_parse_int(w, 1, INT32_MAX, width) == 0 &&
                   cli_parse_int(x + 1, 1, INT32_MAX, height) == 0
               ? 0
               : -1;
}

int cli_usage_error(const char *option, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "spacrbench: %s: ", option);
    vfprintf(stderr, fmt, ap);
    fputs("\n(see spacrbench --help)\n", stderr);
    va_end(ap);
    return CLI_EXIT_USAGE;
}
