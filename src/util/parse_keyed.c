/* Line-oriented "key value" texts: /proc/meminfo and memory.stat. */
#include <string.h>

#include "util.h"

int sb_next_line(const char *text, size_t len, size_t *pos, const char **line, size_t *line_len)
{
    if (*pos >= len)
        return 0;
    const char *start = text + *pos;
    const char *nl = memchr(start, '\n', len - *pos);
    size_t n = nl ? (size_t)(nl - start) : len - *pos;
    *line = start;
    *line_len = n;
    *pos += n + (nl ? 1 : 0);
    return 1;
}

int sb_list_has(const char *list, size_t len, const char *word)
{
    size_t wlen = strlen(word);
    size_t i = 0;
    while (i <= len) {
        const char *comma = i < len ? memchr(list + i, ',', len - i) : NULL;
        size_t end = comma ? (size_t)(comma - list) : len;
        if (end - i == wlen && memcmp(list + i, word, wlen) == 0)
            return 1;
        i = end + 1;
    }
    return 0;
}

int sb_parse_meminfo(const char *text, size_t len, const char *key, int64_t *bytes)
{
    if (text == NULL || key == NULL || bytes == NULL)
        return SB_PARSE_BAD;
    size_t klen = strlen(key);
    size_t pos = 0;
    const char *line;
    size_t n;
    while (sb_next_line(text, len, &pos, &line, &n)) {
        if (n <= klen || memcmp(line, key, klen) != 0 || line[klen] != ':')
            continue;
        const char *value = line + klen + 1;
        size_t vlen = n - klen - 1;
        sb_trim(&value, &vlen);
        int64_t scale = 1;
        if (vlen >= 2 && memcmp(value + vlen - 2, "kB", 2) == 0) {
            scale = 1024;
            vlen -= 2;
        }
        int64_t v;
        if (sb_parse_int64(value, vlen, &v) != SB_PARSE_OK || v < 0 || v > INT64_MAX / scale)
            return SB_PARSE_BAD;
        *bytes = v * scale;
        return SB_PARSE_OK;
    }
    return SB_PARSE_ABSENT;
}

int sb_parse_stat_key(const char *text, size_t len, const char *key, int64_t *value)
{
    if (text == NULL || key == NULL || value == NULL)
        return SB_PARSE_BAD;
    size_t klen = strlen(key);
    size_t pos = 0;
    const char *line;
    size_t n;
    while (sb_next_line(text, len, &pos, &line, &n)) {
        if (n <= klen || memcmp(line, key, klen) != 0 || line[klen] != ' ')
            continue;
        int64_t v;
        if (sb_parse_int64(line + klen + 1, n - klen - 1, &v) != SB_PARSE_OK)
            return SB_PARSE_BAD;
        *value = v;
        return SB_PARSE_OK;
    }
    return SB_PARSE_ABSENT;
}
