/* spacrbench_scale_check_counts: the worker counts a scaling check may
 * measure, checked once for every front end, its problem named in the
 * caller's words. */
#include "internal.h"

int spacrbench_scale_check_counts(const int64_t *counts, size_t n, const char *name)
{
    sb_clear_error();
    name = name ? name : "worker_counts";
    if (!counts && n)
        return sb_fail(SPACRBENCH_EINVAL, "%s is NULL but holds %zu counts", name, n);
    if (n > 64)
        return sb_fail(SPACRBENCH_EINVAL, "%s has %zu counts; at most 64", name, n);
    for (size_t i = 0; i < n; i++) {
        if (counts[i] < 1)
            return sb_fail(SPACRBENCH_EINVAL, "%s[%zu] is %lld; it must be >= 1", name, i,
                           (long long)counts[i]);
        if (counts[i] > SPACRBENCH_SCALE_MAX_WORKERS)
            return sb_fail(SPACRBENCH_EINVAL,
                           "%s[%zu] is %lld; at most %d (the cap of every "
                           "front end)",
                           name, i, (long long)counts[i], SPACRBENCH_SCALE_MAX_WORKERS);
        for (size_t j = 0; j < i; j++)
            if (counts[i] == counts[j])
                return sb_fail(SPACRBENCH_EINVAL, "%s: worker count %lld appears twice", name,
                               (long long)counts[i]);
    }
    return SPACRBENCH_OK;
}
