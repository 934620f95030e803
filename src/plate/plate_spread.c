/* The warning a plain benchmark gives when its few items already differ
 * (plate.h): the plate's other items may need more than the largest of
 * them, and plate-aware advice would size for the largest. */
#include <stdio.h>

#include "measurement.h"
#include "plate.h"

/* Footprints "differ": the largest above 1.5x the smallest and at least
 * 1 MiB apart (a few pages of noise on a tiny work are no plate). */
#define SB_SPREAD_RATIO 1.5
#define SB_SPREAD_MIN   (INT64_C(1) << 20)

int spacrbench_measurement_note_spread(spacrbench_measurement *m, const char *remedy)
{
    sb_clear_error();
    if (!m || !remedy)
        return sb_fail(SPACRBENCH_EINVAL, "measurement and remedy must not be NULL");
    int64_t baseline = m->fig.baseline_rss_bytes > 0 ? m->fig.baseline_rss_bytes : 0;
    int64_t lo = -1, hi = -1;
    size_t n = 0;
    for (size_t i = 0; i < m->record_count; i++) {
        const spacrbench_item_record *r = &m->records[i];
        if (r->is_warmup || r->peak_rss_bytes < 0)
            continue;
        int64_t f = r->peak_rss_bytes > baseline ? r->peak_rss_bytes - baseline : 0;
        lo = n == 0 || f < lo ? f : lo;
        hi = n == 0 || f > hi ? f : hi;
        n++;
    }
    if (n < 2 || !((double)hi > SB_SPREAD_RATIO * (double)lo) || hi - lo < SB_SPREAD_MIN)
        return 0;
    char small[32], large[32], ratio[32];
    sb_format_bytes(small, sizeof small, lo);
    sb_format_bytes(large, sizeof large, hi);
    if (lo > 0)
        snprintf(ratio, sizeof ratio, "%.1fx", (double)hi / (double)lo);
    else
        snprintf(ratio, sizeof ratio, "more than %.1fx", SB_SPREAD_RATIO);
    int rc = sb_measurement_notef(m,
                                  "the measured items' footprints differ by %s (%s to %s): the "
                                  "plate's other items may need more than the largest of these; "
                                  "%s measures items chosen across the plate and sizes for its "
                                  "largest",
                                  ratio, small, large, remedy);
    return rc ? rc : 1;
}
