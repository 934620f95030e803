/* A plate's selection (plate.h): its options, every item's key read once
 * and checked (a file's key: its size), how many items to measure, and
 * what the selection holds (the picks, their lookup by index, the notes);
 * plate_choose.c chooses. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#if defined(_WIN32)
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#endif

#include "plate.h"

int spacrbench_plate_options_init(spacrbench_plate_options *opts, size_t size)
{
    sb_clear_error();
    const spacrbench_plate_options defaults = SPACRBENCH_PLATE_OPTIONS_INIT;
    return sb_struct_init(opts, size, &defaults, sizeof defaults, "opts",
                          "spacrbench_plate_options");
}

static int check_options(const spacrbench_plate_options *o)
{
    if (o->sample < 0)
        return sb_fail(SPACRBENCH_EINVAL, "sample is %lld; it must be >= 1, or 0 (by the plate)",
                       (long long)o->sample);
    if (o->warmup < 0)
        return sb_fail(SPACRBENCH_EINVAL, "warmup is %lld; it must be >= 0", (long long)o->warmup);
    if (o->key_kind != SPACRBENCH_PLATE_KEY_BYTES && o->key_kind != SPACRBENCH_PLATE_KEY_NUMBER)
        return sb_fail(SPACRBENCH_EINVAL,
                       "key_kind is %d; use SPACRBENCH_PLATE_KEY_BYTES or _NUMBER",
                       (int)o->key_kind);
    if (o->reserved != 0)
        return sb_fail(SPACRBENCH_EINVAL, "reserved must be 0");
    if (!(o->sample_cost >= 0 && o->sample_cost <= 1))
        return sb_fail(SPACRBENCH_EINVAL,
                       "sample_cost is %g; it must be a share of the plate's time, 0 to 1",
                       o->sample_cost);
    const spacrbench_plate_options defaults = SPACRBENCH_PLATE_OPTIONS_INIT;
    if (o->sample != 0 && o->sample_cost != defaults.sample_cost)
        return sb_fail(SPACRBENCH_EINVAL,
                       "sample_cost is %g with a fixed sample (%lld): it bounds the sequential "
                       "rule's cost, so it needs sample 0",
                       o->sample_cost, (long long)o->sample);
    return SPACRBENCH_OK;
}

/* Read every key once, checking each. A NaN key is an item with no key
 * (a stray line that names no file): it is taken to be as large as the
 * plate's largest key, so the others keep theirs; a plate of NaN keys
 * alone has none. */
static int read_keys(spacrbench_plate *p, spacrbench_plate_key_fn key, void *payload)
{
    double largest = -1;
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
        if (isnan(k)) {
            if (p->unkeyed++ == 0)
                p->first_unkeyed = i;
            p->keys[i] = k;
            continue;
        }
        if (!isfinite(k) || k < 0)
            return sb_fail(SPACRBENCH_EINVAL,
                           "the key of item %zu is %g; a key must be a finite number >= 0 (a "
                           "size that grows with the item's memory)",
                           i, k);
        p->keys[i] = k;
        largest = k > largest ? k : largest;
    }
    if (p->unkeyed == p->n) {
        free(p->keys);
        p->keys = NULL;
        p->key_kind = SPACRBENCH_PLATE_KEY_NONE;
        p->unkeyed = 0;
    } else
        for (size_t i = 0; p->unkeyed && i < p->n; i++)
            if (isnan(p->keys[i]))
                p->keys[i] = largest;
    return SPACRBENCH_OK;
}

/* How many of each: a fixed sample first, then the warm-up from what is
 * left (a warm-up larger than the plate allows is cut, never the sample).
 * Sequentially the warm-up comes before the items beyond the least sample
 * (they may never run): it is cut only where the least sample leaves no
 * room for it. */
static int select_into(spacrbench_plate *p, const spacrbench_plate_options *o)
{
    size_t n = p->n;
    p->cost = o->sample_cost;
    size_t first = o->sample == 0            ? sb_plate_auto_sample(n)
                   : (uint64_t)o->sample < n ? (size_t)o->sample
                                             : n;
    size_t warm = (uint64_t)o->warmup < n - first ? (size_t)o->warmup : n - first;
    size_t sample = first;
    if (o->sample == 0) {
        size_t cap = sb_plate_sequential_cap(n, p->cost);
        sample = cap < n - warm ? cap : n - warm;
    }
    p->sample_asked = (uint64_t)o->sample;
    p->warmup_asked = (uint64_t)o->warmup;
    return sb_plate_choose(p, sample, warm);
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
    /* The sizes the struct has had: without sample_cost, and with it. */
    const size_t older[] = {offsetof(spacrbench_plate_options, sample_cost)};
    int rc =
        opts ? sb_struct_in_versions(&o, sizeof o, opts, "spacrbench_plate_options", older, 1) : 0;
    if (rc || (rc = check_options(&o)))
        return rc;
    if (n_items == 0)
        return sb_fail(SPACRBENCH_ENOITEMS, "a plate needs at least one item");
    if (n_items > SIZE_MAX / 8 / (2 * sizeof(double) + sizeof(size_t))) /* the chooser's arrays */
        return sb_fail(SPACRBENCH_ENOMEM, "cannot choose among %zu items", n_items);
    spacrbench_plate *p = calloc(1, sizeof *p);
    if (!p)
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory for a plate");
    p->n = n_items;
    p->median_key = NAN;
    p->seed = SB_PLATE_SEED;
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

/* The command's --sample and Python's benchmark_plate take it here. */
double spacrbench_plate_file_key(const char *path)
{
    if (!path)
        return NAN;
#if defined(_WIN32)
    /* The path is UTF-8 (Python's os.fsencode): stat() would read it in
     * the ANSI code page. */
    int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, NULL, 0);
    wchar_t *wide = n > 0 ? malloc((size_t)n * sizeof *wide) : NULL;
    struct _stat64 st;
    int rc = wide && MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, wide, n) == n
                 ? _wstat64(wide, &st)
                 : -1;
    free(wide);
    int regular = rc == 0 && (st.st_mode & _S_IFMT) == _S_IFREG;
#else
    struct stat st; /* stat only: nothing is opened, so a FIFO cannot block */
    int regular = stat(path, &st) == 0 && S_ISREG(st.st_mode);
#endif
    return regular ? (double)st.st_size : NAN;
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
    SB_REFUSE(!p || !out, "plate and out must not be NULL");
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
    va_list ap;
    va_start(ap, fmt);
    char *text = sb_vtextf(fmt, ap);
    va_end(ap);
    if (!text || sb_grow(&p->notes, &p->note_cap, p->note_count + 1, sizeof *p->notes) != 0) {
        free(text);
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory for a plate's note");
    }
    p->notes[p->note_count++] = text;
    return SPACRBENCH_OK;
}

const char *spacrbench_plate_note(const spacrbench_plate *p, size_t index)
{
    return p && index < p->note_count ? p->notes[index] : NULL;
}

void sb_plate_key_text(int32_t kind, const char *name, double key, int named, char *buf, size_t cap)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (isnan(key)) {
        snprintf(buf, cap, "no key");
        return;
    }
    if (kind != SPACRBENCH_PLATE_KEY_BYTES) {
        snprintf(buf, cap, "%s%s%.4g", named ? name : "", named ? " " : "", key);
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

void sb_plate_format_key(const spacrbench_plate *p, double key, char *buf, size_t cap)
{
    sb_plate_key_text(p->key_kind, p->key_name, key, 1, buf, cap);
}
