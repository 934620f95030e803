/* One field table per record (the measurement, an item record, the
 * timeline, a scale point, the task record, ...): the record's JSON
 * object member by member, in the order it is written, each with where
 * its value lives in the record's C structs ("parts"). The tables are in
 * src/records/; this engine is the one writer and the one reader every
 * record goes through, and the tables also give the CSV columns, the
 * Markdown's item columns and the check against
 * docs/spacrbench.schema.json (tests/c/check_records.c).
 *
 * The reader builds on json_reader (its depth and node limits): every
 * field is checked for its type, its range and whether it may be null, and
 * the first problem is one message that names the field, in one of two
 * styles: Python's (data['records'][0]['index'] must be an integer, not
 * str), for Measurement.from_dict and the C functions it calls, and the
 * quoted one of summarize's report lines ("measurement.seconds" is 1e+308,
 * not a number of seconds from 0 to 1e+09). */
#ifndef SPACRBENCH_UTIL_RECORD_H
#define SPACRBENCH_UTIL_RECORD_H

#include "util.h"

/* A JSON document built value by value (objects, arrays, strings,
 * integers, doubles, NaN and infinities as null) on json-c, which writes
 * it: compact, or pretty (newline and two-space indentation). Strings keep
 * their bytes (control characters as \u00XX, invalid UTF-8 replaced by
 * U+FFFD so the document always parses); doubles are the shortest of 15
 * or 17 digits that reads back exactly. Keys are NULL inside arrays. */
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

typedef enum sb_field_type {
    SB_FT_INT,    /* an int64_t or int32_t member (width says which) */
    SB_FT_NUMBER, /* a double */
    SB_FT_BOOL,   /* an int32_t: 0, 1 (written: != 0), -1 null */
    SB_FT_TEXT,   /* a const char * (NULL: null); read: points into the document */
    SB_FT_CHARS,  /* a char[width], always written as a string */
    SB_FT_NAME,   /* an int32_t enum value, spelled by the sb_names in extra */
    SB_FT_OBJECT, /* an object over the same parts: the sb_record in extra */
    SB_FT_LIST,   /* an array, written and read by the caller's sb_record_io;
                     extra: the element's sb_record, NULL for strings */
    SB_FT_NESTED  /* an object over other parts, by the caller's sb_record_io;
                     extra: its sb_record */
} sb_field_type;

enum sb_field_flags {
    /* null is a value: an integer < 0, a number that is NaN or < 0, a bool
     * -1, NULL text, the names' null_code, an empty char[] (read), a list
     * or object the caller's io takes as none. */
    SB_FIELD_NULLABLE = 1u << 0,
    SB_FIELD_REQUIRED = 1u << 1, /* read: absent is a problem (unless the reader is partial) */
    SB_FIELD_DERIVED = 1u << 2,  /* computed from the others: written, never read */
    SB_FIELD_OPTIONAL = 1u << 3, /* not written at all when null (an item's label) */
    SB_FIELD_BYTES = 1u << 4,    /* a size: the reader's max_bytes bounds it too */
    SB_FIELD_SECONDS = 1u << 5,  /* a time: the reader's max_seconds bounds it */
    SB_FIELD_ORDINAL = 1u << 6   /* an index, shown to people counting from 1 */
};

/* An enum's spelling (the library's *_name functions). */
typedef struct sb_names {
    const char *(*name)(int code); /* its name; codes 0 .. count-1 */
    int count;
    int null_code;    /* with SB_FIELD_NULLABLE: the code written as null */
    uint32_t allowed; /* read: bit c set = code c accepted; 0 = every code */
} sb_names;

typedef struct sb_field {
    const char *key;
    unsigned char type;   /* sb_field_type */
    unsigned char part;   /* which of the record's parts holds it */
    unsigned short width; /* sizeof the member */
    unsigned flags;       /* sb_field_flags */
    size_t offset;        /* of the member in its part */
    int64_t min, max;     /* integers: the range; numbers: min 0 = ">= 0" */
    const void *extra;    /* NAME: sb_names; OBJECT, LIST, NESTED: sb_record */
    const char *words;    /* the column's heading in a report's words (Markdown), or NULL */
} sb_field;

typedef struct sb_record {
    const char *name; /* what it is, for messages and the schema check */
    const sb_field *fields;
    size_t count;
} sb_record;

#define SB_RECORD(name, fields)                                                                    \
    {                                                                                              \
        name, fields, sizeof(fields) / sizeof(fields)[0]                                           \
    }

/* One table line: key, type, the part's type T and index, the member,
 * flags, range, extra (and, _W, the column's words). */
#define SB_FIELD_W(key, type, T, part, member, flags, lo, hi, extra, words)                        \
    {                                                                                              \
        key, type, part, (unsigned short)sizeof(((T *)0)->member), flags, offsetof(T, member), lo, \
            hi, extra, words                                                                       \
    }
#define SB_FIELD(key, type, T, part, member, flags, lo, hi, extra)                                 \
    SB_FIELD_W(key, type, T, part, member, flags, lo, hi, extra, NULL)
/* A field that is not a member: an object, list or nested record. */
#define SB_FIELD_OF(key, type, flags, extra)                                                       \
    {                                                                                              \
        key, type, 0, 0, flags, 0, 0, 0, extra, NULL                                               \
    }

/* What a record's LIST and NESTED fields are written and read by (the
 * caller knows where its lists are). */
struct sb_reader;
typedef struct sb_record_io {
    void *ctx;
    /* Write f's value with its key. */
    void (*write)(void *ctx, json_writer *w, const sb_field *f);
    /* Read f's value (given, perhaps null; the path names f): 0 or -1 with
     * the problem set. NULL: the field is not read. */
    int (*read)(void *ctx, struct sb_reader *r, const sb_field *f, const json_node *value);
} sb_record_io;

/* ---- writing ---- */

/* The object of rec (key: its member name, NULL inside an array) from
 * parts[0..]; io for its LIST and NESTED fields (NULL when it has none). */
void sb_record_write(json_writer *w, const char *key, const sb_record *rec,
                     const void *const *parts, const sb_record_io *io);
/* The field named key of rec, NULL when it has none. */
const sb_field *sb_record_field(const sb_record *rec, const char *key);
/* A field's member in its part, read: integers and bools as int64_t,
 * numbers as double, texts as a pointer (CHARS: the array). */
int64_t sb_field_int(const sb_field *f, const void *const *parts);
double sb_field_number(const sb_field *f, const void *const *parts);
const char *sb_field_text(const sb_field *f, const void *const *parts);
/* Whether the field's value is null (see SB_FIELD_NULLABLE). */
int sb_field_is_null(const sb_field *f, const void *const *parts);

/* ---- reading ---- */

enum sb_read_style {
    SB_READ_PYTHON, /* data['a'][0]['b'] must be an integer, not str */
    SB_READ_QUOTED  /* "a[0].b" is text, not a whole number from 0 to 9 */
};

/* What the first problem was: its type (TypeError in Python) or its
 * value (ValueError). */
enum sb_read_problem { SB_READ_OK = 0, SB_READ_TYPE = 1, SB_READ_VALUE = 2 };

#define SB_READ_DEPTH 16

typedef struct sb_reader {
    const json_doc *doc;
    int style;          /* sb_read_style */
    const char *root;   /* the document's name (Python style: "data"), "" none */
    int partial;        /* an absent REQUIRED field is no problem (summarize) */
    int64_t max_bytes;  /* BYTES fields at most (INT64_MAX) */
    double max_seconds; /* SECONDS fields at most (HUGE_VAL) */
    size_t max_entries; /* a list's entries at most (SIZE_MAX) */
    size_t depth;       /* of the path */
    struct {
        const char *key; /* NULL: an index */
        size_t index;
    } path[SB_READ_DEPTH];
    int failed;        /* sb_read_problem of the first problem */
    char message[640]; /* it, in words */
} sb_reader;

void sb_reader_init(sb_reader *r, const json_doc *doc, int style, const char *root);
/* The path to what is read now; pushed beyond SB_READ_DEPTH, a step is
 * dropped from the message (never from the reading). */
void sb_reader_push_key(sb_reader *r, const char *key);
void sb_reader_push_index(sb_reader *r, size_t index);
void sb_reader_pop(sb_reader *r);
/* Record a problem (the first one stays): the path, a space and the
 * formatted text, or the text alone where at_path is 0. Returns -1. */
int sb_reader_fail(sb_reader *r, int problem, int at_path, const char *fmt, ...)
    SB_TEXT_PRINTF(4, 5);

/* Read the object obj (checked to be one: the path names it) into parts
 * by rec: each field present is checked and stored, an absent one keeps
 * what parts hold (a REQUIRED one is a problem), members rec does not
 * know are passed over. 0, or -1 with the problem in r. */
int sb_record_read(sb_reader *r, const json_node *obj, const sb_record *rec, void *const *parts,
                   const sb_record_io *io);
/* sb_record_read of the fields named in keys (NULL-terminated) alone: a
 * reader that needs a few members of a record is not refused for the
 * others (a later version's name in one it does not use). */
int sb_record_read_only(sb_reader *r, const json_node *obj, const sb_record *rec,
                        void *const *parts, const sb_record_io *io, const char *const *keys);
/* A node's kind in the reader's words: "dict", "int" (Python), "an
 * object", "a number" (quoted). */
const char *sb_read_kind_words(const sb_reader *r, const json_node *n);
/* The entries of the list n (the path names it): its count, 0 for null
 * where nullable, -1 with a problem when it is neither or too long. */
long long sb_read_list(sb_reader *r, const json_node *n, int nullable);
/* A list's entry that must be a string: it, or NULL with a problem. */
const char *sb_read_string(sb_reader *r, const json_node *n);
/* The member key of obj that must be an object: it; NULL when absent and
 * not required; NULL with a problem when it is something else. */
const json_node *sb_read_member_object(sb_reader *r, const json_node *obj, const char *key,
                                       int required);

#endif
