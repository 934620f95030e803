/* The bounded JSON reader and the record engine over it (src/util/
 * json_reader.c, record.c) on any bytes, in both strictness modes and both
 * message styles, through every record's table: no crash, a problem is
 * always one NUL-terminated message, and a record read without a problem
 * is written and read back to the same document. */
#include <stdio.h>
#include <string.h>

#include "fuzz_check.h"
#include "record.h"
#include "records.h"
#include "util.h"

/* Room for the largest record's parts (zeroed: NULL texts, 0 figures). */
static union {
    char bytes[2048];
    double align;
} g_parts[2];

/* Lists are read element by element by the same table (strings for the
 * notes), as the library's readers do. */
static int read_list(void *ctx, sb_reader *r, const sb_field *f, const json_node *value)
{
    (void)ctx;
    long long n = sb_read_list(r, value, (f->flags & SB_FIELD_NULLABLE) != 0);
    if (n <= 0 || value->kind == JSON_NULL)
        return (int)n;
    size_t i = 0;
    for (const json_node *e = json_child(r->doc, value, 0); e && !r->failed;
         e = json_next(r->doc, e), i++) {
        sb_reader_push_index(r, i);
        if (!f->extra)
            sb_read_string(r, e);
        else if (f->type == SB_FT_LIST || e->kind == JSON_OBJECT) {
            static union {
                char bytes[2048];
                double align;
            } inner[2];
            memset(inner, 0, sizeof inner);
            void *const parts[] = {inner[0].bytes, inner[1].bytes};
            sb_record_read(r, e, f->extra, parts, NULL);
        }
        sb_reader_pop(r);
    }
    return r->failed ? -1 : 0;
}

/* Whether obj gives every member rec reads (its objects' too): then no
 * field keeps the zero it started with, which need not be valid. */
static int complete(const json_doc *doc, const json_node *obj, const sb_record *rec)
{
    for (size_t i = 0; i < rec->count; i++) {
        const sb_field *f = &rec->fields[i];
        if (f->flags & SB_FIELD_DERIVED || f->type == SB_FT_LIST || f->type == SB_FT_NESTED)
            continue;
        const json_node *n = json_get(doc, obj, f->key);
        if (!n || (f->type == SB_FT_OBJECT && !complete(doc, n, f->extra)))
            return 0;
    }
    return 1;
}

static void read_every_record(const json_doc *doc, int style, int partial)
{
    for (size_t k = 0; k < sb_all_records_count; k++) {
        const sb_record *rec = sb_all_records[k];
        memset(g_parts, 0, sizeof g_parts);
        void *const parts[] = {g_parts[0].bytes, g_parts[1].bytes};
        sb_reader r;
        sb_reader_init(&r, doc, style, style == SB_READ_PYTHON ? "data" : "");
        r.partial = partial;
        r.max_entries = 1000;
        const sb_record_io io = {NULL, NULL, read_list};
        int rc = sb_record_read(&r, json_root(doc), rec, parts, &io);
        FUZZ_REQUIRE((rc == 0) == (r.failed == SB_READ_OK));
        FUZZ_REQUIRE(memchr(r.message, '\0', sizeof r.message) != NULL);
        FUZZ_REQUIRE(rc == 0 || r.message[0] != '\0');
        if (rc != 0 || !complete(doc, json_root(doc), rec))
            continue;
        /* Written back (its scalars and objects; lists are the callers')
         * and read again: the same document. */
        json_writer w;
        json_init(&w, 0);
        sb_record_write(&w, NULL, rec, (const void *const *)parts, NULL);
        const char *text = json_result(&w);
        if (text) {
            char *first = strdup(text);
            json_doc again;
            FUZZ_REQUIRE(first && json_parse(&again, first, strlen(first), NULL) == 0);
            static union {
                char bytes[2048];
                double align;
            } back[2];
            memset(back, 0, sizeof back);
            void *const back_parts[] = {back[0].bytes, back[1].bytes};
            sb_reader r2;
            sb_reader_init(&r2, &again, style, "data");
            r2.partial = 1;
            FUZZ_REQUIRE(sb_record_read(&r2, json_root(&again), rec, back_parts, NULL) == 0);
            json_writer w2;
            json_init(&w2, 0);
            sb_record_write(&w2, NULL, rec, (const void *const *)back_parts, NULL);
            FUZZ_REQUIRE(json_result(&w2) && strcmp(json_result(&w2), first) == 0);
            json_free(&w2);
            json_doc_free(&again);
            free(first);
        }
        json_free(&w);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const unsigned k_modes[] = {0, JSON_KEEP_UNHELD | JSON_NONFINITE};
    for (size_t m = 0; m < 2; m++) {
        const json_limits lim = {16, 4096, k_modes[m]};
        json_doc doc;
        int rc = json_parse(&doc, (const char *)data, size, &lim);
        FUZZ_REQUIRE(rc == 0 || rc == -1);
        FUZZ_REQUIRE(memchr(doc.error, '\0', sizeof doc.error) != NULL);
        FUZZ_REQUIRE((rc == 0) == (json_root(&doc) != NULL));
        if (rc == 0 && json_root(&doc)->kind == JSON_OBJECT) {
            read_every_record(&doc, SB_READ_PYTHON, 0);
            read_every_record(&doc, SB_READ_QUOTED, 1);
        }
        json_doc_free(&doc);
    }
    return 0;
}
