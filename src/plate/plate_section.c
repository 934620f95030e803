/* What a plate puts on a measurement: spacrbench_measurement_set_plate, a
 * predicted plate's section attached to the measurement it was predicted
 * from, so the JSON, the exports and a report read back say which items of
 * the plate were measured and what the plate needs; and the warning a plain
 * benchmark gives when its few items already differ (the plate's other
 * items may need more than the largest of them). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plate.h"

void sb_plate_section_of(const spacrbench_plate *p, int64_t workers, spacrbench_plate_section *s)
{
    const spacrbench_plate_prediction *r = &p->pred;
    spacrbench_plate_section_init(s, sizeof *s);
    s->items = (int64_t)p->n;
    s->key_kind = p->key_kind;
    snprintf(s->key_name, sizeof s->key_name, "%s", p->key_name);
    s->median_key = p->median_key;
    s->pick_count = (int64_t)p->n_picks;
    s->note_count = (int64_t)p->note_count;
    s->seed = (int64_t)p->seed;
    if (!p->predicted)
        return;
    s->fit = r->fit;
    s->time_fit = r->time_fit;
    s->correlation = r->correlation;
    s->slope_bytes_per_key = r->slope_bytes_per_key;
    s->intercept_bytes = r->intercept_bytes;
    s->largest_index = r->largest_index;
    s->largest_key = r->largest_key;
    s->largest_bytes = r->largest_bytes;
    s->largest_measured_bytes = r->largest_measured_bytes;
    s->spread_bytes = r->spread_bytes;
    s->slowest_seconds = r->slowest_seconds;
    s->total_seconds = r->total_seconds;
    double eta = workers >= 1 ? spacrbench_plate_eta_seconds(p, workers) : NAN;
    s->workers = !isnan(eta) ? workers : -1;
    s->eta_seconds = eta;
}

int spacrbench_measurement_set_plate(spacrbench_measurement *m, const spacrbench_plate *p,
                                     int64_t workers)
{
    SB_REFUSE(!m || !p, "measurement and plate must not be NULL");
    SB_REFUSE(!p->predicted, "the plate is not predicted yet (spacrbench_plate_predict)");
    if (m->record_count != p->n_picks)
        return sb_fail(SPACRBENCH_EINVAL,
                       "the measurement holds %zu record(s), but the plate chose %zu item(s)",
                       m->record_count, p->n_picks);
    spacrbench_plate_section s;
    sb_plate_section_of(p, workers, &s);
    int rc = spacrbench_measurement_plate_begin(m, &s);
    for (size_t i = 0; !rc && i < p->n_picks; i++)
        rc = spacrbench_measurement_plate_add_pick(m, &p->picks[i]);
    for (size_t i = 0; !rc && i < p->note_count; i++)
        rc = spacrbench_measurement_plate_add_note(m, p->notes[i]);
    if (rc) {
        sb_measured_plate_free(m->plate);
        m->plate = NULL;
    }
    return rc;
}

/* Footprints "differ": the largest above 1.5x the smallest and at least
 * 1 MiB apart (a few pages of noise on a tiny work are no plate). */
#define SB_SPREAD_RATIO 1.5
#define SB_SPREAD_MIN   (INT64_C(1) << 20)

int spacrbench_measurement_note_spread(spacrbench_measurement *m, const char *remedy)
{
    SB_REFUSE(!m || !remedy, "measurement and remedy must not be NULL");
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
