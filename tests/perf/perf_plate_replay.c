/* The plate's advice replayed on real task traces (issue 40): a Nextflow
 * trace (CSV or TSV with a header naming `process`, `status`, `peak_rss`
 * and the key column, `rchar` by default) is grouped into plates (the
 * trace's file name and the last component of the process name; COMPLETED
 * tasks with a peak and a key; plates of >= 20 tasks), the library's own
 * selector chooses the items to measure, their true peaks are fed to
 * spacrbench_plate_predict, and the predicted largest is compared with the
 * plate's true largest, twice side by side: measured sequentially (one at
 * a time while spacrbench_plate_more asks for another, each task's cost
 * its `realtime`, else its `duration`; --sample-cost sets the share of the
 * plate's time it may spend) and with a fixed sample (--sample K; without
 * it the least the sequential rule measures). The baselines see the
 * sequential rule's items (the first 6 tasks excepted, which are what
 * they say). Then the misses are
 * resubmitted with summarize's rule (the next --mem from twice the limit
 * that killed them) to show whether one resubmission is enough. --seed N
 * draws the random items with seed N instead of the library's fixed one
 * (SB_PLATE_SEED: how much of the table is the draw's luck).
 * For humans: nothing is asserted (docs/advice.md shows the table).
 *
 * Usage: spacrbench_perf_plate_replay [--sample K] [--sample-cost SHARE]
 *        [--key COLUMN] [--seed N] [--plates] TRACE... */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "plate.h"
#include "spacrbench.h"
#include "util.h"

#define LINE_MAX_BYTES 65536 /* a longer line is cut, never overrun */
#define FIELDS_MAX     256
#define TASKS_MAX      10000000
#define PLATE_MIN      20

enum { P_SB, P_FIXED, P_MAX, P_2X, P_LS, P_FIRST6, N_PREDICTORS };
static const char *const predictor_names[N_PREDICTORS] = {
    "spacrbench, sequential", "spacrbench, fixed sample", "largest measured",
    "2x largest measured",    "least squares, no margin", "first 6 tasks"};

typedef struct task {
    char plate[160];
    double key, peak, seconds; /* seconds: realtime, else duration; 1 without either */
    size_t order;              /* its line in the trace */
} task;

typedef struct tally {
    size_t covered, plates, tasks, above, measured;
    double *overshoot; /* per plate */
} tally;

/* Split a CSV/TSV line in place (quoted fields of a CSV included). */
static size_t split(char *line, char sep, char **fields)
{
    size_t n = 0;
    char *p = line;
    while (n < FIELDS_MAX) {
        if (*p == '"') {
            char *out = ++p;
            fields[n++] = out;
            while (*p && !(*p == '"' && p[1] != '"')) {
                if (*p == '"') /* "" is one quote */
                    p++;
                *out++ = *p++;
            }
            if (*p == '"')
                p++;
            *out = 0;
            if (*p != sep)
                break;
            p++;
            continue;
        }
        fields[n++] = p;
        char *end = strchr(p, sep);
        if (!end)
            break;
        *end = 0;
        p = end + 1;
    }
    return n;
}

static int number(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || !isfinite(v) || v < 0)
        return 0;
    while (isspace((unsigned char)*end))
        end++;
    if (*end)
        return 0;
    *out = v;
    return 1;
}

static int column(char **f, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(f[i], name) == 0)
            return (int)i;
    return -1;
}

static int read_trace(const char *path, const char *key_col, task **tasks, size_t *count,
                      size_t *cap)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return -1;
    }
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char workflow[64];
    snprintf(workflow, sizeof workflow, "%s", strncmp(base, "trace_", 6) == 0 ? base + 6 : base);
    char *dot = strrchr(workflow, '.');
    if (dot)
        *dot = 0;
    static char line[LINE_MAX_BYTES];
    char *fields[FIELDS_MAX];
    int c_proc = -1, c_status = -1, c_peak = -1, c_key = -1, c_real = -1, c_dur = -1;
    char sep = ',';
    size_t lineno = 0;
    while (fgets(line, sizeof line, f)) {
        size_t len = strlen(line);
        if (len && line[len - 1] != '\n' && !feof(f)) { /* too long: skip the rest */
            int ch;
            while ((ch = fgetc(f)) != EOF && ch != '\n')
                ;
        }
        while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = 0;
        if (lineno++ == 0) {
            sep = strchr(line, '\t') ? '\t' : ',';
            size_t n = split(line, sep, fields);
            c_proc = column(fields, n, "process");
            c_status = column(fields, n, "status");
            c_peak = column(fields, n, "peak_rss");
            c_key = column(fields, n, key_col);
            c_real = column(fields, n, "realtime");
            c_dur = column(fields, n, "duration");
            if (c_proc < 0 || c_peak < 0 || c_key < 0) {
                fprintf(stderr, "%s: the header names no process, peak_rss or %s column\n", path,
                        key_col);
                fclose(f);
                return -1;
            }
            continue;
        }
        size_t n = split(line, sep, fields);
        double peak, key;
        if ((size_t)c_proc >= n || (size_t)c_peak >= n || (size_t)c_key >= n)
            continue;
        if (c_status >= 0 && ((size_t)c_status >= n || strcmp(fields[c_status], "COMPLETED")))
            continue;
        if (!number(fields[c_peak], &peak) || !number(fields[c_key], &key))
            continue;
        if (*count == *cap) {
            if (*cap >= TASKS_MAX) {
                fprintf(stderr, "%s: more than %d tasks\n", path, TASKS_MAX);
                fclose(f);
                return -1;
            }
            *cap = *cap ? 2 * *cap : 4096;
            task *grown = realloc(*tasks, *cap * sizeof *grown);
            if (!grown) {
                fclose(f);
                return -1;
            }
            *tasks = grown;
        }
        task *t = &(*tasks)[(*count)++];
        const char *proc = strrchr(fields[c_proc], ':');
        snprintf(t->plate, sizeof t->plate, "%s/%s", workflow, proc ? proc + 1 : fields[c_proc]);
        t->key = key;
        t->peak = peak;
        /* Nextflow's realtime is in ms and 0 for tasks shorter than its
         * clock; duration (submit to end) stands in. */
        double ms = 0;
        if (!(c_real >= 0 && (size_t)c_real < n && number(fields[c_real], &ms) && ms > 0) &&
            !(c_dur >= 0 && (size_t)c_dur < n && number(fields[c_dur], &ms) && ms > 0))
            ms = 1000;
        t->seconds = ms / 1000;
        t->order = *count;
    }
    fclose(f);
    return 0;
}

static int by_plate(const void *a, const void *b)
{
    const task *x = a, *y = b;
    int c = strcmp(x->plate, y->plate);
    return c ? c : (x->order > y->order) - (x->order < y->order);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double quantile(double *v, size_t n, double q)
{
    if (!n)
        return NAN;
    qsort(v, n, sizeof *v, by_value);
    double at = q * (double)(n - 1);
    size_t lo = (size_t)floor(at), hi = lo + 1 < n ? lo + 1 : lo;
    return v[lo] + (v[hi] - v[lo]) * (at - (double)lo);
}

/* The least-squares line through the measured items, no margin: the
 * largest of its predictions over the plate. */
static double least_squares(const task *t, size_t n, const size_t *idx, size_t k)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (size_t i = 0; i < k; i++) {
        sx += t[idx[i]].key;
        sy += t[idx[i]].peak;
    }
    double mx = sx / (double)k, my = sy / (double)k;
    for (size_t i = 0; i < k; i++) {
        double dx = t[idx[i]].key - mx;
        sxx += dx * dx;
        sxy += dx * (t[idx[i]].peak - my);
    }
    double slope = sxx > 0 ? sxy / sxx : 0, best = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        double v = my + slope * (t[i].key - mx);
        best = v > best ? v : best;
    }
    return best;
}

typedef struct converged {
    size_t misses, after_one;
} converged;

/* The library's advice on one plate: its items chosen and run in order
 * while the rule asks for more (every chosen one with a fixed sample),
 * their true peaks fed to the predictor. *k and idx: the items run (idx
 * holds n); *pr: the prediction. */
/* The seed of the random draw; < 0: the library's own. */
static int64_t draw_seed = -1;

/* p chosen again as the selection chose it, its random items drawn with
 * another seed: the library's chooser, which reads the seed from p. */
static int reseed(spacrbench_plate *p, uint64_t seed)
{
    size_t warm = p->warmups, sample = p->n_picks - warm;
    free(p->picks);
    free(p->by_index);
    p->picks = NULL;
    p->by_index = NULL;
    p->n_picks = p->warmups = 0;
    p->seed = seed;
    return sb_plate_choose(p, sample, warm);
}

static int library_plate(const task *t, size_t n, int64_t sample, double cost, size_t *idx,
                         size_t *k, spacrbench_plate_prediction *pr)
{
    double *keys = malloc(n * sizeof *keys);
    if (!keys)
        return -1;
    for (size_t i = 0; i < n; i++)
        keys[i] = t[i].key;
    spacrbench_plate_options o;
    spacrbench_plate_options_init(&o, sizeof o);
    o.sample = sample;
    if (cost >= 0)
        o.sample_cost = cost;
    spacrbench_plate *p = NULL;
    spacrbench_measurement *m = NULL;
    int64_t *peaks = NULL;
    double *secs = NULL;
    int rc = spacrbench_plate_select_keys(n, keys, &o, &p);
    free(keys);
    if (!rc && draw_seed >= 0)
        rc = reseed(p, (uint64_t)draw_seed);
    if (rc) {
        spacrbench_plate_free(p);
        return rc;
    }
    size_t picks = spacrbench_plate_pick_count(p);
    spacrbench_figures fig;
    memset(&fig, 0, sizeof fig);
    fig.size = sizeof fig;
    fig.peak_vram_bytes = -1;
    fig.cpu_seconds = NAN;
    fig.stopped_item = -1;
    for (size_t i = 0; i < picks; i++) {
        spacrbench_plate_pick q = {.size = sizeof q};
        spacrbench_plate_pick_get(p, i, &q);
        idx[i] = (size_t)q.index;
        fig.items += !q.is_warmup;
        fig.warmup_items += q.is_warmup;
    }
    fig.peak_rss_bytes = 0; /* not yet known: the rule decides what is measured */
    fig.seconds = (double)fig.items;
    peaks = malloc((picks ? picks : 1) * sizeof *peaks);
    secs = malloc((picks ? picks : 1) * sizeof *secs);
    if (!peaks || !secs || (rc = spacrbench_measurement_create(&fig, &m)) != 0) {
        rc = rc ? rc : -1;
        goto done;
    }
    size_t ran = 0;
    for (int more = 1; ran < picks && more; ran++) {
        spacrbench_plate_pick q = {.size = sizeof q};
        spacrbench_plate_pick_get(p, ran, &q);
        spacrbench_item_record r;
        memset(&r, 0, sizeof r);
        r.size = sizeof r;
        r.index = (int64_t)ran;
        r.is_warmup = q.is_warmup;
        r.seconds = t[idx[ran]].seconds;
        r.peak_rss_bytes = (int64_t)t[idx[ran]].peak;
        r.peak_vram_bytes = -1;
        peaks[ran] = r.peak_rss_bytes;
        secs[ran] = r.seconds;
        if ((rc = spacrbench_measurement_add_record(m, &r)) != 0 ||
            (rc = spacrbench_plate_more(p, ran + 1, peaks, secs, &more)) != 0)
            goto done;
    }
    *k = ran;
    if ((rc = spacrbench_plate_predict(p, m)) != 0)
        goto done;
    memset(pr, 0, sizeof *pr);
    pr->size = sizeof *pr;
    rc = spacrbench_plate_prediction_get(p, pr);
done:
    free(peaks);
    free(secs);
    spacrbench_measurement_free(m);
    spacrbench_plate_free(p);
    return rc;
}

/* One plate: each predictor's largest, scored; the baselines see the
 * items the sequential rule measured. */
static int replay_plate(const task *t, size_t n, int64_t sample, double cost, int show, tally *tl,
                        converged *cv)
{
    size_t *idx = malloc(n * sizeof *idx), *fixed_idx = malloc(n * sizeof *fixed_idx), k = 0,
           k_fixed = 0;
    spacrbench_plate_prediction pr, fixed;
    int rc = !idx || !fixed_idx ? -1 : library_plate(t, n, 0, cost, idx, &k, &pr);
    if (!rc) /* without --sample, the least the sequential rule measures */
        rc = library_plate(t, n, sample > 0 ? sample : (int64_t)sb_plate_auto_sample(n), -1,
                           fixed_idx, &k_fixed, &fixed); /* the cost is the sequential rule's */
    free(fixed_idx);
    if (rc) {
        free(idx);
        return rc;
    }
    double largest_measured = 0;
    for (size_t i = 0; i < k; i++)
        largest_measured = fmax(largest_measured, t[idx[i]].peak);
    double truth = 0, first6 = 0;
    for (size_t i = 0; i < n; i++) {
        truth = fmax(truth, t[i].peak);
        if (i < 6)
            first6 = fmax(first6, t[i].peak);
    }
    double pred[N_PREDICTORS] = {
        (double)pr.largest_bytes, (double)fixed.largest_bytes, largest_measured,
        2 * largest_measured,     least_squares(t, n, idx, k), first6};
    size_t measured[N_PREDICTORS] = {k, k_fixed, k, k, k, n < 6 ? n : 6};
    if (show)
        printf("%-44s %5zu %3zu", t[0].plate, n, k);
    for (int j = 0; j < N_PREDICTORS; j++) {
        size_t above = 0;
        for (size_t i = 0; i < n; i++)
            above += t[i].peak > pred[j];
        tl[j].covered += pred[j] >= truth;
        tl[j].overshoot[tl[j].plates++] = pred[j] / truth - 1;
        tl[j].tasks += n;
        tl[j].above += above;
        tl[j].measured += measured[j];
        if (show)
            printf(" %+7.0f%%", 100 * (pred[j] / truth - 1));
    }
    if (show)
        printf("\n");
    /* The hand-off's --mem, then summarize's: the largest peak seen and
     * twice the limit that killed the misses. */
    double mem1 = (double)sb_handoff_mem_bytes(pr.largest_bytes), seen = 0, mem2;
    int missed = 0;
    for (size_t i = 0; i < n; i++) {
        if (t[i].peak > mem1)
            missed = 1;
        else
            seen = fmax(seen, t[i].peak);
    }
    mem2 = (double)sb_handoff_mem_bytes((int64_t)fmax(seen, missed ? 2 * mem1 : 0));
    for (size_t i = 0; i < n; i++)
        if (t[i].peak > mem1) {
            cv->misses++;
            cv->after_one += t[i].peak <= mem2;
        }
    free(idx);
    return 0;
}

#define USAGE                                                                                      \
    "usage: %s [--sample K] [--sample-cost SHARE] [--key COLUMN] [--seed N] [--plates] "           \
    "TRACE...\n"

int main(int argc, char **argv)
{
    int64_t sample = -1;
    double cost = -1;
    const char *key_col = "rchar";
    int show = 0;
    task *tasks = NULL;
    size_t count = 0, cap = 0;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--sample") == 0 && a + 1 < argc) {
            const char *v = argv[++a];
            if (sb_parse_int64(v, strlen(v), &sample) != SB_PARSE_OK || sample < 1 ||
                strspn(v, "0123456789") != strlen(v)) {
                fprintf(stderr, "%s: --sample: expected a whole number >= 1, got '%s'\n", argv[0],
                        v);
                return 2;
            }
        } else if (strcmp(argv[a], "--sample-cost") == 0 && a + 1 < argc) {
            const char *v = argv[++a];
            if (sb_parse_share(v, strlen(v), &cost) != SB_PARSE_OK) {
                fprintf(stderr,
                        "%s: --sample-cost: expected a share of the plate's time from 0 to 1, "
                        "as 5%% or 0.05, got '%s'\n",
                        argv[0], v);
                return 2;
            }
        } else if (strcmp(argv[a], "--seed") == 0 && a + 1 < argc) {
            const char *v = argv[++a];
            if (sb_parse_int64(v, strlen(v), &draw_seed) != SB_PARSE_OK || draw_seed < 0 ||
                strspn(v, "0123456789") != strlen(v)) {
                fprintf(stderr, "%s: --seed: expected a whole number >= 0, got '%s'\n", argv[0], v);
                return 2;
            }
        } else if (strcmp(argv[a], "--key") == 0 && a + 1 < argc)
            key_col = argv[++a];
        else if (strcmp(argv[a], "--help") == 0) {
            printf(USAGE, argv[0]);
            return 0;
        } else if (strcmp(argv[a], "--plates") == 0)
            show = 1;
        else if (read_trace(argv[a], key_col, &tasks, &count, &cap) != 0)
            return 1;
    }
    if (!count) {
        fprintf(stderr, USAGE, argv[0]);
        return 2;
    }
    qsort(tasks, count, sizeof *tasks, by_plate);
    tally tl[N_PREDICTORS];
    memset(tl, 0, sizeof tl);
    for (int j = 0; j < N_PREDICTORS; j++)
        if (!(tl[j].overshoot = malloc(count * sizeof(double))))
            return 1;
    converged cv = {0, 0};
    if (show)
        printf("%-44s %5s %3s %8s %8s %8s %8s %8s %8s  (overshoot of the true largest)\n", "plate",
               "tasks", "k", "sb", "fixed", "max", "2x", "ls", "first6");
    for (size_t lo = 0; lo < count;) {
        size_t hi = lo;
        while (hi < count && strcmp(tasks[hi].plate, tasks[lo].plate) == 0)
            hi++;
        if (hi - lo >= PLATE_MIN &&
            replay_plate(tasks + lo, hi - lo, sample, cost, show, tl, &cv)) {
            fprintf(stderr, "%s: %s\n", tasks[lo].plate, spacrbench_last_error_message());
            return 1;
        }
        lo = hi;
    }
    if (tl[0].plates == 0) {
        fprintf(stderr, "no process has %d or more COMPLETED tasks with a peak and a key\n",
                PLATE_MIN);
        return 1;
    }
    char asked[64] = "the least (5 + ceil(1.5 ln(n / 5)))";
    if (sample > 0)
        snprintf(asked, sizeof asked, "%lld", (long long)sample);
    printf("sequential: cost %.0f %% of the plate's time; fixed sample: %s; seed %lld; the "
           "baselines see the sequential rule's items\n\n",
           100 * (cost >= 0 ? cost : 0.05), asked,
           (long long)(draw_seed >= 0 ? draw_seed : SB_PLATE_SEED));
    printf("| predictor | covered | tasks above | median overshoot | p90 overshoot | tasks "
           "measured |\n|---|---|---|---|---|---|\n");
    for (int j = 0; j < N_PREDICTORS; j++)
        printf("| %s | %zu / %zu | %.1f %% | %+.0f %% | %+.0f %% | %.1f %% |\n", predictor_names[j],
               tl[j].covered, tl[j].plates, 100.0 * (double)tl[j].above / (double)tl[j].tasks,
               100 * quantile(tl[j].overshoot, tl[j].plates, 0.5),
               100 * quantile(tl[j].overshoot, tl[j].plates, 0.9),
               100.0 * (double)tl[j].measured / (double)tl[j].tasks);
    printf("\nspacrbench's misses (a task above the hand-off's --mem): %zu; within summarize's "
           "next --mem: %zu\n",
           cv.misses, cv.after_one);
    for (int j = 0; j < N_PREDICTORS; j++)
        free(tl[j].overshoot);
    free(tasks);
    return 0;
}
