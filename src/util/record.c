/* See record.h. */
#include "record.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- a member's value ---- */

static const void *member(const sb_field *f, const void *const *parts)
{
    return (const char *)parts[f->part] + f->offset;
}

static void *member_rw(const sb_field *f, void *const *parts)
{
    return (char *)parts[f->part] + f->offset;
}

int64_t sb_field_int(const sb_field *f, const void *const *parts)
{
    if (f->width == sizeof(int64_t)) {
        int64_t v;
        memcpy(&v, member(f, parts), sizeof v);
        return v;
    }
    int32_t v;
    memcpy(&v, member(f, parts), sizeof v);
    return v;
}

double sb_field_number(const sb_field *f, const void *const *parts)
{
    double v;
    memcpy(&v, member(f, parts), sizeof v);
    return v;
}

const char *sb_field_text(const sb_field *f, const void *const *parts)
{
    if (f->type == SB_FT_CHARS)
        return member(f, parts);
    const char *t;
    memcpy(&t, member(f, parts), sizeof t);
    return t;
}

int sb_field_is_null(const sb_field *f, const void *const *parts)
{
    int nullable = (f->flags & SB_FIELD_NULLABLE) != 0;
    switch (f->type) {
    case SB_FT_INT:
    case SB_FT_BOOL:
        return nullable && sb_field_int(f, parts) < 0;
    case SB_FT_NUMBER: {
        double d = sb_field_number(f, parts);
        return isnan(d) || (nullable && d < 0);
    }
    case SB_FT_TEXT:
        return sb_field_text(f, parts) == NULL;
    case SB_FT_NAME:
        return nullable && sb_field_int(f, parts) == ((const sb_names *)f->extra)->null_code;
    default:
        return 0;
    }
}

static void store_int(const sb_field *f, void *const *parts, int64_t v)
{
    if (f->width == sizeof(int64_t)) {
        memcpy(member_rw(f, parts), &v, sizeof v);
    } else {
        int32_t n = (int32_t)v;
        memcpy(member_rw(f, parts), &n, sizeof n);
    }
}

static void store_null(const sb_field *f, void *const *parts)
{
    double nan = NAN;
    const char *none = NULL;
    switch (f->type) {
    case SB_FT_INT:
    case SB_FT_BOOL:
        store_int(f, parts, -1);
        break;
    case SB_FT_NUMBER:
        memcpy(member_rw(f, parts), &nan, sizeof nan);
        break;
    case SB_FT_TEXT:
        memcpy(member_rw(f, parts), &none, sizeof none);
        break;
    case SB_FT_CHARS:
        *(char *)member_rw(f, parts) = '\0';
        break;
    case SB_FT_NAME:
        store_int(f, parts, ((const sb_names *)f->extra)->null_code);
        break;
    default:
        break;
    }
}

const sb_field *sb_record_field(const sb_record *rec, const char *key)
{
    for (size_t i = 0; i < rec->count; i++)
        if (strcmp(rec->fields[i].key, key) == 0)
            return &rec->fields[i];
    return NULL;
}

/* ---- writing ---- */

static void write_field(json_writer *w, const sb_field *f, const void *const *parts,
                        const sb_record_io *io)
{
    if (f->type == SB_FT_LIST || f->type == SB_FT_NESTED) {
        if (io && io->write)
            io->write(io->ctx, w, f);
        return;
    }
    if (f->type == SB_FT_OBJECT) {
        sb_record_write(w, f->key, f->extra, parts, io);
        return;
    }
    if (sb_field_is_null(f, parts)) {
        if (!(f->flags & SB_FIELD_OPTIONAL))
            json_null(w, f->key);
        return;
    }
    const char *text;
    switch (f->type) {
    case SB_FT_INT:
        json_int(w, f->key, sb_field_int(f, parts));
        break;
    case SB_FT_NUMBER:
        json_double(w, f->key, sb_field_number(f, parts));
        break;
    case SB_FT_BOOL:
        json_bool(w, f->key, sb_field_int(f, parts) != 0);
        break;
    case SB_FT_TEXT:
        json_string(w, f->key, sb_field_text(f, parts));
        break;
    case SB_FT_CHARS:
        text = sb_field_text(f, parts);
        json_string_n(w, f->key, text, strnlen(text, f->width));
        break;
    case SB_FT_NAME:
        json_string(w, f->key, ((const sb_names *)f->extra)->name((int)sb_field_int(f, parts)));
        break;
    default:
        break;
    }
}

void sb_record_write(json_writer *w, const char *key, const sb_record *rec,
                     const void *const *parts, const sb_record_io *io)
{
    json_begin_object(w, key);
    for (size_t i = 0; i < rec->count; i++)
        write_field(w, &rec->fields[i], parts, io);
    json_end_object(w);
}

/* ---- the path and the problem ---- */

void sb_reader_init(sb_reader *r, const json_doc *doc, int style, const char *root)
{
    memset(r, 0, sizeof *r);
    r->doc = doc;
    r->style = style;
    r->root = root ? root : "";
    r->max_bytes = INT64_MAX;
    r->max_seconds = HUGE_VAL;
    r->max_entries = SIZE_MAX;
}

static void push(sb_reader *r, const char *key, size_t index)
{
    if (r->depth < SB_READ_DEPTH) {
        r->path[r->depth].key = key;
        r->path[r->depth].index = index;
    }
    r->depth++;
}

void sb_reader_push_key(sb_reader *r, const char *key) { push(r, key, 0); }

void sb_reader_push_index(sb_reader *r, size_t index) { push(r, NULL, index); }

void sb_reader_pop(sb_reader *r)
{
    if (r->depth)
        r->depth--;
}

/* The path in the reader's style: data['a'][0] or a[0] (unquoted). */
static void reader_path(const sb_reader *r, char *buf, size_t cap)
{
    size_t len = 0, steps = r->depth < SB_READ_DEPTH ? r->depth : SB_READ_DEPTH;
    int n = snprintf(buf, cap, "%s", r->root);
    len = n > 0 ? (size_t)n : 0;
    for (size_t i = 0; i < steps && len < cap; i++) {
        const char *key = r->path[i].key;
        if (!key)
            n = snprintf(buf + len, cap - len, "[%zu]", r->path[i].index);
        else if (r->style == SB_READ_PYTHON)
            n = snprintf(buf + len, cap - len, "['%s']", key);
        else
            n = snprintf(buf + len, cap - len, "%s%s", len ? "." : "", key);
        len += n > 0 ? (size_t)n : 0;
    }
}

int sb_reader_fail(sb_reader *r, int problem, int at_path, const char *fmt, ...)
{
    if (r->failed)
        return -1;
    r->failed = problem;
    size_t len = 0;
    if (at_path) {
        char path[256];
        reader_path(r, path, sizeof path);
        int n = snprintf(r->message, sizeof r->message,
                         r->style == SB_READ_PYTHON ? "%s " : "\"%s\" ", path);
        len = n > 0 && (size_t)n < sizeof r->message ? (size_t)n : 0;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->message + len, sizeof r->message - len, fmt, ap);
    va_end(ap);
    return -1;
}

const char *sb_read_kind_words(const sb_reader *r, const json_node *n)
{
    static const char *const python[] = {"NoneType", "bool", "bool", "int", "str", "list", "dict"};
    static const char *const quoted[] = {"null", "false",  "true",     "a number",
                                         "text", "a list", "an object"};
    if (r->style == SB_READ_PYTHON)
        return n->kind == JSON_NUMBER && !n->integral ? "float" : python[n->kind];
    return quoted[n->kind];
}

/* The highest value an integer field takes. */
static int64_t int_max(const sb_reader *r, const sb_field *f)
{
    return (f->flags & SB_FIELD_BYTES) && r->max_bytes < f->max ? r->max_bytes : f->max;
}

/* A number as written, for a message: Python's words for the
 * non-finite ones, a long one cut. */
static void number_words(const json_node *n, char *buf, size_t cap)
{
    const char *t = n->text ? n->text : "?";
    if (!n->finite && !n->integral && strcmp(t, "NaN") == 0)
        t = "nan";
    else if (!n->finite && strcmp(t, "Infinity") == 0)
        t = "inf";
    else if (!n->finite && strcmp(t, "-Infinity") == 0)
        t = "-inf";
    size_t len = strlen(t);
    if (len > 40)
        snprintf(buf, cap, "%.24s... (%zu digits)", t, len);
    else
        snprintf(buf, cap, "%s", t);
}

/* "a, b, c" (quoted) or "['a', 'b']" (Python, None first where null is
 * one) of the names a field takes. */
static void name_list(const sb_reader *r, const sb_field *f, char *buf, size_t cap)
{
    const sb_names *names = f->extra;
    int python = r->style == SB_READ_PYTHON;
    size_t len = 0;
    int n = snprintf(buf, cap, "%s%s", python ? "[" : "",
                     python && (f->flags & SB_FIELD_NULLABLE) ? "None" : "");
    len = n > 0 ? (size_t)n : 0;
    for (int code = 0; code < names->count && len < cap; code++) {
        if ((names->allowed && !(names->allowed & (UINT32_C(1) << code))) ||
            ((f->flags & SB_FIELD_NULLABLE) && code == names->null_code))
            continue;
        n = snprintf(buf + len, cap - len, python ? "%s'%s'" : "%s%s",
                     len > (python ? 1u : 0u) ? ", " : "", names->name(code));
        len += n > 0 ? (size_t)n : 0;
    }
    if (python && len < cap)
        snprintf(buf + len, cap - len, "]");
}

/* What the field must be, in the reader's style. */
static void expected(const sb_reader *r, const sb_field *f, char *buf, size_t cap)
{
    int nullable = (f->flags & SB_FIELD_NULLABLE) != 0;
    if (r->style == SB_READ_PYTHON) {
        static const char *const what[] = {"an integer", "a number", "a bool",
                                           "a string",   "a string", "a string",
                                           "a mapping",  "a list",   "a mapping"};
        snprintf(buf, cap, "%s%s", what[f->type], nullable ? " or None" : "");
        return;
    }
    switch (f->type) {
    case SB_FT_INT:
        snprintf(buf, cap, "a whole number from %lld to %lld", (long long)f->min,
                 (long long)int_max(r, f));
        break;
    case SB_FT_NUMBER:
        snprintf(buf, cap, "%s", f->flags & SB_FIELD_SECONDS ? "a number of seconds" : "a number");
        break;
    case SB_FT_BOOL:
        snprintf(buf, cap, "true or false");
        break;
    case SB_FT_LIST:
        snprintf(buf, cap, "a list");
        break;
    case SB_FT_OBJECT:
    case SB_FT_NESTED:
        snprintf(buf, cap, "an object");
        break;
    default:
        snprintf(buf, cap, "text");
    }
}

static int type_problem(sb_reader *r, const sb_field *f, const json_node *n)
{
    char want[160];
    expected(r, f, want, sizeof want);
    if (r->style == SB_READ_PYTHON)
        return sb_reader_fail(r, SB_READ_TYPE, 1, "must be %s, not %s", want,
                              sb_read_kind_words(r, n));
    /* A number that is not a whole one in range is "out of range". */
    const char *kind =
        f->type == SB_FT_INT && n->kind == JSON_NUMBER ? "out of range" : sb_read_kind_words(r, n);
    return sb_reader_fail(r, SB_READ_TYPE, 1, "is %s, not %s", kind, want);
}

/* A REQUIRED field that is absent (the path is its object's). */
static int missing(sb_reader *r, const sb_field *f)
{
    if (r->style == SB_READ_PYTHON)
        return sb_reader_fail(r, SB_READ_VALUE, 1, "has no '%s'", f->key);
    char want[160];
    expected(r, f, want, sizeof want);
    sb_reader_push_key(r, f->key);
    sb_reader_fail(r, SB_READ_VALUE, 1, "is missing, not %s", want);
    sb_reader_pop(r);
    return -1;
}

/* ---- reading one field ---- */

static int read_int(sb_reader *r, const sb_field *f, const json_node *n, void *const *parts)
{
    if (n->kind != JSON_NUMBER || (r->style == SB_READ_PYTHON && !n->integral))
        return type_problem(r, f, n);
    int64_t hi = int_max(r, f);
    if (!n->is_integer || n->integer < f->min || n->integer > hi) {
        if (r->style != SB_READ_PYTHON)
            return type_problem(r, f, n); /* "is out of range, not a whole number ..." */
        char got[96];
        number_words(n, got, sizeof got);
        if (hi == INT64_MAX)
            return sb_reader_fail(r, SB_READ_VALUE, 1, "must be >= %lld and fit in 64 bits, got %s",
                                  (long long)f->min, got);
        return sb_reader_fail(r, SB_READ_VALUE, 1, "must be from %lld to %lld, got %s",
                              (long long)f->min, (long long)hi, got);
    }
    store_int(f, parts, n->integer);
    return 0;
}

static int read_number(sb_reader *r, const sb_field *f, const json_node *n, void *const *parts)
{
    if (n->kind != JSON_NUMBER)
        return type_problem(r, f, n);
    double v = n->number, hi = f->flags & SB_FIELD_SECONDS ? r->max_seconds : HUGE_VAL;
    if (!n->finite || (f->min >= 0 && v < 0) || v > hi) {
        if (r->style == SB_READ_QUOTED && (f->flags & SB_FIELD_SECONDS))
            return sb_reader_fail(r, SB_READ_VALUE, 1,
                                  "is %g, not a number of seconds from 0 to %g", v, hi);
        if (r->style == SB_READ_QUOTED)
            return sb_reader_fail(r, SB_READ_VALUE, 1, "is %g, not a finite number%s", v,
                                  f->min >= 0 ? " >= 0" : "");
        char got[96];
        number_words(n, got, sizeof got);
        if (isfinite(hi))
            return sb_reader_fail(r, SB_READ_VALUE, 1, "must be finite, from 0 to %g, got %s", hi,
                                  got);
        return sb_reader_fail(r, SB_READ_VALUE, 1, "must be finite%s, got %s",
                              f->min >= 0 ? " and >= 0" : "", got);
    }
    memcpy(member_rw(f, parts), &v, sizeof v);
    return 0;
}

/* A string's text for a message: printable ASCII as is, others '?', at
 * most 60 bytes. */
static void shown(const char *text, char *buf, size_t cap)
{
    size_t i = 0;
    for (; text[i] && i < 60 && i + 4 < cap; i++)
        buf[i] = (unsigned char)text[i] >= 0x20 && (unsigned char)text[i] < 0x7f ? text[i] : '?';
    if (text[i] && i + 4 < cap) {
        memcpy(buf + i, "...", 3);
        i += 3;
    }
    buf[i] = '\0';
}

static int read_text(sb_reader *r, const sb_field *f, const json_node *n, void *const *parts)
{
    if (n->kind != JSON_STRING)
        return type_problem(r, f, n);
    if (n->has_nul)
        return sb_reader_fail(r, SB_READ_VALUE, 1,
                              r->style == SB_READ_PYTHON ? "must not contain a NUL character"
                                                         : "holds a NUL character");
    if (f->type == SB_FT_TEXT) {
        memcpy(member_rw(f, parts), &n->text, sizeof n->text);
        return 0;
    }
    if (f->type == SB_FT_CHARS) { /* cut at a character's start when too long */
        char *out = member_rw(f, parts);
        size_t len = strlen(n->text);
        if (len >= f->width) {
            len = f->width - 1u;
            while (len > 0 && ((unsigned char)n->text[len] & 0xC0) == 0x80)
                len--;
        }
        memcpy(out, n->text, len);
        out[len] = '\0';
        return 0;
    }
    const sb_names *names = f->extra; /* SB_FT_NAME */
    for (int code = 0; code < names->count; code++)
        if ((!names->allowed || (names->allowed & (UINT32_C(1) << code))) &&
            strcmp(names->name(code), n->text) == 0) {
            store_int(f, parts, code);
            return 0;
        }
    char list[400], given[72];
    name_list(r, f, list, sizeof list);
    if (r->style != SB_READ_PYTHON)
        return sb_reader_fail(r, SB_READ_VALUE, 1, "is not one of %s", list);
    shown(n->text, given, sizeof given);
    return sb_reader_fail(r, SB_READ_VALUE, 1, "must be one of %s, not '%s'", list, given);
}

static int read_field(sb_reader *r, const sb_field *f, const json_node *n, void *const *parts,
                      const sb_record_io *io)
{
    if (f->type == SB_FT_LIST || f->type == SB_FT_NESTED)
        return io && io->read ? io->read(io->ctx, r, f, n) : 0;
    if (n->kind == JSON_NULL) {
        if (!(f->flags & SB_FIELD_NULLABLE))
            return type_problem(r, f, n);
        store_null(f, parts);
        return 0;
    }
    switch (f->type) {
    case SB_FT_OBJECT:
        return sb_record_read(r, n, f->extra, parts, io);
    case SB_FT_INT:
        return read_int(r, f, n, parts);
    case SB_FT_NUMBER:
        return read_number(r, f, n, parts);
    case SB_FT_BOOL:
        if (n->kind != JSON_TRUE && n->kind != JSON_FALSE)
            return type_problem(r, f, n);
        store_int(f, parts, n->kind == JSON_TRUE);
        return 0;
    default:
        return read_text(r, f, n, parts);
    }
}

static int read_is_object(sb_reader *r, const json_node *n)
{
    if (n && n->kind == JSON_OBJECT)
        return 1;
    if (r->style == SB_READ_PYTHON)
        sb_reader_fail(r, SB_READ_TYPE, 1, "must be a mapping, not %s",
                       n ? sb_read_kind_words(r, n) : "nothing");
    else
        sb_reader_fail(r, SB_READ_TYPE, 1, "is %s, not an object",
                       n ? sb_read_kind_words(r, n) : "missing");
    return 0;
}

static int listed(const char *const *keys, const char *key)
{
    for (; *keys; keys++)
        if (strcmp(*keys, key) == 0)
            return 1;
    return 0;
}

int sb_record_read_only(sb_reader *r, const json_node *obj, const sb_record *rec,
                        void *const *parts, const sb_record_io *io, const char *const *keys)
{
    if (!read_is_object(r, obj))
        return -1;
    for (size_t i = 0; i < rec->count && !r->failed; i++) {
        const sb_field *f = &rec->fields[i];
        if ((f->flags & SB_FIELD_DERIVED) || (keys && !listed(keys, f->key)))
            continue;
        const json_node *n = json_get(r->doc, obj, f->key);
        if (!n) {
            if ((f->flags & SB_FIELD_REQUIRED) && !r->partial)
                missing(r, f);
            continue;
        }
        sb_reader_push_key(r, f->key);
        read_field(r, f, n, parts, io);
        sb_reader_pop(r);
    }
    return r->failed ? -1 : 0;
}

int sb_record_read(sb_reader *r, const json_node *obj, const sb_record *rec, void *const *parts,
                   const sb_record_io *io)
{
    return sb_record_read_only(r, obj, rec, parts, io, NULL);
}

long long sb_read_list(sb_reader *r, const json_node *n, int nullable)
{
    if (n->kind == JSON_NULL && nullable)
        return 0;
    if (n->kind != JSON_ARRAY) {
        if (r->style == SB_READ_PYTHON)
            return sb_reader_fail(r, SB_READ_TYPE, 1, "must be a list%s, not %s",
                                  nullable ? " or None" : "", sb_read_kind_words(r, n));
        return sb_reader_fail(r, SB_READ_TYPE, 1, "is %s, not a list", sb_read_kind_words(r, n));
    }
    if (n->count > r->max_entries)
        return sb_reader_fail(r, SB_READ_VALUE, 1, "has %zu entries, more than %zu", n->count,
                              r->max_entries);
    return (long long)n->count;
}

const char *sb_read_string(sb_reader *r, const json_node *n)
{
    if (n->kind == JSON_STRING && !n->has_nul)
        return n->text;
    if (n->kind == JSON_STRING)
        sb_reader_fail(r, SB_READ_VALUE, 1,
                       r->style == SB_READ_PYTHON ? "must not contain a NUL character"
                                                  : "holds a NUL character");
    else if (r->style == SB_READ_PYTHON)
        sb_reader_fail(r, SB_READ_TYPE, 1, "must be a string, not %s", sb_read_kind_words(r, n));
    else
        sb_reader_fail(r, SB_READ_TYPE, 1, "is %s, not text", sb_read_kind_words(r, n));
    return NULL;
}

const json_node *sb_read_member_object(sb_reader *r, const json_node *obj, const char *key,
                                       int required)
{
    const json_node *n = json_get(r->doc, obj, key);
    if (!n && !required)
        return NULL;
    sb_reader_push_key(r, key);
    int ok = read_is_object(r, n);
    sb_reader_pop(r);
    return ok ? n : NULL;
}
