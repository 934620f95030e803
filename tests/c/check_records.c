/* The field tables of src/records/ and the engine over them
 * (util/record.c): every table agrees with docs/spacrbench.schema.json
 * (every member there and no other, its type, whether it may be null, its
 * names and range, what the schema requires); a document written by a
 * table reads back to the same bytes (a measurement with records, GPUs,
 * notes and a timeline; a scaling check); a bad field is refused with a
 * message naming it, in both the reader's styles; and the JSON reader's
 * two lenient modes keep what C cannot hold for the field reader to name. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "records.h"
#include "spacrbench.h"
#include "util.h"

#define SCHEMA SPACRBENCH_TEST_DATA "/../../../docs/spacrbench.schema.json"

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "%s", path);
    static char *buf;
    buf = malloc(1 << 20);
    *len = fread(buf, 1, 1 << 20, f);
    fclose(f);
    buf[*len] = '\0';
    return buf;
}

/* ---- the schema ---- */

typedef struct schema {
    json_doc doc;
    char *text;
} schema;

static void schema_open(schema *s)
{
    size_t len;
    s->text = slurp(SCHEMA, &len);
    const json_limits lim = {64, 1 << 16, 0};
    ck_assert_msg(json_parse(&s->doc, s->text, len, &lim) == 0, "%s", s->doc.error);
}

static void schema_close(schema *s)
{
    json_doc_free(&s->doc);
    free(s->text);
}

/* The node at a slash-separated path from the root ("$defs/record"). */
static const json_node *at(const schema *s, const char *path)
{
    const json_node *n = json_root(&s->doc);
    char part[64];
    while (n && *path) {
        size_t len = strcspn(path, "/");
        snprintf(part, sizeof part, "%.*s", (int)len, path);
        n = json_get(&s->doc, n, part);
        path += len + (path[len] == '/');
    }
    return n;
}

/* A property's schema with its $ref followed (one level, as ours are). */
static const json_node *resolved(const schema *s, const json_node *n)
{
    const json_node *ref = json_get(&s->doc, n, "$ref");
    if (ref && ref->kind == JSON_STRING && strncmp(ref->text, "#/", 2) == 0)
        return at(s, ref->text + 2);
    return n;
}

/* What a property says: its JSON types (a bit each), its enum (as one
 * ",a,b," text), its minimum and maximum (HUGE_VAL: none). */
enum {
    T_NULL = 1,
    T_BOOL = 2,
    T_INT = 4,
    T_NUMBER = 8,
    T_STRING = 16,
    T_ARRAY = 32,
    T_OBJECT = 64
};

typedef struct shape {
    int types;
    char names[600];
    double min, max;
    const json_node *object; /* the object or array-items schema, for nesting */
} shape;

static int type_bit(const char *t)
{
    static const char *const k[] = {"null",   "boolean", "integer", "number",
                                    "string", "array",   "object"};
    for (int i = 0; i < 7; i++)
        if (strcmp(t, k[i]) == 0)
            return 1 << i;
    ck_abort_msg("unknown schema type %s", t);
    return 0;
}

static void shape_of(const schema *s, const json_node *n, shape *out)
{
    const json_node *own = n;
    n = resolved(s, n);
    const json_node *one = json_get(&s->doc, n, "oneOf");
    if (one) {
        for (const json_node *b = json_child(&s->doc, one, 0); b; b = json_next(&s->doc, b))
            shape_of(s, b, out);
    }
    const json_node *t = json_get(&s->doc, n, "type");
    if (t && t->kind == JSON_STRING)
        out->types |= type_bit(t->text);
    for (const json_node *e = t && t->kind == JSON_ARRAY ? json_child(&s->doc, t, 0) : NULL; e;
         e = json_next(&s->doc, e))
        out->types |= type_bit(e->text);
    const json_node *en = json_get(&s->doc, n, "enum");
    if (en) {
        out->types |= T_STRING;
        for (const json_node *e = json_child(&s->doc, en, 0); e; e = json_next(&s->doc, e)) {
            size_t len = strlen(out->names);
            snprintf(out->names + len, sizeof out->names - len, "%s%s,", len ? "" : ",", e->text);
        }
    }
    const json_node *props[] = {own, n};
    for (int i = 0; i < 2; i++) { /* the referencing property may narrow the range */
        const json_node *lo = json_get(&s->doc, props[i], "minimum");
        const json_node *hi = json_get(&s->doc, props[i], "maximum");
        if (lo)
            out->min = lo->number;
        if (hi)
            out->max = hi->number;
    }
    if (out->types & (T_OBJECT | T_ARRAY))
        if (!out->object || json_get(&s->doc, n, "properties") || json_get(&s->doc, n, "items"))
            out->object = n;
}

static int in_list(const schema *s, const json_node *list, const char *key)
{
    for (const json_node *e = list ? json_child(&s->doc, list, 0) : NULL; e;
         e = json_next(&s->doc, e))
        if (e->kind == JSON_STRING && strcmp(e->text, key) == 0)
            return 1;
    return 0;
}

/* ",a,b," of the names a NAME field reads and writes. */
static void field_names(const sb_field *f, char *buf, size_t cap)
{
    const sb_names *names = f->extra;
    buf[0] = '\0';
    for (int c = 0; c < names->count; c++) {
        if ((names->allowed && !(names->allowed & (1u << c))) ||
            ((f->flags & SB_FIELD_NULLABLE) && c == names->null_code))
            continue;
        size_t len = strlen(buf);
        snprintf(buf + len, cap - len, "%s%s,", len ? "" : ",", names->name(c));
    }
}

static int sorted_equal(const char *a, const char *b)
{
    /* Both ",x,y,": each name of one is in the other, and as many. */
    int na = 0, nb = 0;
    for (const char *p = a; *p; p++)
        na += *p == ',';
    for (const char *p = b; *p; p++)
        nb += *p == ',';
    if (na != nb)
        return 0;
    char name[80];
    for (const char *p = a; *p && p[1];) {
        const char *end = strchr(p + 1, ',');
        snprintf(name, sizeof name, ",%.*s,", (int)(end - p - 1), p + 1);
        if (!strstr(b, name))
            return 0;
        p = end;
    }
    return 1;
}

/* The first disagreement found, in words. */
static char g_why[600];

#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            snprintf(g_why, sizeof g_why, __VA_ARGS__);                                            \
            return -1;                                                                             \
        }                                                                                          \
    } while (0)

static int check_record(const schema *s, const sb_record *rec, const json_node *obj, int whole);

/* One field against its property. */
static int check_field(const schema *s, const sb_record *rec, const sb_field *f,
                       const json_node *prop)
{
    shape sh = {0, "", -HUGE_VAL, HUGE_VAL, NULL};
    shape_of(s, prop, &sh);
    int nullable = (f->flags & SB_FIELD_NULLABLE) && !(f->flags & SB_FIELD_OPTIONAL);
    int want = 0;
    switch (f->type) {
    case SB_FT_INT:
        want = T_INT;
        break;
    case SB_FT_NUMBER:
        want = T_NUMBER;
        break;
    case SB_FT_BOOL:
        want = T_BOOL;
        break;
    case SB_FT_CHARS:
        nullable = 0; /* always written as a string (null reads as "") */
        want = T_STRING;
        break;
    case SB_FT_LIST:
        nullable = 0; /* always written as a list (null reads as empty) */
        want = T_ARRAY;
        break;
    case SB_FT_OBJECT:
    case SB_FT_NESTED:
        want = T_OBJECT;
        break;
    default:
        want = T_STRING;
    }
    want |= nullable ? T_NULL : 0;
    EXPECT(sh.types == want, "%s.%s: the schema says types 0x%x, the table 0x%x", rec->name, f->key,
           (unsigned)sh.types, (unsigned)want);
    if (f->type == SB_FT_NAME) {
        char names[600];
        field_names(f, names, sizeof names);
        EXPECT(sorted_equal(names, sh.names), "%s.%s: names %.200s, the schema %.200s", rec->name,
               f->key, names, sh.names);
    }
    if (f->type == SB_FT_INT) { /* the same range: stated where it bounds anything */
        EXPECT(f->min == INT64_MIN ? sh.min == -HUGE_VAL : sh.min == (double)f->min,
               "%s.%s: minimum %g in the schema, %lld in the table", rec->name, f->key, sh.min,
               (long long)f->min);
        EXPECT(f->max == INT64_MAX ? sh.max == HUGE_VAL : sh.max == (double)f->max,
               "%s.%s: maximum %g in the schema, %lld in the table", rec->name, f->key, sh.max,
               (long long)f->max);
    }
    if (f->type == SB_FT_NUMBER && sh.min > -HUGE_VAL)
        EXPECT(sh.min == 0 && f->min == 0, "%s.%s: minimum %g, the table %lld", rec->name, f->key,
               sh.min, (long long)f->min);
    const sb_record *sub = f->extra;
    if ((f->type == SB_FT_OBJECT || f->type == SB_FT_NESTED) && sub) {
        EXPECT(sh.object != NULL, "%s.%s: no object schema", rec->name, f->key);
        if (check_record(s, sub, sh.object, 1) != 0)
            return -1;
    }
    if (f->type == SB_FT_LIST) {
        const json_node *items = sh.object ? json_get(&s->doc, sh.object, "items") : NULL;
        EXPECT(items != NULL, "%s.%s: a list without items in the schema", rec->name, f->key);
        shape el = {0, "", -HUGE_VAL, HUGE_VAL, NULL};
        shape_of(s, items, &el);
        if (!sub)
            EXPECT(el.types == T_STRING, "%s.%s: a list of strings", rec->name, f->key);
        else if (check_record(s, sub, resolved(s, items), 1) != 0)
            return -1;
    }
    return 0;
}

/* rec against the object schema obj: whole (additionalProperties false, or
 * a record alone): the same members; else (the document around the
 * scaling members) the table's within the schema's. */
static int check_record(const schema *s, const sb_record *rec, const json_node *obj, int whole)
{
    const json_node *props = json_get(&s->doc, obj, "properties");
    EXPECT(props != NULL, "%s: no properties in the schema", rec->name);
    const json_node *required = json_get(&s->doc, obj, "required");
    const json_node *extra = json_get(&s->doc, obj, "additionalProperties");
    int closed = extra && extra->kind == JSON_FALSE;
    for (size_t i = 0; i < rec->count; i++) {
        const sb_field *f = &rec->fields[i];
        const json_node *p = json_get(&s->doc, props, f->key);
        EXPECT(p != NULL, "%s.%s: not in the schema", rec->name, f->key);
        if (check_field(s, rec, f, p) != 0)
            return -1;
        if (f->flags & SB_FIELD_OPTIONAL)
            EXPECT(!in_list(s, required, f->key),
                   "%s.%s: written only when set, but the schema requires it", rec->name, f->key);
    }
    for (const json_node *k = required ? json_child(&s->doc, required, 0) : NULL; k;
         k = json_next(&s->doc, k))
        EXPECT(sb_record_field(rec, k->text) != NULL || !whole,
               "%s: the schema requires %s, the table has none", rec->name, k->text);
    if (whole && closed)
        for (const json_node *p = json_child(&s->doc, props, 0); p; p = json_next(&s->doc, p))
            EXPECT(sb_record_field(rec, p->key) != NULL,
                   "%s: the schema has %s, the table does not", rec->name, p->key);
    return 0;
}

/* Where each record stands in the schema. */
static const struct {
    const sb_record *rec;
    const char *path;
    int whole;
} k_places[] = {
    {&sb_measurement_record, "$defs/measurement", 1},
    {&sb_item_record, "$defs/record", 1},
    {&sb_gpu_record, "$defs/gpu", 1},
    {&sb_timeline_record, "$defs/timeline", 1},
    {&sb_scale_point_record, "properties/scaling/items", 1},
    {&sb_scale_record, "", 0}, /* its members are the document's */
    {&sb_task_record_fields, "properties/task", 1},
    {&sb_job_env_record, "properties/job", 1},
    {&sb_manifest_record, "$defs/manifest", 1},
    {&sb_machine_record, "$defs/machine", 1},
    {&sb_recommendation_record, "$defs/recommendation", 1},
    {&sb_schedule_record, "$defs/schedule", 1},
    {&sb_plate_record, "$defs/plate", 1},
    {&sb_plate_pick_record, "$defs/plate_pick", 1},
};

static int check_place(const schema *s, size_t i, const sb_record *rec)
{
    const json_node *obj = k_places[i].path[0] ? at(s, k_places[i].path) : json_root(&s->doc);
    EXPECT(obj != NULL, "%s: no %s in the schema", rec->name, k_places[i].path);
    return check_record(s, rec, resolved(s, obj), k_places[i].whole);
}

START_TEST(every_table_agrees_with_the_schema)
{
    schema s;
    schema_open(&s);
    for (size_t i = 0; i < sizeof k_places / sizeof k_places[0]; i++)
        ck_assert_msg(check_place(&s, i, k_places[i].rec) == 0, "%s", g_why);
    /* Every record is placed above (the timeline's point and item through
     * it, an item record's run through the record). */
    ck_assert_uint_eq(sb_all_records_count, sizeof k_places / sizeof k_places[0] + 3);
    schema_close(&s);
}
END_TEST

/* The check fails on each kind of drift: a field the schema has and the
 * table not, one the table has and the schema not, another type, null
 * allowed on one side only, a range, a required field written only when
 * set. */
START_TEST(the_schema_check_finds_every_kind_of_drift)
{
    schema s;
    schema_open(&s);
    const sb_record *rec = &sb_item_record; /* k_places[1] */
    sb_field fields[16];
    ck_assert_uint_le(rec->count + 1, 16);
    static const char *const k_want[] = {
        "record: the schema has item, the table does not",
        "record.extra: not in the schema",
        "record.index: the schema says types 0x4, the table 0x8",
        "record.peak_rss_bytes: the schema says types 0x5, the table 0x4",
        "record.index: maximum inf in the schema, 9 in the table",
        "record.seconds: written only when set, but the schema requires it",
        "record: the schema requires peak_vram_bytes, the table has none",
    };
    for (int drift = 0; drift < 7; drift++) {
        memcpy(fields, rec->fields, rec->count * sizeof *fields);
        sb_record r = {"record", fields, rec->count};
        if (drift == 0) { /* the item's label dropped */
            memmove(&fields[1], &fields[2], (rec->count - 2) * sizeof *fields);
            r.count--;
        }
        if (drift == 1) {
            fields[r.count] = fields[0];
            fields[r.count++].key = "extra";
        }
        if (drift == 2)
            fields[0].type = SB_FT_NUMBER;
        if (drift == 3)
            fields[4].flags &= ~(unsigned)SB_FIELD_NULLABLE;
        if (drift == 4)
            fields[0].max = 9;
        if (drift == 5)
            fields[3].flags |= SB_FIELD_OPTIONAL;
        if (drift == 6) { /* peak_vram_bytes, which the schema requires, dropped */
            size_t k = (size_t)(sb_record_field(rec, "peak_vram_bytes") - rec->fields);
            memmove(&fields[k], &fields[k + 1], (rec->count - k - 1) * sizeof *fields);
            r.count--;
        }
        g_why[0] = '\0';
        ck_assert_int_eq(check_place(&s, 1, &r), -1);
        ck_assert_msg(strstr(g_why, k_want[drift]) != NULL, "'%s' not in '%s'", k_want[drift],
                      g_why);
    }
    schema_close(&s);
}
END_TEST

/* Each member's width is its type's, and each enum's count is the
 * library's (its last name known, the next one "unknown"). */
START_TEST(every_table_describes_its_members)
{
    for (size_t r = 0; r < sb_all_records_count; r++) {
        const sb_record *rec = sb_all_records[r];
        for (size_t i = 0; i < rec->count; i++) {
            const sb_field *f = &rec->fields[i];
            for (size_t j = 0; j < i; j++)
                ck_assert_msg(strcmp(rec->fields[j].key, f->key) != 0, "%s.%s twice", rec->name,
                              f->key);
            switch (f->type) {
            case SB_FT_INT:
                ck_assert_msg(f->width == 8 ||
                                  (f->width == 4 && f->min >= INT32_MIN && f->max <= INT32_MAX),
                              "%s.%s: width %u for its range", rec->name, f->key, f->width);
                break;
            case SB_FT_NUMBER:
                ck_assert_uint_eq(f->width, sizeof(double));
                break;
            case SB_FT_BOOL:
            case SB_FT_NAME:
                ck_assert_uint_eq(f->width, sizeof(int32_t));
                break;
            case SB_FT_TEXT:
                ck_assert_uint_eq(f->width, sizeof(const char *));
                break;
            default:
                break;
            }
            if (f->type == SB_FT_NAME) {
                const sb_names *n = f->extra;
                ck_assert_str_ne(n->name(n->count - 1), "unknown");
                ck_assert_str_eq(n->name(n->count), "unknown");
            }
        }
    }
}
END_TEST

/* ---- a document read back ---- */

static char *to_json(const spacrbench_measurement *m, const char *const *labels, size_t n)
{
    int len = spacrbench_measurement_to_json(m, labels, n, NULL, 0);
    ck_assert_int_gt(len, 0);
    char *out = malloc((size_t)len + 1);
    ck_assert_int_eq(spacrbench_measurement_to_json(m, labels, n, out, (size_t)len + 1), len);
    return out;
}

static spacrbench_measurement *full_measurement(void)
{
    spacrbench_figures f = {.size = sizeof f};
    f.items = 2;
    f.seconds = 1.0 / 3;
    f.peak_rss_bytes = 300 << 20;
    f.baseline_rss_bytes = 100 << 20;
    f.peak_vram_bytes = 1 << 30;
    f.cpu_seconds = 0.25;
    f.warmup_items = 1;
    f.warmup_seconds = 0.125;
    f.peak_method = SPACRBENCH_PEAK_HWM_RESET;
    f.vram_source = SPACRBENCH_SOURCE_NVML;
    f.sample_interval_us = 10000;
    f.stopped_item = -1;
    f.oom_limit_bytes = 7;
    spacrbench_measurement *m = NULL;
    ck_assert_int_eq(spacrbench_measurement_create(&f, &m), 0);
    for (int i = 0; i < 3; i++) {
        spacrbench_item_record r = {
            sizeof r,        i, i == 0, 0, 0.1 * (i + 1), i == 2 ? -1 : (int64_t)(i + 1) << 20,
            i == 1 ? 77 : -1};
        ck_assert_int_eq(spacrbench_measurement_add_record(m, &r), 0);
    }
    ck_assert_int_eq(spacrbench_measurement_add_note(m, "a note: \"quoted\"\n\x01"), 0);
    spacrbench_gpu_info g = {sizeof g, 0, "Tesla T4", 16LL << 30, -1, 5};
    ck_assert_int_eq(spacrbench_measurement_add_gpu(m, &g), 0);
    spacrbench_timeline_info ti = {
        .size = sizeof ti, .interval_us = 10000, .samples = 6, .stride = 2};
    ck_assert_int_eq(spacrbench_measurement_timeline_begin(m, &ti), 0);
    for (int i = 0; i < 3; i++) {
        spacrbench_timeline_point p = {sizeof p, 0.01 * i, i == 1 ? -1 : (int64_t)i << 20, 9};
        ck_assert_int_eq(spacrbench_measurement_timeline_add_point(m, &p), 0);
    }
    spacrbench_timeline_item it = {sizeof it, 1, 0, 0, 0.01, 0.02, 1 << 20, 0.015};
    ck_assert_int_eq(spacrbench_measurement_timeline_add_item(m, &it), 0);
    /* The plate section: a correlation and an intercept below 0 (never
     * taken for null), a pick per record, its notes. */
    spacrbench_plate_section ps;
    ck_assert_int_eq(spacrbench_plate_section_init(&ps, sizeof ps), 0);
    ps.items = 12;
    ps.key_kind = SPACRBENCH_PLATE_KEY_BYTES;
    snprintf(ps.key_name, sizeof ps.key_name, "file size");
    ps.fit = SPACRBENCH_PLATE_FIT_UNEXPLAINED;
    ps.time_fit = SPACRBENCH_PLATE_FIT_UNEXPLAINED;
    ps.median_key = 512000;
    ps.correlation = -0.25;
    ps.slope_bytes_per_key = 3.5;
    ps.intercept_bytes = -1e6;
    ps.largest_index = 8;
    ps.largest_key = 512000;
    ps.largest_bytes = 270000000;
    ps.largest_measured_bytes = 150000000;
    ps.spread_bytes = 120000000;
    ps.slowest_seconds = 0.5;
    ps.total_seconds = 3.25;
    ps.workers = 1;
    ps.eta_seconds = 3.25;
    ck_assert_int_eq(spacrbench_measurement_plate_begin(m, &ps), 0);
    const int64_t where[] = {5, 8, 0};
    for (int i = 0; i < 3; i++) {
        spacrbench_plate_pick k = {
            sizeof k, where[i],
            512000,   i == 0 ? SPACRBENCH_PLATE_WHY_WARMUP : SPACRBENCH_PLATE_WHY_SPREAD,
            i == 0,   -1,
            NAN};
        ck_assert_int_eq(spacrbench_measurement_plate_add_pick(m, &k), 0);
    }
    ck_assert_int_eq(spacrbench_measurement_plate_add_note(m, "every item has the same size"), 0);
    return m;
}

START_TEST(a_measurement_reads_back_to_the_same_bytes)
{
    spacrbench_measurement *m = full_measurement();
    const char *labels[] = {"a.tif", "b, \"c\"", "\xc3\xa9t\xc3\xa9"};
    for (int with_labels = 0; with_labels < 2; with_labels++) {
        char *doc = to_json(m, with_labels ? labels : NULL, with_labels ? 3 : 0);
        spacrbench_measurement *back = NULL;
        ck_assert_msg(spacrbench_measurement_from_json(doc, strlen(doc), NULL, 0, &back) == 0, "%s",
                      spacrbench_last_error_message());
        for (size_t i = 0; i < 3; i++) {
            const char *label = spacrbench_measurement_item_label(back, i);
            if (with_labels)
                ck_assert_str_eq(label, labels[i]);
            else
                ck_assert_ptr_null(label);
        }
        ck_assert_ptr_null(spacrbench_measurement_item_label(back, 3));
        const char *shown[3];
        for (size_t i = 0; i < 3; i++)
            shown[i] = spacrbench_measurement_item_label(back, i);
        char *again = to_json(back, with_labels ? shown : NULL, with_labels ? 3 : 0);
        ck_assert_str_eq(again, doc);
        /* A whole document reads by its "measurement" member. */
        size_t n = strlen(doc) + 64;
        char *whole = malloc(n);
        snprintf(whole, n, "{\"mode\": \"run\", \"measurement\": %s}", doc);
        spacrbench_measurement *member = NULL;
        ck_assert_int_eq(spacrbench_measurement_from_json(whole, strlen(whole), "d", 0, &member),
                         0);
        char *third = to_json(member, NULL, 0);
        if (!with_labels)
            ck_assert_str_eq(third, doc);
        free(third);
        free(whole);
        free(again);
        free(doc);
        spacrbench_measurement_free(member);
        spacrbench_measurement_free(back);
    }
    spacrbench_measurement_free(m);
}
END_TEST

static void refused(const char *doc, int code, const char *message)
{
    spacrbench_measurement *m = (spacrbench_measurement *)1;
    int rc = spacrbench_measurement_from_json(doc, strlen(doc), "data", 0, &m);
    ck_assert_msg(rc == code, "%s: %d, not %d (%s)", doc, rc, code,
                  spacrbench_last_error_message());
    ck_assert_ptr_null(m);
    ck_assert_msg(strstr(spacrbench_last_error_message(), message) != NULL, "%s: '%s' not in '%s'",
                  doc, message, spacrbench_last_error_message());
}

#define GOOD "\"items\": 1, \"seconds\": 1.0, \"peak_rss_bytes\": 1"

/* The plate section read back: checked against the records it names. */
START_TEST(a_plate_section_is_checked_with_its_records)
{
    spacrbench_measurement *m = full_measurement();
    char *doc = to_json(m, NULL, 0);
    ck_assert_ptr_nonnull(strstr(doc, "\"plate\":{\"items\":12,\"key\":\"bytes\""));
    ck_assert_ptr_nonnull(strstr(doc, "\"correlation\":-0.25"));
    /* Derived: the pick's footprint is its record's peak above the baseline. */
    ck_assert_ptr_nonnull(strstr(doc, "{\"index\":8,\"key\":512000,\"why\":\"spread\","
                                      "\"is_warmup\":false,\"footprint_bytes\":0"));
    spacrbench_measurement *back = NULL;
    ck_assert_int_eq(spacrbench_measurement_from_json(doc, strlen(doc), NULL, 0, &back), 0);
    spacrbench_plate_section ps = {.size = sizeof ps};
    ck_assert_int_eq(spacrbench_measurement_plate(back, &ps), 0);
    ck_assert_int_eq(ps.items, 12);
    ck_assert_int_eq(ps.pick_count, 3);
    ck_assert_int_eq(ps.note_count, 1);
    ck_assert_double_eq(ps.correlation, -0.25);
    spacrbench_plate_pick k = {.size = sizeof k};
    ck_assert_int_eq(spacrbench_measurement_plate_pick(back, 1, &k), 0);
    ck_assert_int_eq(k.index, 8);
    ck_assert_double_eq(k.seconds, 0.2);
    spacrbench_measurement_free(back);
    /* Without a section: no member at all, and ERANGE. */
    spacrbench_figures f = {.size = sizeof f, .items = 1, .seconds = 1, .peak_rss_bytes = 1};
    spacrbench_measurement *plain = NULL;
    ck_assert_int_eq(spacrbench_measurement_create(&f, &plain), 0);
    char *none = to_json(plain, NULL, 0);
    ck_assert_ptr_null(strstr(none, "plate"));
    ck_assert_int_eq(spacrbench_measurement_plate(plain, &ps), SPACRBENCH_ERANGE);
    free(none);
    spacrbench_measurement_free(plain);
    /* Each disagreement, named by its path. */
    static const struct {
        const char *from, *to, *message;
    } k_bad[] = {
        {"\"index\":8,", "\"index\":12,",
         "data['plate']['picks'][1]['index'] is 12, past the plate's 12 items"},
        {"\"index\":8,", "\"index\":5,", "data['plate']['picks'] measure item 5 twice"},
        {"\"why\":\"warmup\",\"is_warmup\":true", "\"why\":\"warmup\",\"is_warmup\":false",
         "data['plate']['picks'][0]['is_warmup'] is False, but records[0] is a warm-up item"},
        {"\"why\":\"spread\"", "\"why\":\"first\"",
         "data['plate']['picks'][1]['why'] must be one of"},
        {"\"largest_index\":8", "\"largest_index\":40",
         "data['plate']['largest_index'] is 40, past the plate's 12 items"},
        {"\"items\":12", "\"items\":0", "data['plate']['items'] must be >= 1"},
        {"\"picks\":[", "\"picks\":[{\"index\":3,\"why\":\"even\"},",
         "data['plate']['picks'] has 4 picks, not one per record (3 records)"},
    };
    for (size_t i = 0; i < sizeof k_bad / sizeof k_bad[0]; i++) {
        char *at = strstr(doc, k_bad[i].from);
        ck_assert_ptr_nonnull(at);
        size_t n = strlen(doc) + strlen(k_bad[i].to) + 1;
        char *bad = malloc(n);
        snprintf(bad, n, "%.*s%s%s", (int)(at - doc), doc, k_bad[i].to, at + strlen(k_bad[i].from));
        spacrbench_measurement *no = (spacrbench_measurement *)1;
        ck_assert_int_ne(spacrbench_measurement_from_json(bad, strlen(bad), NULL, 0, &no), 0);
        ck_assert_ptr_null(no);
        ck_assert_msg(strstr(spacrbench_last_error_message(), k_bad[i].message), "'%s' not in '%s'",
                      k_bad[i].message, spacrbench_last_error_message());
        free(bad);
    }
    free(doc);
    spacrbench_measurement_free(m);
}
END_TEST

START_TEST(a_bad_field_is_refused_by_its_path)
{
    refused("[]", SPACRBENCH_ETYPE, "data must be a mapping, not list");
    refused("{\"seconds\": 1, \"peak_rss_bytes\": 1}", SPACRBENCH_EINVAL, "data has no 'items'");
    refused("{" GOOD ", \"stopped\": 1}", SPACRBENCH_ETYPE,
            "data['stopped'] must be a bool, not int");
    refused("{\"items\": 1, \"seconds\": 1"
            "000000000000000000000000000000000000000000000000000"
            "000000000000000000000000000000000000000000000000000000000000000000000000000000000"
            "000000000000000000000000000000000000000000000000000000000000000000000000000000000"
            "000000000000000000000000000000000000000000000000000000000000000000000000000000000"
            "000000000000000000000000000000000000000000000000000000000000000000000000000000000"
            "0000000000000000000000000000, \"peak_rss_bytes\": 1}",
            SPACRBENCH_EINVAL, "data['seconds'] must be finite and >= 0, got 1000");
    refused("{\"items\": 0, \"seconds\": 1, \"peak_rss_bytes\": 1}", SPACRBENCH_EINVAL,
            "data['items'] is 0: a measurement holds at least one measured item");
    refused(
        "{" GOOD ", \"peak_method\": \"cgroup\"}", SPACRBENCH_EINVAL,
        "data['records'] is empty: a measured run (peak_method 'cgroup') has one record per item");
    refused("{\"items\": 9223372036854775807, \"warmup_items\": 2, \"seconds\": 1, "
            "\"peak_rss_bytes\": 1, \"records\": [{\"index\": 0, \"seconds\": 1}]}",
            SPACRBENCH_EINVAL,
            "data['records'] has 1 records, not items + warmup_items = 9223372036854775809");
    refused("{" GOOD ", \"seconds\": NaN}", SPACRBENCH_EINVAL, "data['seconds'] must be finite");
    refused("{" GOOD ", \"items\": 1e3}", SPACRBENCH_ETYPE,
            "data['items'] must be an integer, not float");
    refused("{" GOOD ", \"items\": 99999999999999999999}", SPACRBENCH_EINVAL,
            "data['items'] must be >= 0 and fit in 64 bits, got 99999999999999999999");
    refused("{" GOOD ", \"vram_reason\": \"a\\u0000b\"}", SPACRBENCH_EINVAL,
            "data['vram_reason'] must not contain a NUL character");
    refused("{" GOOD ", \"notes\": [\"a\", {}]}", SPACRBENCH_ETYPE,
            "data['notes'][1] must be a string, not dict");
    refused("{" GOOD ", \"gpus\": [{\"index\": 0, \"name\": 3}]}", SPACRBENCH_ETYPE,
            "data['gpus'][0]['name'] must be a string or None, not int");
    refused("{" GOOD ", \"records\": [{\"index\": 0, \"seconds\": 1, \"peak_rss_bytes\": \"x\"}]}",
            SPACRBENCH_ETYPE, "data['records'][0]['peak_rss_bytes'] must be an integer or None");
    refused("{" GOOD
            ", \"timeline\": {\"interval_us\": 1, \"samples\": 1, \"points\": [{\"seconds\": "
            "-Infinity}]}}",
            SPACRBENCH_EINVAL,
            "data['timeline']['points'][0]['seconds'] must be finite and >= 0, "
            "got -inf");
    refused("{" GOOD
            ", \"timeline\": {\"interval_us\": 1, \"samples\": 1, \"items\": [{\"index\": 0, "
            "\"start_seconds\": 2, \"end_seconds\": 1, \"peak_seconds\": 1}]}, \"records\": "
            "[{\"index\": 0, \"seconds\": 1}]}",
            SPACRBENCH_EINVAL, "data['timeline']['items'][0] is refused: spacrbench_timeline_item");
    refused("{" GOOD ", \"peak_method\": \"guessed\"}", SPACRBENCH_EINVAL,
            "data['peak_method'] must be one of ['none', 'hwm_reset'");
    refused("{" GOOD ", \"vram_source\": \"host\"}", SPACRBENCH_EINVAL,
            "data['vram_source'] must be one of [None, 'caller', 'nvml', 'torch'], not 'host'");
    refused("{" GOOD ", \"stopped\": true, \"stopped_item\": 4}", SPACRBENCH_EINVAL,
            "data['stopped'] is true: that run stopped at item 4");
    refused("{\"items\": 1", SPACRBENCH_EINVAL, "data is not JSON: an object without ',' or '}'");
    refused("{" GOOD ", \"x\": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
            "[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
            "]]]]]]]]}",
            SPACRBENCH_EINVAL, "nested deeper than 64");
    /* A stopped run reads with SPACRBENCH_READ_STOPPED, its null peak too. */
    const char *stopped =
        "{\"items\": 0, \"seconds\": 0, \"peak_rss_bytes\": null, \"peak_method\": "
        "\"cgroup\", \"stopped\": true, \"stopped_item\": 0, \"work_result\": 3}";
    spacrbench_measurement *m = NULL;
    ck_assert_int_eq(spacrbench_measurement_from_json(stopped, strlen(stopped), NULL,
                                                      SPACRBENCH_READ_STOPPED, &m),
                     0);
    spacrbench_figures f = {.size = sizeof f};
    ck_assert_int_eq(spacrbench_measurement_figures(m, &f), 0);
    ck_assert(f.stopped == 1 && f.work_result == 3 && f.peak_rss_bytes == -1);
    ck_assert_int_eq(f.peak_method, SPACRBENCH_PEAK_CGROUP);
    spacrbench_measurement_free(m);
    ck_assert_int_eq(spacrbench_measurement_from_json(stopped, strlen(stopped), NULL, 8, &m),
                     SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_measurement_from_json(NULL, 3, NULL, 0, &m), SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_measurement_from_json("{}", 2, NULL, 0, NULL), SPACRBENCH_EINVAL);
}
END_TEST

START_TEST(a_scaling_check_reads_back_as_written)
{
    spacrbench_scale_point pts[3];
    spacrbench_scale_spread sps[3];
    for (int i = 0; i < 3; i++) {
        spacrbench_scale_point_init(&pts[i], sizeof pts[i]);
        spacrbench_scale_spread_init(&sps[i], sizeof sps[i]);
        pts[i].workers = 1 << i;
        pts[i].items = 8;
        pts[i].seconds = 2.0 / (i + 1);
        pts[i].peak_bytes = i == 2 ? -1 : (int64_t)(i + 1) << 24;
        pts[i].peak_method = i == 1 ? SPACRBENCH_PEAK_CHILD_RUSAGE : SPACRBENCH_PEAK_CGROUP;
        pts[i].failed = i == 2;
        sps[i].repeats = 3;
        sps[i].spread = 0.1;
        sps[i].oom_killed = i == 2;
        sps[i].limit_bytes = i == 2 ? 1 << 30 : -1;
    }
    spacrbench_scale_result *r = NULL, *back = NULL;
    ck_assert_int_eq(spacrbench_scale_from_points_spread(pts, 3, sizeof pts[0], sps, sizeof sps[0],
                                                         1LL << 30, &r),
                     0);
    ck_assert_int_eq(spacrbench_scale_add_note(r, "a note"), 0);
    char doc[8192], again[8192];
    ck_assert_int_lt(spacrbench_scale_to_json(r, doc, sizeof doc), (int)sizeof doc);
    ck_assert_msg(spacrbench_scale_from_json(doc, strlen(doc), NULL, &back) == 0, "%s",
                  spacrbench_last_error_message());
    ck_assert_int_lt(spacrbench_scale_to_json(back, again, sizeof again), (int)sizeof again);
    ck_assert_str_eq(again, doc);
    char table[8192], table_back[8192];
    spacrbench_format_scaling(r, table, sizeof table);
    spacrbench_format_scaling(back, table_back, sizeof table_back);
    ck_assert_str_eq(table_back, table);
    spacrbench_scale_summary a = {.size = sizeof a}, b = {.size = sizeof b};
    spacrbench_scale_summary_get(r, &a);
    spacrbench_scale_summary_get(back, &b);
    ck_assert(a.best_items_per_second == b.best_items_per_second &&
              a.chosen_workers == b.chosen_workers && a.note_count == b.note_count);
    spacrbench_scale_free(back);
    spacrbench_scale_free(r);
    const char *bad[][2] = {
        {"{\"scaling\": [{\"workers\": 2, \"items\": 1, \"seconds\": 1, \"peak_bytes\": null, "
         "\"failed\": false}, {\"workers\": 1, \"items\": 1, \"seconds\": 1, \"peak_bytes\": null, "
         "\"failed\": false}]}",
         "data['scaling'][1]['workers'] is 1, not more than the 2 before it"},
        {"{\"scaling\": [], \"scaling_workers\": 3}",
         "data['scaling_workers'] is 3, not a worker count of its points"},
        {"{\"scaling\": [{\"workers\": 0}]}", "data['scaling'][0]['workers'] must be >= 1"},
        {"{\"scaling_notes\": []}", "data has no 'scaling'"},
        {"{\"scaling\": [], \"scaling_verdict\": \"great\"}",
         "data['scaling_verdict'] must be one of ['none', 'linear', 'saturated', 'memory']"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        back = (spacrbench_scale_result *)1;
        ck_assert_int_lt(spacrbench_scale_from_json(bad[i][0], strlen(bad[i][0]), NULL, &back), 0);
        ck_assert_ptr_null(back);
        ck_assert_msg(strstr(spacrbench_last_error_message(), bad[i][1]) != NULL,
                      "'%s' not in '%s'", bad[i][1], spacrbench_last_error_message());
    }
}
END_TEST

/* ---- the engine and the reader's modes ---- */

START_TEST(the_quoted_style_says_what_summarize_says)
{
    const char *text = "{\"task\": {\"outcome\": \"ok\", \"signal\": \"x\", \"requested\": "
                       "{\"cpus\": 1.5}}}";
    json_doc doc;
    ck_assert_int_eq(json_parse(&doc, text, strlen(text), NULL), 0);
    sb_reader r;
    sb_reader_init(&r, &doc, SB_READ_QUOTED, "");
    r.partial = 1;
    sb_task_record t;
    sb_task_record_init(&t);
    void *const parts[] = {&t};
    sb_reader_push_key(&r, "task");
    ck_assert_int_eq(sb_record_read(&r, json_get(&doc, json_root(&doc), "task"),
                                    &sb_task_record_fields, parts, NULL),
                     -1);
    ck_assert_str_eq(r.message, "\"task.signal\" is text, not a whole number from 1 to 128");
    ck_assert_int_eq(r.failed, SB_READ_TYPE);
    ck_assert_int_eq(t.outcome, SB_TASK_OK);
    json_doc_free(&doc);
    /* Strict by default: what Python's json writes beyond RFC 8259 is not JSON. */
    ck_assert_int_eq(json_parse(&doc, "[NaN]", 5, NULL), -1);
    const json_limits lenient = {8, 100, JSON_NONFINITE | JSON_KEEP_UNHELD};
    const char *odd = "[NaN, -Infinity, 1e400, \"a\\u0000b\", 12345678901234567890123, "
                      "\"\\ud800x\\udc00\\ud83d\\u0041\"]";
    ck_assert_int_eq(json_parse(&doc, odd, strlen(odd), &lenient), 0);
    const json_node *n = json_child(&doc, json_root(&doc), 0);
    ck_assert(n->kind == JSON_NUMBER && !n->finite && isnan(n->number));
    n = json_next(&doc, n);
    ck_assert(!n->finite && n->number < 0 && strcmp(n->text, "-Infinity") == 0);
    n = json_next(&doc, n);
    ck_assert(!n->finite && n->integral == 0 && strcmp(n->text, "1e400") == 0);
    n = json_next(&doc, n);
    ck_assert(n->has_nul && strcmp(n->text, "a") == 0);
    n = json_next(&doc, n);
    ck_assert(n->finite && n->integral && !n->is_integer);
    n = json_next(&doc, n); /* lone surrogates, as Python writes undecodable bytes */
    ck_assert_str_eq(n->text, "\xef\xbf\xbdx\xef\xbf\xbd\xef\xbf\xbd"
                              "A");
    json_doc_free(&doc);
    ck_assert_int_eq(json_parse(&doc, "{\"a\\u0000\": 1}", 14, &lenient), -1);
    ck_assert_ptr_nonnull(strstr(doc.error, "in a member name"));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("records");
    TCase *tc = tcase_create("records");
    tcase_add_test(tc, every_table_agrees_with_the_schema);
    tcase_add_test(tc, the_schema_check_finds_every_kind_of_drift);
    tcase_add_test(tc, every_table_describes_its_members);
    tcase_add_test(tc, a_measurement_reads_back_to_the_same_bytes);
    tcase_add_test(tc, a_plate_section_is_checked_with_its_records);
    tcase_add_test(tc, a_bad_field_is_refused_by_its_path);
    tcase_add_test(tc, a_scaling_check_reads_back_as_written);
    tcase_add_test(tc, the_quoted_style_says_what_summarize_says);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
