/* Measurement handles: built by the runner or from caller-supplied figures,
 * read through accessors so the layout can grow without an ABI break. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measurement.h"

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
    return m;
}

static int grow(void **data, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return SPACRBENCH_OK;
    /* A count no allocation could hold (a caller's n_items of SIZE_MAX,
     * say) must fail, not wrap around to a small buffer. */
    if (need > SIZE_MAX / 2 / elem)
        return sb_fail(SPACRBENCH_ENOMEM, "cannot hold %zu entries of %zu bytes", need, elem);
    size_t cap2 = *cap ? *cap : 4;
    while (cap2 < need)
        cap2 *= 2;
    void *grown = realloc(*data, cap2 * elem);
    if (!grown)
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory growing a measurement");
    *data = grown;
    *cap = cap2;
    return SPACRBENCH_OK;
}

int sb_measurement_reserve_records(spacrbench_measurement *m, size_t n)
{
    return grow((void **)&m->records, &m->record_cap, n, sizeof *m->records);
}

static int add_note_text(spacrbench_measurement *m, const char *text)
{
    int rc = grow((void **)&m->notes, &m->note_cap, m->note_count + 1, sizeof *m->notes);
    if (rc)
        return rc;
    size_t len = strlen(text);
    char *copy = malloc(len + 1);
    if (!copy)
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory copying a note");
    memcpy(copy, text, len + 1);
    m->notes[m->note_count++] = copy;
    return SPACRBENCH_OK;
}

int sb_measurement_notef(spacrbench_measurement *m, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return add_note_text(m, buf);
}

int spacrbench_measurement_create(const spacrbench_figures *figures,
                                  spacrbench_measurement **out)
{
    sb_clear_error();
    if (!out)
        return sb_fail(SPACRBENCH_EINVAL, "out must not be NULL");
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
    if (f->items < 0)
        bad = "items must be >= 0";
    else if (isnan(f->seconds) || f->seconds < 0)
        bad = "seconds must be a number >= 0";
    else if (f->peak_rss_bytes < -1 || f->baseline_rss_bytes < 0)
        bad = "peak_rss_bytes must be >= 0 (or -1, not measured) and baseline_rss_bytes >= 0";
    else if (f->peak_vram_bytes < -1)
        bad = "peak_vram_bytes must be >= 0 or -1 (not measured)";
    else if (f->warmup_items < 0)
        bad = "warmup_items must be >= 0";
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
    sb_clear_error();
    if (!m || !note)
        return sb_fail(SPACRBENCH_EINVAL, "measurement and note must not be NULL");
    return add_note_text(m, note);
}

int spacrbench_measurement_add_record(spacrbench_measurement *m,
                                      const spacrbench_item_record *record)
{
    sb_clear_error();
    if (!m || !record)
        return sb_fail(SPACRBENCH_EINVAL, "measurement and record must not be NULL");
    spacrbench_item_record r = {sizeof r, (int64_t)m->record_count, 0, 0, 0.0, -1, -1};
    int rc = sb_struct_in(&r, sizeof r, record, "spacrbench_item_record");
    if (rc)
        return rc;
    if (isnan(r.seconds) || r.seconds < 0 || r.peak_rss_bytes < -1 || r.peak_vram_bytes < -1)
        return sb_fail(SPACRBENCH_EINVAL,
                       "spacrbench_item_record: seconds must be >= 0 and peaks >= -1");
    rc = grow((void **)&m->records, &m->record_cap, m->record_count + 1, sizeof *m->records);
    if (rc)
        return rc;
    m->records[m->record_count++] = r;
    return SPACRBENCH_OK;
}

int spacrbench_measurement_add_gpu(spacrbench_measurement *m, const spacrbench_gpu_info *gpu)
{
    sb_clear_error();
    if (!m || !gpu)
        return sb_fail(SPACRBENCH_EINVAL, "measurement and gpu must not be NULL");
    spacrbench_gpu_info g;
    memset(&g, 0, sizeof g);
    g.size = sizeof g;
    g.index = (int64_t)m->gpu_count;
    g.total_bytes = g.free_bytes = g.process_peak_bytes = -1;
    int rc = sb_struct_in(&g, sizeof g, gpu, "spacrbench_gpu_info");
    if (rc)
        return rc;
    g.name[sizeof g.name - 1] = '\0';
    rc = grow((void **)&m->gpus, &m->gpu_cap, m->gpu_count + 1, sizeof *m->gpus);
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
    free(m->records);
    free(m->gpus);
    free(m);
}

int spacrbench_measurement_figures(const spacrbench_measurement *m, spacrbench_figures *out)
{
    sb_clear_error();
    if (!m || !out)
        return sb_fail(SPACRBENCH_EINVAL, "measurement and out must not be NULL");
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
    sb_clear_error();
    if (!m || !out)
        return sb_fail(SPACRBENCH_EINVAL, "measurement and out must not be NULL");
    if (index >= m->record_count)
        return sb_fail(SPACRBENCH_ERANGE, "record %zu of %zu", index, m->record_count);
    return sb_struct_out(out, &m->records[index], sizeof m->records[index],
                         "spacrbench_item_record");
}

int spacrbench_measurement_gpu(const spacrbench_measurement *m, size_t index,
                               spacrbench_gpu_info *out)
{
    sb_clear_error();
    if (!m || !out)
        return sb_fail(SPACRBENCH_EINVAL, "measurement and out must not be NULL");
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
