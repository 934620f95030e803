/* The report's plate section (spacrbench_format_plate): how many items,
 * which were measured and why, the predicted largest footprint and the
 * plate's time with the recommended workers. Every line fits 79 columns:
 * long values wrap under their label, labels of items are cut from the
 * left (a path's end names the field). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plate.h"

#define WIDTH  79
#define INDENT 22 /* "  " + a 20-column label, as the report's lines */

/* Columns of UTF-8 text: one per character (the report's texts are
 * neither wide nor combining). */
static size_t columns(const char *s, size_t bytes)
{
    size_t n = 0;
    for (size_t i = 0; i < bytes; i++)
        n += ((unsigned char)s[i] & 0xc0) != 0x80;
    return n;
}

/* Bytes of s that fill at most `cols` columns. */
static size_t bytes_for(const char *s, size_t len, size_t cols)
{
    size_t i = 0, n = 0;
    while (i < len) {
        size_t k = i + 1;
        while (k < len && ((unsigned char)s[k] & 0xc0) == 0x80)
            k++;
        if (n + 1 > cols)
            break;
        n++;
        i = k;
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
        while (wc > room - used - (used ? 1 : 0) && used == 0) { /* a word wider than a line */
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
        size_t skip = bytes_for(s, len, c - (cols - 3));
        sb_text_printf(t, "...%s", s + skip);
    }
    free(s);
}

static const char *why_words(int why)
{
    switch (why) {
    case SPACRBENCH_PLATE_WHY_LARGEST:
        return "largest";
    case SPACRBENCH_PLATE_WHY_SMALLEST:
        return "smallest";
    case SPACRBENCH_PLATE_WHY_SPREAD:
        return "spread";
    case SPACRBENCH_PLATE_WHY_WARMUP:
        return "warm-up";
    default:
        return "even";
    }
}

/* One chosen item: why, key, footprint, time and its label. */
static void pick_line(sb_text *t, const spacrbench_plate *p, const spacrbench_plate_pick *k,
                      const char *label)
{
    char key[64] = "-", fp[32] = "-", secs[32] = "-";
    if (!isnan(k->key))
        sb_plate_format_key(p, k->key, key, sizeof key);
    if (k->footprint_bytes >= 0)
        sb_format_bytes(fp, sizeof fp, k->footprint_bytes);
    if (isfinite(k->seconds))
        snprintf(secs, sizeof secs, "%.3f s", k->seconds);
    size_t at = t->len;
    sb_text_printf(t, "  item %-14lld %-8s %10s %10s %8s", (long long)k->index + 1,
                   why_words(k->why), key, fp, secs);
    size_t used = t->failed ? WIDTH : columns(t->data + at, t->len - at);
    if (label && used + 3 < WIDTH) {
        sb_text_printf(t, "  ");
        put_label(t, label, WIDTH - used - 2);
    }
    sb_text_printf(t, "\n");
}

/* "1 h 32 min", whole minutes rounded up. */
static void hours_minutes(double seconds, char *buf, size_t cap)
{
    if (!isfinite(seconds) || seconds < 0) {
        snprintf(buf, cap, "unknown");
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

static void summary_lines(sb_text *t, const spacrbench_plate *p,
                          const spacrbench_recommendation *rec)
{
    const spacrbench_plate_prediction *r = &p->pred;
    char line[512], a[64], b[64], c[64];
    if (p->predicted) {
        if (r->largest_bytes >= 0) {
            sb_format_bytes(a, sizeof a, r->largest_bytes);
            b[0] = c[0] = '\0';
            if (!isnan(r->largest_key))
                sb_plate_format_key(p, r->largest_key, b, sizeof b);
            if (r->median_key > 0 && isfinite(r->largest_key))
                snprintf(c, sizeof c, ", %.1fx the plate's median", r->largest_key / r->median_key);
            snprintf(line, sizeof line, "%.2f GiB (%s): item %lld%s%s%s",
                     (double)r->largest_bytes / (1024.0 * 1024.0 * 1024.0), a,
                     (long long)r->largest_index + 1, b[0] ? ", " : "", b, c);
            put_wrapped(t, "largest predicted", line);
        }
        hours_minutes(r->total_seconds, a, sizeof a);
        if (rec && rec->workers >= 1) {
            hours_minutes(spacrbench_plate_eta_seconds(p, rec->workers), b, sizeof b);
            snprintf(line, sizeof line, "ETA %s with %lld worker(s) (%s serial)", b,
                     (long long)rec->workers, a);
        } else
            snprintf(line, sizeof line, "%s serial", a);
        put_wrapped(t, "plate time", line);
    }
    for (size_t i = 0; i < p->note_count; i++)
        put_wrapped(t, "note", p->notes[i]);
}

int spacrbench_format_plate(const spacrbench_plate *p, const spacrbench_recommendation *rec,
                            const char *const *labels, size_t n_labels, char *buf, size_t cap)
{
    sb_clear_error();
    if (!p)
        return sb_fail(SPACRBENCH_EINVAL, "plate must not be NULL");
    if (!buf && cap)
        return sb_fail(SPACRBENCH_EINVAL, "buf is NULL but cap is %zu", cap);
    spacrbench_recommendation r;
    if (rec) {
        int rc = sb_recommendation_in(&r, rec);
        if (rc)
            return rc;
    }
    sb_text t = {0};
    char line[256];
    if (p->keys)
        snprintf(line, sizeof line, "%zu, %zu measured (%zu warm-up) across the %s", p->n,
                 p->n_picks, p->warmups, p->key_name);
    else
        snprintf(line, sizeof line, "%zu, %zu measured (%zu warm-up), evenly spaced", p->n,
                 p->n_picks, p->warmups);
    sb_text_printf(&t, "plate\n");
    put_wrapped(&t, "items", line);
    sb_text_printf(&t, "  %-19s %-8s %10s %10s %8s\n", "measured", "why", "key", "footprint",
                   "time");
    for (size_t i = 0; i < p->n_picks; i++) {
        const spacrbench_plate_pick *k = &p->picks[i];
        const char *label = labels && (size_t)k->index < n_labels ? labels[(size_t)k->index] : NULL;
        pick_line(&t, p, k, label);
    }
    summary_lines(&t, p, rec ? &r : NULL);
    if (!t.failed && t.len > 0 && t.data[t.len - 1] == '\n')
        t.data[--t.len] = '\0';
    return sb_text_deliver(&t, buf, cap);
}
