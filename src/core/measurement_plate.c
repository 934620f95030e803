/* The plate section a measurement carries: one pick per record, read back
 * with the record's own figures; and the measurement a plate's hand-off is
 * sized from (its predicted largest and slowest item). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "util.h"

int spacrbench_plate_section_init(spacrbench_plate_section *s, size_t size)
{
    sb_clear_error();
    spacrbench_plate_section d;
    memset(&d, 0, sizeof d);
    d.size = sizeof d;
    d.median_key = d.correlation = d.slope_bytes_per_key = d.intercept_bytes = NAN;
    d.largest_key = d.slowest_seconds = d.total_seconds = d.eta_seconds = NAN;
    d.largest_index = d.largest_bytes = d.largest_measured_bytes = d.spread_bytes = -1;
    d.workers = d.seed = -1;
    return sb_struct_init(s, size, &d, sizeof d, "s", "spacrbench_plate_section");
}

void sb_measured_plate_free(sb_measured_plate *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->note_count; i++)
        free(p->notes[i]);
    free(p->notes);
    free(p->picks);
    free(p);
}

const char *sb_measurement_peak_word(const spacrbench_measurement *m)
{
    return m && m->peak_predicted ? "predicted" : "measured";
}

const char *sb_measurement_slowest_word(const spacrbench_measurement *m)
{
    return m && m->slowest_predicted ? "predicted " : "";
}

static int check_section(const spacrbench_plate_section *s)
{
    if (s->items < 1)
        return sb_fail(SPACRBENCH_EINVAL, "the plate section's items is %lld; a plate has >= 1",
                       (long long)s->items);
    if (s->largest_index >= s->items)
        return sb_fail(SPACRBENCH_EINVAL,
                       "the plate section's largest_index %lld is past its %lld "
                       "items",
                       (long long)s->largest_index, (long long)s->items);
    if (s->reserved != 0)
        return sb_fail(SPACRBENCH_EINVAL, "the plate section's reserved must be 0");
    if (!memchr(s->key_name, '\0', sizeof s->key_name))
        return sb_fail(SPACRBENCH_EINVAL, "the plate section's key_name is not terminated");
    return SPACRBENCH_OK;
}

int spacrbench_measurement_plate_begin(spacrbench_measurement *m, const spacrbench_plate_section *s)
{
    SB_REFUSE(!m || !s, "measurement and section must not be NULL");
    sb_measured_plate *p = calloc(1, sizeof *p);
    if (!p)
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory for a plate section");
    spacrbench_plate_section_init(&p->info, sizeof p->info);
    int rc = sb_struct_in(&p->info, sizeof p->info, s, "spacrbench_plate_section");
    if (!rc)
        rc = check_section(&p->info);
    if (rc) {
        free(p);
        return rc;
    }
    p->info.pick_count = p->info.note_count = 0;
    sb_measured_plate_free(m->plate);
    m->plate = p;
    return SPACRBENCH_OK;
}

int spacrbench_measurement_plate_add_pick(spacrbench_measurement *m,
                                          const spacrbench_plate_pick *pick)
{
    SB_REFUSE(!m || !pick, "measurement and pick must not be NULL");
    sb_measured_plate *p = m->plate;
    if (!p)
        return sb_fail(SPACRBENCH_ERANGE, "the measurement has no plate section "
                                          "(spacrbench_measurement_plate_begin)");
    if (p->pick_count >= m->record_count)
        return sb_fail(SPACRBENCH_ERANGE,
                       "pick %zu: the measurement has %zu record(s), one pick "
                       "each",
                       p->pick_count, m->record_count);
    spacrbench_plate_pick k = {.size = sizeof k};
    int rc = sb_struct_in(&k, sizeof k, pick, "spacrbench_plate_pick");
    if (rc)
        return rc;
    const spacrbench_item_record *r = &m->records[p->pick_count];
    if (k.index < 0 || k.index >= p->info.items)
        return sb_fail(SPACRBENCH_EINVAL,
                       "pick %zu's index %lld is not an item of the plate of "
                       "%lld",
                       p->pick_count, (long long)k.index, (long long)p->info.items);
    if (!(isnan(k.key) || (isfinite(k.key) && k.key >= 0)))
        return sb_fail(SPACRBENCH_EINVAL, "pick %zu's key %g is not a finite number >= 0",
                       p->pick_count, k.key);
    if (k.why < SPACRBENCH_PLATE_WHY_LARGEST || k.why > SPACRBENCH_PLATE_WHY_RANDOM)
        return sb_fail(SPACRBENCH_EINVAL, "pick %zu's why %d is not a spacrbench_plate_why",
                       p->pick_count, (int)k.why);
    if (!k.is_warmup != !r->is_warmup)
        return sb_fail(SPACRBENCH_EINVAL, "pick %zu is %sa warm-up item but its record is %s",
                       p->pick_count, k.is_warmup ? "" : "not ", r->is_warmup ? "one" : "not");
    if (sb_grow(&p->picks, &p->pick_cap, p->pick_count + 1, sizeof *p->picks))
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory for a plate section's picks");
    k.is_warmup = k.is_warmup != 0;
    k.footprint_bytes = -1;
    k.seconds = NAN;
    p->picks[p->pick_count++] = k;
    return SPACRBENCH_OK;
}

int spacrbench_measurement_plate_add_note(spacrbench_measurement *m, const char *note)
{
    SB_REFUSE(!m || !note, "measurement and note must not be NULL");
    sb_measured_plate *p = m->plate;
    if (!p)
        return sb_fail(SPACRBENCH_ERANGE, "the measurement has no plate section "
                                          "(spacrbench_measurement_plate_begin)");
    if (sb_grow(&p->notes, &p->note_cap, p->note_count + 1, sizeof *p->notes))
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory for a plate section's notes");
    if (!(p->notes[p->note_count] = strdup(note)))
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory for a plate section's note");
    p->note_count++;
    return SPACRBENCH_OK;
}

int spacrbench_measurement_plate(const spacrbench_measurement *m, spacrbench_plate_section *out)
{
    SB_REFUSE(!m || !out, "measurement and out must not be NULL");
    if (!m->plate)
        return sb_fail(SPACRBENCH_ERANGE, "the measurement carries no plate section");
    spacrbench_plate_section s = m->plate->info;
    s.pick_count = (int64_t)m->plate->pick_count;
    s.note_count = (int64_t)m->plate->note_count;
    return sb_struct_out(out, &s, sizeof s, "spacrbench_plate_section");
}

int spacrbench_measurement_plate_pick(const spacrbench_measurement *m, size_t i,
                                      spacrbench_plate_pick *out)
{
    SB_REFUSE(!m || !out, "measurement and out must not be NULL");
    if (!m->plate || i >= m->plate->pick_count)
        return sb_fail(SPACRBENCH_ERANGE, "pick %zu of %zu", i,
                       m->plate ? m->plate->pick_count : 0);
    spacrbench_plate_pick k = m->plate->picks[i];
    const spacrbench_item_record *r = &m->records[i];
    int64_t baseline = m->fig.baseline_rss_bytes > 0 ? m->fig.baseline_rss_bytes : 0;
    k.footprint_bytes = r->peak_rss_bytes < 0          ? -1
                        : r->peak_rss_bytes > baseline ? r->peak_rss_bytes - baseline
                                                       : 0;
    k.seconds = r->seconds;
    return sb_struct_out(out, &k, sizeof k, "spacrbench_plate_pick");
}

const char *spacrbench_measurement_plate_note(const spacrbench_measurement *m, size_t i)
{
    return m && m->plate && i < m->plate->note_count ? m->plate->notes[i] : NULL;
}

/* m's records, GPUs and VRAM reason into h. */
static int copy_parts(const spacrbench_measurement *m, spacrbench_measurement *h)
{
    int rc = m->record_count ? spacrbench_measurement_add_records(h, m->records, m->record_count,
                                                                  sizeof *m->records)
                             : 0;
    for (size_t i = 0; !rc && i < m->gpu_count; i++)
        rc = spacrbench_measurement_add_gpu(h, &m->gpus[i]);
    if (!rc && m->vram_reason)
        rc = spacrbench_measurement_set_vram_reason(h, m->vram_reason);
    return rc;
}

int sb_plate_handoff_of(const spacrbench_measurement *m, int64_t largest, int largest_measured,
                        double slowest, spacrbench_measurement **out)
{
    double measured_slowest = spacrbench_measurement_slowest_item_seconds(m);
    *out = NULL;
    spacrbench_figures f = m->fig;
    f.size = sizeof f;
    int64_t baseline = f.baseline_rss_bytes > 0 ? f.baseline_rss_bytes : 0;
    if (largest >= 0 && largest <= INT64_MAX - baseline && baseline + largest > f.peak_rss_bytes)
        f.peak_rss_bytes = baseline + largest;
    spacrbench_measurement *h = NULL;
    int rc = spacrbench_measurement_create(&f, &h);
    if (!rc)
        rc = copy_parts(m, h);
    /* The plate's slowest item as one more record: --time takes the slowest. */
    if (!rc && isfinite(slowest) && slowest >= 0) {
        spacrbench_item_record rec = {sizeof rec,       (int64_t)m->record_count, 0, 0, slowest,
                                      f.peak_rss_bytes, f.peak_vram_bytes};
        rc = spacrbench_measurement_add_record(h, &rec);
    }
    if (!rc)
        rc = spacrbench_measurement_add_note(h, "sized for the plate's predicted largest and "
                                                "slowest item");
    if (rc) {
        spacrbench_measurement_free(h);
        return rc;
    }
    h->peak_predicted = largest >= 0 && !largest_measured;
    h->slowest_predicted = isfinite(slowest) && !(slowest <= measured_slowest);
    *out = h;
    return SPACRBENCH_OK;
}

int spacrbench_measurement_plate_handoff(const spacrbench_measurement *m,
                                         spacrbench_measurement **out)
{
    SB_REFUSE(!m || !out, "measurement and out must not be NULL");
    *out = NULL;
    if (!m->plate)
        return sb_fail(SPACRBENCH_ERANGE, "the measurement carries no plate section");
    const sb_measured_plate *p = m->plate;
    int measured = 0;
    for (size_t i = 0; i < p->pick_count; i++)
        measured |= p->picks[i].index == p->info.largest_index && !p->picks[i].is_warmup;
    return sb_plate_handoff_of(m, p->info.largest_bytes, measured, p->info.slowest_seconds, out);
}
