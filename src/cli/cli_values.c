/* Parsing of option values, and the shared options' defaults; see
 * cli_values.h and cli_options.h. */
#include "cli_options.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

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

/* Where the unit starts after up to 9 digits with an optional fraction of
 * up to 9 digits; NULL when text does not start so. */
static const char *number_end(const char *text)
{
    if (text == NULL)
        return NULL;
    size_t len = digits_at(text);
    if (len == 0 || len > 9)
        return NULL;
    if (text[len] == '.') {
        size_t fraction = digits_at(text + len + 1);
        if (fraction == 0 || fraction > 9)
            return NULL;
        len += 1 + fraction;
    }
    return text + len;
}

int cli_parse_duration(const char *text, double *seconds)
{
    double v;
    if (!text || sb_parse_duration(text, strlen(text), &v) != SB_PARSE_OK)
        return -1;
    if (!(v > 0) || v > CLI_DURATION_MAX) /* 0 would kill at once; ~115 days */
        return -1;
    *seconds = v;
    return 0;
}

int cli_parse_bytes(const char *text, int64_t *out)
{
    return spacrbench_parse_size(text, out) == 0 ? 0 : -1;
}

/* Digits with an optional fraction, then "us", "ms", "s" or nothing
 * (seconds), as whole microseconds. */
int cli_parse_interval(const char *text, int64_t max_us, int64_t *us)
{
    const char *unit = number_end(text);
    if (!unit)
        return -1;
    double scale = strcmp(unit, "us") == 0                           ? 1
                   : strcmp(unit, "ms") == 0                         ? 1e3
                   : strcmp(unit, "s") == 0 || strcmp(unit, "") == 0 ? 1e6
                                                                     : 0;
    double v = round(strtod(text, NULL) * scale);
    if (!(v >= 1) || v > (double)max_us)
        return -1;
    *us = (int64_t)v;
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

int cli_parse_start_method(const char *text, int32_t *out)
{
    static const int32_t methods[] = {SPACRBENCH_START_FORK, SPACRBENCH_START_SPAWN,
                                      SPACRBENCH_START_FORKSERVER};
    for (size_t i = 0; text && i < sizeof methods / sizeof methods[0]; i++)
        if (strcmp(text, spacrbench_start_method_name(methods[i])) == 0) {
            *out = methods[i];
            return 0;
        }
    return -1;
}

int cli_parse_count_list(const char *text, int64_t max, int64_t *out, size_t cap, char *why,
                         size_t why_cap)
{
    size_t n = 0;
    const char *p = text ? text : "";
    for (;;) {
        size_t len = strcspn(p, ",");
        char one[32];
        if (len == 0 || len >= sizeof one) {
            snprintf(why, why_cap,
                     "expected whole numbers from 1 to %lld separated by commas, "
                     "or 'auto'",
                     (long long)max);
            return -1;
        }
        memcpy(one, p, len);
        one[len] = '\0';
        int64_t v;
        if (cli_parse_int(one, 1, max, &v) != 0) {
            snprintf(why, why_cap, "'%s' is not a whole number from 1 to %lld", one,
                     (long long)max);
            return -1;
        }
        for (size_t i = 0; i < n; i++)
            if (out[i] == v) {
                snprintf(why, why_cap, "%lld is given twice", (long long)v);
                return -1;
            }
        if (n == cap) {
            snprintf(why, why_cap, "at most %zu worker counts", cap);
            return -1;
        }
        out[n++] = v;
        if (p[len] == '\0')
            return (int)n;
        p += len + 1;
    }
}
