/* The index sets of summarize (summary.h): sorted, disjoint ranges, so
 * 10^6 missing tasks are one range. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "summary.h"

int sum_ranges_add(sum_ranges *set, int64_t first, int64_t last)
{
    if (set->n && set->r[set->n - 1].last + 1 >= first && set->r[set->n - 1].first <= first) {
        if (last > set->r[set->n - 1].last)
            set->r[set->n - 1].last = last;
        return 0;
    }
    if (set->n == set->cap) {
        size_t cap = set->cap ? set->cap * 2 : 16;
        sum_range *r = realloc(set->r, cap * sizeof *r);
        if (!r)
            return sb_fail(SPACRBENCH_ENOMEM, "out of memory");
        set->r = r;
        set->cap = cap;
    }
    set->r[set->n++] = (sum_range){first, last};
    return 0;
}

static int range_order(const void *a, const void *b)
{
    const sum_range *x = a, *y = b;
    return x->first < y->first ? -1 : x->first > y->first;
}

/* Sorted and merged, after adds in any order. */
void sum_ranges_normalize(sum_ranges *set)
{
    if (set->n < 2)
        return;
    qsort(set->r, set->n, sizeof *set->r, range_order);
    size_t out = 0;
    for (size_t i = 1; i < set->n; i++) {
        if (set->r[i].first <= set->r[out].last + 1) {
            if (set->r[i].last > set->r[out].last)
                set->r[out].last = set->r[i].last;
        } else
            set->r[++out] = set->r[i];
    }
    set->n = out + 1;
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
            return 1;
    }
    return 0;
}

int64_t sum_ranges_count(const sum_ranges *set)
{
    int64_t n = 0;
    for (size_t i = 0; i < set->n; i++)
        n += set->r[i].last - set->r[i].first + 1;
    return n;
}

int sum_ranges_format(const sum_ranges *set, char *buf, size_t cap)
{
    size_t len = 0;
    for (size_t i = 0; i < set->n; i++) {
        char part[48];
        int n = set->r[i].first == set->r[i].last
                    ? snprintf(part, sizeof part, "%s%" PRId64, i ? "," : "", set->r[i].first)
                    : snprintf(part, sizeof part, "%s%" PRId64 "-%" PRId64, i ? "," : "",
                               set->r[i].first, set->r[i].last);
        if (cap && len + (size_t)n < cap)
            memcpy(buf + len, part, (size_t)n + 1);
        else if (cap && len < cap)
            buf[len] = '\0';
        len += (size_t)n;
    }
    if (cap && set->n == 0)
        buf[0] = '\0';
    return (int)len;
}

void sum_ranges_free(sum_ranges *set)
{
    free(set->r);
    memset(set, 0, sizeof *set);
}
