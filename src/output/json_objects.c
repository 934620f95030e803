/* The library's objects as JSON, in the one document shape that the
 * command's --json and Python's to_dict() share (docs/spacrbench.schema.json):
 * names spelled by names.c, "not measured" as null. */
#include <math.h>
#include <string.h>

#include "json_writer.h"
#include "measurement.h"
#include "timeline.h"

/* A figure that may be "not measured" (negative): null then. */
static void json_optional(json_writer *w, const char *key, int64_t value)
{
    if (value < 0)
        json_null(w, key);
    else
        json_int(w, key, value);
}

static void json_text_field(json_writer *w, const char *key, const char *text, size_t cap)
{
    json_string_n(w, key, text, strnlen(text, cap));
}

/* Hand the finished document to the caller snprintf-style, straight from
 * the writer: it is produced once, whatever cap the caller has. */
static int deliver(json_writer *w, char *buf, size_t cap)
{
    const char *doc = json_result(w);
    size_t len = doc ? strlen(doc) : 0;
    int rc = !buf && cap ? sb_fail(SPACRBENCH_EINVAL, "buf is NULL but cap is %zu", cap)
             : !doc      ? sb_fail(SPACRBENCH_ENOMEM, "out of memory formatting text")
             : len > (size_t)INT32_MAX ? sb_fail(SPACRBENCH_ENOSPACE, "text too long")
                                       : (int)len;
    if (rc >= 0 && cap) {
        size_t n = len < cap - 1 ? len : cap - 1;
        memcpy(buf, doc, n);
        buf[n] = '\0';
    }
    json_free(w);
    return rc;
}

static void write_records(json_writer *w, const spacrbench_measurement *m,
                          const char *const *labels, size_t n_labels)
{
    json_begin_array(w, "records");
    for (size_t i = 0; i < m->record_count; i++) {
        const spacrbench_item_record *r = &m->records[i];
        json_begin_object(w, NULL);
        json_int(w, "index", r->index);
        if (labels && i < n_labels)
            json_string(w, "item", labels[i]);
        json_bool(w, "is_warmup", r->is_warmup);
        json_double(w, "seconds", r->seconds);
        json_optional(w, "peak_rss_bytes", r->peak_rss_bytes);
        json_optional(w, "peak_vram_bytes", r->peak_vram_bytes);
        json_end_object(w);
    }
    json_end_array(w);
}

static void write_gpus(json_writer *w, const spacrbench_measurement *m)
{
    json_begin_array(w, "gpus");
    for (size_t i = 0; i < m->gpu_count; i++) {
        const spacrbench_gpu_info *g = &m->gpus[i];
        json_begin_object(w, NULL);
        json_int(w, "index", g->index);
        json_text_field(w, "name", g->name, sizeof g->name);
        json_optional(w, "total_bytes", g->total_bytes);
        json_optional(w, "free_bytes", g->free_bytes);
        json_optional(w, "process_peak_bytes", g->process_peak_bytes);
        json_end_object(w);
    }
    json_end_array(w);
}

int spacrbench_measurement_to_json(const spacrbench_measurement *m, const char *const *item_labels,
                                   size_t n_labels, char *buf, size_t cap)
{
    sb_clear_error();
    if (!m)
        return sb_fail(SPACRBENCH_EINVAL, "measurement must not be NULL");
    const spacrbench_figures *f = &m->fig;
    json_writer w;
    json_init(&w, 0);
    json_begin_object(&w, NULL);
    json_int(&w, "items", f->items);
    json_double(&w, "seconds", f->seconds);
    json_double(&w, "items_per_second", spacrbench_measurement_items_per_second(m));
    json_double(&w, "per_item_seconds", spacrbench_measurement_per_item_seconds(m));
    json_optional(&w, "peak_rss_bytes", f->peak_rss_bytes);
    json_int(&w, "baseline_rss_bytes", f->baseline_rss_bytes);
    json_optional(&w, "work_rss_bytes", spacrbench_measurement_work_rss_bytes(m));
    json_string(&w, "peak_method", spacrbench_peak_method_name(f->peak_method));
    json_int(&w, "sample_interval_us", f->sample_interval_us);
    json_optional(&w, "peak_vram_bytes", f->peak_vram_bytes);
    if (f->vram_source == SPACRBENCH_SOURCE_UNKNOWN)
        json_null(&w, "vram_source");
    else
        json_string(&w, "vram_source", spacrbench_source_name(f->vram_source));
    json_string(&w, "vram_reason", m->vram_reason); /* NULL -> null */
    json_double(&w, "cpu_seconds", f->cpu_seconds);
    json_int(&w, "warmup_items", f->warmup_items);
    json_double(&w, "warmup_seconds", f->warmup_seconds);
    json_bool(&w, "stopped", f->stopped);
    json_int(&w, "work_result", f->work_result);
    json_optional(&w, "stopped_item", f->stopped_item);
    json_int(&w, "oom_limit_bytes", f->oom_limit_bytes);
    write_records(&w, m, item_labels, n_labels);
    json_begin_array(&w, "notes");
    for (size_t i = 0; i < m->note_count; i++)
        json_string(&w, NULL, m->notes[i]);
    json_end_array(&w);
    write_gpus(&w, m);
    sb_json_timeline(&w, m);
    json_end_object(&w);
    return deliver(&w, buf, cap);
}

int spacrbench_recommendation_to_json(const spacrbench_recommendation *rec, char *buf, size_t cap)
{
    sb_clear_error();
    if (!rec)
        return sb_fail(SPACRBENCH_EINVAL, "recommendation must not be NULL");
    spacrbench_recommendation r;
    int rc = sb_recommendation_in(&r, rec);
    if (rc)
        return rc;
    json_writer w;
    json_init(&w, 0);
    json_begin_object(&w, NULL);
    json_int(&w, "workers", r.workers);
    json_string(&w, "bound", spacrbench_bound_name(r.bound));
    json_text_field(&w, "reason", r.reason, sizeof r.reason);
    json_int(&w, "cores", r.cores);
    json_string(&w, "cores_source", spacrbench_source_name(r.cores_source));
    json_text_field(&w, "cores_where", r.cores_where, sizeof r.cores_where);
    json_double(&w, "cpu_parallelism", r.cpu_parallelism < 0 ? NAN : r.cpu_parallelism);
    json_int(&w, "cores_per_worker", r.cores_per_worker);
    json_int(&w, "core_workers", r.core_workers);
    json_int(&w, "threads_per_worker", r.threads_per_worker);
    json_int(&w, "available_bytes", r.available_bytes);
    json_string(&w, "memory_source", spacrbench_source_name(r.memory_source));
    json_text_field(&w, "memory_where", r.memory_where, sizeof r.memory_where);
    json_optional(&w, "memory_limit_bytes", r.memory_limit_bytes);
    json_int(&w, "reserve_bytes", r.reserve_bytes);
    json_string(&w, "reserve_rule", spacrbench_reserve_rule_name(r.reserve_rule));
    json_string(&w, "start_method", spacrbench_start_method_name(r.start_method));
    json_int(&w, "baseline_bytes", r.baseline_bytes);
    json_optional(&w, "per_worker_bytes", r.per_worker_bytes);
    json_optional(&w, "memory_workers", r.memory_workers);
    json_int(&w, "maximum", r.maximum);
    json_optional(&w, "per_worker_vram_bytes", r.per_worker_vram_bytes);
    json_optional(&w, "free_vram_bytes", r.free_vram_bytes);
    json_int(&w, "vram_reserve_bytes", r.vram_reserve_bytes);
    json_optional(&w, "vram_workers", r.vram_workers);
    json_int(&w, "oom_limit_bytes", r.oom_limit_bytes);
    json_end_object(&w);
    return deliver(&w, buf, cap);
}

int spacrbench_machine_to_json(const spacrbench_machine *machine, char *buf, size_t cap)
{
    sb_clear_error();
    if (!machine)
        return sb_fail(SPACRBENCH_EINVAL, "machine must not be NULL");
    spacrbench_machine mc;
    memset(&mc, 0, sizeof mc);
    mc.size = sizeof mc;
    mc.host_available_bytes = mc.memory_limit_bytes = mc.affinity_cores = -1;
    mc.cpu_quota_cores = -1;
    int rc = sb_struct_in(&mc, sizeof mc, machine, "spacrbench_machine");
    if (rc)
        return rc;
    json_writer w;
    json_init(&w, 0);
    json_begin_object(&w, NULL);
    json_int(&w, "available_bytes", mc.available_bytes);
    json_optional(&w, "host_available_bytes", mc.host_available_bytes);
    json_string(&w, "memory_source", spacrbench_source_name(mc.memory_source));
    json_optional(&w, "memory_limit_bytes", mc.memory_limit_bytes);
    json_text_field(&w, "memory_cgroup", mc.memory_cgroup, sizeof mc.memory_cgroup);
    json_int(&w, "cores", mc.cores);
    json_string(&w, "cores_source", spacrbench_source_name(mc.cores_source));
    json_optional(&w, "affinity_cores", mc.affinity_cores);
    json_double(&w, "cpu_quota_cores", mc.cpu_quota_cores < 0 ? NAN : mc.cpu_quota_cores);
    json_text_field(&w, "cores_cgroup", mc.cores_cgroup, sizeof mc.cores_cgroup);
    json_end_object(&w);
    return deliver(&w, buf, cap);
}

int spacrbench_schedule_to_json(const spacrbench_schedule *schedule, char *buf, size_t cap)
{
    sb_clear_error();
    if (!schedule)
        return sb_fail(SPACRBENCH_EINVAL, "schedule must not be NULL");
    spacrbench_schedule s;
    memset(&s, 0, sizeof s);
    s.size = sizeof s;
    int rc = sb_struct_in(&s, sizeof s, schedule, "spacrbench_schedule");
    if (rc)
        return rc;
    json_writer w;
    json_init(&w, 0);
    json_begin_object(&w, NULL);
    json_int(&w, "cpus_per_task", s.cpus_per_task);
    json_int(&w, "mem_per_task_bytes", s.mem_per_task_bytes);
    json_int(&w, "array_concurrency", s.array_concurrency);
    json_int(&w, "n_workers", s.n_workers);
    json_int(&w, "threads_per_worker", s.threads_per_worker);
    json_int(&w, "memory_limit_bytes", s.memory_limit_bytes);
    json_double(&w, "margin", s.margin);
    json_int(&w, "margin_floor_bytes", s.margin_floor_bytes);
    json_end_object(&w);
    return deliver(&w, buf, cap);
}
