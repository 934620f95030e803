/* JSON emitter; see json_writer.h. */
#include "json_writer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void json_init(json_writer *w, int pretty)
{
    memset(w, 0, sizeof *w);
    w->pretty = pretty;
}

void json_free(json_writer *w)
{
    free(w->data);
    memset(w, 0, sizeof *w);
}

static void put(json_writer *w, const char *s, size_t n)
{
    if (w->failed)
        return;
    if (w->len + n + 1 > w->cap) {
        size_t cap = w->cap ? w->cap : 256;
        while (w->len + n + 1 > cap)
            cap *= 2;
        char *grown = realloc(w->data, cap);
        if (grown == NULL) {
            w->failed = 1;
            return;
        }
        w->data = grown;
        w->cap = cap;
    }
    memcpy(w->data + w->len, s, n);
    w->len += n;
    w->data[w->len] = '\0';
}

static void puts_(json_writer *w, const char *s) { put(w, s, strlen(s)); }

static void newline(json_writer *w)
{
    if (!w->pretty)
        return;
    put(w, "\n", 1);
    for (int d = 0; d < w->depth; d++)
        put(w, "  ", 2);
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if invalid:
 * rejects overlong forms, surrogates and code points above U+10FFFF. */
static size_t utf8_valid_length(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t len;
    unsigned lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        len = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0)
            lo = 0xA0;
        if (c == 0xED)
            hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0)
            lo = 0x90;
        if (c == 0xF4)
            hi = 0x8F;
    } else
        return 0;
    if (n < len || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t k = 2; k < len; k++)
        if (s[k] < 0x80 || s[k] > 0xBF)
            return 0;
    return len;
}

static void put_escaped(json_writer *w, const char *text, size_t n)
{
    const unsigned char *s = (const unsigned char *)text;
    put(w, "\"", 1);
    size_t i = 0;
    while (i < n) {
        unsigned char c = s[i];
        char esc[8];
        if (c == '"' || c == '\\') {
            esc[0] = '\\', esc[1] = (char)c;
            put(w, esc, 2);
            i++;
        } else if (c < 0x20) {
            const char *named = c == '\n'   ? "\\n"
                                : c == '\t' ? "\\t"
                                : c == '\r' ? "\\r"
                                : c == '\b' ? "\\b"
                                : c == '\f' ? "\\f"
                                            : NULL;
            if (named)
                puts_(w, named);
            else {
                snprintf(esc, sizeof esc, "\\u%04x", c);
                puts_(w, esc);
            }
            i++;
        } else {
            size_t len = utf8_valid_length(s + i, n - i);
            if (len == 0) {
                puts_(w, "\xEF\xBF\xBD"); /* U+FFFD for each invalid byte */
                i++;
            } else {
                put(w, text + i, len);
                i += len;
            }
        }
    }
    put(w, "\"", 1);
}

/* Separator, indentation and key before a value. */
static void begin_value(json_writer *w, const char *key)
{
    if (w->depth > 0) {
        if (w->has_items[w->depth - 1])
            put(w, ",", 1);
        w->has_items[w->depth - 1] = 1;
        newline(w);
    }
    if (key != NULL) {
        put_escaped(w, key, strlen(key));
        puts_(w, w->pretty ? ": " : ":");
    }
}

static void open_container(json_writer *w, const char *key, const char *bracket)
{
    begin_value(w, key);
    puts_(w, bracket);
    if (w->depth >= JSON_MAX_DEPTH) {
        w->failed = 1;
        return;
    }
    w->has_items[w->depth++] = 0;
}

static void close_container(json_writer *w, const char *bracket)
{
    if (w->depth == 0) {
        w->failed = 1;
        return;
    }
    int had = w->has_items[--w->depth];
    if (had)
        newline(w);
    puts_(w, bracket);
}

void json_begin_object(json_writer *w, const char *key) { open_container(w, key, "{"); }
void json_end_object(json_writer *w) { close_container(w, "}"); }
void json_begin_array(json_writer *w, const char *key) { open_container(w, key, "["); }
void json_end_array(json_writer *w) { close_container(w, "]"); }

void json_string_n(json_writer *w, const char *key, const char *value, size_t n)
{
    begin_value(w, key);
    put_escaped(w, value, n);
}

void json_string(json_writer *w, const char *key, const char *value)
{
    if (value == NULL)
        json_null(w, key);
    else
        json_string_n(w, key, value, strlen(value));
}

void json_int(json_writer *w, const char *key, int64_t value)
{
    char buf[32];
    begin_value(w, key);
    snprintf(buf, sizeof buf, "%lld", (long long)value);
    puts_(w, buf);
}

void json_double(json_writer *w, const char *key, double value)
{
    if (!isfinite(value)) {
        json_null(w, key);
        return;
    }
    char buf[40];
    begin_value(w, key);
    /* Shortest of 15 or 17 digits that reads back exactly; "1e+20" is
     * valid JSON and non-finite values never get here. */
    snprintf(buf, sizeof buf, "%.15g", value);
    if (strtod(buf, NULL) != value)
        snprintf(buf, sizeof buf, "%.17g", value);
    puts_(w, buf);
}

void json_bool(json_writer *w, const char *key, int value)
{
    begin_value(w, key);
    puts_(w, value ? "true" : "false");
}

void json_null(json_writer *w, const char *key)
{
    begin_value(w, key);
    puts_(w, "null");
}

void json_raw(json_writer *w, const char *key, const char *text)
{
    if (text == NULL) {
        json_null(w, key);
        return;
    }
    begin_value(w, key);
    puts_(w, text);
}

const char *json_result(const json_writer *w)
{
    if (w->failed || w->depth != 0 || w->data == NULL)
        return NULL;
    return w->data;
}
