/* Which items of a plate to measure: across the key's range, the largest
 * always, deterministic, O(n log n) (plate.h). Every item's key is read
 * once; the keys are sorted once (a merge sort, so the count of
 * comparisons is bounded and counted); each chosen item is the nearest
 * one not yet chosen, found through "next free" links with path
 * compression, so a plate of equal keys costs no more than any other. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plate.h"

int spacrbench_plate_options_init(spacrbench_plate_options *opts, size_t size)
{
    sb_clear_error();
    if (!opts)
        return sb_fail(SPACRBENCH_EINVAL, "opts must not be NULL");
    if (size < sizeof(size_t))
        return sb_fail(SPACRBENCH_EINVAL, "size %zu is too small for spacrbench_plate_options",
                       size);
    const spacrbench_plate_options defaults = SPACRBENCH_PLATE_OPTIONS_INIT;
    size_t n = size < sizeof defaults ? size : sizeof defaults;
    memset(opts, 0, size);
    memcpy(opts, &defaults, n);
    opts->size = size;
    return SPACRBENCH_OK;
}

typedef struct keyed {
    double key;
    size_t index;
} keyed;

static int before(const keyed *a, const keyed *b)
{
    return a->key < b->key || (a->key == b->key && a->index < b->index);
}

/* Bottom-up merge sort by (key, index): n log n comparisons at most. */
static keyed *sort_keyed(keyed *v, keyed *tmp, size_t n, uint64_t *steps)
{
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n,
                   hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi) {
                (*steps)++;
                tmp[o++] = before(&v[j], &v[i]) ? v[j++] : v[i++];
            }
            while (i < mid)
                tmp[o++] = v[i++];
            while (j < hi)
                tmp[o++] = v[j++];
        }
        keyed *swap = v;
        v = tmp;
        tmp = swap;
    }
    return v;
}

/* Links to the nearest position not yet chosen, above (up) and below
 * (down); n (up) and SIZE_MAX (down) mean none. */
typedef struct free_links {
    size_t *up, *down, n;
    uint64_t *steps;
} free_links;

static size_t find_up(free_links *f, size_t p)
{
    size_t root = p;
    while (root < f->n && f->up[root] != root) {
        root = f->up[root];
        (*f->steps)++;
    }
    while (p < f->n && f->up[p] != root) { /* path compression */
        size_t next = f->up[p];
        f->up[p] = root;
        p = next;
    }
    return root;
}

static size_t find_down(free_links *f, size_t p)
{
    size_t root = p;
    while (root != SIZE_MAX && f->down[root] != root) {
        root = f->down[root];
        (*f->steps)++;
    }
    while (p != SIZE_MAX && f->down[p] != root) {
        size_t next = f->down[p];
        f->down[p] = root;
        p = next;
    }
    return root;
}

static void take(free_links *f, size_t p)
{
    f->up[p] = p + 1 < f->n ? p + 1 : f->n;
    f->down[p] = p > 0 ? p - 1 : SIZE_MAX;
}

/* The free position nearest `at` in sorted order whose value is nearest
 * `value` (values: the sorted keys, NULL: positions are the values);
 * ties go to the lower one. SIZE_MAX when none is free. */
static size_t nearest_free(free_links *f, const keyed *sorted, size_t at, double value)
{
    size_t hi = at < f->n ? find_up(f, at) : f->n;
    size_t lo = at > 0 ? find_down(f, (at < f->n ? at : f->n) - 1) : SIZE_MAX;
    if (hi >= f->n)
        return lo;
    if (lo == SIZE_MAX)
        return hi;
    double vh = sorted ? sorted[hi].key : (double)hi, vl = sorted ? sorted[lo].key : (double)lo;
    return fabs(vh - value) < fabs(value - vl) ? hi : lo;
}

/* The first sorted position whose key is >= value. */
static size_t lower_bound(const keyed *sorted, size_t n, double value, uint64_t *steps)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        (*steps)++;
        if (sorted[mid].key < value)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

typedef struct chooser {
    spacrbench_plate *p;
    free_links f;
    const keyed *sorted; /* NULL: no key */
    size_t *chosen_pos;  /* sorted positions of the picks, in the order chosen */
} chooser;

static void choose(chooser *c, size_t pos, int why)
{
    spacrbench_plate *p = c->p;
    take(&c->f, pos);
    spacrbench_plate_pick *k = &p->picks[p->n_picks];
    memset(k, 0, sizeof *k);
    k->size = sizeof *k;
    k->index = (int64_t)(c->sorted ? c->sorted[pos].index : pos);
    k->key = c->sorted ? c->sorted[pos].key : NAN;
    k->why = why;
    k->is_warmup = why == SPACRBENCH_PLATE_WHY_WARMUP;
    k->footprint_bytes = -1;
    k->seconds = NAN;
    c->chosen_pos[p->n_picks++] = pos;
}

/* The sample: with a key, the largest (the first item holding the largest
 * key), the smallest, then the nearest free item to each even step across
 * the range; without one, evenly spaced positions, first and last. */
static void choose_sample(chooser *c, size_t sample)
{
    spacrbench_plate *p = c->p;
    size_t n = p->n;
    if (!c->sorted) {
        for (size_t j = 0; j < sample; j++) {
            double at =
                sample > 1 ? (double)j * (double)(n - 1) / (double)(sample - 1) : (double)(n - 1);
            size_t pos = nearest_free(&c->f, NULL, (size_t)llround(at), at);
            if (pos < n)
                choose(c, pos, SPACRBENCH_PLATE_WHY_EVEN);
        }
        return;
    }
    double lo = c->sorted[0].key, hi = c->sorted[n - 1].key;
    choose(c, lower_bound(c->sorted, n, hi, &p->steps), SPACRBENCH_PLATE_WHY_LARGEST);
    size_t first = find_up(&c->f, 0); /* position 0 itself when the keys differ */
    if (sample >= 2 && first < n)
        choose(c, first, lo < hi ? SPACRBENCH_PLATE_WHY_SMALLEST : SPACRBENCH_PLATE_WHY_SPREAD);
    for (size_t j = 1; j + 1 < sample; j++) {
        double value = lo + (hi - lo) * (double)j / (double)(sample - 1);
        size_t pos =
            nearest_free(&c->f, c->sorted, lower_bound(c->sorted, n, value, &p->steps), value);
        if (pos < n)
            choose(c, pos, SPACRBENCH_PLATE_WHY_SPREAD);
    }
}

typedef struct slot {
    size_t pos;  /* sorted position */
    size_t pick; /* where choose() put it */
} slot;

static int compare_slot(const void *a, const void *b)
{
    size_t x = ((const slot *)a)->pos, y = ((const slot *)b)->pos;
    return (x > y) - (x < y);
}

/* The run order: warm-up first, then the sample, each by sorted position
 * (increasing key, then index; the plate's order without a key). */
static int order_picks(chooser *c, size_t sample)
{
    spacrbench_plate *p = c->p;
    size_t t = p->n_picks;
    slot *s = malloc(t * sizeof *s);
    spacrbench_plate_pick *ordered = malloc(t * sizeof *ordered);
    if (!s || !ordered) {
        free(s);
        free(ordered);
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory ordering a plate's sample");
    }
    for (size_t i = 0; i < t; i++)
        s[i] = (slot){c->chosen_pos[i], i};
    qsort(s + sample, t - sample, sizeof *s, compare_slot); /* the warm-up */
    qsort(s, sample, sizeof *s, compare_slot);
    for (size_t i = 0; i < t; i++)
        ordered[i] = p->picks[s[(i + sample) % t].pick];
    memcpy(p->picks, ordered, t * sizeof *ordered);
    free(ordered);
    /* The lookup from an item's index to its pick (sb_plate_pick_of). */
    p->by_index = malloc(t * sizeof *p->by_index);
    if (!p->by_index) {
        free(s);
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory ordering a plate's sample");
    }
    for (size_t i = 0; i < t; i++)
        s[i] = (slot){(size_t)p->picks[i].index, i};
    qsort(s, t, sizeof *s, compare_slot);
    for (size_t i = 0; i < t; i++) {
        p->by_index[i][0] = s[i].pos;
        p->by_index[i][1] = s[i].pick;
    }
    free(s);
    return SPACRBENCH_OK;
}

static int check_options(const spacrbench_plate_options *o)
{
    if (o->sample < 1)
        return sb_fail(SPACRBENCH_EINVAL, "sample is %lld; it must be >= 1", (long long)o->sample);
    if (o->warmup < 0)
        return sb_fail(SPACRBENCH_EINVAL, "warmup is %lld; it must be >= 0", (long long)o->warmup);
    if (o->key_kind != SPACRBENCH_PLATE_KEY_BYTES && o->key_kind != SPACRBENCH_PLATE_KEY_NUMBER)
        return sb_fail(SPACRBENCH_EINVAL,
                       "key_kind is %d; use SPACRBENCH_PLATE_KEY_BYTES or _NUMBER",
                       (int)o->key_kind);
    if (o->reserved != 0)
        return sb_fail(SPACRBENCH_EINVAL, "reserved must be 0");
    return SPACRBENCH_OK;
}

/* Read every key once, checking each. */
static int read_keys(spacrbench_plate *p, spacrbench_plate_key_fn key, void *payload)
{
    for (size_t i = 0; i < p->n; i++) {
        double k = NAN;
        int rc = key(i, &k, payload);
        if (rc != 0) {
            sb_set_stop(rc, (int64_t)i);
            return sb_fail(SPACRBENCH_EUSER,
                           "the key of item %zu failed (the key function "
                           "returned %d)",
                           i, rc);
        }
        if (!isfinite(k) || k < 0)
            return sb_fail(SPACRBENCH_EINVAL,
                           "the key of item %zu is %g; a key must be a finite number >= 0 (a "
                           "size that grows with the item's memory)",
                           i, k);
        p->keys[i] = k;
    }
    return SPACRBENCH_OK;
}

static int select_into(spacrbench_plate *p, const spacrbench_plate_options *o)
{
    size_t n = p->n;
    uint64_t want = (uint64_t)o->sample + (uint64_t)o->warmup;
    size_t t = want < n ? (size_t)want : n;
    size_t warm = (uint64_t)o->warmup < t - 1 ? (size_t)o->warmup : t - 1;
    size_t sample = t - warm;
    keyed *v = p->keys ? malloc(n * sizeof *v) : NULL,
          *tmp = p->keys ? malloc(n * sizeof *tmp) : NULL;
    chooser c = {p,
                 {malloc(n * sizeof(size_t)), malloc(n * sizeof(size_t)), n, &p->steps},
                 NULL,
                 malloc(t * sizeof(size_t))};
    p->picks = malloc(t * sizeof *p->picks);
    int rc = SPACRBENCH_OK;
    if ((p->keys && (!v || !tmp)) || !c.f.up || !c.f.down || !c.chosen_pos || !p->picks) {
        rc = sb_fail(SPACRBENCH_ENOMEM, "out of memory choosing among %zu items", n);
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        c.f.up[i] = c.f.down[i] = i;
    if (p->keys) {
        for (size_t i = 0; i < n; i++)
            v[i] = (keyed){p->keys[i], i};
        c.sorted = sort_keyed(v, tmp, n, &p->steps);
        p->median_key =
            n % 2 ? c.sorted[n / 2].key : (c.sorted[n / 2 - 1].key + c.sorted[n / 2].key) / 2.0;
    }
    choose_sample(&c, sample);
    sample = p->n_picks;
    /* The warm-up: a typical item, nearest the median of the sorted order. */
    for (size_t w = 0; w < warm; w++) {
        size_t mid = n / 2;
        double value = c.sorted ? c.sorted[mid].key : (double)mid;
        size_t pos = nearest_free(&c.f, c.sorted, mid, value);
        if (pos >= n)
            break;
        choose(&c, pos, SPACRBENCH_PLATE_WHY_WARMUP);
    }
    p->warmups = p->n_picks - sample;
    rc = order_picks(&c, sample);
done:
    free(v);
    free(tmp);
    free(c.f.up);
    free(c.f.down);
    free(c.chosen_pos);
    return rc;
}

int spacrbench_plate_select(size_t n_items, spacrbench_plate_key_fn key, void *payload,
                            const spacrbench_plate_options *opts, spacrbench_plate **out)
{
    sb_clear_error();
    sb_set_stop(0, -1);
    if (!out)
        return sb_fail(SPACRBENCH_EINVAL, "out must not be NULL");
    *out = NULL;
    spacrbench_plate_options o = SPACRBENCH_PLATE_OPTIONS_INIT;
    int rc = opts ? sb_struct_in(&o, sizeof o, opts, "spacrbench_plate_options") : 0;
    if (rc || (rc = check_options(&o)))
        return rc;
    if (n_items == 0)
        return sb_fail(SPACRBENCH_ENOITEMS, "a plate needs at least one item");
    if (n_items > SIZE_MAX / 4 / sizeof(keyed))
        return sb_fail(SPACRBENCH_ENOMEM, "cannot choose among %zu items", n_items);
    spacrbench_plate *p = calloc(1, sizeof *p);
    if (!p)
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory for a plate");
    p->n = n_items;
    p->median_key = NAN;
    p->key_kind = key ? o.key_kind : SPACRBENCH_PLATE_KEY_NONE;
    snprintf(p->key_name, sizeof p->key_name, "%s", key && o.key_name ? o.key_name : "key");
    if (key && !(p->keys = malloc(n_items * sizeof *p->keys)))
        rc = sb_fail(SPACRBENCH_ENOMEM, "out of memory for %zu keys", n_items);
    if (!rc && key)
        rc = read_keys(p, key, payload);
    if (!rc)
        rc = select_into(p, &o);
    if (rc) {
        spacrbench_plate_free(p);
        return rc;
    }
    *out = p;
    return SPACRBENCH_OK;
}

static int key_from_array(size_t index, double *key, void *payload)
{
    *key = ((const double *)payload)[index];
    return 0;
}

int spacrbench_plate_select_keys(size_t n_items, const double *keys,
                                 const spacrbench_plate_options *opts, spacrbench_plate **out)
{
    return spacrbench_plate_select(n_items, keys ? key_from_array : NULL, (void *)(uintptr_t)keys,
                                   opts, out);
}

void sb_plate_clear_notes(spacrbench_plate *p)
{
    for (size_t i = 0; i < p->note_count; i++)
        free(p->notes[i]);
    p->note_count = 0;
}

void spacrbench_plate_free(spacrbench_plate *p)
{
    if (!p)
        return;
    sb_plate_clear_notes(p);
    free(p->notes);
    free(p->keys);
    free(p->picks);
    free(p->by_index);
    free(p->measured);
    free(p);
}

size_t spacrbench_plate_pick_count(const spacrbench_plate *p) { return p ? p->n_picks : 0; }

int spacrbench_plate_pick_get(const spacrbench_plate *p, size_t i, spacrbench_plate_pick *out)
{
    sb_clear_error();
    if (!p || !out)
        return sb_fail(SPACRBENCH_EINVAL, "plate and out must not be NULL");
    if (i >= p->n_picks)
        return sb_fail(SPACRBENCH_ERANGE, "pick %zu of %zu", i, p->n_picks);
    return sb_struct_out(out, &p->picks[i], sizeof p->picks[i], "spacrbench_plate_pick");
}

int64_t sb_plate_pick_of(const spacrbench_plate *p, size_t index)
{
    /* by_index: (index, position) pairs sorted by index. */
    size_t lo = 0, hi = p->n_picks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->by_index[mid][0] < index)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < p->n_picks && p->by_index[lo][0] == index ? (int64_t)p->by_index[lo][1] : -1;
}

int sb_plate_notef(spacrbench_plate *p, const char *fmt, ...)
{
    sb_text t = {0};
    va_list ap;
    va_start(ap, fmt);
    sb_text_vprintf(&t, fmt, ap);
    va_end(ap);
    char *text = sb_text_take(&t);
    if (!text)
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory for a plate's note");
    if (p->note_count == p->note_cap) {
        size_t cap = p->note_cap ? 2 * p->note_cap : 8;
        char **grown = realloc(p->notes, cap * sizeof *grown);
        if (!grown) {
            free(text);
            return sb_fail(SPACRBENCH_ENOMEM, "out of memory for a plate's note");
        }
        p->notes = grown;
        p->note_cap = cap;
    }
    p->notes[p->note_count++] = text;
    return SPACRBENCH_OK;
}

const char *spacrbench_plate_note(const spacrbench_plate *p, size_t index)
{
    return p && index < p->note_count ? p->notes[index] : NULL;
}

void sb_plate_format_key(const spacrbench_plate *p, double key, char *buf, size_t cap)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (isnan(key)) {
        snprintf(buf, cap, "no key");
        return;
    }
    if (p->key_kind != SPACRBENCH_PLATE_KEY_BYTES) {
        snprintf(buf, cap, "%s %.4g", p->key_name, key);
        return;
    }
    /* Three significant digits ("460 KiB", "2.46 MiB"): fields of one
     * plate differ in the third. */
    size_t u = 0;
    while (key >= 1024.0 && u + 1 < sizeof units / sizeof units[0]) {
        key /= 1024.0;
        u++;
    }
    if (u == 0)
        snprintf(buf, cap, "%.0f B", key);
    else
        snprintf(buf, cap, "%.*f %s", key >= 100 ? 0 : key >= 10 ? 1 : 2, key, units[u]);
}
