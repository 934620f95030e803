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

/* The rest of the first line that starts with key and sep, or NULL. */
static const char *find_key(const char *text, size_t len, const char *key, char sep, size_t *vlen)
{
    size_t klen = strlen(key), pos = 0, n;
    const char *line;
    while (sb_next_line(text, len, &pos, &line, &n)) {
        if (n > klen && memcmp(line, key, klen) == 0 && line[klen] == sep) {
            *vlen = n - klen - 1;
            return line + klen + 1;
        }
    }
    return NULL;
}

int sb_parse_meminfo(const char *text, size_t len, const char *key, int64_t *bytes)
{
    if (text == NULL || key == NULL || bytes == NULL)
        return SB_PARSE_BAD;
    size_t vlen;
    const char *value = find_key(text, len, key, ':', &vlen);
    if (value == NULL)
        return SB_PARSE_ABSENT;
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

int sb_parse_stat_key(const char *text, size_t len, const char *key, int64_t *value)
{
    if (text == NULL || key == NULL || value == NULL)
        return SB_PARSE_BAD;
    size_t vlen;
    const char *v = find_key(text, len, key, ' ', &vlen);
    return v == NULL ? SB_PARSE_ABSENT : sb_parse_int64(v, vlen, value);
}
