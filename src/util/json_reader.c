/* See util.h. json-c parses; this file adds what it lets through
 * or cannot hold, found by one pass over the tokens outside the structure
 * (strings and numbers): control characters, invalid UTF-8, lone
 * surrogates and \u0000 in strings, numbers beyond RFC 8259's grammar,
 * NaN and Infinity unless asked for, and integers beyond 64 bits, which
 * json-c is handed as a placeholder of the same length ("0e" and the
 * token's offset) and which keep their own text. The first problem by
 * offset is the one reported, in our words. */
#include "util.h"

#include <json_object.h>
#include <json_tokener.h>
#include <linkhash.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A problem and where: the earliest one wins. */
typedef struct problem {
    size_t at;
    const char *what;
    char escape; /* k_escape's letter */
} problem;

static const char k_deeper[] = "nested deeper than"; /* and the limit */
static const char k_escape[] = "an unknown escape";  /* and its letter */
static const char k_values[] = "more than";          /* the limit, "values" */

static void note(problem *p, size_t at, const char *what)
{
    if (!p->what || at < p->at)
        *p = (problem){at, what, 0};
}

/* The hex digits of a \u escape: 4 (the code point in *out), or how many
 * there were before a byte that is none (-1: the text ends first). */
static int hex4(const char *s, size_t avail, unsigned long *out)
{
    unsigned long v = 0;
    if (avail < 4)
        return -1;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0)
            return i;
        v = v * 16 + (unsigned long)d;
    }
    *out = v;
    return 4;
}

/* The string whose opening quote is at s[i]: its problems; the offset
 * after its closing quote (len when unterminated: json-c says so). s is
 * NUL-terminated beyond len. */
static size_t scan_string(const char *s, size_t len, size_t i, unsigned flags, int key, problem *p)
{
    int keep = (flags & JSON_KEEP_UNHELD) != 0, nul = 0;
    i++;
    while (i < len && s[i] != '"') {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20) {
            note(p, i, "a control character in a string");
            return len;
        }
        if (c >= 0x80) {
            size_t n = sb_utf8_length((const unsigned char *)s + i);
            if (n == 0 || i + n > len) {
                note(p, i, "invalid UTF-8");
                return len;
            }
            i += n;
            continue;
        }
        if (c != '\\') {
            i++;
            continue;
        }
        unsigned long cp, lo;
        if (i + 1 >= len)
            return len;
        if (s[i + 1] != 'u') {
            if (!s[i + 1] || !strchr("\"\\/bfnrt", s[i + 1])) {
                note(p, i + 2, k_escape);
                if (p->what == k_escape && p->at == i + 2)
                    p->escape = s[i + 1] >= 0x20 && s[i + 1] < 0x7f ? s[i + 1] : '?';
            }
            i += 2;
            continue;
        }
        int digits = hex4(s + i + 2, len - i - 2, &cp);
        if (digits < 4) {
            note(p, i + 3 + (size_t)digits,
                 digits < 0 ? "a short \\u escape" : "a \\u escape with a non-hex digit");
            return len;
        }
        i += 6;
        int next = s[i] == '\\' && s[i + 1] == 'u'; /* its hex digits are judged next */
        int escape = next && hex4(s + i + 2, len - i - 2, &lo) == 4;
        if (cp >= 0xD800 && cp <= 0xDBFF && escape && lo >= 0xDC00 && lo <= 0xDFFF)
            i += 6;
        else if (cp >= 0xD800 && cp <= 0xDBFF && !keep && escape)
            note(p, i + 6, "a high surrogate without its low one");
        else if (cp >= 0xD800 && cp <= 0xDBFF && !keep && !next)
            note(p, i, "a lone high surrogate");
        else if (cp >= 0xDC00 && cp <= 0xDFFF && !keep)
            note(p, i, "a lone low surrogate");
        else if (cp == 0 && !keep)
            note(p, i, "a \\u0000 in a string");
        nul |= cp == 0;
    }
    if (i >= len)
        return len;
    if (nul && key) /* a name is one C string, or it could pass for another */
        note(p, i + 1, "a \\u0000 in a member name");
    return i + 1;
}

/* The number token at s[i] (inside a container opened by inner, 0 none):
 * its problems; an integer json-c cannot hold becomes its placeholder in
 * s. The offset after it. */
static size_t scan_number(char *s, size_t len, size_t i, unsigned flags, char inner, problem *p)
{
    size_t start = i, end = i;
    while (end < len && strchr("+-.eE0123456789", s[end]) && s[end])
        end++;
    if ((flags & JSON_NONFINITE) && s[i] == '-' && strncmp(s + i + 1, "Infinity", 8) == 0)
        return i + 9;
    /* RFC 8259: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
    int integral = 1;
    i += s[i] == '-';
    size_t digits = i;
    if (s[i] == '0')
        i++;
    else
        while (s[i] >= '0' && s[i] <= '9')
            i++;
    if (i == digits) {
        note(p, i, "a malformed number");
        return end;
    }
    if (s[i] == '.') {
        integral = 0;
        digits = ++i;
        while (s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == digits) {
            note(p, i, "a number without digits after its point");
            return end;
        }
    }
    if (s[i] == 'e' || s[i] == 'E') {
        integral = 0;
        i += s[i + 1] == '+' || s[i + 1] == '-' ? 2 : 1;
        digits = i;
        while (s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == digits) {
            note(p, i, "a number without exponent digits");
            return end;
        }
    }
    size_t n = i - start; /* the number; what follows it (i < end) is no part of it */
    int keep = (flags & JSON_KEEP_UNHELD) != 0;
    if (n > 63 && !keep)
        note(p, i, "a number of more than 63 characters");
    char held = s[i];
    s[i] = '\0';
    errno = 0;
    double v = strtod(s + start, NULL);
    if (!isfinite(v) && !keep)
        note(p, i, "a number beyond a double");
    if (integral) {
        errno = 0;
        if (s[start] == '-')
            (void)strtoll(s + start, NULL, 10);
        else
            (void)strtoull(s + start, NULL, 10);
        if (errno == ERANGE && i == end)
            snprintf(s + start, n + 1, "0e%0*zu", (int)(n - 2), start);
    }
    s[i] = held;
    if (i < end || (inner && !strchr(",]} \t\r\n", s[end]))) /* json-c: "malformed" */
        note(p, i,
             !inner         ? "text after the JSON value"
             : inner == '[' ? "an array without ',' or ']'"
                            : "an object without ',' or '}'");
    return end;
}

/* One pass over the tokens that are not structure: the values it counts
 * (as many as json-c makes, or more where a name repeats). Where the
 * structure is broken, what it finds after the break is later than
 * json-c's error. */
static size_t scan(char *s, size_t len, const json_limits *lim, problem *p)
{
    char open[256], last = 0; /* the containers' brackets (json-c refuses deeper ones) */
    size_t depth = 0, values = 0;
    for (size_t i = 0; i < len;) {
        char c = s[i], inner = depth ? open[(depth - 1) % sizeof open] : 0;
        int key = inner == '{' && (last == '{' || last == ',');
        int word = (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
        if ((word || (c && strchr("\"-0123456789[{", c))) && !key && ++values > lim->max_nodes)
            note(p, i, k_values);
        if (c == '"')
            i = scan_string(s, len, i, lim->flags, key, p);
        else if (c == '-' || (c >= '0' && c <= '9'))
            i = scan_number(s, len, i, lim->flags, inner, p);
        else if (word) { /* true, NaN, ... */
            size_t start = i;
            while (i < len && (s[i] | 0x20) >= 'a' && (s[i] | 0x20) <= 'z')
                i++;
            int nonfinite = (i - start >= 3 && !strncmp(s + start, "NaN", 3)) ||
                            (i - start >= 8 && !strncmp(s + start, "Infinity", 8));
            if ((c != 'N' && c != 'I') || last == 'v' || last == 'k' || key)
                ; /* a literal, or a word where no value goes: json-c's to judge */
            else if (!(lim->flags & JSON_NONFINITE))
                note(p, start, "not JSON (an unexpected character)");
            else if (!nonfinite)
                note(p, start, "a malformed number");
        } else {
            if (c == '}' && key && last == ',') /* {"a": 1, } */
                note(p, i, "an object member without a quoted name");
            if (c == '[' || c == '{')
                open[depth++ % sizeof open] = c;
            depth -= depth && (c == ']' || c == '}');
            i++;
        }
        if (!strchr(" \t\r\n", c) || !c)
            last = c == '"' && key ? 'k' : strchr("{[,:", c) && c ? c : 'v';
    }
    return values;
}

/* json-c's error at offset at, in our words (len: the end of the text). */
static const char *words(enum json_tokener_error e, size_t at, size_t len)
{
    switch (e) {
    case json_tokener_error_parse_unexpected:
        if (at >= len)
            return "not JSON (it ends early)";
        /* fall through */
    case json_tokener_error_parse_null:
    case json_tokener_error_parse_boolean:
        return "not JSON (an unexpected character)";
    case json_tokener_error_parse_number:
        return "a malformed number";
    case json_tokener_error_parse_array:
        return "an array without ',' or ']'";
    case json_tokener_error_parse_object_key_name:
        return "an object member without a quoted name";
    case json_tokener_error_parse_object_key_sep:
        return "a member name without ':'";
    case json_tokener_error_parse_object_value_sep:
        return "an object without ',' or '}'";
    case json_tokener_error_parse_string:
    case json_tokener_continue:
        return at >= len ? "an unterminated string" : "a malformed escape in a string";
    case json_tokener_error_parse_utf8_string:
        return "invalid UTF-8";
    default:
        return json_tokener_error_desc(e);
    }
}

typedef struct builder {
    json_doc *doc;
    const char *text; /* the text as given: the placeholders' numbers */
    size_t len;
    size_t n_nodes, n_text; /* used */
} builder;

/* v, a number: its value and text (one written for an integer, the
 * token's own for a placeholder, json-c's otherwise). */
static void number(builder *b, json_node *n, struct json_object *v)
{
    char buf[24];
    const char *t = json_object_get_userdata(v);
    n->kind = JSON_NUMBER;
    n->integral = (unsigned char)json_object_is_type(v, json_type_int);
    if (n->integral) {
        int64_t i = json_object_get_int64(v);
        uint64_t u = json_object_get_uint64(v);
        n->is_integer = !(i == INT64_MAX && u > (uint64_t)INT64_MAX);
        n->integer = n->is_integer ? i : 0;
        if (n->is_integer)
            snprintf(buf, sizeof buf, "%lld", (long long)i);
        else
            snprintf(buf, sizeof buf, "%llu", (unsigned long long)u);
        t = buf;
    } else if (!t) {
        double d = json_object_get_double(v);
        t = isnan(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity";
    }
    size_t len = strlen(t), digits = 0;
    if (!n->integral && len >= 19 && t[0] == '0' && t[1] == 'e') {
        /* A placeholder, if the text at its offset is an integer as long. */
        size_t at = (size_t)strtoull(t + 2, NULL, 10);
        while (at <= b->len && digits < b->len - at &&
               strchr("-0123456789", b->text[at + digits]) && b->text[at + digits])
            digits++;
        if (digits == len) {
            n->integral = 1;
            t = b->text + at;
        }
    }
    char *text = b->doc->strings + b->n_text;
    memcpy(text, t, len);
    text[len] = '\0';
    b->n_text += len + 1;
    n->text = text;
    n->number = n->integral ? strtod(text, NULL) : json_object_get_double(v);
    n->finite = isfinite(n->number) != 0;
}

/* v as the node at index self, its subtree after it. */
static void fill(builder *b, size_t self, struct json_object *v, const char *key)
{
    json_node *n = &b->doc->nodes[self];
    memset(n, 0, sizeof *n);
    n->key = key;
    b->n_nodes = self + 1;
    switch (json_object_get_type(v)) {
    case json_type_null:
        n->kind = JSON_NULL;
        return;
    case json_type_boolean:
        n->kind = json_object_get_boolean(v) ? JSON_TRUE : JSON_FALSE;
        return;
    case json_type_int:
    case json_type_double:
        number(b, n, v);
        return;
    case json_type_string:
        n->kind = JSON_STRING;
        n->text = json_object_get_string(v);
        n->has_nul = strlen(n->text) < (size_t)json_object_get_string_len(v);
        return;
    case json_type_array:
        n->kind = JSON_ARRAY;
        n->count = json_object_array_length(v);
        break;
    case json_type_object:
        n->kind = JSON_OBJECT;
        n->count = (size_t)json_object_object_length(v);
        break;
    }
    size_t prev = 0, i = 0;
    struct lh_entry *e = n->kind == JSON_OBJECT ? json_object_get_object(v)->head : NULL;
    for (; i < n->count; i++) {
        const char *k = NULL;
        struct json_object *child;
        if (e) {
            k = (const char *)lh_entry_k(e);
            child = (struct json_object *)lh_entry_v(e);
            e = e->next;
        } else
            child = json_object_array_get_idx(v, i);
        size_t at = b->n_nodes;
        if (i == 0)
            b->doc->nodes[self].first = at;
        else
            b->doc->nodes[prev].next = at;
        prev = at;
        fill(b, at, child, k);
    }
}

int json_parse(json_doc *doc, const char *text, size_t len, const json_limits *limits)
{
    memset(doc, 0, sizeof *doc);
    json_limits lim = limits ? *limits : (json_limits){64, (size_t)1 << 20, 0};
    if (lim.max_depth < 1)
        lim.max_depth = 1;
    problem p = {0};
    /* json-c reads a copy: the placeholders, then a space and a byte no
     * JSON value holds, so that a text cut short is an error at its end
     * (json-c would wait for more) and a whole one ends at the mark. */
    char *copy = len < (size_t)INT32_MAX - 3 ? malloc(len + 3) : NULL;
    struct json_tokener *tok = json_tokener_new_ex(lim.max_depth);
    if (!copy || !tok) {
        free(copy);
        json_tokener_free(tok);
        snprintf(doc->error, sizeof doc->error, "out of memory");
        return -1;
    }
    memcpy(copy, text, len);
    memcpy(copy + len, " \x01", 3);
    for (char *c = memchr(copy, '\0', len); c; c = memchr(c, '\0', len - (size_t)(c - copy)))
        *c = '\x01'; /* json-c would take a NUL for the end; this one it judges in place */
    size_t values = scan(copy, len, &lim, &p);
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_ALLOW_TRAILING_CHARS);
    /* Past the value limit json-c reads no further: only a problem before it counts. */
    size_t upto = p.what == k_values ? p.at : len + 2;
    struct json_object *tree = json_tokener_parse_ex(tok, copy, (int)upto);
    enum json_tokener_error e = json_tokener_get_error(tok);
    size_t end = json_tokener_get_parse_end(tok), at = end < len ? end : len; /* not the mark */
    if (e == json_tokener_error_parse_null || e == json_tokener_error_parse_boolean)
        while (at > 0 && copy[at - 1] &&
               strchr("aeflnrstu", copy[at - 1])) /* where the word starts */
            at--;
    if (e == json_tokener_error_depth)
        note(&p, at, k_deeper);
    else if (e == json_tokener_error_parse_string && p.what)
        ; /* a bad escape: the scan's words */
    else if (e != json_tokener_success)
        note(&p, at, words(e, end, len));
    else if (end < len)
        note(&p, end, "text after the JSON value");
    json_tokener_free(tok);
    free(copy);
    builder b = {doc, text, len, 0, 0};
    if (p.what == k_values)
        snprintf(doc->error, sizeof doc->error, "%s %zu values at byte %zu", p.what, lim.max_nodes,
                 p.at);
    else if (p.what == k_deeper)
        snprintf(doc->error, sizeof doc->error, "%s %d at byte %zu", p.what, lim.max_depth, p.at);
    else if (p.what == k_escape)
        snprintf(doc->error, sizeof doc->error, "%s \\%c at byte %zu", p.what, p.escape, p.at);
    else if (p.what)
        snprintf(doc->error, sizeof doc->error, "%s at byte %zu", p.what, p.at);
    else {
        /* A number's text is no longer than its token, and a string's is the tree's. */
        doc->nodes = malloc(values * sizeof *doc->nodes);
        doc->strings = malloc(len + values + 1);
        doc->tree = tree;
        if (!doc->nodes || !doc->strings)
            snprintf(doc->error, sizeof doc->error, "out of memory");
        else {
            fill(&b, 0, tree, NULL);
            doc->n_nodes = b.n_nodes;
            return 0;
        }
        json_doc_free(doc);
        return -1;
    }
    json_object_put(tree);
    return -1;
}

void json_doc_free(json_doc *doc)
{
    free(doc->nodes);
    free(doc->strings);
    json_object_put(doc->tree);
    doc->nodes = NULL;
    doc->strings = NULL;
    doc->tree = NULL;
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
