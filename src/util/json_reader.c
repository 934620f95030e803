/* See json_reader.h. An iterative parser would not need the depth limit
 * for its own stack; this one recurses, at most max_depth deep, which is
 * what makes the limit the only bound on the stack. */
#include "json_reader.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct parser {
    const char *s;
    size_t len, pos;
    json_doc *doc;
    size_t node_cap;
    size_t str_len, str_cap;
    json_limits lim;
    int failed;
} parser;

/* Checked as printf (MinGW: its C99 printf family, as SB_PRINTF does). */
#if defined(__MINGW32__)
static int fail(parser *p, const char *fmt, ...) __attribute__((format(gnu_printf, 2, 3)));
#elif defined(__GNUC__) || defined(__clang__)
static int fail(parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#endif
static int fail(parser *p, const char *fmt, ...)
{
    if (p->failed)
        return -1;
    p->failed = 1;
    char what[120];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(p->doc->error, sizeof p->doc->error, "%s at byte %zu", what, p->pos);
    return -1;
}

static void skip_space(parser *p)
{
    while (p->pos < p->len) {
        char c = p->s[p->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            break;
        p->pos++;
    }
}

/* A new node (index), or (size_t)-1. Node storage may move: callers keep
 * indices, never pointers, across calls. */
static size_t new_node(parser *p, json_kind kind)
{
    json_doc *d = p->doc;
    if (d->n_nodes >= p->lim.max_nodes) {
        fail(p, "more than %zu values", p->lim.max_nodes);
        return (size_t)-1;
    }
    if (d->n_nodes == p->node_cap) {
        size_t cap = p->node_cap ? p->node_cap * 2 : 64;
        json_node *n = realloc(d->nodes, cap * sizeof *n);
        if (!n) {
            fail(p, "out of memory");
            return (size_t)-1;
        }
        d->nodes = n;
        p->node_cap = cap;
    }
    json_node *n = &d->nodes[d->n_nodes];
    memset(n, 0, sizeof *n);
    n->kind = kind;
    return d->n_nodes++;
}

/* Append bytes to the string arena; the offset of the first one, or -1. */
static int put_bytes(parser *p, const char *b, size_t n)
{
    if (p->str_len + n + 1 > p->str_cap) {
        size_t cap = p->str_cap ? p->str_cap : 256;
        while (p->str_len + n + 1 > cap)
            cap *= 2;
        char *s = realloc(p->doc->strings, cap);
        if (!s)
            return fail(p, "out of memory");
        p->doc->strings = s;
        p->str_cap = cap;
    }
    memcpy(p->doc->strings + p->str_len, b, n);
    p->str_len += n;
    return 0;
}

static int put_code_point(parser *p, unsigned long c)
{
    char b[4];
    size_t n;
    if (c < 0x80) {
        b[0] = (char)c;
        n = 1;
    } else if (c < 0x800) {
        b[0] = (char)(0xC0 | (c >> 6));
        b[1] = (char)(0x80 | (c & 0x3F));
        n = 2;
    } else if (c < 0x10000) {
        b[0] = (char)(0xE0 | (c >> 12));
        b[1] = (char)(0x80 | ((c >> 6) & 0x3F));
        b[2] = (char)(0x80 | (c & 0x3F));
        n = 3;
    } else {
        b[0] = (char)(0xF0 | (c >> 18));
        b[1] = (char)(0x80 | ((c >> 12) & 0x3F));
        b[2] = (char)(0x80 | ((c >> 6) & 0x3F));
        b[3] = (char)(0x80 | (c & 0x3F));
        n = 4;
    }
    return put_bytes(p, b, n);
}

static int hex4(parser *p, unsigned long *out)
{
    if (p->len - p->pos < 4)
        return fail(p, "a short \\u escape");
    unsigned long v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p->s[p->pos++];
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0)
            return fail(p, "a \\u escape with a non-hex digit");
        v = v * 16 + (unsigned long)d;
    }
    *out = v;
    return 0;
}

/* Length of the valid UTF-8 sequence at s (1-4), 0 when invalid. */
static size_t utf8_length(const unsigned char *s, size_t avail)
{
    unsigned char c = s[0];
    size_t n;
    unsigned long min, v;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2, min = 0x80, v = c & 0x1F;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3, min = 0x800, v = c & 0x0F;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4, min = 0x10000, v = c & 0x07;
    else
        return 0;
    if (avail < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    return n;
}

/* The string at p->pos (just after its opening quote), into the arena;
 * its offset there, or -1. *nul is set when it held a \u0000 (kept only
 * with JSON_KEEP_UNHELD; the C string ends there). */
static long parse_string(parser *p, unsigned char *nul)
{
    size_t start = p->str_len;
    for (;;) {
        if (p->pos >= p->len)
            return fail(p, "an unterminated string");
        unsigned char c = (unsigned char)p->s[p->pos];
        if (c == '"') {
            p->pos++;
            break;
        }
        if (c < 0x20)
            return fail(p, "a control character in a string");
        if (c == '\\') {
            p->pos++;
            if (p->pos >= p->len)
                return fail(p, "an unterminated string");
            char e = p->s[p->pos++];
            const char *plain = strchr("\"\\/bfnrt", e);
            if (e && plain) {
                static const char k_out[] = "\"\\/\b\f\n\r\t";
                if (put_bytes(p, &k_out[plain - "\"\\/bfnrt"], 1) < 0)
                    return -1;
            } else if (e == 'u') {
                unsigned long cp, lo;
                if (hex4(p, &cp) < 0)
                    return -1;
                /* A lone surrogate (Python writes one for a str of
                 * undecodable bytes) is U+FFFD where kept. */
                int keep = (p->lim.flags & JSON_KEEP_UNHELD) != 0;
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    if (p->len - p->pos < 2 || p->s[p->pos] != '\\' || p->s[p->pos + 1] != 'u') {
                        if (!keep)
                            return fail(p, "a lone high surrogate");
                        cp = 0xFFFD;
                    } else {
                        p->pos += 2;
                        if (hex4(p, &lo) < 0)
                            return -1;
                        if ((lo < 0xDC00 || lo > 0xDFFF) && !keep)
                            return fail(p, "a high surrogate without its low one");
                        if (lo < 0xDC00 || lo > 0xDFFF)
                            p->pos -= 6; /* U+FFFD, then the escape after it again */
                        cp = lo < 0xDC00 || lo > 0xDFFF
                                 ? 0xFFFD
                                 : 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    }
                } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                    if (!keep)
                        return fail(p, "a lone low surrogate");
                    cp = 0xFFFD;
                }
                if (cp == 0 && !(p->lim.flags & JSON_KEEP_UNHELD))
                    return fail(p, "a \\u0000 in a string");
                if (cp == 0)
                    *nul = 1;
                if (put_code_point(p, cp) < 0)
                    return -1;
            } else
                return fail(p, "an unknown escape \\%c", e >= 0x20 && e < 0x7f ? e : '?');
            continue;
        }
        size_t n = utf8_length((const unsigned char *)p->s + p->pos, p->len - p->pos);
        if (n == 0)
            return fail(p, "invalid UTF-8");
        if (put_bytes(p, p->s + p->pos, n) < 0)
            return -1;
        p->pos += n;
    }
    if (put_bytes(p, "", 1) < 0) /* the NUL */
        return -1;
    return (long)start;
}

/* The text of a number (start .. p->pos) into the arena as the node's. */
static int number_text(parser *p, json_node *n, size_t start)
{
    long at = (long)p->str_len;
    if (put_bytes(p, p->s + start, p->pos - start) < 0 || put_bytes(p, "", 1) < 0)
        return -1;
    n->text = (const char *)(intptr_t)(at + 1); /* fixed up */
    return 0;
}

/* NaN, Infinity or -Infinity (JSON_NONFINITE) at p->pos: 1 when taken. */
static int nonfinite(parser *p, json_node *n)
{
    static const char *const words[] = {"NaN", "Infinity", "-Infinity"};
    static const double values[] = {NAN, INFINITY, -INFINITY};
    for (size_t i = 0; i < 3; i++) {
        size_t len = strlen(words[i]);
        if (p->len - p->pos >= len && memcmp(p->s + p->pos, words[i], len) == 0) {
            size_t start = p->pos;
            p->pos += len;
            n->number = values[i];
            return number_text(p, n, start) < 0 ? -1 : 1;
        }
    }
    return 0;
}

static int parse_number(parser *p, json_node *n)
{
    size_t start = p->pos;
    int integer = 1;
    if (p->lim.flags & JSON_NONFINITE) {
        int taken = nonfinite(p, n);
        if (taken)
            return taken < 0 ? -1 : 0;
    }
    if (p->s[p->pos] == '-')
        p->pos++;
    if (p->pos >= p->len || p->s[p->pos] < '0' || p->s[p->pos] > '9')
        return fail(p, "a malformed number");
    if (p->s[p->pos] == '0')
        p->pos++;
    else
        while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9')
            p->pos++;
    if (p->pos < p->len && p->s[p->pos] == '.') {
        integer = 0;
        p->pos++;
        size_t digits = p->pos;
        while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9')
            p->pos++;
        if (p->pos == digits)
            return fail(p, "a number without digits after its point");
    }
    if (p->pos < p->len && (p->s[p->pos] == 'e' || p->s[p->pos] == 'E')) {
        integer = 0;
        p->pos++;
        if (p->pos < p->len && (p->s[p->pos] == '+' || p->s[p->pos] == '-'))
            p->pos++;
        size_t digits = p->pos;
        while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9')
            p->pos++;
        if (p->pos == digits)
            return fail(p, "a number without exponent digits");
    }
    size_t len = p->pos - start;
    int keep = (p->lim.flags & JSON_KEEP_UNHELD) != 0;
    n->integral = (unsigned char)integer;
    if (len > 63 && !keep)
        return fail(p, "a number of more than 63 characters");
    if (number_text(p, n, start) < 0)
        return -1;
    /* The text in the arena is NUL-terminated: strtod reads it there
     * (the arena does not move before the next value). */
    const char *text = p->doc->strings + ((intptr_t)n->text - 1);
    errno = 0;
    n->number = strtod(text, NULL);
    if (!isfinite(n->number) && !keep)
        return fail(p, "a number beyond a double");
    n->finite = isfinite(n->number) != 0;
    if (integer) {
        errno = 0;
        long long v = strtoll(text, NULL, 10);
        if (errno == 0) {
            n->is_integer = 1;
            n->integer = v;
        }
    }
    return 0;
}

static int literal(parser *p, const char *word)
{
    size_t n = strlen(word);
    if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n) != 0)
        return fail(p, "not JSON (an unexpected character)");
    p->pos += n;
    return 0;
}

static size_t parse_value(parser *p, int depth);

/* The members or elements of a container node (its index), up to close. */
static int parse_children(parser *p, size_t self, int depth, char close)
{
    size_t prev = 0, count = 0;
    skip_space(p);
    if (p->pos < p->len && p->s[p->pos] == close) {
        p->pos++;
        return 0;
    }
    for (;;) {
        long key = -1;
        skip_space(p);
        if (close == '}') {
            if (p->pos >= p->len || p->s[p->pos] != '"')
                return fail(p, "an object member without a quoted name");
            p->pos++;
            unsigned char key_nul = 0;
            if ((key = parse_string(p, &key_nul)) < 0)
                return -1;
            if (key_nul) /* a name is one C string, or it could pass for another */
                return fail(p, "a \\u0000 in a member name");
            skip_space(p);
            if (p->pos >= p->len || p->s[p->pos] != ':')
                return fail(p, "a member name without ':'");
            p->pos++;
        }
        size_t child = parse_value(p, depth + 1);
        if (child == (size_t)-1)
            return -1;
        json_node *nodes = p->doc->nodes;
        nodes[child].key = key >= 0 ? (const char *)(intptr_t)(key + 1) : NULL; /* fixed up */
        if (count == 0)
            nodes[self].first = child;
        else
            nodes[prev].next = child;
        prev = child;
        count++;
        skip_space(p);
        if (p->pos < p->len && p->s[p->pos] == ',') {
            p->pos++;
            continue;
        }
        if (p->pos < p->len && p->s[p->pos] == close) {
            p->pos++;
            break;
        }
        return fail(p,
                    close == '}' ? "an object without ',' or '}'" : "an array without ',' or ']'");
    }
    p->doc->nodes[self].count = count;
    return 0;
}

static size_t parse_value(parser *p, int depth)
{
    if (depth > p->lim.max_depth) {
        fail(p, "nested deeper than %d", p->lim.max_depth);
        return (size_t)-1;
    }
    skip_space(p);
    if (p->pos >= p->len) {
        fail(p, "not JSON (it ends early)");
        return (size_t)-1;
    }
    char c = p->s[p->pos];
    json_kind kind = c == '{'   ? JSON_OBJECT
                     : c == '[' ? JSON_ARRAY
                     : c == '"' ? JSON_STRING
                     : c == 't' ? JSON_TRUE
                     : c == 'f' ? JSON_FALSE
                     : c == 'n' ? JSON_NULL
                                : JSON_NUMBER;
    size_t self = new_node(p, kind);
    if (self == (size_t)-1)
        return self;
    int rc = 0;
    switch (kind) {
    case JSON_OBJECT:
    case JSON_ARRAY:
        p->pos++;
        rc = parse_children(p, self, depth, kind == JSON_OBJECT ? '}' : ']');
        break;
    case JSON_STRING: {
        p->pos++;
        unsigned char nul = 0;
        long at = parse_string(p, &nul);
        p->doc->nodes[self].has_nul = nul;
        rc = at < 0 ? -1 : 0;
        p->doc->nodes[self].text = (const char *)(intptr_t)(at + 1); /* fixed up */
        break;
    }
    case JSON_TRUE:
        rc = literal(p, "true");
        break;
    case JSON_FALSE:
        rc = literal(p, "false");
        break;
    case JSON_NULL:
        rc = literal(p, "null");
        break;
    default:
        if (c != '-' && (c < '0' || c > '9') &&
            !((p->lim.flags & JSON_NONFINITE) && (c == 'N' || c == 'I')))
            rc = fail(p, "not JSON (an unexpected character)");
        else
            rc = parse_number(p, &p->doc->nodes[self]);
    }
    return rc < 0 ? (size_t)-1 : self;
}

int json_parse(json_doc *doc, const char *text, size_t len, const json_limits *limits)
{
    memset(doc, 0, sizeof *doc);
    parser p = {.s = text, .len = len, .doc = doc};
    p.lim = limits ? *limits : (json_limits){64, (size_t)1 << 20, 0};
    if (p.lim.max_depth < 1)
        p.lim.max_depth = 1;
    size_t root = parse_value(&p, 1);
    if (root != (size_t)-1) {
        skip_space(&p);
        if (p.pos != len)
            fail(&p, "text after the JSON value");
    }
    if (p.failed) {
        free(doc->nodes);
        free(doc->strings);
        doc->nodes = NULL;
        doc->strings = NULL;
        doc->n_nodes = 0;
        return -1;
    }
    /* Offsets (+1, so 0 stays "none") become pointers now the arena is final. */
    for (size_t i = 0; i < doc->n_nodes; i++) {
        json_node *n = &doc->nodes[i];
        if (n->key)
            n->key = doc->strings + ((intptr_t)n->key - 1);
        if (n->text)
            n->text = doc->strings + ((intptr_t)n->text - 1);
    }
    return 0;
}

void json_doc_free(json_doc *doc)
{
    free(doc->nodes);
    free(doc->strings);
    doc->nodes = NULL;
    doc->strings = NULL;
    doc->n_nodes = 0;
}

const json_node *json_root(const json_doc *doc) { return doc->n_nodes ? &doc->nodes[0] : NULL; }

const json_node *json_next(const json_doc *doc, const json_node *child)
{
    return child && child->next ? &doc->nodes[child->next] : NULL;
}

const json_node *json_child(const json_doc *doc, const json_node *node, size_t i)
{
    if (!node || (node->kind != JSON_ARRAY && node->kind != JSON_OBJECT) || i >= node->count)
        return NULL;
    const json_node *c = &doc->nodes[node->first];
    while (c && i--)
        c = json_next(doc, c);
    return c;
}

const json_node *json_get(const json_doc *doc, const json_node *node, const char *key)
{
    if (!node || node->kind != JSON_OBJECT || node->count == 0)
        return NULL;
    const json_node *found = NULL;
    for (const json_node *c = &doc->nodes[node->first]; c; c = json_next(doc, c))
        if (c->key && strcmp(c->key, key) == 0)
            found = c;
    return found;
}
