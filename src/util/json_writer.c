/* See record.h. json-c holds the tree and writes it; what it would
 * write differently from the documents we promise is set per value: a
 * double's digits, an empty container's "{}" (json-c's pretty form puts a
 * newline inside) and a spliced value's text. */
#include "record.h"

/* json-c's type json_bool is our function's name: renamed here. */
#define json_bool json_c_bool
#include <json_object.h>
#include <json_tokener.h>
#include <linkhash.h>
#undef json_bool
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
    json_object_put(w->root);
    free(w->data);
    memset(w, 0, sizeof *w);
}

/* v written as text, verbatim (json-c frees the copy with v): 0 or -1. */
static int verbatim(struct json_object *v, const char *text)
{
    char *copy = v ? strdup(text) : NULL;
    if (!copy)
        return -1;
    json_object_set_serializer(v, json_object_userdata_to_json_string, copy,
                               json_object_free_userdata);
    return 0;
}

static void finish(json_writer *w)
{
    int flags = JSON_C_TO_STRING_NOSLASHESCAPE |
                (w->pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED : 0);
    const char *text = json_object_to_json_string_ext(w->root, flags);
    w->data = text ? strdup(text) : NULL;
    if (!w->data)
        w->failed = 1;
}

/* Add v (NULL for null, unless missing says it failed) under key to the
 * open container, or as the document. */
static void add(json_writer *w, const char *key, struct json_object *v, int missing)
{
    if (w->failed || missing) {
        w->failed = 1;
        json_object_put(v);
        return;
    }
    if (w->depth == 0) {
        if (w->root || w->data) {
            w->failed = 1;
            json_object_put(v);
            return;
        }
        w->root = v;
        return;
    }
    struct json_object *parent = w->open[w->depth - 1];
    int rc =
        json_object_is_type(parent, json_type_object)
            ? (key ? json_object_object_add_ex(parent, key, v, JSON_C_OBJECT_ADD_KEY_IS_NEW) : -1)
            : json_object_array_add(parent, v);
    if (rc != 0) {
        w->failed = 1;
        json_object_put(v);
    }
}

static void add_value(json_writer *w, const char *key, struct json_object *v)
{
    add(w, key, v, v == NULL);
    if (w->depth == 0 && !w->failed)
        finish(w);
}

static void open_container(json_writer *w, const char *key, struct json_object *c)
{
    if (w->depth >= JSON_MAX_DEPTH) {
        json_object_put(c);
        w->failed = 1;
        return;
    }
    add(w, key, c, c == NULL);
    if (!w->failed)
        w->open[w->depth++] = c;
}

/* An empty container as "{}" or "[]" in both forms. */
static void close_container(json_writer *w, json_type type, const char *empty)
{
    if (w->failed)
        return;
    if (w->depth == 0 || !json_object_is_type(w->open[w->depth - 1], type)) {
        w->failed = 1;
        return;
    }
    struct json_object *c = w->open[--w->depth];
    size_t n = type == json_type_object ? (size_t)json_object_object_length(c)
                                        : json_object_array_length(c);
    if (n == 0 && verbatim(c, empty) < 0)
        w->failed = 1;
    if (w->depth == 0 && !w->failed)
        finish(w);
}

void json_begin_object(json_writer *w, const char *key)
{
    open_container(w, key, json_object_new_object());
}
void json_end_object(json_writer *w) { close_container(w, json_type_object, "{}"); }
void json_begin_array(json_writer *w, const char *key)
{
    open_container(w, key, json_object_new_array());
}
void json_end_array(json_writer *w) { close_container(w, json_type_array, "[]"); }

/* value[0..n) with each byte that is no valid UTF-8 replaced by U+FFFD. */
static char *valid_utf8(const char *value, size_t n)
{
    char *in = malloc(n + 1), *out = malloc(3 * n + 1);
    if (!in || !out) {
        free(in);
        free(out);
        return NULL;
    }
    memcpy(in, value, n);
    in[n] = '\0';
    size_t len = 0;
    for (size_t i = 0; i < n;) {
        size_t k = in[i] ? sb_utf8_length((const unsigned char *)in + i) : 1;
        if (k == 0) {
            memcpy(out + len, "\xEF\xBF\xBD", 3);
            len += 3;
            i++;
        } else {
            memcpy(out + len, in + i, k);
            len += k;
            i += k;
        }
    }
    out[len] = '\0';
    free(in);
    return out;
}

void json_string_n(json_writer *w, const char *key, const char *value, size_t n)
{
    char *text = valid_utf8(value, n);
    add_value(w, key, text ? json_object_new_string_len(text, (int)strlen(text)) : NULL);
    free(text);
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
    add_value(w, key, json_object_new_int64(value));
}

void json_double(json_writer *w, const char *key, double value)
{
    if (!isfinite(value)) {
        json_null(w, key);
        return;
    }
    /* Shortest of 15 or 17 digits that reads back exactly ("1e+20" is
     * JSON); json-c's own format is always 17. */
    char buf[40];
    snprintf(buf, sizeof buf, "%.15g", value);
    if (strtod(buf, NULL) != value)
        snprintf(buf, sizeof buf, "%.17g", value);
    add_value(w, key, json_object_new_double_s(value, buf));
}

void json_bool(json_writer *w, const char *key, int value)
{
    add_value(w, key, json_object_new_boolean(value != 0));
}

void json_null(json_writer *w, const char *key)
{
    add(w, key, NULL, 0);
    if (w->depth == 0 && !w->failed)
        finish(w);
}

void json_raw(json_writer *w, const char *key, const char *text)
{
    if (text == NULL)
        json_null(w, key);
    else {
        /* Any type will do: the serializer writes it. */
        struct json_object *v = json_object_new_object();
        if (verbatim(v, text) < 0) {
            json_object_put(v);
            v = NULL;
        }
        add_value(w, key, v);
    }
}

/* Empty containers of a parsed value as "{}" / "[]" too. */
static int mark_empty(struct json_object *v)
{
    if (json_object_is_type(v, json_type_object)) {
        if (json_object_object_length(v) == 0)
            return verbatim(v, "{}");
        json_object_object_foreach(v, k, child)
        {
            (void)k;
            if (mark_empty(child) < 0)
                return -1;
        }
    } else if (json_object_is_type(v, json_type_array)) {
        size_t n = json_object_array_length(v);
        if (n == 0)
            return verbatim(v, "[]");
        for (size_t i = 0; i < n; i++)
            if (mark_empty(json_object_array_get_idx(v, i)) < 0)
                return -1;
    }
    return 0;
}

void json_members(json_writer *w, const char *object_text)
{
    struct json_object *obj = object_text ? json_tokener_parse(object_text) : NULL;
    if (!json_object_is_type(obj, json_type_object) || w->depth == 0 || mark_empty(obj) < 0) {
        json_object_put(obj);
        w->failed = 1;
        return;
    }
    json_object_object_foreach(obj, key, value) { add(w, key, json_object_get(value), 0); }
    json_object_put(obj);
}

const char *json_result(const json_writer *w)
{
    if (w->failed || w->depth != 0)
        return NULL;
    return w->data;
}
