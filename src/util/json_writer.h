/* A JSON document built value by value (objects, arrays, strings,
 * integers, doubles, NaN and infinities as null) on json-c, which writes
 * it: compact, or pretty (newline and two-space indentation). Strings keep
 * their bytes (control characters as \u00XX, invalid UTF-8 replaced by
 * U+FFFD so the document always parses); doubles are the shortest of 15
 * or 17 digits that reads back exactly. Keys are NULL inside arrays. */
#ifndef SPACRBENCH_CLI_JSON_WRITER_H
#define SPACRBENCH_CLI_JSON_WRITER_H

#include <stddef.h>
#include <stdint.h>

#define JSON_MAX_DEPTH 32

struct json_object;

typedef struct json_writer {
    struct json_object *open[JSON_MAX_DEPTH]; /* the open containers, outermost first */
    struct json_object *root;
    char *data; /* the document, once its outermost value is complete */
    int failed; /* allocation failed or nesting misuse */
    int depth;
    int pretty;
} json_writer;

void json_init(json_writer *w, int pretty);
void json_free(json_writer *w);

void json_begin_object(json_writer *w, const char *key);
void json_end_object(json_writer *w);
void json_begin_array(json_writer *w, const char *key);
void json_end_array(json_writer *w);
void json_string(json_writer *w, const char *key, const char *value); /* NULL -> null */
void json_string_n(json_writer *w, const char *key, const char *value, size_t n);
void json_int(json_writer *w, const char *key, int64_t value);
void json_double(json_writer *w, const char *key, double value);
void json_bool(json_writer *w, const char *key, int value);
void json_null(json_writer *w, const char *key);
/* Splice text, an already serialised JSON value (e.g. from one of the
 * library's *_to_json functions), as the value of key; NULL -> null. The
 * text is trusted, not checked; it keeps its own indentation. */
void json_raw(json_writer *w, const char *key, const char *text);

/* Add the members of object_text, an already serialised JSON object (one
 * of the library's, written the same way), to the open object. An empty
 * object adds nothing; text that is not an object fails the writer. */
void json_members(json_writer *w, const char *object_text);

/* The finished document (NUL-terminated), or NULL if anything failed or a
 * container is still open. */
const char *json_result(const json_writer *w);

#endif
