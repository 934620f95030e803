/* Numbers in cgroup control files: plain integers, memory limits with
 * their "no limit" spellings, cpu.max and cpuset lists. */
#include <string.h>

#include "util.h"

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static int is_digit(char c) { return c >= '0' && c <= '9'; }

void sb_trim(const char **text, size_t *len)
{
    const char *s = *text;
    size_t n = *len;
    while (n > 0 && is_blank(s[0])) {
        s++;
        n--;
    }
    while (n > 0 && is_blank(s[n - 1]))
        n--;
    *text = s;
    *len = n;
}

/* Leading decimal digits of [s, s + len). Sets *overflow when the value
 * does not fit in uint64 (the digits are still consumed). Returns how many
 * characters were digits. */
static size_t read_digits(const char *s, size_t len, uint64_t *value, int *overflow)
{
    uint64_t v = 0;
    size_t i = 0;
    *overflow = 0;
    for (; i < len && is_digit(s[i]); i++) {
        uint64_t d = (uint64_t)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            *overflow = 1;
        else
            v = v * 10 + d;
    }
    *value = v;
    return i;
}

int sb_parse_int64(const char *text, size_t len, int64_t *value)
{
    if (text == NULL || value == NULL)
        return SB_PARSE_BAD;
    sb_trim(&text, &len);
    int negative = 0;
    if (len > 0 && (text[0] == '-' || text[0] == '+')) {
        negative = text[0] == '-';
        text++;
        len--;
    }
    uint64_t v;
    int overflow;
    size_t used = read_digits(text, len, &v, &overflow);
    if (used == 0 || used != len || overflow || v > (uint64_t)INT64_MAX)
        return SB_PARSE_BAD;
    *value = negative ? -(int64_t)v : (int64_t)v;
    return SB_PARSE_OK;
}

int sb_parse_memory_limit(const char *text, size_t len, int64_t *bytes)
{
    if (text == NULL || bytes == NULL)
        return SB_PARSE_BAD;
    sb_trim(&text, &len);
    if ((len == 3 && memcmp(text, "max", 3) == 0) || (len == 2 && memcmp(text, "-1", 2) == 0)) {
        *bytes = SB_UNLIMITED;
        return SB_PARSE_OK;
    }
    uint64_t v;
    int overflow;
    size_t used = read_digits(text, len, &v, &overflow);
    if (used == 0 || used != len)
        return SB_PARSE_BAD;
    /* Too big for int64 (some kernels print the unsigned sentinel) or at
     * least 2^62: both are "no limit" spellings, not real limits. */
    if (overflow || v >= (uint64_t)SB_V1_UNLIMITED_FLOOR)
        *bytes = SB_UNLIMITED;
    else
        *bytes = (int64_t)v;
    return SB_PARSE_OK;
}

int sb_parse_cpu_max(const char *text, size_t len, int64_t *quota, int64_t *period)
{
    if (text == NULL || quota == NULL || period == NULL)
        return SB_PARSE_BAD;
    sb_trim(&text, &len);
    size_t first = 0;
    while (first < len && !is_blank(text[first]))
        first++;
    int64_t q;
    if (first == 3 && memcmp(text, "max", 3) == 0) {
        q = SB_UNLIMITED;
    } else if (sb_parse_int64(text, first, &q) != SB_PARSE_OK || q <= 0 || !is_digit(text[0])) {
        return SB_PARSE_BAD;
    }
    int64_t p = 100000; /* the kernel's default period when only a quota is given */
    if (first < len) {
        const char *rest = text + first;
        size_t rest_len = len - first;
        sb_trim(&rest, &rest_len);
        if (rest_len == 0 || !is_digit(rest[0]) ||
            sb_parse_int64(rest, rest_len, &p) != SB_PARSE_OK || p <= 0)
            return SB_PARSE_BAD;
    }
    *quota = q;
    *period = p;
    return SB_PARSE_OK;
}

int sb_parse_cpuset(const char *text, size_t len, int64_t *count)
{
    if (text == NULL || count == NULL)
        return SB_PARSE_BAD;
    sb_trim(&text, &len);
    /* A bitmap, so overlapping ranges are not counted twice. */
    uint64_t seen[SB_MAX_CPUS / 64];
    memset(seen, 0, sizeof seen);
    int64_t n = 0;
    size_t i = 0;
    while (i < len) {
        uint64_t lo, hi;
        int overflow;
        size_t used = read_digits(text + i, len - i, &lo, &overflow);
        if (used == 0 || overflow)
            return SB_PARSE_BAD;
        i += used;
        hi = lo;
        if (i < len && text[i] == '-') {
            i++;
            used = read_digits(text + i, len - i, &hi, &overflow);
            if (used == 0 || overflow)
                return SB_PARSE_BAD;
            i += used;
        }
        if (hi < lo || hi >= SB_MAX_CPUS)
            return SB_PARSE_BAD;
        for (uint64_t cpu = lo; cpu <= hi; cpu++) {
            uint64_t bit = UINT64_C(1) << (cpu % 64);
            if (!(seen[cpu / 64] & bit)) {
                seen[cpu / 64] |= bit;
                n++;
            }
        }
        if (i < len) {
            if (text[i] != ',' || i + 1 == len)
                return SB_PARSE_BAD;
            i++;
        }
    }
    *count = n;
    return SB_PARSE_OK;
}
