/* A bounded JSON reader for documents we did not write (task reports,
 * manifests): json-c parses the text, with a depth limit (a document
 * nested 100,000 deep is refused, not a stack overflow), and its values
 * become one arena of nodes, with a node limit. The syntax is strict RFC
 * 8259 (no NaN/Infinity, no trailing commas, no control characters in
 * strings, valid UTF-8 and \u surrogate pairs: what json-c lets through
 * is checked here), integers beyond 64 bits are numbers still, and an
 * error names the byte offset. Strings are decoded to NUL-terminated UTF-8
 * (a \u0000 inside is refused, so each string is one C string). */
#ifndef SPACRBENCH_JSON_READER_H
#define SPACRBENCH_JSON_READER_H

#include <stddef.h>
#include <stdint.h>

typedef enum json_kind {
    JSON_NULL,
    JSON_FALSE,
    JSON_TRUE,
    JSON_NUMBER,
    JSON_STRING,
    JSON_ARRAY,
    JSON_OBJECT
} json_kind;

typedef struct json_node {
    json_kind kind;
    unsigned char is_integer; /* a number without fraction or exponent that fits int64 */
    unsigned char integral;   /* a number without fraction or exponent, of any size */
    unsigned char finite;     /* a number a double holds (always, unless JSON_KEEP_UNHELD
                                 or JSON_NONFINITE let another in) */
    unsigned char has_nul;    /* a string that held \u0000 (JSON_KEEP_UNHELD): text ends there */
    int64_t integer;          /* when is_integer */
    double number;            /* every number (+-HUGE_VAL beyond a double, NaN for NaN) */
    const char *text;         /* JSON_STRING: decoded; JSON_NUMBER: as written */
    const char *key;          /* member name inside an object, else NULL */
    size_t count;             /* children of an array or object */
    size_t first;             /* index of the first child; children are consecutive
                          siblings linked by next */
    size_t next;              /* the next sibling's index, 0 = none (0 is the root) */
} json_node;

typedef struct json_doc {
    json_node *nodes;
    size_t n_nodes;
    char *strings;            /* numbers' texts (the strings are the tree's) */
    struct json_object *tree; /* json-c's values */
    char error[160];
} json_doc;

typedef struct json_limits {
    int max_depth;    /* e.g. 64 */
    size_t max_nodes; /* e.g. 1 << 20 */
    unsigned flags;   /* 0 (strict), or JSON_KEEP_UNHELD | JSON_NONFINITE */
} json_limits;

/* What RFC 8259 allows but a C string or a double cannot hold (a \u0000
 * inside a string, a number beyond a double or of more than 63
 * characters) is kept, marked (has_nul, !finite), for a field reader to
 * name, instead of failing the parse; a lone surrogate escape becomes
 * U+FFFD. */
#define JSON_KEEP_UNHELD 1u
/* NaN, Infinity and -Infinity, which Python's json.dumps writes for
 * float('nan') and float('inf'), are numbers (!finite). */
#define JSON_NONFINITE 2u

/* Parse text[0..len) (not NUL-terminated necessarily). 0, or -1 with
 * doc->error set ("nested deeper than 64 at byte 64", ...). json_doc_free
 * in both cases. */
int json_parse(json_doc *doc, const char *text, size_t len, const json_limits *limits);
void json_doc_free(json_doc *doc);

/* The root, or NULL when the parse failed. */
const json_node *json_root(const json_doc *doc);
/* An object's member by name (the last one when repeated), or NULL when
 * node is not an object or has none. */
const json_node *json_get(const json_doc *doc, const json_node *node, const char *key);
/* The i-th child of an array or object, NULL past the end (O(i)). */
const json_node *json_child(const json_doc *doc, const json_node *node, size_t i);
/* The sibling after child, NULL at the end: for loops over children. */
const json_node *json_next(const json_doc *doc, const json_node *child);

#endif
