/* The report's plate section, from a plate or a measurement's section: how
 * many items, which were measured and why (in run order, each named by its
 * place in the plate), the predicted largest footprint and the plate's time
 * with the recommended workers. Every line fits 79 columns (East Asian wide
 * characters count two); labels are cut from the left (a path's end names
 * the field). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plate.h"
#include "report.h"
#include "util.h"

/* What the section shows: picks with their figures in run order, one label
 * per pick (or NULL). */
typedef struct sb_plate_view {
    const spacrbench_plate_section *s;
    const spacrbench_plate_pick *picks;
    size_t n_picks, warmups;
    const char *const *notes;
    size_t n_notes;
    const char *const *labels;
} sb_plate_view;

#define WIDTH  79
#define INDENT 22 /* "  " + a 20-column label, as the report's lines */

static size_t columns(const char *s, size_t bytes) { return sb_utf8_width(s, bytes); }

/* The bytes of the character at s (1 for a byte that is not UTF-8). */
static size_t char_bytes(const char *s, size_t left)
{
    size_t n = sb_utf8_length((const unsigned char *)s);
    return n == 0 || n > left ? 1 : n;
}

/* Bytes of s that fill at most `cols` columns. */
static size_t bytes_for(const char *s, size_t len, size_t cols)
{
    size_t i = 0, used = 0;
    while (i < len) {
        size_t k = char_bytes(s + i, len - i), c = columns(s + i, k);
        if (used + c > cols)
            break;
        used += c;
        i += k;
    }
    return i;
}

/* "  label               text", the text wrapped at word boundaries
 * (a word wider than a line is cut), continuation lines indented. */
static void put_wrapped(sb_text *t, const char *label, const char *text)
{
    sb_text_printf(t, "  %-*s", INDENT - 2, label);
    size_t room = WIDTH - INDENT, used = 0, len = strlen(text);
    const char *p = text, *end = text + len;
    while (p < end) {
        while (p < end && *p == ' ')
            p++;
        const char *w = p;
        while (p < end && *p != ' ')
            p++;
        size_t wb = (size_t)(p - w), wc = columns(w, wb);
        if (wb == 0)
            break;
        if (used && used + 1 + wc > room) {
            sb_text_printf(t, "\n%*s", INDENT, "");
            used = 0;
        }
        while (wc > room && used == 0) { /* a word wider than a line */
            size_t cut = bytes_for(w, wb, room);
            sb_text_printf(t, "%.*s\n%*s", (int)cut, w, INDENT, "");
            w += cut;
            wb -= cut;
            wc = columns(w, wb);
        }
        sb_text_printf(t, "%s%.*s", used ? " " : "", (int)wb, w);
        used += (used ? 1 : 0) + wc;
    }
    sb_text_printf(t, "\n");
}

/* A label escaped, and cut from the left to fit cols columns. */
static void put_label(sb_text *t, const char *label, size_t cols)
{
    sb_text e = {0};
    sb_text_label(&e, label);
    char *s = sb_text_take(&e);
    if (!s) {
        t->failed = 1;
        return;
    }
    size_t len = strlen(s), c = columns(s, len);
    if (c <= cols)
        sb_text_printf(t, "%s", s);
    else if (cols > 3) {
        size_t skip = 0; /* whole characters off the left until the rest fits */
        while (skip < len && c > cols - 3) {
            size_t k = char_bytes(s + skip, len - skip);
            c -= columns(s + skip, k);
            skip += k;
        }
        sb_text_printf(t, "...%s", s + skip);
    }
    free(s);
}

const char *sb_plate_why_words(int why)
{
    static const char *const words[] = {
        [SPACRBENCH_PLATE_WHY_LARGEST] = "largest", [SPACRBENCH_PLATE_WHY_SMALLEST] = "smallest",
        [SPACRBENCH_PLATE_WHY_SPREAD] = "spread",   [SPACRBENCH_PLATE_WHY_WARMUP] = "warm-up",
        [SPACRBENCH_PLATE_WHY_RANDOM] = "random",
    };
    return why >= 0 && why < (int)(sizeof words / sizeof *words) && words[why] ? words[why]
                                                                               : "even";
}

/* A time in at most 8 columns: "0.147 s", "1234 s", "27.8 h". */
static void time_cell(double seconds, char *buf, size_t cap)
{
    if (!isfinite(seconds))
        snprintf(buf, cap, "-");
    else if (seconds < 99.995)
        snprintf(buf, cap, "%.*f s", seconds < 9.9995 ? 3 : 2, seconds);
    else if (seconds < 99999.5)
        snprintf(buf, cap, "%.0f s", seconds);
    else if (seconds < 3600.0 * 9999.95)
        snprintf(buf, cap, "%.1f h", seconds / 3600.0);
    else
        snprintf(buf, cap, "> 9999 h");
}

/* One chosen item: its place, why, key, footprint, time and label. */
static void pick_line(sb_text *t, const spacrbench_plate_section *s, const spacrbench_plate_pick *k,
                      const char *label)
{
    char key[64] = "-", fp[32] = "-", secs[32];
    if (!isnan(k->key))
        sb_plate_key_text(s->key_kind, s->key_name, k->key, 0, key, sizeof key);
    if (k->footprint_bytes >= 0)
        sb_format_bytes(fp, sizeof fp, k->footprint_bytes);
    time_cell(k->seconds, secs, sizeof secs);
    size_t at = t->len;
    sb_text_printf(t, "  item %-14lld %-8s %10.10s %10s %8s", (long long)k->index + 1,
                   sb_plate_why_words(k->why), key, fp, secs);
    size_t used = t->failed ? WIDTH : columns(t->data + at, t->len - at);
    if (label && used + 3 < WIDTH) {
        sb_text_printf(t, "  ");
        put_label(t, label, WIDTH - used - 2);
    }
    sb_text_printf(t, "\n");
}

/* "1 h 32 min", whole minutes rounded up. */
void sb_plate_duration_words(double seconds, char *buf, size_t cap)
{
    if (!isfinite(seconds) || seconds < 0) {
        snprintf(buf, cap, "unknown");
        return;
    }
    if (seconds < 59.5) { /* "0 h 01 min" said nothing of a 1 s plate */
        snprintf(buf, cap, "%.0f s", seconds < 1 ? 1 : seconds);
        return;
    }
    double minutes = ceil(seconds / 60.0);
    if (minutes > 9e15) {
        snprintf(buf, cap, "more than a lifetime");
        return;
    }
    long long m = (long long)minutes;
    snprintf(buf, cap, "%lld h %02lld min", m / 60, m % 60);
}

/* Why no item can be named as the plate's largest, or NULL when one can
 * (a line against the key, or every item measured). */
const char *sb_plate_untold_words(const spacrbench_plate_section *s, size_t n_picks)
{
#define EACH ": each is taken to need the plate's bound"
    static const char *const why[] = {
        [SPACRBENCH_PLATE_FIT_UNIFORM] = "the measured agree" EACH,
        [SPACRBENCH_PLATE_FIT_UNEXPLAINED] = "the key does not explain the footprints" EACH,
        [SPACRBENCH_PLATE_FIT_KEYLESS] = "no key tells which is largest" EACH,
        [SPACRBENCH_PLATE_FIT_FEW] = "too few measured for a line" EACH,
    };
#undef EACH
    if ((int64_t)n_picks >= s->items || s->fit < 0 || s->fit >= (int)(sizeof why / sizeof *why) ||
        !why[s->fit])
        return NULL;
    return why[s->fit];
}

static void summary_lines(sb_text *t, const sb_plate_view *v)
{
    const spacrbench_plate_section *s = v->s;
    char line[512], a[64], b[160], c[96];
    if (s->largest_bytes >= 0) {
        sb_format_bytes(a, sizeof a, s->largest_bytes);
        b[0] = c[0] = '\0';
        if (!isnan(s->largest_key)) {
            char key[64];
            sb_plate_key_text(s->key_kind, s->key_name, s->largest_key, 0, key, sizeof key);
            snprintf(b, sizeof b, ", %s %s", s->key_name, key);
        }
        if (s->median_key > 0 && isfinite(s->largest_key))
            snprintf(c, sizeof c, ", %.1fx the plate's median %s", s->largest_key / s->median_key,
                     s->key_name);
        /* Only a line against the key tells which item is the largest; the
         * other fits give every item not measured the same need. */
        const char *same = sb_plate_untold_words(s, v->n_picks);
        if (same)
            snprintf(line, sizeof line, "%.2f GiB (%s): any item not measured (%s)",
                     (double)s->largest_bytes / (1024.0 * 1024.0 * 1024.0), a, same);
        else
            snprintf(line, sizeof line, "%.2f GiB (%s): item %lld%s%s",
                     (double)s->largest_bytes / (1024.0 * 1024.0 * 1024.0), a,
                     (long long)s->largest_index + 1, b, c);
        put_wrapped(t, "largest predicted", line);
    }
    if (s->fit != SPACRBENCH_PLATE_FIT_NONE || isfinite(s->total_seconds)) {
        sb_plate_duration_words(s->total_seconds, a, sizeof a);
        if (s->workers >= 1 && isfinite(s->eta_seconds)) {
            sb_plate_duration_words(s->eta_seconds, b, sizeof b);
            snprintf(line, sizeof line, "ETA %s with %lld worker(s) (%s serial)", b,
                     (long long)s->workers, a);
        } else
            snprintf(line, sizeof line, "%s serial", a);
        put_wrapped(t, "plate time", line);
    }
    for (size_t i = 0; i < v->n_notes; i++)
        put_wrapped(t, "note", v->notes[i]);
}

/* The section of v into t (no trailing line break). */
static void render(sb_text *t, const sb_plate_view *v)
{
    const spacrbench_plate_section *s = v->s;
    char line[256];
    if (s->key_kind != SPACRBENCH_PLATE_KEY_NONE)
        snprintf(line, sizeof line, "%lld, %zu measured (%zu warm-up) across the %s",
                 (long long)s->items, v->n_picks, v->warmups, s->key_name);
    else
        snprintf(line, sizeof line, "%lld, %zu measured (%zu warm-up), evenly spaced",
                 (long long)s->items, v->n_picks, v->warmups);
    sb_text_printf(t, "plate\n");
    put_wrapped(t, "items", line);
    sb_text_printf(t, "  %-19s %-8s %10.10s %10s %8s\n", "measured", "why",
                   s->key_kind == SPACRBENCH_PLATE_KEY_NUMBER ? "key" : s->key_name, "footprint",
                   "time");
    for (size_t i = 0; i < v->n_picks; i++)
        pick_line(t, s, &v->picks[i], v->labels ? v->labels[i] : NULL);
    summary_lines(t, v);
    if (!t->failed && t->len > 0 && t->data[t->len - 1] == '\n')
        t->data[--t->len] = '\0';
}

int spacrbench_format_plate(const spacrbench_plate *p, const spacrbench_recommendation *rec,
                            const char *const *labels, size_t n_labels, char *buf, size_t cap)
{
    SB_REFUSE(!p, "plate must not be NULL");
    if (!buf && cap)
        return sb_fail(SPACRBENCH_EINVAL, "buf is NULL but cap is %zu", cap);
    spacrbench_recommendation r;
    int rc = rec ? sb_recommendation_in(&r, rec) : 0;
    if (rc)
        return rc;
    spacrbench_plate_section s;
    sb_plate_section_of(p, rec ? r.workers : -1, &s);
    /* The labels are by item of the plate; the view's, by pick. */
    const char **by_pick = labels ? calloc(p->n_picks ? p->n_picks : 1, sizeof *by_pick) : NULL;
    if (labels && !by_pick)
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory formatting a plate");
    for (size_t i = 0; by_pick && i < p->n_picks; i++)
        by_pick[i] = (size_t)p->picks[i].index < n_labels ? labels[p->picks[i].index] : NULL;
    sb_plate_view v = {
        &s,     p->picks, p->n_picks, p->warmups, (const char *const *)p->notes, p->note_count,
        by_pick};
    sb_text t = {0};
    render(&t, &v);
    free(by_pick);
    return sb_text_deliver(&t, buf, cap);
}

int spacrbench_format_plate_section(const spacrbench_measurement *m, const char *const *labels,
                                    size_t n_labels, char *buf, size_t cap)
{
    SB_REFUSE(!m, "measurement must not be NULL");
    if (!buf && cap)
        return sb_fail(SPACRBENCH_EINVAL, "buf is NULL but cap is %zu", cap);
    if (!labels && n_labels)
        return sb_fail(SPACRBENCH_EINVAL, "labels is NULL but n_labels is %zu", n_labels);
    const sb_measured_plate *mp = m->plate;
    if (!mp)
        return sb_fail(SPACRBENCH_ERANGE, "the measurement carries no plate section");
    size_t n = mp->pick_count;
    spacrbench_plate_pick *picks = malloc((n ? n : 1) * sizeof *picks);
    const char **by_pick = calloc(n ? n : 1, sizeof *by_pick);
    if (!picks || !by_pick) {
        free(picks);
        free(by_pick);
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory formatting a plate section");
    }
    size_t warmups = 0;
    for (size_t i = 0; i < n; i++) {
        picks[i] = (spacrbench_plate_pick){.size = sizeof picks[i]};
        spacrbench_measurement_plate_pick(m, i, &picks[i]);
        warmups += picks[i].is_warmup != 0;
        by_pick[i] = labels && i < n_labels ? labels[i] : NULL;
    }
    sb_plate_view v = {&mp->info,      picks,  n, warmups, (const char *const *)mp->notes,
                       mp->note_count, by_pick};
    sb_text t = {0};
    render(&t, &v);
    free(picks);
    free(by_pick);
    return sb_text_deliver(&t, buf, cap);
}
