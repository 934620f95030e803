/* What a record holds beyond spacrbench_item_record: the two memory
 * figures of an item run as its own processes (its cgroup's charge, its
 * tree's RSS peak) and the timed runs it summarises (`run --runs N`). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "records.h"
#include "util.h"

static const sb_item_extra *sb_measurement_extra(const spacrbench_measurement *m, size_t index)
{
    return m && m->extras && index < m->extra_cap && index < m->record_count ? &m->extras[index]
                                                                             : NULL;
}

void sb_measurement_free_extras(spacrbench_measurement *m)
{
    for (size_t i = 0; m->extras && i < m->extra_cap; i++)
        free(m->extras[i].runs);
    free(m->extras);
    m->extras = NULL;
    m->extra_cap = 0;
}

/* Record index's extras into *out, made (all "none") on first use. */
static int extra_of(spacrbench_measurement *m, size_t index, sb_item_extra **out)
{
    if (index >= m->record_count)
        return sb_fail(SPACRBENCH_ERANGE, "record %zu of %zu", index, m->record_count);
    size_t had = m->extra_cap;
    if (sb_grow(&m->extras, &m->extra_cap, index + 1, sizeof *m->extras))
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory for the records' figures");
    for (size_t i = had; i < m->extra_cap; i++)
        m->extras[i] = (sb_item_extra){-1, -1, NULL, 0};
    *out = &m->extras[index];
    return SPACRBENCH_OK;
}

int sb_measurement_has_memory_figures(const spacrbench_measurement *m)
{
    for (size_t i = 0; m && m->extras && i < m->extra_cap && i < m->record_count; i++)
        if (m->extras[i].charge >= 0 || m->extras[i].tree_rss >= 0)
            return 1;
    return 0;
}

int sb_measurement_has_runs(const spacrbench_measurement *m)
{
    for (size_t i = 0; m && m->extras && i < m->extra_cap && i < m->record_count; i++)
        if (m->extras[i].run_count)
            return 1;
    return 0;
}

int spacrbench_measurement_set_item_memory(spacrbench_measurement *m, size_t index,
                                           const spacrbench_memory_figures *f)
{
    SB_REFUSE(!m || !f, "measurement and figures must not be NULL");
    spacrbench_memory_figures in = {sizeof in, -1, -1};
    int rc = sb_struct_in(&in, sizeof in, f, "spacrbench_memory_figures");
    if (rc)
        return rc;
    if (in.cgroup_charge_bytes < -1 || in.tree_rss_peak_bytes < -1)
        return sb_fail(SPACRBENCH_EINVAL,
                       "spacrbench_memory_figures: sizes must be >= 0 or -1 (not measured)");
    sb_item_extra *e;
    if ((rc = extra_of(m, index, &e)) != 0)
        return rc;
    e->charge = in.cgroup_charge_bytes;
    e->tree_rss = in.tree_rss_peak_bytes;
    return SPACRBENCH_OK;
}

int spacrbench_measurement_item_memory(const spacrbench_measurement *m, size_t index,
                                       spacrbench_memory_figures *out)
{
    SB_REFUSE(!m || !out, "measurement and out must not be NULL");
    if (index >= m->record_count)
        return sb_fail(SPACRBENCH_ERANGE, "record %zu of %zu", index, m->record_count);
    const sb_item_extra *e = sb_measurement_extra(m, index);
    spacrbench_memory_figures f = {sizeof f, e ? e->charge : -1, e ? e->tree_rss : -1};
    return sb_struct_out(out, &f, sizeof f, "spacrbench_memory_figures");
}

int spacrbench_measurement_memory(const spacrbench_measurement *m, spacrbench_memory_figures *out)
{
    SB_REFUSE(!m || !out, "measurement and out must not be NULL");
    spacrbench_memory_figures f = {sizeof f, -1, -1};
    for (size_t i = 0; i < m->record_count; i++) {
        const sb_item_extra *e = sb_measurement_extra(m, i);
        if (e) {
            f.cgroup_charge_bytes = max64(f.cgroup_charge_bytes, e->charge);
            f.tree_rss_peak_bytes = max64(f.tree_rss_peak_bytes, e->tree_rss);
        }
    }
    return sb_struct_out(out, &f, sizeof f, "spacrbench_memory_figures");
}

/* Records first..first+count, or their details, into elements of size
 * bytes (the caller's struct version): cut to it, or zero-filled past ours. */
static int copy_out(const spacrbench_measurement *m, size_t first, size_t count, void *out,
                    size_t size, int details)
{
    SB_REFUSE(!m || (!out && count), "measurement and out must not be NULL");
    if (size < sizeof(size_t))
        return sb_fail(SPACRBENCH_EINVAL, "%s %zu is too small",
                       details ? "detail_size" : "record_size", size);
    if (first > m->record_count || count > m->record_count - first)
        return sb_fail(SPACRBENCH_ERANGE, "records %zu..%zu of %zu", first, first + count,
                       m->record_count);
    unsigned char *dst = out;
    for (size_t i = first; i < first + count; i++, dst += size) {
        union {
            spacrbench_item_record r;
            spacrbench_item_details d;
        } u;
        size_t full = details ? sizeof u.d : sizeof u.r;
        const sb_item_extra *e = sb_measurement_extra(m, i);
        if (details)
            u.d = (spacrbench_item_details){size, spacrbench_measurement_item_cpu_seconds(m, i),
                                            e ? e->charge : -1, e ? e->tree_rss : -1,
                                            e ? (int64_t)e->run_count : 0};
        else
            u.r = m->records[i], u.r.size = size;
        memcpy(dst, &u, size < full ? size : full);
        if (size > full)
            memset(dst + full, 0, size - full);
    }
    return SPACRBENCH_OK;
}

int spacrbench_measurement_copy_records(const spacrbench_measurement *m, size_t first, size_t count,
                                        void *out, size_t record_size)
{
    return copy_out(m, first, count, out, record_size, 0);
}

int spacrbench_measurement_copy_item_details(const spacrbench_measurement *m, size_t first,
                                             size_t count, void *out, size_t detail_size)
{
    return copy_out(m, first, count, out, detail_size, 1);
}

/* count runs of run_size bytes from the caller, checked, into a new array. */
static int runs_in(const void *runs, size_t count, size_t run_size, spacrbench_item_run **out)
{
    *out = NULL;
    if (!runs && count)
        return sb_fail(SPACRBENCH_EINVAL, "runs must not be NULL");
    if (count > SPACRBENCH_RUNS_MAX)
        return sb_fail(SPACRBENCH_EINVAL, "%zu runs: at most %d", count, (int)SPACRBENCH_RUNS_MAX);
    if (run_size < sizeof(size_t) || run_size > SIZE_MAX / (count ? count : 1))
        return sb_fail(SPACRBENCH_EINVAL, "run_size %zu does not fit %zu runs", run_size, count);
    if (!count)
        return SPACRBENCH_OK;
    spacrbench_item_run *a = malloc(count * sizeof *a);
    if (!a)
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory for %zu runs", count);
    const unsigned char *src = runs;
    for (size_t i = 0; i < count; i++, src += run_size) {
        spacrbench_item_run r = {sizeof r, 0.0, NAN, -1, -1, -1, -1};
        size_t own;
        memcpy(&own, src, sizeof own);
        int rc = own != run_size
                     ? sb_fail(SPACRBENCH_EINVAL, "run %zu: size %zu, expected run_size %zu", i,
                               own, run_size)
                     : sb_struct_in(&r, sizeof r, src, "spacrbench_item_run");
        if (!rc && (!isfinite(r.seconds) || r.seconds < 0 ||
                    (!isnan(r.cpu_seconds) && (!isfinite(r.cpu_seconds) || r.cpu_seconds < 0)) ||
                    r.peak_rss_bytes < -1 || r.peak_vram_bytes < -1 || r.cgroup_charge_bytes < -1 ||
                    r.tree_rss_peak_bytes < -1))
            rc = sb_fail(SPACRBENCH_EINVAL,
                         "run %zu: seconds must be finite >= 0, cpu_seconds NaN or finite >= 0, "
                         "sizes >= 0 or -1 (not measured)",
                         i);
        if (rc) {
            free(a);
            return rc;
        }
        a[i] = r;
    }
    *out = a;
    return SPACRBENCH_OK;
}

/* Record index keeps the count runs of a (taken over, freed on failure). */
static int keep_runs(spacrbench_measurement *m, size_t index, spacrbench_item_run *a, size_t count)
{
    sb_item_extra *e;
    int rc = extra_of(m, index, &e);
    if (rc) {
        free(a);
        return rc;
    }
    free(e->runs);
    e->runs = a;
    e->run_count = count;
    return SPACRBENCH_OK;
}

int spacrbench_measurement_set_item_runs(spacrbench_measurement *m, size_t index, const void *runs,
                                         size_t count, size_t run_size)
{
    SB_REFUSE(!m, "measurement must not be NULL");
    spacrbench_item_run *a;
    int rc = runs_in(runs, count, run_size, &a);
    return rc ? rc : keep_runs(m, index, a, count);
}

int spacrbench_measurement_add_item_runs(spacrbench_measurement *m, const void *runs, size_t count,
                                         size_t run_size)
{
    SB_REFUSE(!m, "measurement must not be NULL");
    if (!count)
        return sb_fail(SPACRBENCH_EINVAL, "an item needs at least one run");
    spacrbench_item_run *a;
    int rc = runs_in(runs, count, run_size, &a);
    if (rc)
        return rc;
    spacrbench_item_figures it;
    spacrbench_item_figures_init(&it, sizeof it);
    spacrbench_memory_figures mem = {sizeof mem, -1, -1};
    double seconds = 0, cpu = 0;
    for (size_t i = 0; i < count; i++) {
        seconds += a[i].seconds;
        cpu += a[i].cpu_seconds; /* NaN stays NaN */
        it.peak_rss_bytes = max64(it.peak_rss_bytes, a[i].peak_rss_bytes);
        it.peak_vram_bytes = max64(it.peak_vram_bytes, a[i].peak_vram_bytes);
        mem.cgroup_charge_bytes = max64(mem.cgroup_charge_bytes, a[i].cgroup_charge_bytes);
        mem.tree_rss_peak_bytes = max64(mem.tree_rss_peak_bytes, a[i].tree_rss_peak_bytes);
    }
    it.seconds = seconds / (double)count;
    it.cpu_seconds = cpu / (double)count;
    size_t before = m->record_count;
    if ((rc = spacrbench_measurement_add_item(m, &it)) != 0) {
        free(a);
        return rc;
    }
    if (m->record_count == before) { /* the plan keeps no records */
        free(a);
        return SPACRBENCH_OK;
    }
    if ((rc = spacrbench_measurement_set_item_memory(m, before, &mem)) != 0 || count == 1) {
        free(a); /* one run is the record itself */
        return rc;
    }
    return keep_runs(m, before, a, count);
}

size_t spacrbench_measurement_item_run_count(const spacrbench_measurement *m, size_t index)
{
    const sb_item_extra *e = sb_measurement_extra(m, index);
    return e ? e->run_count : 0;
}

int spacrbench_measurement_item_run(const spacrbench_measurement *m, size_t index, size_t run,
                                    spacrbench_item_run *out)
{
    SB_REFUSE(!m || !out, "measurement and out must not be NULL");
    size_t n = spacrbench_measurement_item_run_count(m, index);
    if (run >= n)
        return sb_fail(SPACRBENCH_ERANGE, "run %zu of %zu of record %zu", run, n, index);
    return sb_struct_out(out, &m->extras[index].runs[run], sizeof(spacrbench_item_run),
                         "spacrbench_item_run");
}

/* Welford's running mean and variance, and the range. */
typedef struct spread {
    int64_t n;
    double mean, m2, min, max;
} spread;

static void spread_add(spread *s, double x)
{
    s->n++;
    double d = x - s->mean;
    s->mean += d / (double)s->n;
    s->m2 += d * (x - s->mean);
    s->min = s->n == 1 || x < s->min ? x : s->min;
    s->max = s->n == 1 || x > s->max ? x : s->max;
}

static void spread_of_record(const spacrbench_measurement *m, size_t i, spread *s)
{
    const sb_item_extra *e = sb_measurement_extra(m, i);
    if (e && e->run_count)
        for (size_t k = 0; k < e->run_count; k++)
            spread_add(s, e->runs[k].seconds);
    else
        spread_add(s, m->records[i].seconds);
}

static int stats_out(const spread *s, spacrbench_run_stats *out)
{
    spacrbench_run_stats st = {sizeof st, s->n, NAN, NAN, NAN, NAN, 0, 0};
    if (s->n) {
        st.mean = s->mean;
        st.min = s->min;
        st.max = s->max;
    }
    if (s->n >= 2) {
        st.stddev = sqrt(s->m2 / (double)(s->n - 1));
        st.spread = st.stddev * 100.0 > st.mean * (double)SPACRBENCH_RUN_SPREAD_PERCENT;
    }
    return sb_struct_out(out, &st, sizeof st, "spacrbench_run_stats");
}

int spacrbench_measurement_item_run_stats(const spacrbench_measurement *m, size_t index,
                                          spacrbench_run_stats *out)
{
    SB_REFUSE(!m || !out, "measurement and out must not be NULL");
    if (index >= m->record_count)
        return sb_fail(SPACRBENCH_ERANGE, "record %zu of %zu", index, m->record_count);
    spread s = {0, 0, 0, 0, 0};
    spread_of_record(m, index, &s);
    return stats_out(&s, out);
}

int spacrbench_measurement_run_stats(const spacrbench_measurement *m, spacrbench_run_stats *out)
{
    SB_REFUSE(!m || !out, "measurement and out must not be NULL");
    spread s = {0, 0, 0, 0, 0};
    for (size_t i = 0; i < m->record_count; i++)
        if (!m->records[i].is_warmup)
            spread_of_record(m, i, &s);
    return stats_out(&s, out);
}

/* Stats as the JSON shows them: a spread only where runs were kept. */
static void shown_stats(spacrbench_run_stats *st, int kept)
{
    if (kept)
        return;
    st->stddev = st->min = st->max = NAN;
    st->spread = 0;
}

void sb_measurement_item_more(const spacrbench_measurement *m, size_t i, const char *label,
                              sb_item_more *out)
{
    const sb_item_extra *e = sb_measurement_extra(m, i);
    *out = (sb_item_more){
        label, spacrbench_measurement_item_cpu_seconds(m, i), e ? e->charge : -1,
        e ? e->tree_rss : -1,
        (spacrbench_run_stats){sizeof(spacrbench_run_stats), 1, NAN, NAN, NAN, NAN, 0, 0}};
    if (i < m->record_count && spacrbench_measurement_item_run_stats(m, i, &out->runs) == 0)
        shown_stats(&out->runs, e && e->run_count);
}

void sb_measurement_more_of(const spacrbench_measurement *m, sb_measurement_more *out)
{
    spacrbench_memory_figures mem = {sizeof mem, -1, -1};
    spacrbench_measurement_memory(m, &mem);
    *out = (sb_measurement_more){spacrbench_measurement_items_per_second(m),
                                 spacrbench_measurement_per_item_seconds(m),
                                 spacrbench_measurement_work_rss_bytes(m),
                                 m->vram_reason,
                                 mem.cgroup_charge_bytes,
                                 mem.tree_rss_peak_bytes,
                                 {sizeof(spacrbench_run_stats), 0, NAN, NAN, NAN, NAN, 0, 0}};
    spacrbench_measurement_run_stats(m, &out->runs);
    shown_stats(&out->runs, sb_measurement_has_runs(m));
}

/* The slowest timed item, or the mean without records: the hand-off's --time. */
SPACRBENCH_EXTERN double
spacrbench_measurement_slowest_item_seconds(const spacrbench_measurement *m)
{
    spacrbench_figures f = {.size = sizeof f};
    if (!m || spacrbench_measurement_figures(m, &f) < 0 || f.items < 1)
        return NAN;
    double slowest = -1;
    for (int64_t i = 0; i < f.record_count; i++) {
        spacrbench_item_record r = {.size = sizeof r};
        if (spacrbench_measurement_record(m, (size_t)i, &r) == 0 && !r.is_warmup &&
            r.seconds > slowest)
            slowest = r.seconds;
    }
    return slowest >= 0 ? slowest : f.seconds / (double)f.items;
}
