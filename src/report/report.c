/* The report: a few lines a user can paste into an issue. Labels and the
 * first lines keep spaCR's wording, since users and tools read them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os.h"
#include "report.h"
#include "util.h"

const char *sb_peak_method_words(int method, int hugetlb_uncovered)
{
    if (hugetlb_uncovered &&
        (method == SPACRBENCH_PEAK_HWM_RESET || method == SPACRBENCH_PEAK_HWM_WINDOW))
        return "exact for ordinary pages; hugetlb pages not covered, see the notes";
    /* `spacrbench run`: the cgroup does not charge hugetlb pages; the tree's
     * sampled HugetlbPages are added, between samples nothing is. */
    if (hugetlb_uncovered && method == SPACRBENCH_PEAK_CGROUP)
        return "cgroup peak of the process tree, exact for ordinary pages; hugetlb pages "
               "sampled, not covered between samples, see the notes";
    if (hugetlb_uncovered && method == SPACRBENCH_PEAK_CHILD_RUSAGE)
        return "child's high-water mark; hugetlb pages sampled, not covered between samples, "
               "see the notes";
    switch (method) {
    case SPACRBENCH_PEAK_HWM_RESET:
    case SPACRBENCH_PEAK_HWM_WINDOW:
        return SB_WORDS_EXACT_PEAK;
    case SPACRBENCH_PEAK_SAMPLED:
        return "sampled";
    case SPACRBENCH_PEAK_CGROUP:
        return "exact, cgroup peak of the process tree";
    case SPACRBENCH_PEAK_CHILD_RUSAGE:
        return "child's high-water mark";
    case SPACRBENCH_PEAK_SUPPLIED:
        return "supplied";
    default:
        return "not measured";
    }
}

const char *spacrbench_measurement_peak_words(const spacrbench_measurement *m)
{
    if (!m)
        return "not measured";
    return sb_peak_method_words(m->fig.peak_method, m->hugetlb_uncovered);
}

/* Not "exact": for one process it is the kernel's mark (ru_maxrss, GNU
 * time's %M), for a tree a sum of marks sampled while its processes were
 * alive together (mprof's --include-children; shared pages in each), where
 * GNU time's %M is its largest process's alone. */
const char *sb_tree_rss_words(int hugetlb_uncovered)
{
    return hugetlb_uncovered ? "the process tree's summed RSS; hugetlb pages sampled, not "
                               "covered between samples"
                             : "the process tree's summed RSS";
}

const char *sb_charge_words(int hugetlb_uncovered)
{
    return hugetlb_uncovered ? "exact for ordinary pages; hugetlb pages sampled, not covered "
                               "between samples, see the notes"
                             : "exact, as --mem counts it";
}

/* The library's notes on method, shown only in the verbose report (the
 * JSON and the Markdown keep every note); any other note (a stop, an OOM
 * kill, a caller's) is shown always. Matched by their first words, so a
 * measurement rebuilt from JSON reads the same, and a new note not listed
 * is never lost, only too visible. */
static const char *const k_detail[] = {
    /* the in-process runner (core/) */
    "the warm-up item(s)' memory counts toward the peak RSS",
    "warm-up of ",
    "peak RSS is exact: ",
    "side effect: resetting VmHWM",
    "peak VRAM is this process's GPU memory",
    "VRAM not measured: ",
    SB_WORDS_NO_CUDA ", so VRAM was not measured", /* the VRAM line says it */
    /* `spacrbench run` */
    "peak RSS: the larger of wait4's",
    "peak memory = the larger of wait4's", /* the report's "no cgroup: sampled" */
    "memory charged: each item's whole process tree",
    "cgroup v1 memory: groups in",
    "cgroup v2: groups in",
    "peak VRAM of each command's whole process tree",
    "each item ran as its own process, serially",
    "each measured item ran ",
    "timeline downsampled: ",
    /* the demo */
    "workload: ",
};

static int sb_note_is_detail(const char *note)
{
    if (!note)
        return 0;
    for (size_t i = 0; i < sizeof k_detail / sizeof *k_detail; i++)
        if (strncmp(note, k_detail[i], strlen(k_detail[i])) == 0)
            return 1;
    return 0;
}

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

/* A report line wrapped to 79 columns under the value column, and its line
 * break. Its first keep bytes (the label and spaCR's value) stay whole, so
 * the first line is spaCR's line or starts with it. */
static void report_line(sb_text *t, size_t keep, const char *fmt, ...) SB_TEXT_PRINTF(3, 4);
static void report_line(sb_text *t, size_t keep, const char *fmt, ...)
{
    sb_text line = {0};
    va_list ap;
    va_start(ap, fmt);
    sb_text_vprintf(&line, fmt, ap);
    va_end(ap);
    if (line.failed)
        t->failed = 1;
    else
        sb_text_wrapped(t, line.data ? line.data : "", keep, SB_WRAP_WIDTH, SB_WRAP_INDENT);
    sb_text_printf(t, "\n");
    sb_text_free(&line);
}

/* Where a head line's own detail starts, after spaCR's value. */
static size_t value_end(const char *value) { return SB_WRAP_INDENT + strcspn(value, "(;"); }

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
 * as v, positional for exponents -4..15 (".0" when whole), "nan", "inf". */
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

/* With --runs: the range of every timed run, as --brief gives it (a "±"
 * across different items would read as run-to-run noise; --verbose's item
 * lines give each item's own). */
static void runs_line(sb_text *t, const spacrbench_measurement *m)
{
    spacrbench_run_stats st = {.size = sizeof st};
    if (!sb_measurement_has_runs(m) || spacrbench_measurement_run_stats(m, &st) != 0 || !st.runs)
        return;
    report_line(t, SB_WRAP_INDENT, "  runs                %lld timed, %.3f-%.3f s (mean %.3f s)",
                (long long)st.runs, st.min, st.max, st.mean);
}

/* spaCR's peak RSS line (the process tree's summed RSS where the run
 * measured one, as mprof's --include-children, else the peak), then
 * (`spacrbench run`, verbose) the charge, then spaCR's footprint line,
 * which names itself as the advice's figure. */
static void memory_lines(sb_text *t, const spacrbench_measurement *m, int verbose, int advised)
{
    char a[32], b[32], value[32];
    const spacrbench_figures *f = &m->fig;
    spacrbench_memory_figures mem = {sizeof mem, -1, -1};
    spacrbench_measurement_memory(m, &mem);
    int tree = mem.tree_rss_peak_bytes >= 0, charged = mem.cgroup_charge_bytes >= 0;
    /* Nothing measured (the first item failed): said so, not "0 B". */
    if (!tree && (f->peak_method == SPACRBENCH_PEAK_NONE || f->peak_rss_bytes < 0)) {
        sb_text_printf(t, "  peak RSS            not measured\n"
                          "  attributable to it  not measured\n");
        return;
    }
    int64_t peak = tree ? mem.tree_rss_peak_bytes : f->peak_rss_bytes > 0 ? f->peak_rss_bytes : 0;
    sb_format_bytes(a, sizeof a, peak);
    snprintf(value, sizeof value, "%.2f GiB", gib(peak));
    report_line(t, value_end(value), "  peak RSS            %s (%s%s%s)", value,
                below_gib(peak) ? a : "", below_gib(peak) ? ", " : "",
                tree ? sb_tree_rss_words(m->hugetlb_uncovered)
                     : sb_peak_method_words(f->peak_method, m->hugetlb_uncovered));
    if (charged && verbose) {
        int64_t c = mem.cgroup_charge_bytes;
        sb_format_bytes(a, sizeof a, c);
        snprintf(value, sizeof value, "%.2f GiB", gib(c));
        report_line(t, value_end(value), "  memory charged      %s (%s%s%s)", value,
                    below_gib(c) ? a : "", below_gib(c) ? ", " : "",
                    sb_charge_words(m->hugetlb_uncovered));
    }
    int64_t work = spacrbench_measurement_work_rss_bytes(m);
    snprintf(value, sizeof value, "%.2f GiB", gib(work > 0 ? work : 0));
    int of_charge = charged && f->peak_method == SPACRBENCH_PEAK_CGROUP;
    sb_text d = {0};
    if (below_gib(work)) {
        sb_format_bytes(a, sizeof a, work);
        sb_text_printf(&d, "%s", a);
    }
    if (of_charge)
        sb_text_printf(&d, "%scharged", d.len ? " " : "");
    else if (tree && !charged) /* `run` without a cgroup: --verbose says how */
        sb_text_printf(&d, "%sno cgroup", d.len ? ", " : "");
    /* A run's items have no baseline of their own: "0 B" says nothing. */
    if (!tree || f->baseline_rss_bytes > 0) {
        sb_format_bytes(b, sizeof b, f->baseline_rss_bytes);
        sb_text_printf(&d, "%sabove a baseline of %s", d.len ? " " : "", b);
    }
    /* The one memory line that says which figure the advice divides by
     * (the charge is also what a job's memory limit, --mem, counts). */
    if (advised)
        sb_text_printf(&d, "; %s",
                       of_charge ? "the advice and --mem use it" : "the advice uses it");
    report_line(t, value_end(value), "  attributable to it  %s (%s)", value, d.data ? d.data : "");
    if (d.failed)
        t->failed = 1;
    sb_text_free(&d);
}

/* Whether a note says text. */
static int in_a_note(const spacrbench_measurement *m, const char *text)
{
    for (size_t i = 0; i < m->note_count; i++)
        if (strstr(m->notes[i], text))
            return 1;
    return 0;
}

static void measurement_lines(sb_text *t, const spacrbench_measurement *m,
                              const spacrbench_report_options *o, int verbose, int advised)
{
    char a[32], b[32];
    const spacrbench_figures *f = &m->fig;
    sb_text_printf(t, "  items measured      %lld", (long long)f->items);
    if (f->warmup_items > 0)
        sb_text_printf(t, " (+%lld warm-up of %.2f s, not counted)", (long long)f->warmup_items,
                       f->warmup_seconds);
    throughput_line(t, m, o);
    double median, max;
    if (item_time_stats(m, &median, &max) == 0)
        sb_text_printf(t, "  per item            median %.3f s, max %.3f s\n", median, max);
    runs_line(t, m);
    if (!isnan(f->cpu_seconds) && f->seconds > 0)
        sb_text_printf(t, "  CPU time            %.2f s user+sys (%.2f cores busy)\n",
                       f->cpu_seconds, f->cpu_seconds / f->seconds);
    /* Sizes: spaCR's "x.xx GiB" first, the exact size (below 1 GiB) and
     * where the figure came from after it. */
    memory_lines(t, m, verbose, advised);
    if (f->peak_vram_bytes < 0) {
        /* spaCR's words when nothing says more; the library's reason otherwise. */
        const char *why = m->vram_reason && m->vram_reason[0] ? m->vram_reason : SB_WORDS_NO_CUDA;
        size_t words = strlen(SB_WORDS_NO_CUDA);
        size_t keep = value_end("not measured");
        /* The short report gives the reason's first words ("no NVIDIA
         * driver"), the verbose one its detail too, unless a note (which
         * it shows) already gives it. */
        size_t short_len = strcspn(why, ":");
        int prefixed = strncmp(why, SB_WORDS_NO_CUDA ": ", words + 2) == 0;
        int detail = verbose && !in_a_note(m, prefixed ? why + words + 2 : why);
        if (prefixed && detail)
            report_line(t, keep + strlen(" (" SB_WORDS_NO_CUDA "); "),
                        "  peak VRAM           not measured (%s); %s", SB_WORDS_NO_CUDA,
                        why + words + 2);
        else
            report_line(t, keep, "  peak VRAM           not measured (%.*s)",
                        detail ? (int)strlen(why) : (int)short_len, why);
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

/* The reason wrapped at 79 columns like every line, its first words (up
 * to the first ':' or ';', "memory-bound", "2 core(s)") whole on the first
 * line where they fit it; the reason itself stays spaCR's sentence. */
static void reason_line(sb_text *t, const char *reason)
{
    size_t head = strcspn(reason, ":;");
    report_line(t, SB_WRAP_INDENT + (head <= SB_WRAP_WIDTH - SB_WRAP_INDENT ? head : 0),
                "    because           %s", reason);
}

/* A spaCR-style Recommendation(workers, reason) carries no evidence: its
 * report has the worker count and the reason, not "memory available 0 B ()". */
static int has_evidence(const spacrbench_recommendation *r)
{
    return r->cores || r->available_bytes || r->memory_where[0] || r->cores_where[0] ||
           r->free_vram_bytes > 0;
}

/* The workers this need allows on common budgets (a laptop, a workstation,
 * a node), each as --available gives one, and where the cores here cap
 * them. Each "8 GiB -> 31" stays on one line: joined by a byte the wrap
 * does not break at (\x01), a space once wrapped. */
static void what_if_line(sb_text *t, const spacrbench_recommendation *r)
{
    static const int64_t gib_budgets[] = {8, 16, 32};
    if (r->per_worker_bytes <= 0 || r->memory_workers < 0 || r->oom_limit_bytes > 0)
        return;
    char need[32];
    sb_format_bytes(need, sizeof need, r->per_worker_bytes);
    sb_text line = {0}, wrapped = {0};
    for (char *c = need; *c; c++)
        *c = *c == ' ' ? '\x01' : *c;
    sb_text_printf(&line, "  what if             %s each:", need);
    int64_t most = 0;
    for (size_t i = 0; i < sizeof gib_budgets / sizeof *gib_budgets; i++) {
        int64_t n = sb_memory_workers_within(r, gib_budgets[i] << 30);
        most = n > most ? n : most;
        sb_text_printf(&line, "%s %lld\x01GiB\x01->\x01%lld", i ? "," : "",
                       (long long)gib_budgets[i], (long long)n);
    }
    if (most > r->core_workers && r->core_workers <= r->maximum)
        sb_text_printf(&line, " (the cores here cap it at %lld)", (long long)r->core_workers);
    else if (most > r->maximum)
        sb_text_printf(&line, " (the maximum caps it at %lld)", (long long)r->maximum);
    if (!line.failed)
        report_line(&wrapped, SB_WRAP_INDENT, "%s", line.data);
    for (size_t i = 0; i < wrapped.len; i++)
        wrapped.data[i] = wrapped.data[i] == '\x01' ? ' ' : wrapped.data[i];
    if (line.failed || wrapped.failed)
        t->failed = 1;
    else
        sb_text_printf(t, "%s", wrapped.data);
    sb_text_free(&line);
    sb_text_free(&wrapped);
}

static void recommendation_lines(sb_text *t, const spacrbench_recommendation *r, const char *reason)
{
    char a[32], b[32];
    if (!has_evidence(r)) {
        sb_text_printf(t, "  recommended workers %lld\n", (long long)r->workers);
        reason_line(t, reason);
        return;
    }
    sb_format_bytes(a, sizeof a, r->available_bytes);
    sb_format_bytes(b, sizeof b, r->reserve_bytes);
    report_line(t, SB_WRAP_INDENT + strlen(a), "  memory available    %s (%s), reserve %s%s", a,
                r->memory_where[0] ? r->memory_where : "not given", b,
                r->reserve_rule == SPACRBENCH_RESERVE_LIMIT ? " (10% of the cgroup limit)" : "");
    report_line(t, SB_WRAP_INDENT, "  usable cores        %lld (%s)", (long long)r->cores,
                r->cores_where[0] ? r->cores_where : "not given");
    if (r->cpu_parallelism >= 0)
        report_line(t, SB_WRAP_INDENT,
                    "  cores per worker    %lld (it keeps %.2f cores busy; %lld "
                    "thread(s) per worker%s)",
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
    reason_line(t, reason);
    what_if_line(t, r);
}

int spacrbench_format_report(const spacrbench_measurement *m, const spacrbench_recommendation *rec,
                             char *buf, size_t cap)
{
    return spacrbench_format_report_with(m, rec, NULL, buf, cap);
}

/* The report, short (the figures, the advice and the notes a user acts
 * on) or verbose (with the notes on how each figure was obtained). */
static int format_report(const spacrbench_measurement *m, const spacrbench_recommendation *rec,
                         const spacrbench_report_options *opts, int verbose, char *buf, size_t cap)
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
    int rc = rec ? sb_recommendation_in(&r, rec) : 0;
    if (rc)
        return rc;
    sb_text t = {0};
    sb_text_printf(&t, "spaCR benchmark\n");
    /* The footprint line names itself as the advice's figure only where the
     * advice divided by exactly it (not a plate's largest, nor + baseline). */
    int advised = rec && has_evidence(&r) && r.per_worker_bytes > 0 &&
                  r.per_worker_bytes == spacrbench_measurement_work_rss_bytes(m);
    measurement_lines(&t, m, &o, verbose, advised);
    if (rec)
        recommendation_lines(&t, &r, o.reason ? o.reason : r.reason);
    /* Each note wrapped under the value column, so a measurement rebuilt
     * from its figures (not knowing whose a note was) reads the same. */
    for (size_t i = 0; i < m->note_count; i++)
        if (verbose || !sb_note_is_detail(m->notes[i]))
            report_line(&t, SB_WRAP_INDENT, "  note                %s", m->notes[i]);
    if (!t.failed && t.len > 0 && t.data[t.len - 1] == '\n')
        t.data[--t.len] = '\0';
    return sb_text_deliver(&t, buf, cap);
}

int spacrbench_format_report_with(const spacrbench_measurement *m,
                                  const spacrbench_recommendation *rec,
                                  const spacrbench_report_options *opts, char *buf, size_t cap)
{
    return format_report(m, rec, opts, 0, buf, cap);
}

int spacrbench_format_report_verbose(const spacrbench_measurement *m,
                                     const spacrbench_recommendation *rec,
                                     const spacrbench_report_options *opts, char *buf, size_t cap)
{
    return format_report(m, rec, opts, 1, buf, cap);
}
