/* Every item of a plate from the measured ones (plate.h): the chosen
 * items' records give their footprints and times, the model
 * (plate_model.c) the others'; one pass over the plate finds its largest
 * footprint, slowest item and total time, and the notes say which rule
 * decided. Measured sequentially, whether the next item is worth it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plate.h"

static void prediction_reset(const spacrbench_plate *p, spacrbench_plate_prediction *r)
{
    memset(r, 0, sizeof *r);
    r->size = sizeof *r;
    r->items = (int64_t)p->n;
    r->warmup = (int64_t)p->warmups;
    r->key_kind = p->key_kind;
    r->correlation = r->slope_bytes_per_key = r->intercept_bytes = NAN;
    r->largest_key = r->median_key = NAN;
    r->slowest_seconds = r->total_seconds = NAN;
    r->largest_index = r->largest_bytes = r->largest_measured_bytes = r->spread_bytes = -1;
}

/* Measured sequentially, the rule stopped after r picks: the rest were
 * never run and are no longer chosen. */
static void drop_unmeasured(spacrbench_plate *p, size_t r)
{
    size_t kept = 0;
    for (size_t i = 0; i < p->n_picks; i++)
        if (p->by_index[i][1] < r) {
            p->by_index[kept][0] = p->by_index[i][0];
            p->by_index[kept++][1] = p->by_index[i][1];
        }
    p->n_picks = r;
}

size_t sb_plate_sequential_cap(size_t n, double cost)
{
    /* The minimum, and as many more as the cost allows at the plate's
     * typical item (slower or faster items end it sooner or later: the
     * cost is checked in seconds). */
    double cap = (double)sb_plate_auto_sample(n) + ceil(cost * (double)n);
    return cap < (double)n ? (size_t)cap : n;
}

/* The bound of the first k sample items among the first r picks. */
static double bound_after(const spacrbench_plate *p, const int64_t *peaks, size_t r, size_t k,
                          double *x, double *y)
{
    double largest = -1;
    size_t got = 0;
    for (size_t i = 0; i < r && got < k; i++) {
        double f = peaks[i] < 0 ? -1 : (double)peaks[i];
        largest = f > largest ? f : largest;
        if (p->picks[i].is_warmup || f < 0)
            continue;
        x[got] = p->picks[i].key;
        y[got++] = f;
    }
    sb_plate_memory mm;
    sb_plate_memory_model(x, y, got, p->keys != NULL, largest, p->n, &mm);
    return mm.bound;
}

/* Whether to measure the pick after the first r (1) or stop there (0),
 * from their peaks (< 0: none) and seconds (NULL: no cost known): the
 * prediction for the plate's largest only grows as items are added; once
 * it has stopped moving, another item is unlikely to move it, and the
 * plate's time is better spent on the plate itself. */
static int more_after(const spacrbench_plate *p, const int64_t *peaks, const double *seconds,
                      size_t r)
{
    if (r >= p->n_picks)
        return 0;
    if (p->sample_asked != 0) /* a sample the user fixed: all of it */
        return 1;
    size_t k = 0, least = sb_plate_auto_sample(p->n);
    double spent = 0, sample_seconds = 0, beyond = 0;
    for (size_t i = 0; i < r; i++) {
        double s = seconds && isfinite(seconds[i]) && seconds[i] > 0 ? seconds[i] : 0;
        spent += s;
        if (!p->picks[i].is_warmup && peaks[i] >= 0) {
            beyond += ++k > least ? s : 0;
            sample_seconds += s;
        }
    }
    if (k < least)
        return 1;
    /* The cost: what was measured beyond the least sample against the
     * plate's serial time, the items not measured at the sample's mean. */
    double serial = spent + (double)(p->n - r) * sample_seconds / (double)k;
    if (serial > 0 && beyond >= p->cost * serial)
        return 0;
    double *x = malloc(2 * k * sizeof *x);
    if (!x) /* no memory to decide: the least sample */
        return 0;
    int moving = 0;
    double now = bound_after(p, peaks, r, k, x, x + k);
    for (size_t back = 1; back <= SB_PLATE_STEADY_STEPS && back < k && !moving; back++) {
        double before = bound_after(p, peaks, r, k - back, x, x + k);
        moving = now > before * (1 + SB_PLATE_STEADY);
        now = before;
    }
    free(x);
    return moving;
}

/* Whether the sequential rule stopped after m's records. */
static int stopped_there(const spacrbench_plate *p, const spacrbench_measurement *m)
{
    size_t r = m->record_count;
    int64_t *peaks = malloc(r * sizeof *peaks);
    double *seconds = malloc(r * sizeof *seconds);
    int stop = peaks && seconds;
    for (size_t i = 0; stop && i < r; i++) {
        peaks[i] = m->records[i].peak_rss_bytes;
        seconds[i] = m->records[i].seconds;
    }
    stop = stop && !more_after(p, peaks, seconds, r);
    free(peaks);
    free(seconds);
    return stop;
}

/* The chosen items' own figures, from m's records (one per pick, in order). */
static int take_records(spacrbench_plate *p, const spacrbench_measurement *m)
{
    if (m->fig.stopped) {
        int64_t at = m->fig.stopped_item;
        long long item = at >= 0 && (size_t)at < p->n_picks ? (long long)p->picks[at].index : -1;
        return sb_fail(SPACRBENCH_EINVAL,
                       "the run stopped at its item %lld (item %lld of the plate) before the "
                       "chosen items were all measured: the plate is not predicted from the "
                       "items before it (the largest runs first, after the warm-up)",
                       (long long)at, item);
    }
    if (m->record_count < p->n_picks && m->record_count > p->warmups && stopped_there(p, m))
        drop_unmeasured(p, m->record_count);
    if (m->record_count != p->n_picks)
        return sb_fail(SPACRBENCH_EINVAL,
                       "the measurement holds %zu item record(s), but the plate chose %zu "
                       "item(s) to run, in the order of spacrbench_plate_pick_get",
                       m->record_count, p->n_picks);
    for (size_t i = 0; i < p->n_picks; i++)
        if (!m->records[i].is_warmup != !p->picks[i].is_warmup)
            return sb_fail(SPACRBENCH_EINVAL,
                           "record %zu is %sa warm-up item, but the plate's item %zu there is "
                           "%s: run the chosen items with the plate's warm-up (%zu)",
                           i, m->records[i].is_warmup ? "" : "not ", i,
                           p->picks[i].is_warmup ? "one" : "not", p->warmups);
    int64_t baseline = m->fig.baseline_rss_bytes > 0 ? m->fig.baseline_rss_bytes : 0;
    for (size_t i = 0; i < p->n_picks; i++) {
        const spacrbench_item_record *r = &m->records[i];
        spacrbench_plate_pick *k = &p->picks[i];
        k->footprint_bytes = r->peak_rss_bytes >= 0
                                 ? (r->peak_rss_bytes > baseline ? r->peak_rss_bytes - baseline : 0)
                                 : -1;
        k->seconds = r->seconds;
        p->measured[k->index] = 1;
    }
    return SPACRBENCH_OK;
}

/* The models from the sample (the warm-up's footprint counts only as the
 * largest measured: its first-call costs must not bend the line). */
static int build_models(spacrbench_plate *p)
{
    size_t t = p->n_picks, k = 0, kt = 0;
    double *x = malloc(2 * (t ? t : 1) * sizeof *x), *y = x ? x + (t ? t : 1) : NULL;
    double *xt = malloc(2 * (t ? t : 1) * sizeof *xt), *yt = xt ? xt + (t ? t : 1) : NULL;
    if (!x || !xt) {
        free(x);
        free(xt);
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory for a plate's model");
    }
    double largest = -1;
    for (size_t i = 0; i < t; i++) {
        const spacrbench_plate_pick *q = &p->picks[i];
        if (q->footprint_bytes >= 0 && (double)q->footprint_bytes > largest)
            largest = (double)q->footprint_bytes;
        if (q->is_warmup)
            continue;
        if (q->footprint_bytes >= 0) {
            x[k] = q->key;
            y[k++] = (double)q->footprint_bytes;
        }
        if (isfinite(q->seconds)) {
            xt[kt] = q->key;
            yt[kt++] = q->seconds;
        }
    }
    int has_key = p->keys != NULL;
    sb_plate_memory_model(x, y, k, has_key, largest, p->n, &p->memory);
    sb_plate_time_model(xt, yt, kt, has_key, &p->time);
    free(x);
    free(xt);
    return SPACRBENCH_OK;
}

static double key_of(const spacrbench_plate *p, size_t i) { return p->keys ? p->keys[i] : NAN; }

/* Item i's footprint (NaN: none) and seconds: a measured item's own, any
 * other's from the models (*total without the margin, *one with it). */
static double item_figures(const spacrbench_plate *p, size_t i, double *total, double *one)
{
    if (p->measured[i]) {
        const spacrbench_plate_pick *q = &p->picks[sb_plate_pick_of(p, i)];
        *total = *one = q->seconds;
        return q->footprint_bytes >= 0 ? (double)q->footprint_bytes : NAN;
    }
    *total = sb_plate_time_of(&p->time, key_of(p, i), 0.0);
    *one = sb_plate_time_of(&p->time, key_of(p, i), 1.0);
    return sb_plate_memory_of(&p->memory, key_of(p, i));
}

/* Is item i (footprint f) a larger prediction than the best so far? */
static int larger(const spacrbench_plate *p, double f, size_t i, double best, int64_t best_i)
{
    if (best_i < 0 || f > best)
        return 1;
    return f == best && p->keys && p->keys[i] > p->keys[best_i];
}

/* One pass over the plate: the largest footprint, slowest and total time. */
static void predict_all(spacrbench_plate *p)
{
    spacrbench_plate_prediction *r = &p->pred;
    double best = -1, total = 0, slowest = -1;
    int64_t best_i = -1;
    int time_known = p->time.fit != SPACRBENCH_PLATE_FIT_NONE;
    for (size_t i = 0; i < p->n; i++) {
        double s_total, s_one, f = item_figures(p, i, &s_total, &s_one);
        if (!isnan(f) && larger(p, f, i, best, best_i)) {
            best = f;
            best_i = (int64_t)i;
        }
        if (!isnan(s_total))
            total += s_total;
        else
            time_known = 0;
        if (!isnan(s_one) && s_one > slowest)
            slowest = s_one;
    }
    /* An item not measured may need the bound, whatever its key: the
     * plate's largest is never below it (the rule that does not fall as
     * the sample grows); it is put on the unmeasured item of the largest
     * key. */
    if (!p->all_measured && p->memory.fit != SPACRBENCH_PLATE_FIT_NONE && best < p->memory.bound) {
        best = p->memory.bound;
        best_i = -1;
        for (size_t i = 0; i < p->n; i++)
            if (!p->measured[i] && (best_i < 0 || (p->keys && p->keys[i] > p->keys[best_i])))
                best_i = (int64_t)i;
    }
    if (best_i >= 0) {
        double floor = p->floor_bytes > 0 ? (double)p->floor_bytes : 0;
        double need = best > floor ? best : floor;
        r->largest_index = best_i;
        r->largest_key = key_of(p, (size_t)best_i);
        r->largest_bytes = need >= 9.2e18 ? INT64_MAX : (int64_t)ceil(need);
    }
    r->total_seconds = time_known ? total : NAN;
    r->slowest_seconds = slowest >= 0 ? slowest : NAN;
}

/* What the selection had to do (equal keys, a warm-up cut), in words. */
static int explain_selection(spacrbench_plate *p)
{
    size_t sample = p->n_picks - p->warmups;
    int rc = SPACRBENCH_OK;
    char key[64];
    if (p->keys && p->distinct_keys == 1 && p->n > 1) {
        sb_plate_format_key(p, p->keys[0], key, sizeof key);
        rc = sb_plate_notef(p,
                            "every item of the plate has the same %s (%s): it cannot tell them "
                            "apart, so the measured items were spread evenly through the plate",
                            p->key_name, key);
    } else if (p->keys && p->distinct_keys < sample)
        rc = sb_plate_notef(p,
                            "only %zu different %ss among %zu items, fewer than the %zu "
                            "measured: the measured items were spread through the plate's "
                            "order among equal ones",
                            p->distinct_keys, p->key_name, p->n, sample);
    if (rc == 0 && p->unkeyed) {
        char item[32];
        snprintf(item, sizeof item, "%zu", p->first_unkeyed + 1);
        sb_plate_format_key(p, p->keys[p->first_unkeyed], key, sizeof key);
        rc = sb_plate_notef(p,
                            "%zu item(s) have no %s (item %s first: a missing file, a directory, "
                            "a FIFO?): each is taken to be as large as the plate's largest (%s); "
                            "the others keep theirs",
                            p->unkeyed, p->key_name, item, key);
    }
    if (rc == 0 && p->warmups < p->warmup_asked)
        rc = p->warmups == 0
                 ? sb_plate_notef(p,
                                  "no warm-up item (%llu asked): the sample took all %zu "
                                  "items, so the first measured item carries the first "
                                  "call's costs (imports, caches)",
                                  (unsigned long long)p->warmup_asked, p->n)
                 : sb_plate_notef(p,
                                  "the warm-up was cut to %zu item(s) (%llu asked): the "
                                  "plate's %zu items leave no more beside the %zu measured",
                                  p->warmups, (unsigned long long)p->warmup_asked, p->n, sample);
    return rc;
}

/* The risk in one plain line, and what the advice rests on: of k items
 * measured at random from the plate, an unmeasured one exceeds all of
 * them about 1 time in k + 1 (they are exchangeable); the bound adds
 * ln(n / k0) x the disagreement above the largest for those. */
static int explain_risk(spacrbench_plate *p)
{
    const sb_plate_memory *mm = &p->memory;
    size_t random = 0;
    int64_t at = -1;
    double spent = 0;
    for (size_t i = 0; i < p->n_picks; i++) {
        random += p->picks[i].why == SPACRBENCH_PLATE_WHY_RANDOM;
        spent += isfinite(p->picks[i].seconds) ? p->picks[i].seconds : 0;
        if (p->picks[i].footprint_bytes >= 0 &&
            (double)p->picks[i].footprint_bytes >= mm->largest && at < 0)
            at = p->picks[i].index;
    }
    char largest[32], bound[32], seed[64] = "", cost[64] = "";
    sb_format_bytes(largest, sizeof largest, (int64_t)mm->largest);
    sb_format_bytes(bound, sizeof bound, (int64_t)ceil(mm->bound));
    if (random)
        snprintf(seed, sizeof seed, "; %zu of them drawn at random, seed %llu", random,
                 (unsigned long long)p->seed);
    if (p->pred.total_seconds > 0 && spent > 0) /* the cost of the evidence */
        snprintf(cost, sizeof cost, "; they took %.0f %% of the plate's serial time",
                 100.0 * spent / p->pred.total_seconds);
    return sb_plate_notef(p,
                          "about 1 in %zu unmeasured items may need more than the largest "
                          "measured (%s, item %lld), and the plate is sized for %s; spacrbench "
                          "summarize will resubmit those with more memory (the advice rests on "
                          "the %zu measured items%s%s)",
                          mm->sample + 1, largest, (long long)at + 1, bound, mm->sample, seed,
                          cost);
}

/* What decided, in words (the report's notes and Python's). */
static int explain(spacrbench_plate *p)
{
    const sb_plate_memory *mm = &p->memory;
    char largest[32], spread[32], need[32];
    sb_format_bytes(largest, sizeof largest, (int64_t)mm->largest);
    sb_format_bytes(spread, sizeof spread, (int64_t)mm->spread);
    const char *key = p->key_name;
    int rc = explain_selection(p);
    if (rc)
        return rc;
    if (p->all_measured)
        rc = sb_plate_notef(p, "every item of the plate was measured: nothing is predicted");
    else
        switch (mm->fit) {
        case SPACRBENCH_PLATE_FIT_KEY:
            rc = sb_plate_notef(p,
                                "the footprints grow with the %s (r = %.2f over %zu measured "
                                "items): each item not measured is predicted from a line "
                                "through them plus its 95 %% prediction margin, never below "
                                "the largest measured (%s) beyond the measured %ss, and never "
                                "above the plate's bound",
                                key, mm->line.r, mm->sample, largest, key);
            break;
        case SPACRBENCH_PLATE_FIT_UNIFORM:
            rc = sb_plate_notef(p, "the measured items' footprints agree within 10 %% (%s apart)",
                                spread);
            break;
        case SPACRBENCH_PLATE_FIT_UNEXPLAINED: {
            char why[224];
            if (!mm->line.usable)
                snprintf(why, sizeof why, "it is the same for every measured item");
            else if (mm->line.rests_on_one && mm->line.slope > 0 &&
                     mm->line.r >= sb_line_r_needed(mm->sample))
                snprintf(why, sizeof why,
                         "r = %.2f over %zu measured items rests on one far item: without it "
                         "the footprints do not grow with the %s",
                         mm->line.r, mm->sample, key);
            else
                snprintf(why, sizeof why,
                         "they do not grow with it: r = %.2f over %zu measured items, where "
                         "%.3f is needed",
                         mm->line.r, mm->sample, sb_line_r_needed(mm->sample));
            rc =
                sb_plate_notef(p, "the %s does not explain the measured footprints (%s)", key, why);
            break;
        }
        case SPACRBENCH_PLATE_FIT_KEYLESS:
            rc = sb_plate_notef(p, "no key: the measured items were evenly spaced through the "
                                   "plate, and the plate's largest item cannot be predicted; a key "
                                   "that grows with an item's memory (its file size) would "
                                   "predict it");
            break;
        case SPACRBENCH_PLATE_FIT_FEW:
            rc = sb_plate_notef(p,
                                "only %zu item(s) measured beside the warm-up, too few for a "
                                "line (3 are needed)",
                                mm->sample);
            break;
        default:
            rc = sb_plate_notef(p, "no footprint was measured: the plate cannot be predicted");
        }
    if (rc == 0 && !p->all_measured && mm->fit != SPACRBENCH_PLATE_FIT_NONE) {
        char disagree[32];
        sb_format_bytes(disagree, sizeof disagree, (int64_t)mm->disagreement);
        sb_format_bytes(need, sizeof need, (int64_t)ceil(mm->bound));
        rc = sb_plate_notef(p,
                            "the plate's bound: the largest measured (%s) + ln(%zu / k) = %.2f "
                            "(k = %zu, the least sample of a %zu-item plate) "
                            "x the measured items' disagreement with the %s (%s: the most one "
                            "needed beyond one of %s, plus 5 %% of the largest) = %s, the most "
                            "any item not measured is taken to need; more measured items never "
                            "lower it",
                            largest, p->n, mm->factor, sb_plate_auto_sample(p->n), p->n,
                            p->keys ? key : "plate's order", disagree,
                            p->keys ? "an equal or larger key" : "any other", need);
        if (rc == 0)
            rc = explain_risk(p);
    }
    if (rc == 0 && p->floor_bytes > (int64_t)mm->largest && p->floor_bytes > 0) {
        sb_format_bytes(need, sizeof need, p->floor_bytes);
        rc = sb_plate_notef(p,
                            "the run's whole footprint (%s) is above every item's own: the "
                            "plate's largest is taken to need at least that",
                            need);
    }
    if (rc == 0 && !p->all_measured && p->time.fit != SPACRBENCH_PLATE_FIT_NONE)
        rc = p->time.fit == SPACRBENCH_PLATE_FIT_KEY
                 ? sb_plate_notef(
                       p,
                       "the plate's time: the measured items as measured, each other item "
                       "from a line of time against the %s (r = %.2f) plus its 95 %% "
                       "margin",
                       key, p->time.line.r)
                 : sb_plate_notef(
                       p,
                       "the plate's time: the measured items as measured, each other item "
                       "from the measured items' mean (%.3f s) plus its 95 %% margin",
                       p->time.mean);
    return rc;
}

int spacrbench_plate_predict(spacrbench_plate *p, const spacrbench_measurement *m)
{
    SB_REFUSE(!p || !m, "plate and measurement must not be NULL");
    p->predicted = 0;
    sb_plate_clear_notes(p);
    free(p->measured);
    if (!(p->measured = calloc(p->n, 1)))
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory for %zu items", p->n);
    int rc = take_records(p, m);
    if (rc || (rc = build_models(p)))
        return rc;
    prediction_reset(p, &p->pred);
    p->floor_bytes = spacrbench_measurement_work_rss_bytes(m);
    p->all_measured = p->n_picks == p->n;
    spacrbench_plate_prediction *r = &p->pred;
    for (size_t i = 0; i < p->n_picks; i++)
        r->measured += p->picks[i].footprint_bytes >= 0;
    r->fit = p->memory.fit;
    r->time_fit = p->time.fit;
    if (p->memory.line.usable) {
        r->correlation = p->memory.line.r;
        r->slope_bytes_per_key = p->memory.line.slope;
        r->intercept_bytes = p->memory.line.intercept;
    }
    r->median_key = p->median_key;
    if (p->memory.fit != SPACRBENCH_PLATE_FIT_NONE) {
        r->largest_measured_bytes = (int64_t)p->memory.largest;
        r->spread_bytes = (int64_t)p->memory.spread;
    }
    predict_all(p);
    if ((rc = explain(p)))
        return rc;
    p->predicted = 1;
    return SPACRBENCH_OK;
}

int spacrbench_plate_prediction_get(const spacrbench_plate *p, spacrbench_plate_prediction *out)
{
    SB_REFUSE(!p || !out, "plate and out must not be NULL");
    spacrbench_plate_prediction r = p->pred;
    if (!p->predicted)
        prediction_reset(p, &r);
    r.note_count = (int64_t)p->note_count;
    return sb_struct_out(out, &r, sizeof r, "spacrbench_plate_prediction");
}

int spacrbench_plate_item_prediction(const spacrbench_plate *p, size_t index,
                                     int64_t *footprint_bytes, double *seconds)
{
    SB_REFUSE(!p, "plate must not be NULL");
    if (index >= p->n)
        return sb_fail(SPACRBENCH_ERANGE, "item %zu of a plate of %zu", index, p->n);
    SB_REFUSE(!p->predicted, "the plate is not predicted yet (spacrbench_plate_predict)");
    double total, s, f = item_figures(p, index, &total, &s);
    if (footprint_bytes)
        *footprint_bytes = isnan(f) ? -1 : f >= 9.2e18 ? INT64_MAX : (int64_t)ceil(f);
    if (seconds)
        *seconds = s;
    return SPACRBENCH_OK;
}

int spacrbench_plate_more(const spacrbench_plate *p, size_t measured, const int64_t *peak_rss_bytes,
                          const double *seconds, int *more)
{
    sb_clear_error();
    if (more)
        *more = 0;
    if (!p || !more || (measured && !peak_rss_bytes))
        return sb_fail(SPACRBENCH_EINVAL, "plate, more and (after an item) peak_rss_bytes must "
                                          "not be NULL");
    if (measured > p->n_picks)
        return sb_fail(SPACRBENCH_EINVAL, "%zu items measured, but the plate chose %zu to run",
                       measured, p->n_picks);
    *more = more_after(p, peak_rss_bytes, seconds, measured);
    return SPACRBENCH_OK;
}
