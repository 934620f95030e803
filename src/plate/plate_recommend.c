/* Advice for the whole plate (plate.h): the worker-count rule with the
 * predicted largest footprint as one worker's need, its reason (upstream's
 * words first, the plate's after), the plate's time with that many
 * workers, and the measurement the scheduler hand-off sizes tasks from. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plate.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

/* What the plate's words are made of: a predicted plate's section, or the
 * one a measurement carries (a plate's JSON read back), so both advise
 * alike. */
typedef struct plate_words {
    const spacrbench_plate_section *s;
    int all_measured; /* every item of the plate was measured */
    int one_key;      /* every item has the same key */
} plate_words;

/* "(file size 460 KiB, 7.1x the plate's median file size)": the largest
 * item's key, named, so the ratio is never read as one of memory. */
static void key_words(const spacrbench_plate_section *s, char *buf, size_t cap)
{
    char key[64];
    sb_plate_key_text(s->key_kind, s->key_name, s->largest_key, 1, key, sizeof key);
    /* A size is shown bare ("460 KiB"), another key with its name. */
    const char *name = s->key_kind == SPACRBENCH_PLATE_KEY_BYTES ? s->key_name : "";
    const char *space = name[0] ? " " : "";
    if (s->median_key > 0 && isfinite(s->largest_key))
        snprintf(buf, cap, " (%s%s%s, %.1fx the plate's median %s)", name, space, key,
                 s->largest_key / s->median_key, s->key_name);
    else if (isfinite(s->largest_key))
        snprintf(buf, cap, " (%s%s%s)", name, space, key);
    else
        buf[0] = '\0';
}

/* A need in spaCR's GiB with two decimals; below 0.1 GiB, where those
 * say little ("0.04 GiB"), the size after it as the plate's section and
 * the report write it ("256.0 KiB", "37.0 MiB"). */
static void need_words(int64_t bytes, char *buf, size_t cap)
{
    double gib = (double)bytes / GIB;
    char exact[32];
    sb_format_bytes(exact, sizeof exact, bytes);
    if (gib < 0.1)
        snprintf(buf, cap, "%.2f GiB (%s)", gib, exact);
    else
        snprintf(buf, cap, "%.2f GiB", gib);
}

/* The plate's words after upstream's sentence (docs/advice.md). */
static void plate_reason(const plate_words *w, spacrbench_recommendation *r)
{
    const spacrbench_plate_section *s = w->s;
    if (s->largest_bytes < 0)
        return;
    char need[48];
    need_words(s->largest_bytes, need, sizeof need);
    char key[256];
    key_words(s, key, sizeof key);
    if (w->all_measured) {
        sb_reason_add(r, "; the plate's largest field%s was measured to need %s", key, need);
        return;
    }
    switch (s->fit) {
    case SPACRBENCH_PLATE_FIT_KEY:
    case SPACRBENCH_PLATE_FIT_UNIFORM:
        sb_reason_add(r, "; the plate's largest field%s is predicted to need %s", key, need);
        break;
    case SPACRBENCH_PLATE_FIT_UNEXPLAINED:
        sb_reason_add(r,
                      "; the %s %s, so the plate's largest field is taken to need %s (the "
                      "largest measured plus its disagreement and 5 %% of the largest, scaled "
                      "to the plate's size)",
                      s->key_name,
                      w->one_key ? "is the same for every field"
                                 : "does not explain the measured footprints",
                      need);
        break;
    case SPACRBENCH_PLATE_FIT_KEYLESS:
        sb_reason_add(r,
                      "; the plate's largest field cannot be predicted without a key: sized for "
                      "%s (the largest measured plus the spread and 5 %% of the largest, scaled "
                      "to the plate's size)",
                      need);
        break;
    case SPACRBENCH_PLATE_FIT_FEW:
        sb_reason_add(r,
                      "; too few fields measured to predict the plate's largest: sized for %s"
                      " (the largest measured plus the spread and 5 %% of the largest, scaled "
                      "to the plate's size)",
                      need);
        break;
    default:
        break;
    }
}

/* The worker-count rule for the plate's largest, with the plate's words. */
static int recommend_for(const plate_words *w, const spacrbench_measurement *m,
                         const spacrbench_recommend_options *opts,
                         const spacrbench_machine *machine, spacrbench_recommendation *out)
{
    int64_t need = w->s->largest_bytes;
    if (need < 0)
        need = m ? spacrbench_measurement_work_rss_bytes(m) : -1;
    spacrbench_recommendation r;
    int rc = sb_recommend_into(m, opts, machine, need, &r);
    if (rc)
        return rc;
    plate_reason(w, &r);
    return sb_struct_out(out, &r, sizeof r, "spacrbench_recommendation");
}

int spacrbench_plate_recommend(const spacrbench_plate *p, const spacrbench_measurement *m,
                               const spacrbench_recommend_options *opts,
                               const spacrbench_machine *machine, spacrbench_recommendation *out)
{
    SB_REFUSE(!p || !out, "plate and out must not be NULL");
    SB_REFUSE(!p->predicted, "the plate is not predicted yet (spacrbench_plate_predict)");
    spacrbench_plate_section s;
    sb_plate_section_of(p, -1, &s);
    plate_words w = {&s, p->all_measured, p->distinct_keys == 1};
    return recommend_for(&w, m, opts, machine, out);
}

int spacrbench_plate_recommend_measurement(const spacrbench_measurement *m,
                                           const spacrbench_recommend_options *opts,
                                           const spacrbench_machine *machine,
                                           spacrbench_recommendation *out)
{
    sb_clear_error();
    spacrbench_plate_section s;
    spacrbench_plate_section_init(&s, sizeof s);
    if (!m || !out || spacrbench_measurement_plate(m, &s) != 0)
        return spacrbench_recommend_on(m, opts, machine, out);
    /* The smallest key is measured whenever the fit could tell (3 items
     * or more): measured keys that all equal the largest are the plate's. */
    int one_key = isfinite(s.largest_key);
    for (size_t i = 0; one_key && i < (size_t)s.pick_count; i++) {
        spacrbench_plate_pick k = {.size = sizeof k};
        one_key = spacrbench_measurement_plate_pick(m, i, &k) == 0 && k.key == s.largest_key;
    }
    /* A section read back (hand-edited, foreign) whose largest is below
     * what m itself measured is floored there, as the plate's run is. */
    int64_t own = spacrbench_measurement_work_rss_bytes(m);
    if (s.largest_bytes >= 0 && s.largest_bytes < own)
        s.largest_bytes = own;
    plate_words w = {&s, s.pick_count == s.items, one_key};
    return recommend_for(&w, m, opts, machine, out);
}

double spacrbench_plate_eta_seconds(const spacrbench_plate *p, int64_t workers)
{
    if (!p || !p->predicted || workers < 1 || isnan(p->pred.total_seconds))
        return NAN;
    double eta = p->pred.total_seconds / (double)workers;
    double slowest = p->pred.slowest_seconds;
    return isfinite(slowest) && slowest > eta ? slowest : eta;
}

int spacrbench_plate_handoff_measurement(const spacrbench_plate *p, const spacrbench_measurement *m,
                                         spacrbench_measurement **out)
{
    SB_REFUSE(!p || !m || !out, "plate, measurement and out must not be NULL");
    *out = NULL;
    SB_REFUSE(!p->predicted, "the plate is not predicted yet (spacrbench_plate_predict)");
    int64_t at = p->pred.largest_index;
    int measured = at >= 0 && sb_plate_pick_of(p, (size_t)at) >= 0 &&
                   !p->picks[sb_plate_pick_of(p, (size_t)at)].is_warmup;
    return sb_plate_handoff_of(m, p->pred.largest_bytes, measured, p->pred.slowest_seconds, out);
}
