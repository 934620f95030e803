/* The plate (docs/advice.md, "The plate"): which items to measure
 * (plate_select.c, plate_choose.c),
 * the model of every item from the measured ones (plate_model.c, pure
 * arithmetic; plate_predict.c applies it), the recommendation and hand-off for the plate's largest item
 * (plate_recommend.c), the section a measurement carries (plate_section.c;
 * its storage is core/measurement_plate.c) and the report's section
 * (report/plate_report.c). */
#ifndef SPACRBENCH_PLATE_H
#define SPACRBENCH_PLATE_H

#include <stddef.h>
#include <stdint.h>

#include "core.h" /* SB_REFUSE */
#include "internal.h"

/* A least-squares line y = intercept + slope * x through k points, with
 * what its uncertainty needs. usable: k >= 3 and the x differ. */
typedef struct sb_line {
    int usable;
    size_t k;
    double scale; /* the largest key: sxx and the *_scaled are in its units (no overflow) */
    double mean_scaled, slope_scaled;
    double mean_x, mean_y, sxx, slope, intercept;
    double resid_sd; /* residual standard deviation (k - 2 degrees of freedom) */
    double r;        /* Pearson's correlation of x and y; NaN when undefined */
    double t;        /* one-sided 95 % Student t for k - 2 degrees of freedom */
    /* The line rests on one item: without the key farthest from the mean,
     * the others' footprints differ (beyond 10 %) and do not rise. */
    int rests_on_one;
} sb_line;

/* The one-sided 95 % quantile of Student's t with dof degrees of freedom
 * (dof >= 1; large dof tends to 1.645). */
double sb_t95(size_t dof);
/* Fit y against x (k points). */
void sb_line_fit(const double *x, const double *y, size_t k, sb_line *out);
/* The upper end of the 95 % prediction interval of ONE new point at x
 * (never below the line). */
double sb_line_upper_one(const sb_line *l, double x);
/* The upper end of the 95 % confidence interval of the line's mean at x:
 * for a sum over many items, whose errors average out. */
double sb_line_upper_mean(const sb_line *l, double x);
/* The correlation a line of k points must reach to explain anything
 * (infinite below 3 points). */
double sb_line_r_needed(size_t k);
/* Whether the line explains y: it rises (slope > 0), r >= sb_line_r_needed(k),
 * and it does not rest on one item. */
int sb_line_explains(const sb_line *l);

/* The footprints' model, decided from the measured sample (not the
 * warm-up): fit is a spacrbench_plate_fit; for an item not measured,
 * sb_plate_memory_of gives its prediction. */
typedef struct sb_plate_memory {
    int fit;
    sb_line line;
    double largest;    /* the largest measured footprint (sample and warm-up) */
    double spread;     /* largest - smallest of the measured sample */
    double max_key;    /* the largest measured key; NaN without keys */
    double median_key; /* of the measured sample; NaN without keys */
    size_t sample;     /* measured items beside the warm-up */
    /* The plate's largest while an item is not measured (never lower for
     * a superset of the sample): largest + factor x disagreement. */
    double disagreement, factor, bound;
} sb_plate_memory;

/* keys NULL: no key. x, y: the sample's keys and footprints (k items);
 * largest: the largest footprint measured at all (the warm-up's too); n:
 * the plate's items. */
void sb_plate_memory_model(const double *x, const double *y, size_t k, int has_key, double largest,
                           size_t n, sb_plate_memory *out);
/* The predicted footprint of an item not measured whose key is key (NaN
 * without one): the bound, or below it where the key's line explains the
 * footprints. */
double sb_plate_memory_of(const sb_plate_memory *mm, double key);

/* The wall times' model: a line when it explains them, else the mean. */
typedef struct sb_plate_time {
    int fit; /* KEY or (without a rising line) UNEXPLAINED/KEYLESS/FEW */
    sb_line line;
    double mean, sd, slowest;
    size_t k;
} sb_plate_time;

void sb_plate_time_model(const double *x, const double *y, size_t k, int has_key,
                         sb_plate_time *out);
/* An unmeasured item's time: for the plate's total (one 0: the mean's margin) and
 * for its slowest item (one 1: one item's margin). */
double sb_plate_time_of(const sb_plate_time *tm, double key, double one);

struct spacrbench_plate {
    size_t n;                     /* the plate's items */
    double *keys;                 /* n keys by item index; NULL: no key */
    int32_t key_kind;             /* spacrbench_plate_key */
    char key_name[64];            /* "file size"; "key" when none was given */
    double median_key;            /* the plate's median key; NaN without keys */
    spacrbench_plate_pick *picks; /* in the order to run them */
    size_t n_picks, warmups;
    size_t (*by_index)[2]; /* (item index, pick position), sorted by index */
    uint64_t steps;        /* comparisons and searches of the selection (tests bound it) */
    size_t distinct_keys;  /* how many different keys the plate has; 0 without a key */
    uint64_t sample_asked, warmup_asked; /* the options' sample and warm-up (0: by the plate) */
    uint64_t seed;                       /* of the random items' draw */
    double cost; /* sample 0: the share of the plate's time measured beyond the least */
    size_t unkeyed, first_unkeyed; /* items whose key was NaN, taken as the largest */
    /* After spacrbench_plate_predict: */
    int predicted;
    unsigned char *measured; /* n flags: 1 where a pick measured the item */
    sb_plate_memory memory;
    sb_plate_time time;
    int64_t floor_bytes; /* m's whole footprint: the plate never predicts less */
    int all_measured;
    spacrbench_plate_prediction pred;
    char **notes;
    size_t note_count, note_cap;
};

/* The sample's items chosen along the key's steps (the largest, the
 * smallest, the middle, the quarters: nested, so a smaller sample's are a
 * larger one's); the rest are drawn at random within strata. */
#define SB_PLATE_STEPS 5
/* The seed of the random items' draw: fixed, so a plate's selection is
 * reproducible (the notes and the JSON name it). */
#define SB_PLATE_SEED 40
/* How many items a plate of n measures by default: 5, and more as the
 * plate grows (the largest of 1,500 items sits further out than the
 * largest of 20): 5 + ceil(1.5 ln(n / 5)), never more than n. */
size_t sb_plate_auto_sample(size_t n);
/* c(n) of the plate's largest footprint from the measured sample: the
 * largest measured + c(n) x the disagreement with the key (see
 * sb_plate_disagreement and SB_PLATE_LARGEST_SHARE). Both terms only grow
 * as items are added to the sample, so measuring a superset never lowers it. */
double sb_plate_tail_factor(size_t n);
/* The largest amount by which a measured item's footprint exceeds that of
 * a measured item whose key is at least as large (y: footprints, x: keys;
 * NULL x: no key, every pair counts, so it is the spread). O(k log k). */
double sb_plate_disagreement(const double *x, const double *y, size_t k);
/* The share of the largest measured footprint that counts as
 * disagreement beside it (sb_plate_memory's disagreement =
 * sb_plate_disagreement + this x the largest; both only grow with the
 * sample). */
#define SB_PLATE_LARGEST_SHARE 0.05

/* Measuring sequentially (plate_predict.c; the default, sample 0): at
 * least sb_plate_auto_sample(n) items, then more while the plate's
 * predicted largest still moves: it stops once the bound grew by at most
 * SB_PLATE_STEADY in each of the last SB_PLATE_STEADY_STEPS items, or
 * once the items beyond the least took the plate's cost (the options'
 * sample_cost) of the plate's predicted serial time. */
#define SB_PLATE_STEADY       0.05
#define SB_PLATE_STEADY_STEPS 2
/* How many items a sequential plate of n chooses: the minimum and as many
 * more as the share `cost` of n. */
size_t sb_plate_sequential_cap(size_t n, double cost);
/* Choose `sample` items and `warm` warm-up items of p (plate_choose.c):
 * fills picks (in the order to run them), n_picks, warmups, by_index,
 * median_key and distinct_keys. sample + warm <= p->n. */
int sb_plate_choose(spacrbench_plate *p, size_t sample, size_t warm);
/* Append a formatted note to p; ENOMEM on failure. */
int sb_plate_notef(spacrbench_plate *p, const char *fmt, ...) SB_PRINTF(2, 3);
/* Drop p's notes (a second prediction replaces them). */
void sb_plate_clear_notes(spacrbench_plate *p);
/* The key as the report shows it: a size for BYTES keys ("460 KiB"),
 * else the number with its name ("key 3200"; named 0: "3200"). */
void sb_plate_key_text(int32_t kind, const char *name, double key, int named, char *buf,
                       size_t cap);
/* sb_plate_key_text of p's key, named. */
void sb_plate_format_key(const spacrbench_plate *p, double key, char *buf, size_t cap);
/* p's section (plate_section.c), its ETA for `workers` (< 1: none). */
void sb_plate_section_of(const spacrbench_plate *p, int64_t workers, spacrbench_plate_section *s);
/* The position of item `index` in the picks, or -1. */
int64_t sb_plate_pick_of(const spacrbench_plate *p, size_t index);

#endif
