/* Advice for the whole plate (plate.h): the worker-count rule with the
 * predicted largest footprint as one worker's need, its reason (upstream's
 * words first, the plate's after), the plate's time with that many
 * workers, and the measurement the scheduler hand-off sizes tasks from. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "measurement.h"
#include "plate.h"
#include "recommend_rule.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

/* "(file size 460 KiB, 7.1x the plate's median file size)": the largest
 * item's key, named, so the ratio is never read as one of memory. */
static void key_words(const spacrbench_plate *p, char *buf, size_t cap)
{
    const spacrbench_plate_prediction *r = &p->pred;
    char key[64];
    sb_plate_format_key(p, r->largest_key, key, sizeof key);
    /* A size is shown bare ("460 KiB"), another key with its name. */
    const char *name = p->key_kind == SPACRBENCH_PLATE_KEY_BYTES ? p->key_name : "";
    const char *space = name[0] ? " " : "";
    if (r->median_key > 0 && isfinite(r->largest_key))
        snprintf(buf, cap, " (%s%s%s, %.1fx the plate's median %s)", name, space, key,
                 r->largest_key / r->median_key, p->key_name);
    else if (isfinite(r->largest_key))
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
static void plate_reason(const spacrbench_plate *p, spacrbench_recommendation *r)
{
    const spacrbench_plate_prediction *pr = &p->pred;
    if (pr->largest_bytes < 0)
        return;
    char need[48];
    need_words(pr->largest_bytes, need, sizeof need);
    char key[256];
    key_words(p, key, sizeof key);
    if (p->all_measured) {
        sb_reason_add(r, "; the plate's largest field%s was measured to need %s", key, need);
        return;
    }
    switch (pr->fit) {
    case SPACRBENCH_PLATE_FIT_KEY:
    case SPACRBENCH_PLATE_FIT_UNIFORM:
        sb_reason_add(r, "; the plate's largest field%s is predicted to need %s", key, need);
        break;
    case SPACRBENCH_PLATE_FIT_UNEXPLAINED:
        sb_reason_add(r,
                      "; the %s %s, so the plate's largest field is taken to need %s (the "
                      "largest measured plus its disagreement and 5 %% of the largest, scaled "
                      "to the plate's size)",
                      p->key_name,
                      p->distinct_keys == 1 ? "is the same for every field"
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

int spacrbench_plate_recommend(const spacrbench_plate *p, const spacrbench_measurement *m,
                               const spacrbench_recommend_options *opts,
                               const spacrbench_machine *machine, spacrbench_recommendation *out)
{
    sb_clear_error();
    if (!p || !out)
        return sb_fail(SPACRBENCH_EINVAL, "plate and out must not be NULL");
    if (!p->predicted)
        return sb_fail(SPACRBENCH_EINVAL, "the plate is not predicted yet "
                                          "(spacrbench_plate_predict)");
    int64_t need = p->pred.largest_bytes;
    if (need < 0)
        need = m ? spacrbench_measurement_work_rss_bytes(m) : -1;
    spacrbench_recommendation r;
    int rc = sb_recommend_into(m, opts, machine, need, &r);
    if (rc)
        return rc;
    plate_reason(p, &r);
    return sb_struct_out(out, &r, sizeof r, "spacrbench_recommendation");
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
    sb_clear_error();
    if (!p || !m || !out)
        return sb_fail(SPACRBENCH_EINVAL, "plate, measurement and out must not be NULL");
    *out = NULL;
    if (!p->predicted)
        return sb_fail(SPACRBENCH_EINVAL, "the plate is not predicted yet "
                                          "(spacrbench_plate_predict)");
    int64_t at = p->pred.largest_index;
    int measured = at >= 0 && sb_plate_pick_of(p, (size_t)at) >= 0 &&
                   !p->picks[sb_plate_pick_of(p, (size_t)at)].is_warmup;
    return sb_plate_handoff_of(m, p->pred.largest_bytes, measured, p->pred.slowest_seconds, out);
}
