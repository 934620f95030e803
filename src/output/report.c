/* The report: a few lines a user can paste into an issue. Labels and the
 * first lines keep spaCR's wording, since users and tools read them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measurement.h"
#include "peak_words.h"
#include "platform_words.h"

static double gib(int64_t bytes) { return (double)bytes / (1024.0 * 1024.0 * 1024.0); }

static int below_gib(int64_t bytes) { return bytes < (INT64_C(1) << 30); }

/* "%.2f" as Python's format() writes it: NaN is "nan" (never "-nan"). */
static void fixed2(char *buf, size_t cap, double v)
{
    if (isnan(v))
        snprintf(buf, cap, "nan");
    else
        snprintf(buf, cap, "%.2f", v);
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median and maximum of the measured (non-warm-up) items' seconds. */
static int item_time_stats(const spacrbench_measurement *m, double *median, double *max)
{
    double *t = malloc((m->record_count ? m->record_count : 1) * sizeof *t);
    if (!t)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < m->record_count; i++)
        if (!m->records[i].is_warmup)
            t[n++] = m->records[i].seconds;
    if (n == 0) {
        free(t);
        return -1;
    }
    qsort(t, n, sizeof *t, compare_double);
    *median = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2.0;
    *max = t[n - 1];
    free(t);
    return 0;
}

/* v as Python's repr() writes a float: the shortest digits that read back
 * as v, positional for exponents -4..15 (with ".0" when whole), "nan",
 * "inf". */
static void python_repr(char *buf, size_t cap, double v)
{
    if (isnan(v) || isinf(v)) {
        snprintf(buf, cap, "%s", isnan(v) ? "nan" : v < 0 ? "-inf" : "inf");
        return;
    }
    int digits = 1;
    char e[40];
    for (; digits < 17; digits++) {
        snprintf(e, sizeof e, "%.*e", digits - 1, v);
        if (strtod(e, NULL) == v)
            break;
    }
    snprintf(e, sizeof e, "%.*e", digits - 1, v);
    int exp = atoi(strchr(e, 'e') + 1);
    if (exp < -4 || exp >= 16) {
        snprintf(buf, cap, "%s", e);
        return;
    }
    int decimals = digits - 1 - exp > 0 ? digits - 1 - exp : 0;
    snprintf(buf, cap, "%.*f%s", decimals, v, decimals ? "" : ".0");
}

/* The throughput line: spaCR's "x.xx item/s (y.yy s each)", "nan"
 * included, then ours. A caller's seconds (opts->use_seconds) get spaCR's
 * arithmetic on the value as given. */
static void throughput_line(sb_text *t, const spacrbench_measurement *m,
                            const spacrbench_report_options *o)
{
    const spacrbench_figures *f = &m->fig;
    char ips[400], each[400], given[64];
    if (o->use_seconds) {
        double s = o->seconds;
        fixed2(ips, sizeof ips, s > 0 ? (double)f->items / s : NAN);
        fixed2(each, sizeof each, f->items ? s / (double)f->items : NAN);
        python_repr(given, sizeof given, s);
        sb_text_printf(t,
                       "\n  throughput          %s item/s (%s s each); not measured (seconds "
                       "is %s)\n",
                       ips, each, given);
        return;
    }
    fixed2(ips, sizeof ips, spacrbench_measurement_items_per_second(m));
    fixed2(each, sizeof each, spacrbench_measurement_per_item_seconds(m));
    sb_text_printf(t, "\n  throughput          %s item/s (%s s each)%s\n", ips, each,
                   f->items > 0 && f->seconds > 0 ? "" : "; not measured (no timed items)");
}

static void measurement_lines(sb_text *t, const spacrbench_measurement *m,
                              const spacrbench_report_options *o)
{
    char a[32], b[32];
    const spacrbench_figures *f = &m->fig;
    sb_text_printf(t, "  items measured      %lld", (long long)f->items);
    if (f->warmup_items > 0)
        sb_text_printf(t, " (+%lld warm-up, %.2f s)", (long long)f->warmup_items,
                       f->warmup_seconds);
    throughput_line(t, m, o);
    double median, max;
    if (item_time_stats(m, &median, &max) == 0)
        sb_text_printf(t, "  per item            median %.3f s, max %.3f s\n", median, max);
    if (!isnan(f->cpu_seconds) && f->seconds > 0)
        sb_text_printf(t, "  CPU time            %.2f s user+sys (%.2f cores busy)\n",
                       f->cpu_seconds, f->cpu_seconds / f->seconds);
    /* Sizes: spaCR's "x.xx GiB" first, the exact size (below 1 GiB) and
     * where the figure came from after it. */
    int64_t peak = f->peak_rss_bytes > 0 ? f->peak_rss_bytes : 0;
    sb_format_bytes(a, sizeof a, peak);
    sb_text_printf(t, "  peak RSS            %.2f GiB (%s%s%s)\n", gib(peak),
                   below_gib(peak) ? a : "", below_gib(peak) ? ", " : "",
                   sb_peak_method_words(f->peak_method, m->hugetlb_uncovered));
    int64_t work = spacrbench_measurement_work_rss_bytes(m);
    sb_format_bytes(a, sizeof a, work);
    sb_format_bytes(b, sizeof b, f->baseline_rss_bytes);
    /* Not measured (-1) shows 0.00 like the peak, never "-0.00". */
    sb_text_printf(t, "  attributable to it  %.2f GiB (%s%sabove a baseline of %s)\n",
                   gib(work > 0 ? work : 0), below_gib(work) ? a : "", below_gib(work) ? " " : "",
                   b);
    if (f->peak_vram_bytes < 0) {
        /* spaCR's words when nothing says more; the library's reason otherwise. */
        const char *why = m->vram_reason && m->vram_reason[0] ? m->vram_reason : SB_WORDS_NO_CUDA;
        size_t words = strlen(SB_WORDS_NO_CUDA);
        if (strncmp(why, SB_WORDS_NO_CUDA ": ", words + 2) == 0) /* the runner found no device */
            sb_text_printf(t, "  peak VRAM           not measured (%s); %s\n", SB_WORDS_NO_CUDA,
                           why + words + 2);
        else
            sb_text_printf(t, "  peak VRAM           not measured (%s)\n", why);
    } else {
        sb_format_bytes(a, sizeof a, f->peak_vram_bytes);
        sb_text_printf(t, "  peak VRAM           %.2f GiB (%s%s%s)\n", gib(f->peak_vram_bytes),
                       below_gib(f->peak_vram_bytes) ? a : "",
                       below_gib(f->peak_vram_bytes) ? ", " : "",
                       f->vram_source == SPACRBENCH_SOURCE_TORCH  ? "torch max_memory_reserved"
                       : f->vram_source == SPACRBENCH_SOURCE_NVML ? "NVML"
                                                                  : "supplied");
    }
    for (size_t i = 0; i < m->gpu_count; i++) {
        const spacrbench_gpu_info *g = &m->gpus[i];
        sb_format_bytes(a, sizeof a, g->total_bytes);
        sb_format_bytes(b, sizeof b, g->free_bytes);
        sb_text_printf(t, "  GPU %-15lld %s, %s total, %s free\n", (long long)g->index, g->name, a,
                       b);
    }
}

/* A spaCR-style Recommendation(workers, reason) carries no evidence: its
 * report has the worker count and the reason, not "memory available 0 B ()". */
static int has_evidence(const spacrbench_recommendation *r)
{
    return r->cores || r->available_bytes || r->memory_where[0] || r->cores_where[0] ||
           r->free_vram_bytes > 0;
}

static void recommendation_lines(sb_text *t, const spacrbench_recommendation *r, const char *reason)
{
    char a[32], b[32];
    if (!has_evidence(r)) {
        sb_text_printf(t, "  recommended workers %lld\n", (long long)r->workers);
        sb_text_printf(t, "    because           %s\n", reason);
        return;
    }
    sb_format_bytes(a, sizeof a, r->available_bytes);
    sb_format_bytes(b, sizeof b, r->reserve_bytes);
    sb_text_printf(t, "  memory available    %s (%s), reserve %s%s\n", a,
                   r->memory_where[0] ? r->memory_where : "not given", b,
                   r->reserve_rule == SPACRBENCH_RESERVE_LIMIT ? " (10% of the cgroup limit)" : "");
    sb_text_printf(t, "  usable cores        %lld (%s)\n", (long long)r->cores,
                   r->cores_where[0] ? r->cores_where : "not given");
    if (r->cpu_parallelism >= 0)
        sb_text_printf(t,
                       "  cores per worker    %lld (the work keeps %.2f cores busy; %lld "
                       "thread(s) per worker%s)\n",
                       (long long)r->cores_per_worker, r->cpu_parallelism,
                       (long long)r->threads_per_worker,
                       r->threads_per_worker < r->cores_per_worker ? ": all the usable cores" : "");
    if (r->start_method != SPACRBENCH_START_FORK) {
        sb_format_bytes(a, sizeof a, r->baseline_bytes);
        sb_text_printf(t, "  start method        %s (each worker also loads the %s baseline)\n",
                       spacrbench_start_method_name(r->start_method), a);
    }
    if (r->vram_workers >= 0) {
        sb_format_bytes(a, sizeof a, r->free_vram_bytes);
        sb_format_bytes(b, sizeof b, r->vram_reserve_bytes);
        sb_text_printf(t, "  VRAM available      %s free, reserve %s, fits %lld worker(s)\n", a, b,
                       (long long)r->vram_workers);
    }
    sb_text_printf(t, "  recommended workers %lld\n", (long long)r->workers);
    sb_text_printf(t, "    because           %s\n", reason);
}

int spacrbench_format_report(const spacrbench_measurement *m, const spacrbench_recommendation *rec,
                             char *buf, size_t cap)
{
    return spacrbench_format_report_with(m, rec, NULL, buf, cap);
}

int spacrbench_format_report_with(const spacrbench_measurement *m,
                                  const spacrbench_recommendation *rec,
                                  const spacrbench_report_options *opts, char *buf, size_t cap)
{
    sb_clear_error();
    spacrbench_report_options o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    if (opts) {
        int rc = sb_struct_in(&o, sizeof o, opts, "spacrbench_report_options");
        if (rc)
            return rc;
    }
    if (!m)
        return sb_fail(SPACRBENCH_EINVAL, "measurement must not be NULL");
    if (!buf && cap)
        return sb_fail(SPACRBENCH_EINVAL, "buf is NULL but cap is %zu", cap);
    spacrbench_recommendation r;
    if (rec) {
        int rc = sb_recommendation_in(&r, rec);
        if (rc)
            return rc;
    }
    sb_text t = {0};
    sb_text_printf(&t, "spaCR benchmark\n");
    measurement_lines(&t, m, &o);
    if (rec)
        recommendation_lines(&t, &r, o.reason ? o.reason : r.reason);
    for (size_t i = 0; i < m->note_count; i++)
        sb_text_printf(&t, "  note                %s\n", m->notes[i]);
    if (!t.failed && t.len > 0 && t.data[t.len - 1] == '\n')
        t.data[--t.len] = '\0';
    return sb_text_deliver(&t, buf, cap);
}
