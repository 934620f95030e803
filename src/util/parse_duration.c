/* Durations people write: --timeout's units and SLURM's --time clock
 * forms, parsed once here (util.h). Bounded by len, no allocation. */
#include <stdlib.h>
#include <string.h>

#include "util.h"

static int is_digit(char c) { return c >= '0' && c <= '9'; }

int sb_parse_slurm_time(const char *text, size_t len, int64_t *seconds)
{
    const char *p = text, *end = text + len;
    const char *dash = memchr(text, '-', len);
    int64_t f[3] = {0, 0, 0}, days = 0;
    int n = 0;
    if (dash) { /* D-...: at most 4 digits of days */
        if (dash == p || dash - p > 4)
            return SB_PARSE_BAD;
        for (; p < dash; p++) {
            if (!is_digit(*p))
                return SB_PARSE_BAD;
            days = days * 10 + (*p - '0');
        }
        p++;
    }
    for (;;) { /* up to three fields of at most 9 digits, ':' between */
        if (n == 3 || p == end || !is_digit(*p))
            return SB_PARSE_BAD;
        int64_t v = 0;
        for (int d = 0; p < end && is_digit(*p); p++, d++) {
            if (d == 9)
                return SB_PARSE_BAD;
            v = v * 10 + (*p - '0');
        }
        f[n++] = v;
        if (p == end || *p != ':')
            break;
        p++;
    }
    if (p != end)
        return SB_PARSE_BAD;
    if (dash) /* D-H, D-H:M, D-H:M:S */
        *seconds = days * 86400 + f[0] * 3600 + f[1] * 60 + f[2];
    else /* minutes, M:S, H:M:S */
        *seconds = n == 1 ? f[0] * 60 : n == 2 ? f[0] * 60 + f[1] : f[0] * 3600 + f[1] * 60 + f[2];
    return SB_PARSE_OK;
}

/* Up to 9 digits, then optionally '.' and up to 9 more, at p: its length
 * (0: none), its value in *v as strtod reads it. */
static size_t number_at(const char *p, const char *end, double *v)
{
    size_t n = 0, whole = 0, fraction = 0;
    while (p + n < end && is_digit(p[n]))
        n++;
    whole = n;
    if (whole == 0 || whole > 9)
        return 0;
    if (p + n < end && p[n] == '.') {
        while (p + n + 1 + fraction < end && is_digit(p[n + 1 + fraction]))
            fraction++;
        if (fraction == 0 || fraction > 9)
            return 0;
        n += 1 + fraction;
    }
    char copy[20];
    memcpy(copy, p, n);
    copy[n] = '\0';
    *v = strtod(copy, NULL);
    return n;
}

int sb_parse_duration(const char *text, size_t len, double *seconds)
{
    static const struct {
        char unit;
        double seconds;
    } k_units[] = {{'d', 86400}, {'h', 3600}, {'m', 60}, {'s', 1}};
    if (memchr(text, ':', len) || memchr(text, '-', len)) { /* SLURM's clock forms */
        int64_t s;
        if (sb_parse_slurm_time(text, len, &s) != SB_PARSE_OK)
            return SB_PARSE_BAD;
        *seconds = (double)s;
        return SB_PARSE_OK;
    }
    const char *p = text, *end = text + len;
    double total = 0;
    size_t next = 0; /* units go from days down, each once */
    if (p == end)
        return SB_PARSE_BAD;
    while (p < end) {
        double v;
        size_t n = number_at(p, end, &v);
        if (n == 0)
            return SB_PARSE_BAD;
        p += n;
        if (p == end) { /* a bare number is seconds, alone */
            if (next)
                return SB_PARSE_BAD;
            total = v;
            break;
        }
        size_t u = next;
        while (u < sizeof k_units / sizeof k_units[0] && k_units[u].unit != *p)
            u++;
        if (u == sizeof k_units / sizeof k_units[0])
            return SB_PARSE_BAD;
        total += v * k_units[u].seconds;
        next = u + 1;
        p++;
    }
    *seconds = total;
    return SB_PARSE_OK;
}

/* A share as people write it: "5%" or "0.05", 0 to 1. */
int sb_parse_share(const char *text, size_t len, double *share)
{
    char buf[64];
    if (len == 0 || len >= sizeof buf || !((text[0] >= '0' && text[0] <= '9') || text[0] == '.'))
        return SB_PARSE_BAD; /* no sign, blank, "nan" or "inf" */
    memcpy(buf, text, len);
    buf[len] = '\0';
    char *end = NULL;
    double v = strtod(buf, &end);
    if (end != buf && *end == '%' && end[1] == '\0')
        v /= 100;
    else if (end == buf || *end != '\0')
        return SB_PARSE_BAD;
    if (!(v >= 0 && v <= 1))
        return SB_PARSE_BAD;
    *share = v;
    return SB_PARSE_OK;
}
