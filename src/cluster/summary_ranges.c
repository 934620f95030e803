/* Index sets as sorted stepped ranges: 10^6 missing tasks are one range,
 * so is every other task of --array=0-4194303:2. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "internal.h"
#include "util.h"

static int append(sum_ranges *set, sum_range r)
{
    if (sb_grow(&set->r, &set->cap, set->n + 1, sizeof *set->r))
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory");
    set->r[set->n++] = r;
    return 0;
}

int sum_ranges_add(sum_ranges *set, int64_t first, int64_t last)
{
    sum_range *prev = set->n ? &set->r[set->n - 1] : NULL;
    if (prev && (prev->step == 1 || prev->first == prev->last) && prev->last + 1 >= first &&
        prev->first <= first) {
        if (last > prev->last) {
            prev->last = last;
            prev->step = 1;
        }
        return 0;
    }
    return append(set, (sum_range){first, last, 1});
}

int sum_ranges_add_step(sum_ranges *set, int64_t first, int64_t last, int64_t step)
{
    if (step <= 1 || first == last)
        return sum_ranges_add(set, first, last);
    last = first + (last - first) / step * step;
    return append(set, (sum_range){first, last, step});
}

static int range_order(const void *a, const void *b)
{
    const sum_range *x = a, *y = b;
    return x->first < y->first ? -1 : x->first > y->first;
}

/* ranges[from, to), whose spans overlap, as one set of indices again:
 * a bitmap over their span (at most SUM_ARRAY_MAX bits), then its runs. */
static int rebuild(const sum_range *r, size_t from, size_t to, sum_ranges *out)
{
    int64_t lo = r[from].first, hi = r[from].last;
    for (size_t i = from; i < to; i++)
        hi = r[i].last > hi ? r[i].last : hi;
    size_t bits = (size_t)(hi - lo + 1);
    unsigned char *map = calloc((bits + 7) / 8, 1);
    if (!map)
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory");
    for (size_t i = from; i < to; i++)
        for (int64_t k = r[i].first; k <= r[i].last; k += r[i].step)
            map[(k - lo) / 8] |= (unsigned char)(1u << ((k - lo) % 8));
    int rc = 0;
    for (size_t b = 0; b < bits && rc == 0; b++)
        if (map[b / 8] & (1u << (b % 8)))
            rc = sum_ranges_add(out, lo + (int64_t)b, lo + (int64_t)b);
    free(map);
    return rc;
}

int sum_ranges_normalize(sum_ranges *set)
{
    if (set->n < 2)
        return 0;
    qsort(set->r, set->n, sizeof *set->r, range_order);
    sum_ranges out = {0};
    int rc = 0;
    for (size_t i = 0; i < set->n && rc == 0;) {
        size_t j = i + 1;
        int64_t end = set->r[i].last;
        while (j < set->n && set->r[j].first <= end) {
            end = set->r[j].last > end ? set->r[j].last : end;
            j++;
        }
        if (j == i + 1)
            rc = set->r[i].step > 1 ? append(&out, set->r[i])
                                    : sum_ranges_add(&out, set->r[i].first, set->r[i].last);
        else
            rc = rebuild(set->r, i, j, &out);
        i = j;
    }
    if (rc != 0) {
        sum_ranges_free(&out);
        return rc;
    }
    free(set->r);
    *set = out;
    sum_ranges_compact(set);
    return 0;
}

int sum_ranges_contains(const sum_ranges *set, int64_t index)
{
    size_t lo = 0, hi = set->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (set->r[mid].last < index)
            lo = mid + 1;
        else if (set->r[mid].first > index)
            hi = mid;
        else
            return (index - set->r[mid].first) % set->r[mid].step == 0;
    }
    return 0;
}

int64_t sum_ranges_count(const sum_ranges *set)
{
    int64_t n = 0;
    for (size_t i = 0; i < set->n; i++)
        n += (set->r[i].last - set->r[i].first) / set->r[i].step + 1;
    return n;
}

int sum_ranges_subtract(const sum_ranges *set, const int64_t *at, size_t n, sum_ranges *out)
{
    size_t k = 0;
    for (size_t i = 0; i < set->n; i++) {
        sum_range r = set->r[i];
        while (k < n && at[k] < r.first)
            k++;
        int64_t from = r.first;
        for (; k < n && at[k] <= r.last; k++) {
            if ((at[k] - r.first) % r.step != 0 || at[k] < from)
                continue; /* off the grid: not in the set */
            if (at[k] > from && sum_ranges_add_step(out, from, at[k] - r.step, r.step) != 0)
                return SPACRBENCH_ENOMEM;
            from = at[k] + r.step;
        }
        if (from <= r.last && sum_ranges_add_step(out, from, r.last, r.step) != 0)
            return SPACRBENCH_ENOMEM;
    }
    return 0;
}

void sum_ranges_compact(sum_ranges *set)
{
    size_t out = 0;
    for (size_t i = 0; i < set->n; i++) {
        sum_range r = set->r[i];
        if (out) {
            sum_range *c = &set->r[out - 1];
            int64_t step = c->first == c->last ? r.first - c->last : c->step;
            int continues = r.first - c->last == step && (r.first == r.last || r.step == step);
            if (continues) {
                c->last = r.last;
                c->step = step;
                continue;
            }
        }
        set->r[out++] = r;
    }
    set->n = out;
    /* Two indices apart by more than one stay two ("1,5", not "1-5:4"). */
    for (size_t i = 0; i < set->n; i++)
        if (set->r[i].first == set->r[i].last)
            set->r[i].step = 1;
}

int sum_range_text(const sum_range *r, int first, char *buf, size_t cap)
{
    const char *sep = first ? "" : ",";
    if (r->first == r->last)
        return snprintf(buf, cap, "%s%" PRId64, sep, r->first);
    if (r->step == 1)
        return snprintf(buf, cap, "%s%" PRId64 "-%" PRId64, sep, r->first, r->last);
    if (r->last - r->first == r->step)
        return snprintf(buf, cap, "%s%" PRId64 ",%" PRId64, sep, r->first, r->last);
    return snprintf(buf, cap, "%s%" PRId64 "-%" PRId64 ":%" PRId64, sep, r->first, r->last,
                    r->step);
}

void sum_ranges_write(sb_text *t, const sum_ranges *set, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++) {
        char part[80];
        sum_range_text(&set->r[i], i == from, part, sizeof part);
        sb_text_printf(t, "%s", part);
    }
}

void sum_ranges_free(sum_ranges *set)
{
    free(set->r);
    memset(set, 0, sizeof *set);
}
