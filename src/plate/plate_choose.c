/* Which items of a plate to measure (plate.h): the keys sorted once (a
 * radix sort, its passes counted: 10^6 keys in under 0.1 s,
 * tests/perf/perf_plate_select.c), then grouped into runs of equal keys.
 * Each of the sample's targets (the largest key, the smallest, the middle,
 * the quarters: nested steps across the key's range) goes to the run whose
 * key is nearest that has room left, and a run's picks are spread through
 * it by the same nested steps, first and last first: equal keys are in the plate's order within a run, so a
 * key that does not vary (equal files, duplicated items, a few distinct
 * sizes) spreads the sample through the plate instead of taking its first
 * items. "Next free" links with path compression find the nearest item
 * with room for the random picks, so no plate costs more than
 * O(n log n). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plate.h"

typedef struct keyed {
    double key;
    size_t index;
} keyed;
_Static_assert(sizeof(keyed) >= 2 * sizeof(size_t), "the sort's spare buffer holds the links");

#define RADIX_BITS 11 /* a digit: 2,048 counts, in the cache */

/* What the radix sort sorts by: keys are finite and >= 0, so their IEEE
 * 754 bits order as the numbers do (-0 is +0 first); whole numbers below
 * 2^53 (file sizes, counts) order as the integers do, and their range
 * above the smallest has fewer digits. */
typedef struct radix_key {
    int whole;
    uint64_t base;
} radix_key;

static uint64_t radix_of(const radix_key *r, double key)
{
    if (r->whole)
        return (uint64_t)key - r->base;
    uint64_t b;
    key += 0.0;
    memcpy(&b, &key, sizeof b);
    return b - r->base;
}

/* A stable LSD radix sort by the key, 11 bits at a time, over the digits
 * the keys' range has: the plate's index order among equal keys stays, and a
 * digit every key shares costs no pass. O(n) per pass, counted in steps;
 * no comparison. Returns v or tmp, whichever holds the result; NULL out of
 * memory. */
static keyed *sort_keyed(keyed *v, keyed *tmp, size_t n, uint64_t *steps)
{
    radix_key r = {1, 0};
    double lo = INFINITY, hi = 0; /* keys are >= 0 */
    if (n == 0)
        return v;
    for (size_t i = 0; i < n; i++) {
        double k = v[i].key;
        lo = k < lo ? k : lo;
        hi = k > hi ? k : hi;
        r.whole &= k == floor(k);
    }
    r.whole &= hi < 0x1p53;
    r.base = radix_of(&r, lo); /* base 0 here: lo's own */
    unsigned bits = RADIX_BITS, passes = 0;
    size_t size = (size_t)1 << bits, mask = size - 1;
    for (uint64_t range = radix_of(&r, hi); range; range >>= bits)
        passes++;
    size_t *count = calloc((passes ? passes : 1) * size, sizeof *count);
    if (!count)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        uint64_t b = radix_of(&r, v[i].key);
        for (unsigned d = 0; d < passes; d++)
            count[d * size + ((b >> (d * bits)) & mask)]++;
    }
    *steps += n;
    for (unsigned d = 0; d < passes; d++) {
        size_t *c = count + d * size, at = 0;
        if (c[0] == n)
            continue; /* every key has this digit: the smallest's, 0 */
        for (size_t k = 0; k < size; k++) {
            size_t here = c[k];
            c[k] = at;
            at += here;
        }
        for (size_t i = 0; i < n; i++)
            tmp[c[(radix_of(&r, v[i].key) >> (d * bits)) & mask]++] = v[i];
        *steps += n;
        keyed *swap = v;
        v = tmp;
        tmp = swap;
    }
    free(count);
    return v;
}

/* Links to the nearest slot with room, above (up) and below (down); n (up)
 * and SIZE_MAX (down) mean none. Slots are sorted positions or runs. */
typedef struct free_links {
    size_t *up, *down, n;
    uint64_t *steps;
    int owned; /* up (and down after it) was allocated here */
} free_links;

/* storage: 2n size_t the caller owns (the sort's spare buffer: no fresh
 * pages to fault in), or NULL to allocate them. */
static int links_init(free_links *f, size_t n, uint64_t *steps, size_t *storage)
{
    f->n = n;
    f->steps = steps;
    f->owned = storage == NULL;
    f->up = storage ? storage : malloc((n ? 2 * n : 1) * sizeof *f->up);
    if (!f->up)
        return -1;
    f->down = f->up + n;
    for (size_t i = 0; i < n; i++)
        f->up[i] = f->down[i] = i;
    return 0;
}

static void links_free(free_links *f)
{
    if (f->owned)
        free(f->up);
}

/* The root of p's links (up: none is n; down: SIZE_MAX), compressing the
 * path to it. */
static size_t find_root(size_t *link, size_t p, size_t none, uint64_t *steps)
{
    size_t root = p;
    while (root != none && link[root] != root) {
        root = link[root];
        (*steps)++;
    }
    while (p != none && link[p] != root) {
        size_t next = link[p];
        link[p] = root;
        p = next;
    }
    return root;
}

static void take(free_links *f, size_t p)
{
    f->up[p] = p + 1 < f->n ? p + 1 : f->n;
    f->down[p] = p > 0 ? p - 1 : SIZE_MAX;
}

/* The slot with room nearest `at` whose value is nearest `value`
 * (values[slot]; NULL: the slot is its own value); ties go to the lower
 * one. SIZE_MAX when none has room. */
static size_t nearest_free(free_links *f, const double *values, size_t at, double value)
{
    size_t hi = at < f->n ? find_root(f->up, at, f->n, f->steps) : f->n;
    size_t lo =
        at > 0 ? find_root(f->down, (at < f->n ? at : f->n) - 1, SIZE_MAX, f->steps) : SIZE_MAX;
    if (hi >= f->n)
        return lo;
    if (lo == SIZE_MAX)
        return hi;
    if (!values) /* positions: the earlier of two as near */
        return (double)hi - value < value - (double)lo ? hi : lo;
    /* Keys: of two as near, the larger (the advice sizes for the largest);
     * of two equal keys, the earlier. */
    double up = fabs(values[hi] - value), down = fabs(value - values[lo]);
    if (up != down)
        return up < down ? hi : lo;
    return values[hi] > values[lo] ? hi : lo;
}

/* The first of the k ascending values that is >= value. */
static size_t lower_bound(const double *values, size_t k, double value, uint64_t *steps)
{
    size_t lo = 0, hi = k;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        (*steps)++;
        if (values[mid] < value)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

typedef struct chooser {
    spacrbench_plate *p;
    const keyed *sorted; /* NULL: no key */
    double *sorted_keys; /* the sorted keys alone (nearest_free's values) */
    free_links items;    /* sorted positions not yet chosen */
    size_t *chosen_pos;  /* sorted positions of the picks, in the order chosen */
    /* The runs of equal keys: where each starts and its key; the few
     * that hold a pick of the key's steps, and how many each. */
    size_t n_runs, *run_start;
    double *run_key;
    size_t held_run[SB_PLATE_STEPS], held_picks[SB_PLATE_STEPS], n_held;
} chooser;

static void choose(chooser *c, size_t pos, int why)
{
    spacrbench_plate *p = c->p;
    take(&c->items, pos);
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

/* Step j's place along a range, 0 to 1, in the order the steps are taken:
 * the top, the bottom, the middle, the quarter, the three-quarter, then
 * the eighths... (van der Corput's, base 2). A smaller sample's steps are
 * then a larger one's first: the picks are nested for every size, and five
 * are the even quarters. */
static double nested_step(size_t j)
{
    if (j < 2)
        return j == 0 ? 1.0 : 0.0;
    double f = 0, unit = 0.5;
    for (size_t d = j - 1; d; d >>= 1, unit /= 2)
        f += (double)(d & 1) * unit;
    return f;
}

/* Without a key: positions along the plate by the nested steps. */
static void choose_even(chooser *c, size_t sample)
{
    size_t n = c->p->n;
    for (size_t j = 0; j < sample; j++) {
        double at = nested_step(j) * (double)(n - 1);
        size_t pos = nearest_free(&c->items, NULL, (size_t)llround(at), at);
        if (pos < n)
            choose(c, pos, SPACRBENCH_PLATE_WHY_EVEN);
    }
}

static size_t run_len(const chooser *c, size_t r)
{
    return (r + 1 < c->n_runs ? c->run_start[r + 1] : c->p->n) - c->run_start[r];
}

/* Where run r is in the held list; n_held when it holds no pick. */
static size_t held_of(const chooser *c, size_t r)
{
    size_t h = 0;
    while (h < c->n_held && c->held_run[h] != r)
        h++;
    return h;
}

static int has_room(const chooser *c, size_t r)
{
    size_t h = held_of(c, r);
    return h == c->n_held || c->held_picks[h] < run_len(c, r);
}

/* One more pick for the run nearest value that has room (of two as near,
 * the larger key: the advice sizes for the largest). At most
 * SB_PLATE_STEPS runs are full, so the search outward is short. */
static void add_to_run(chooser *c, double value)
{
    size_t at = lower_bound(c->run_key, c->n_runs, value, &c->p->steps);
    size_t up = at, down = at; /* down - 1 is the next below */
    while (up < c->n_runs && !has_room(c, up))
        up++, c->p->steps++;
    while (down > 0 && !has_room(c, down - 1))
        down--, c->p->steps++;
    size_t r;
    if (up < c->n_runs && down > 0)
        r = c->run_key[up] - value <= value - c->run_key[down - 1] ? up : down - 1;
    else if (up < c->n_runs)
        r = up;
    else if (down > 0)
        r = down - 1;
    else
        return; /* every run is full: sample <= n keeps this from happening */
    size_t h = held_of(c, r);
    if (h == c->n_held) {
        c->held_run[c->n_held] = r;
        c->held_picks[c->n_held++] = 0;
    }
    c->held_picks[h]++;
}

static int by_run_descending(const void *a, const void *b)
{
    size_t x = ((const size_t *)a)[0], y = ((const size_t *)b)[0];
    return (x < y) - (x > y);
}

/* With a key: the nested steps across the key's range (the largest, the
 * smallest, the middle...), each to its nearest run with room; then each
 * run's picks spread through it, first and last first, by the same nested
 * steps (so a run's picks are nested too). The last run's first item is
 * "largest" (the first of equal largest keys), the first run's
 * "smallest". */
static void choose_keyed(chooser *c, size_t sample)
{
    double lo = c->run_key[0], hi = c->run_key[c->n_runs - 1];
    for (size_t j = 0; j < sample; j++)
        add_to_run(c, lo + (hi - lo) * nested_step(j));
    size_t held[SB_PLATE_STEPS][2]; /* (run, picks), the largest first: it runs first */
    for (size_t h = 0; h < c->n_held; h++) {
        held[h][0] = c->held_run[h];
        held[h][1] = c->held_picks[h];
    }
    qsort(held, c->n_held, sizeof held[0], by_run_descending);
    for (size_t h = 0; h < c->n_held; h++) {
        size_t r = held[h][0], k = held[h][1], len = run_len(c, r);
        for (size_t i = 0; i < k; i++) {
            double at = i < 2 ? (double)i : nested_step(i); /* the first, the last, ... */
            size_t off = (size_t)llround(at * (double)(len - 1));
            int why = i > 0                              ? SPACRBENCH_PLATE_WHY_SPREAD
                      : r + 1 == c->n_runs               ? SPACRBENCH_PLATE_WHY_LARGEST
                      : r == 0 && lo < hi && sample >= 2 ? SPACRBENCH_PLATE_WHY_SMALLEST
                                                         : SPACRBENCH_PLATE_WHY_SPREAD;
            choose(c, c->run_start[r] + off, why);
        }
    }
}

/* splitmix64: a seeded, portable stream (the same picks on every machine). */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Point j of van der Corput's sequence in base 2 under Owen's nested
 * scramble, seeded: each binary digit is flipped by a hash of the seed and
 * the digits before it. The first 2^L points fall one in each of 2^L
 * strata, for every L (so a larger sample holds a smaller one's items),
 * each uniformly at random within its stratum: not a lattice, which a
 * plate with a period (fields of a well, wells of a row) would alias. */
static double scrambled_point(uint64_t j, uint64_t seed)
{
    uint64_t before = 1; /* the digits so far, after a leading 1 */
    double f = 0, unit = 0.5;
    for (unsigned d = 0; d < 53; d++, unit /= 2) {
        uint64_t state = seed ^ (before * 0xD1B54A32D192ED03ull);
        uint64_t digit = (j >> d) & 1;
        f += (double)(digit ^ (next_random(&state) >> 63)) * unit;
        before = before << 1 | digit;
    }
    return f;
}

/* `extra` items drawn at random within strata of equal count along the
 * sorted keys (the plate's order without a key, and among equal keys):
 * memory that follows content rather than the key has a chance to show,
 * at every size. A draw that is taken gives the nearest free item. */
static void choose_random(chooser *c, size_t extra, uint64_t seed)
{
    size_t n = c->p->n;
    for (size_t j = 1; j <= extra; j++) {
        size_t at = (size_t)(scrambled_point(j, seed) * (double)n);
        at = at < n ? at : n - 1;
        size_t pos = nearest_free(&c->items, NULL, at, (double)at);
        if (pos < n)
            choose(c, pos, SPACRBENCH_PLATE_WHY_RANDOM);
    }
}

/* The runs of equal keys of the sorted plate. */
static int find_runs(chooser *c)
{
    size_t n = c->p->n, k = 0, runs = 0;
    for (size_t i = 0; i < n; i++) /* counted first: few distinct keys, small arrays */
        runs += i == 0 || c->sorted[i].key != c->sorted[i - 1].key;
    c->run_start = malloc(runs * sizeof *c->run_start);
    c->run_key = malloc(runs * sizeof *c->run_key);
    if (!c->run_start || !c->run_key)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || c->sorted[i].key != c->sorted[i - 1].key) {
            c->run_start[k] = i;
            c->run_key[k++] = c->sorted[i].key;
        }
    c->n_runs = k;
    c->p->distinct_keys = k;
    return 0;
}

typedef struct slot {
    size_t pos;  /* sorted position; the largest before the rest */
    size_t pick; /* where choose() put it */
} slot;

static int compare_slot(const void *a, const void *b)
{
    size_t x = ((const slot *)a)->pos, y = ((const slot *)b)->pos;
    return (x > y) - (x < y);
}

/* The run order: the warm-up first, then the largest (a failure or an OOM
 * kill there shows in seconds, not after the whole sample), then the rest
 * of the key's steps by sorted position (increasing key, then index; the
 * plate's order without a key), then the random items in the order drawn,
 * so that every prefix of the run is a smaller sample (measuring
 * sequentially stops after one). Then the lookup from an item's index to
 * its pick. */
static int order_picks(chooser *c, size_t sample, size_t steps)
{
    spacrbench_plate *p = c->p;
    size_t t = p->n_picks;
    slot *s = malloc(t * sizeof *s);
    spacrbench_plate_pick *ordered = malloc(t * sizeof *ordered);
    p->by_index = malloc(t * sizeof *p->by_index);
    if (!s || !ordered || !p->by_index) {
        free(s);
        free(ordered);
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory ordering a plate's sample");
    }
    for (size_t i = 0; i < t; i++) {
        int largest = p->picks[i].why == SPACRBENCH_PLATE_WHY_LARGEST;
        s[i] = (slot){largest ? 0 : c->chosen_pos[i] + 1, i};
    }
    qsort(s + sample, t - sample, sizeof *s, compare_slot); /* the warm-up */
    qsort(s, steps, sizeof *s, compare_slot);
    for (size_t i = 0; i < t; i++)
        ordered[i] = p->picks[s[(i + sample) % t].pick];
    memcpy(p->picks, ordered, t * sizeof *ordered);
    free(ordered);
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

int sb_plate_choose(spacrbench_plate *p, size_t sample, size_t warm)
{
    size_t n = p->n, t = sample + warm;
    if (n == 0) /* the callers refuse an empty plate; said here for gcc -O3 */
        return sb_fail(SPACRBENCH_EINVAL, "a plate of no items");
    /* Up to SB_PLATE_STEPS by the key's steps, the rest at random. */
    size_t steps = sample < SB_PLATE_STEPS ? sample : SB_PLATE_STEPS;
    keyed *v = p->keys ? malloc(n * sizeof *v) : NULL,
          *tmp = p->keys ? malloc(n * sizeof *tmp) : NULL;
    chooser c;
    memset(&c, 0, sizeof c);
    c.p = p;
    c.chosen_pos = malloc(t * sizeof *c.chosen_pos);
    c.sorted_keys = p->keys ? malloc(n * sizeof *c.sorted_keys) : NULL;
    p->picks = malloc(t * sizeof *p->picks);
    int rc = SPACRBENCH_OK;
    if ((p->keys && (!v || !tmp || !c.sorted_keys)) || !c.chosen_pos || !p->picks ||
        (!p->keys && links_init(&c.items, n, &p->steps, NULL) != 0)) {
        rc = sb_fail(SPACRBENCH_ENOMEM, "out of memory choosing among %zu items", n);
        goto done;
    }
    if (p->keys) {
        for (size_t i = 0; i < n; i++)
            v[i] = (keyed){p->keys[i], i};
        if (!(c.sorted = sort_keyed(v, tmp, n, &p->steps))) {
            rc = sb_fail(SPACRBENCH_ENOMEM, "out of memory choosing among %zu items", n);
            goto done;
        }
        /* A keyed item is two size_t wide: the spare buffer holds the links. */
        links_init(&c.items, n, &p->steps, (size_t *)(void *)(c.sorted == v ? tmp : v));
        for (size_t i = 0; i < n; i++)
            c.sorted_keys[i] = c.sorted[i].key;
        p->median_key =
            n % 2 ? c.sorted_keys[n / 2] : (c.sorted_keys[n / 2 - 1] + c.sorted_keys[n / 2]) / 2.0;
        if (find_runs(&c) != 0) {
            rc = sb_fail(SPACRBENCH_ENOMEM, "out of memory choosing among %zu items", n);
            goto done;
        }
        choose_keyed(&c, steps);
    } else
        choose_even(&c, steps);
    steps = p->n_picks;
    choose_random(&c, sample - p->n_picks, p->seed);
    sample = p->n_picks;
    /* The warm-up: a typical item, nearest the median of the sorted order. */
    for (size_t w = 0; w < warm; w++) {
        size_t mid = n / 2;
        double value = c.sorted ? c.sorted_keys[mid] : (double)mid;
        size_t pos = nearest_free(&c.items, c.sorted_keys, mid, value);
        if (pos >= n)
            break;
        choose(&c, pos, SPACRBENCH_PLATE_WHY_WARMUP);
    }
    p->warmups = p->n_picks - sample;
    rc = order_picks(&c, sample, steps);
done:
    free(v);
    free(tmp);
    free(c.sorted_keys);
    free(c.chosen_pos);
    links_free(&c.items);
    free(c.run_start);
    free(c.run_key);
    return rc;
}
