/* Measurement handles: built by the runner or from caller-supplied figures,
 * read through accessors so the layout can grow without an ABI break. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "util.h"

spacrbench_measurement *sb_measurement_new(void)
{
    spacrbench_measurement *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->fig.size = sizeof m->fig;
    m->fig.peak_rss_bytes = SPACRBENCH_NOT_MEASURED;
    m->fig.baseline_rss_bytes = 0;
    m->fig.peak_vram_bytes = SPACRBENCH_NOT_MEASURED;
    m->fig.cpu_seconds = NAN;
    m->fig.stopped_item = -1;
    m->item_peak = m->item_vram = -1;
    return m;
}

static int grow(void *arrayp, size_t *cap, size_t need, size_t elem)
{
    if (sb_grow(arrayp, cap, need, elem) != 0)
        return sb_fail(SPACRBENCH_ENOMEM, "cannot hold %zu entries of %zu bytes", need, elem);
    return SPACRBENCH_OK;
}

int sb_measurement_commit_records(spacrbench_measurement *m, size_t n)
{
    int rc = grow(&m->records, &m->record_cap, n, sizeof *m->records);
    /* A fresh allocation is only address space until written: write it now,
     * before the baseline, so the pages are not counted as the work's. */
    if (rc == 0 && m->record_cap > m->record_count)
        memset(m->records + m->record_count, 0,
               (m->record_cap - m->record_count) * sizeof *m->records);
    return rc;
}

int sb_measurement_vram_reason(spacrbench_measurement *m, const char *reason)
{
    char *copy = NULL;
    if (reason && reason[0] && !(copy = strdup(reason)))
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory copying the VRAM reason");
    free(m->vram_reason);
    m->vram_reason = copy;
    return SPACRBENCH_OK;
}

void sb_measurement_drop_vram(spacrbench_measurement *m)
{
    m->fig.peak_vram_bytes = SPACRBENCH_NOT_MEASURED;
    m->fig.vram_source = SPACRBENCH_SOURCE_UNKNOWN;
    m->item_vram = SPACRBENCH_NOT_MEASURED;
    for (size_t i = 0; i < m->record_count; i++)
        m->records[i].peak_vram_bytes = SPACRBENCH_NOT_MEASURED;
}

int spacrbench_measurement_set_vram_reason(spacrbench_measurement *m, const char *reason)
{
    SB_REFUSE(!m, "measurement must not be NULL");
    return sb_measurement_vram_reason(m, reason);
}

const char *spacrbench_measurement_vram_reason(const spacrbench_measurement *m)
{
    return m && m->vram_reason ? m->vram_reason : "";
}

/* spacr: the note is in spaCR's words and goes after spaCR's others
 * (m->spacr_notes), before spacrbench's, as spaCR listed them. */
static int add_note_text(spacrbench_measurement *m, int spacr, const char *text)
{
    int rc = grow(&m->notes, &m->note_cap, m->note_count + 1, sizeof *m->notes);
    if (rc)
        return rc;
    if (!(m->notes[m->note_count] = strdup(text)))
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory copying a note");
    m->note_count++;
    if (!spacr)
        return SPACRBENCH_OK;
    size_t at = m->spacr_notes < m->note_count ? m->spacr_notes : m->note_count - 1;
    char *note = m->notes[m->note_count - 1];
    memmove(m->notes + at + 1, m->notes + at, (m->note_count - 1 - at) * sizeof *m->notes);
    m->notes[at] = note;
    m->spacr_notes = at + 1;
    return SPACRBENCH_OK;
}

#define NOTEF(m, spacr, fmt)                                                                       \
    char buf[1024];                                                                                \
    va_list ap;                                                                                    \
    va_start(ap, fmt);                                                                             \
    vsnprintf(buf, sizeof buf, fmt, ap);                                                           \
    va_end(ap);                                                                                    \
    return add_note_text(m, spacr, buf)

int sb_measurement_notef(spacrbench_measurement *m, const char *fmt, ...) { NOTEF(m, 0, fmt); }

int sb_measurement_spacr_notef(spacrbench_measurement *m, const char *fmt, ...)
{
    NOTEF(m, 1, fmt);
}

int spacrbench_measurement_create(const spacrbench_figures *figures, spacrbench_measurement **out)
{
    SB_REFUSE(!out, "out must not be NULL");
    *out = NULL;
    if (!figures)
        return sb_fail(SPACRBENCH_EINVAL, "figures must not be NULL");
    spacrbench_measurement *m = sb_measurement_new();
    if (!m)
        return sb_fail(SPACRBENCH_ENOMEM, "cannot allocate a measurement");
    int rc = sb_struct_in(&m->fig, sizeof m->fig, figures, "spacrbench_figures");
    if (rc) {
        spacrbench_measurement_free(m);
        return rc;
    }
    const spacrbench_figures *f = &m->fig;
    const char *bad = NULL;
    /* Counts no run could produce (an int64 item count near its limit) are
     * refused too: sums and rates over them would overflow. */
    const int64_t count_max = INT64_C(1) << 53;
    if (f->items < 0 || f->items > count_max)
        bad = "items must be >= 0 and <= 2^53";
    else if (!isfinite(f->seconds) || f->seconds < 0)
        bad = "seconds must be a finite number >= 0";
    else if (f->peak_rss_bytes < -1 || f->baseline_rss_bytes < 0)
        bad = "peak_rss_bytes must be >= 0 (or -1, not measured) and baseline_rss_bytes >= 0";
    else if (f->peak_vram_bytes < -1)
        bad = "peak_vram_bytes must be >= 0 or -1 (not measured)";
    else if (!isnan(f->cpu_seconds) && (!isfinite(f->cpu_seconds) || f->cpu_seconds < 0))
        bad = "cpu_seconds must be NaN (unknown) or a finite number >= 0";
    else if (f->warmup_items < 0 || f->warmup_items > count_max)
        bad = "warmup_items must be >= 0 and <= 2^53";
    else if (!isfinite(f->warmup_seconds) || f->warmup_seconds < 0)
        bad = "warmup_seconds must be a finite number >= 0";
    else if (f->sample_interval_us < 0)
        bad = "sample_interval_us must be >= 0";
    else if (f->stopped != 0 && f->stopped != 1)
        bad = "stopped must be 0 or 1";
    else if (f->oom_limit_bytes < 0)
        bad = "oom_limit_bytes must be >= 0 (0: no item was OOM-killed)";
    else if (f->stopped_item < -1)
        bad = "stopped_item must be >= 0 or -1 (not stopped)";
    else if (f->peak_method < SPACRBENCH_PEAK_NONE || f->peak_method > SPACRBENCH_PEAK_SUPPLIED)
        bad = "peak_method is not a spacrbench_peak_method";
    else if (f->vram_source < SPACRBENCH_SOURCE_UNKNOWN || f->vram_source > SPACRBENCH_SOURCE_TORCH)
        bad = "vram_source is not a spacrbench_source";
    if (bad) {
        spacrbench_measurement_free(m);
        return sb_fail(SPACRBENCH_EINVAL, "spacrbench_figures: %s", bad);
    }
    if (m->fig.peak_method == SPACRBENCH_PEAK_NONE && f->peak_rss_bytes >= 0)
        m->fig.peak_method = SPACRBENCH_PEAK_SUPPLIED;
    *out = m;
    return SPACRBENCH_OK;
}

int spacrbench_measurement_add_note(spacrbench_measurement *m, const char *note)
{
    SB_REFUSE(!m || !note, "measurement and note must not be NULL");
    return add_note_text(m, 0, note);
}

int spacrbench_measurement_add_record(spacrbench_measurement *m,
                                      const spacrbench_item_record *record)
{
    SB_REFUSE(!m || !record, "measurement and record must not be NULL");
    spacrbench_item_record r = {sizeof r, (int64_t)m->record_count, 0, 0, 0.0, -1, -1};
    int rc = sb_struct_in(&r, sizeof r, record, "spacrbench_item_record");
    if (rc)
        return rc;
    if (!isfinite(r.seconds) || r.seconds < 0 || r.peak_rss_bytes < -1 || r.peak_vram_bytes < -1)
        return sb_fail(SPACRBENCH_EINVAL,
                       "spacrbench_item_record: seconds must be a finite number >= 0 and "
                       "peaks >= -1");
    rc = grow(&m->records, &m->record_cap, m->record_count + 1, sizeof *m->records);
    if (rc)
        return rc;
    m->records[m->record_count++] = r;
    return SPACRBENCH_OK;
}

int spacrbench_measurement_add_gpu(spacrbench_measurement *m, const spacrbench_gpu_info *gpu)
{
    SB_REFUSE(!m || !gpu, "measurement and gpu must not be NULL");
    spacrbench_gpu_info g;
    memset(&g, 0, sizeof g);
    g.size = sizeof g;
    g.index = (int64_t)m->gpu_count;
    g.total_bytes = g.free_bytes = g.process_peak_bytes = -1;
    int rc = sb_struct_in(&g, sizeof g, gpu, "spacrbench_gpu_info");
    if (rc)
        return rc;
    g.name[sizeof g.name - 1] = '\0';
    rc = grow(&m->gpus, &m->gpu_cap, m->gpu_count + 1, sizeof *m->gpus);
    if (rc)
        return rc;
    m->gpus[m->gpu_count++] = g;
    return SPACRBENCH_OK;
}

void spacrbench_measurement_free(spacrbench_measurement *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->note_count; i++)
        free(m->notes[i]);
    free(m->notes);
    for (size_t i = 0; i < m->label_count; i++)
        free(m->labels[i]);
    free(m->labels);
    free(m->records);
    free(m->gpus);
    free(m->vram_reason);
    sb_timeline_free(m->timeline);
    sb_measured_plate_free(m->plate);
    free(m->item_cpu);
    sb_measurement_free_extras(m);
    free(m);
}

int spacrbench_measurement_figures(const spacrbench_measurement *m, spacrbench_figures *out)
{
    SB_REFUSE(!m || !out, "measurement and out must not be NULL");
    spacrbench_figures f = m->fig;
    f.size = sizeof f;
    f.note_count = (int64_t)m->note_count;
    f.record_count = (int64_t)m->record_count;
    f.gpu_count = (int64_t)m->gpu_count;
    return sb_struct_out(out, &f, sizeof f, "spacrbench_figures");
}

const char *spacrbench_measurement_note(const spacrbench_measurement *m, size_t index)
{
    return m && index < m->note_count ? m->notes[index] : NULL;
}

int spacrbench_measurement_record(const spacrbench_measurement *m, size_t index,
                                  spacrbench_item_record *out)
{
    SB_REFUSE(!m || !out, "measurement and out must not be NULL");
    if (index >= m->record_count)
        return sb_fail(SPACRBENCH_ERANGE, "record %zu of %zu", index, m->record_count);
    return sb_struct_out(out, &m->records[index], sizeof m->records[index],
                         "spacrbench_item_record");
}

int spacrbench_measurement_gpu(const spacrbench_measurement *m, size_t index,
                               spacrbench_gpu_info *out)
{
    SB_REFUSE(!m || !out, "measurement and out must not be NULL");
    if (index >= m->gpu_count)
        return sb_fail(SPACRBENCH_ERANGE, "gpu %zu of %zu", index, m->gpu_count);
    return sb_struct_out(out, &m->gpus[index], sizeof m->gpus[index], "spacrbench_gpu_info");
}

double spacrbench_measurement_items_per_second(const spacrbench_measurement *m)
{
    if (!m || !(m->fig.seconds > 0))
        return NAN;
    return (double)m->fig.items / m->fig.seconds;
}

double spacrbench_measurement_per_item_seconds(const spacrbench_measurement *m)
{
    if (!m || m->fig.items <= 0)
        return NAN;
    return m->fig.seconds / (double)m->fig.items;
}

int64_t spacrbench_measurement_work_rss_bytes(const spacrbench_measurement *m)
{
    if (!m || m->fig.peak_rss_bytes < 0)
        return SPACRBENCH_NOT_MEASURED;
    int64_t work = m->fig.peak_rss_bytes - m->fig.baseline_rss_bytes;
    return work > 0 ? work : 0;
}

int spacrbench_measurement_add_records(spacrbench_measurement *m, const void *records, size_t count,
                                       size_t record_size)
{
    SB_REFUSE(!m || (!records && count), "measurement and records must not be NULL");
    if (record_size < sizeof(size_t) || record_size > SIZE_MAX / (count ? count : 1))
        return sb_fail(SPACRBENCH_EINVAL, "record_size %zu does not fit %zu records", record_size,
                       count);
    int rc = grow(&m->records, &m->record_cap, m->record_count + count, sizeof *m->records);
    if (rc)
        return rc;
    const unsigned char *src = records;
    for (size_t i = 0; i < count; i++, src += record_size) {
        spacrbench_item_record r = {sizeof r, (int64_t)(m->record_count + i), 0, 0, 0.0, -1, -1};
        /* Each element carries its own size (the caller's struct version). */
        size_t own;
        memcpy(&own, src, sizeof own);
        if (own != record_size)
            return sb_fail(SPACRBENCH_EINVAL, "record %zu: size %zu, expected record_size %zu", i,
                           own, record_size);
        if ((rc = sb_struct_in(&r, sizeof r, src, "spacrbench_item_record")))
            return rc;
        if (!isfinite(r.seconds) || r.seconds < 0 || r.peak_rss_bytes < -1 ||
            r.peak_vram_bytes < -1)
            return sb_fail(SPACRBENCH_EINVAL,
                           "record %zu: seconds must be a finite number >= 0 and peaks >= -1", i);
        m->records[m->record_count + i] = r;
    }
    m->record_count += count;
    return SPACRBENCH_OK;
}

int spacrbench_measurement_note_hugetlb(spacrbench_measurement *m, int64_t seen_bytes,
                                        double interval_seconds)
{
    SB_REFUSE(!m, "measurement must not be NULL");
    if (seen_bytes < -1 || !(interval_seconds > 0) || interval_seconds > 3600)
        return sb_fail(SPACRBENCH_EINVAL, "seen_bytes must be >= -1 and interval_seconds in "
                                          "(0, 3600]");
#if defined(__linux__)
    int possible = sb_hugetlb_pages_possible() > 0;
#else
    int possible = 0; /* hugetlb pages are Linux's */
#endif
    if (m->hugetlb_uncovered || (seen_bytes <= 0 && !possible))
        return SPACRBENCH_OK; /* said once; nothing to say where none can be mapped */
    m->hugetlb_uncovered = 1;
    char seen[32] = "none";
    if (seen_bytes > 0)
        sb_format_bytes(seen, sizeof seen, seen_bytes);
    return sb_measurement_notef(m,
                                "hugetlb pages (MAP_HUGETLB) are in neither RSS, VmHWM nor a "
                                "memory cgroup's charge, and this system has some to hand out: "
                                "the peak adds the largest HugetlbPages of the process tree "
                                "sampled every %g ms (%s); pages mapped and freed between "
                                "samples are not covered, so the peak is not exact",
                                interval_seconds * 1e3, seen);
}
