/* See util.h. */
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How the text at p is shown: *take bytes of it, either as themselves
 * (returns 0) or each as \xNN, or as the two-byte escape in short
 * (returns 1 and fills short_form). */
static int classify(const unsigned char *p, size_t *take, char short_form[3])
{
    unsigned char c = *p;
    *take = 1;
    short_form[0] = '\0';
    if (c < 0x20 || c == 0x7f) {
        if (c == '\n' || c == '\t' || c == '\r') {
            short_form[0] = '\\';
            short_form[1] = c == '\n' ? 'n' : c == '\t' ? 't' : 'r';
            short_form[2] = '\0';
        }
        return 1;
    }
    size_t n = sb_utf8_length(p);
    if (n == 0)
        return 1; /* not UTF-8: a lone 0x9b is CSI to an 8-bit terminal */
    *take = n;
    return sb_utf8_is_c1(p, n); /* U+0080..U+009F, the C1 controls (U+009B is CSI) */
}

/* Write (when out is not NULL) the escaped form of the n bytes at text;
 * returns its length. */
static size_t escape_span(char *out, const unsigned char *text, size_t n)
{
    size_t len = 0;
    for (size_t i = 0; i < n;) {
        size_t take;
        char short_form[3];
        if (!classify(text + i, &take, short_form)) {
            if (out)
                memcpy(out + len, text + i, take);
            len += take;
        } else if (short_form[0]) {
            if (out)
                memcpy(out + len, short_form, 2);
            len += 2;
        } else {
            for (size_t k = 0; k < take; k++) {
                if (out)
                    snprintf(out + len, 5, "\\x%02x", text[i + k]);
                len += 4;
            }
        }
        i += take;
    }
    return len;
}

size_t sb_escaped_length(const char *text)
{
    return escape_span(NULL, (const unsigned char *)text, strlen(text));
}

/* Into out (room for sb_escaped_length + 1): a pointer to the final NUL. */
static char *escape_into(char *out, const char *text)
{
    size_t len = escape_span(out, (const unsigned char *)text, strlen(text));
    out[len] = '\0';
    return out + len;
}

char *sb_escape_text(const char *text)
{
    char *out = malloc(sb_escaped_length(text) + 1);
    if (out)
        escape_into(out, text);
    return out;
}

/* The end of the longest prefix of text (n bytes) whose escaped form fits
 * in room bytes, never inside a character or an escape. */
static size_t fitting_prefix(const unsigned char *text, size_t n, size_t room)
{
    size_t i = 0, used = 0;
    while (i < n) {
        size_t take;
        char short_form[3];
        size_t cost = !classify(text + i, &take, short_form) ? take : short_form[0] ? 2 : 4 * take;
        if (used + cost > room)
            break;
        used += cost;
        i += take;
    }
    return i;
}

/* The start of the shortest suffix of text whose escaped form fits in
 * room bytes, never inside a character or an escape. */
static size_t fitting_suffix(const unsigned char *text, size_t n, size_t room)
{
    size_t start = n;
    /* Characters are found from the front; the suffix is the tail of
     * those boundaries whose escaped length fits. */
    size_t i = 0, total = escape_span(NULL, text, n), used = 0;
    while (i < n) {
        size_t take;
        char short_form[3];
        size_t cost = !classify(text + i, &take, short_form) ? take : short_form[0] ? 2 : 4 * take;
        if (total - used <= room) {
            start = i;
            break;
        }
        used += cost;
        i += take;
    }
    return start;
}

char *sb_escape_short(const char *text, size_t max)
{
    const unsigned char *t = (const unsigned char *)text;
    size_t n = strlen(text), full = escape_span(NULL, t, n);
    if (full <= max)
        return sb_escape_text(text);
    char tail_note[64];
    int note = snprintf(tail_note, sizeof tail_note, "... (%zu bytes)", n);
    /* Two thirds of the room for the start, a third for the end (where a
     * file's extension is); what sits between becomes the ellipsis. */
    size_t room = max > (size_t)note + 8 ? max - (size_t)note : 8;
    size_t head = fitting_prefix(t, n, room * 2 / 3);
    size_t tail = fitting_suffix(t + head, n - head, room - escape_span(NULL, t, head)) + head;
    size_t head_len = escape_span(NULL, t, head), tail_len = escape_span(NULL, t + tail, n - tail);
    /* "HEAD... (N bytes)TAIL" reads badly: "HEAD...TAIL (N bytes)". */
    char *out = malloc(head_len + 3 + tail_len + (size_t)note + 1);
    if (!out)
        return NULL;
    char *o = out;
    o += escape_span(o, t, head);
    memcpy(o, "...", 3);
    o += 3;
    o += escape_span(o, t + tail, n - tail);
    snprintf(o, (size_t)note + 1, " (%zu bytes)", n);
    return out;
}

void sb_text_label(sb_text *t, const char *text)
{
    if (!text)
        return;
    size_t n = strlen(text), len = escape_span(NULL, (const unsigned char *)text, n);
    if (sb_text_reserve(t, len) != 0)
        return;
    escape_span(t->data + t->len, (const unsigned char *)text, n);
    t->len += len;
    t->data[t->len] = '\0';
}
