/* Reading a scaling check's result in a test; see sb_test_scale.h. */
#include "sb_test_scale.h"

#include <check.h>
#include <string.h>

spacrbench_scale_summary sb_test_summary_of(const spacrbench_scale_result *r)
{
    spacrbench_scale_summary s;
    memset(&s, 0, sizeof s);
    s.size = sizeof s;
    ck_assert_int_eq(spacrbench_scale_summary_get(r, &s), 0);
    return s;
}

spacrbench_scale_point sb_test_point_of(const spacrbench_scale_result *r, size_t i)
{
    spacrbench_scale_point p;
    spacrbench_scale_point_init(&p, sizeof p);
    ck_assert_int_eq(spacrbench_scale_point_get(r, i, &p), 0);
    return p;
}

spacrbench_scale_spread sb_test_spread_of(const spacrbench_scale_result *r, size_t i)
{
    spacrbench_scale_spread sp;
    spacrbench_scale_spread_init(&sp, sizeof sp);
    ck_assert_int_eq(spacrbench_scale_spread_get(r, i, &sp), 0);
    return sp;
}

const char *sb_test_note_with(const spacrbench_scale_result *r, const char *words)
{
    for (size_t i = 0; spacrbench_scale_note(r, i); i++)
        if (strstr(spacrbench_scale_note(r, i), words))
            return spacrbench_scale_note(r, i);
    return NULL;
}
