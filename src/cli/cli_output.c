/* Report, JSON and hand-off output; see cli_output.h. */
#include "cli_output.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void cli_format_bytes(char *buf, size_t cap, int64_t bytes)
{
    if (bytes < 0)
        snprintf(buf, cap, "not measured");
    else if (bytes < 1024)
        snprintf(buf, cap, "%lld B", (long long)bytes);
    else if (bytes < 1024 * 1024)
        snprintf(buf, cap, "%.1f KiB", (double)bytes / 1024.0);
    else if (bytes < INT64_C(1024) * 1024 * 1024)
        snprintf(buf, cap, "%.1f MiB", (double)bytes / (1024.0 * 1024.0));
    else
        snprintf(buf, cap, "%.2f GiB", (double)bytes / (1024.0 * 1024.0 * 1024.0));
}

int cli_write_file_atomic(const char *path, const char *text, size_t len)
{
    size_t n = strlen(path);
    char *tmp = malloc(n + 16);
    if (!tmp)
        return -1;
    memcpy(tmp, path, n);
    memcpy(tmp + n, ".tmp.XXXXXX", 12);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        free(tmp);
        return -1;
    }
    int rc = 0;
    for (size_t done = 0; done < len && rc == 0;) {
        ssize_t w = write(fd, text + done, len - done);
        if (w < 0 && errno != EINTR)
            rc = -1;
        else if (w > 0)
            done += (size_t)w;
    }
    /* mkstemp makes the file 0600; a report is an ordinary file. */
    if (rc == 0 && fchmod(fd, 0644) != 0)
        rc = -1;
    if (rc == 0 && fsync(fd) != 0)
        rc = -1;
    int e = errno;
    if (close(fd) != 0 && rc == 0) {
        rc = -1;
        e = errno;
    }
    if (rc == 0 && rename(tmp, path) != 0) {
        rc = -1;
        e = errno;
    }
    if (rc != 0)
        unlink(tmp);
    free(tmp);
    errno = e;
    return rc;
}

static const char *peak_method_name(int32_t method)
{
    switch (method) {
    case SPACRBENCH_PEAK_HWM_RESET: return "hwm_reset";
    case SPACRBENCH_PEAK_HWM_WINDOW: return "hwm_window";
    case SPACRBENCH_PEAK_SAMPLED: return "sampled";
    case SPACRBENCH_PEAK_CGROUP: return "cgroup";
    case SPACRBENCH_PEAK_CHILD_RUSAGE: return "child_rusage";
    case SPACRBENCH_PEAK_SUPPLIED: return "supplied";
    default: return "none";
    }
}

static const char *source_name(int32_t source)
{
    switch (source) {
    case SPACRBENCH_SOURCE_HOST: return "host";
    case SPACRBENCH_SOURCE_AFFINITY: return "affinity";
    case SPACRBENCH_SOURCE_CGROUP_V1: return "cgroup_v1";
    case SPACRBENCH_SOURCE_CGROUP_V2: return "cgroup_v2";
    case SPACRBENCH_SOURCE_CALLER: return "caller";
    case SPACRBENCH_SOURCE_CPUSET: return "cpuset";
    case SPACRBENCH_SOURCE_NVML: return "nvml";
    case SPACRBENCH_SOURCE_TORCH: return "torch";
    default: return "unknown";
    }
}

static const char *bound_name(int32_t bound)
{
    switch (bound) {
    case SPACRBENCH_BOUND_MEMORY: return "memory";
    case SPACRBENCH_BOUND_CORES: return "cores";
    case SPACRBENCH_BOUND_MAXIMUM: return "maximum";
    case SPACRBENCH_BOUND_FALLBACK: return "fallback";
    case SPACRBENCH_BOUND_ONE: return "one";
    case SPACRBENCH_BOUND_VRAM: return "vram";
    default: return "none";
    }
}

static void json_measurement(json_writer *w, const spacrbench_measurement *m,
                             const spacrbench_figures *f, const cli_context *ctx)
{
    json_begin_object(w, "measurement");
    json_int(w, "items", f->items);
    json_double(w, "seconds", f->seconds);
    json_double(w, "items_per_second", spacrbench_measurement_items_per_second(m));
    json_double(w, "per_item_seconds", spacrbench_measurement_per_item_seconds(m));
    json_int(w, "peak_rss_bytes", f->peak_rss_bytes);
    json_int(w, "baseline_rss_bytes", f->baseline_rss_bytes);
    json_int(w, "work_rss_bytes", spacrbench_measurement_work_rss_bytes(m));
    json_int(w, "peak_vram_bytes", f->peak_vram_bytes);
    json_string(w, "vram_source", source_name(f->vram_source));
    json_double(w, "cpu_seconds", f->cpu_seconds);
    json_int(w, "warmup_items", f->warmup_items);
    json_double(w, "warmup_seconds", f->warmup_seconds);
    json_string(w, "peak_method", peak_method_name(f->peak_method));
    json_int(w, "sample_interval_us", f->sample_interval_us);
    json_bool(w, "stopped", f->stopped);
    json_int(w, "work_result", f->work_result);
    json_int(w, "stopped_item", f->stopped_item);
    json_begin_array(w, "records");
    for (int64_t i = 0; i < f->record_count; i++) {
        spacrbench_item_record r = {.size = sizeof r};
        if (spacrbench_measurement_record(m, (size_t)i, &r) != 0)
            continue;
        json_begin_object(w, NULL);
        json_int(w, "index", r.index);
        if (ctx->item_labels && (size_t)i < ctx->n_labels)
            json_string(w, "item", ctx->item_labels[i]);
        json_bool(w, "is_warmup", r.is_warmup);
        json_double(w, "seconds", r.seconds);
        json_int(w, "peak_rss_bytes", r.peak_rss_bytes);
        json_int(w, "peak_vram_bytes", r.peak_vram_bytes);
        json_end_object(w);
    }
    json_end_array(w);
    json_begin_array(w, "notes");
    for (int64_t i = 0; i < f->note_count; i++)
        json_string(w, NULL, spacrbench_measurement_note(m, (size_t)i));
    json_end_array(w);
    json_begin_array(w, "gpus");
    for (int64_t i = 0; i < f->gpu_count; i++) {
        spacrbench_gpu_info g = {.size = sizeof g};
        if (spacrbench_measurement_gpu(m, (size_t)i, &g) != 0)
            continue;
        json_begin_object(w, NULL);
        json_int(w, "index", g.index);
        json_string_n(w, "name", g.name, strnlen(g.name, sizeof g.name));
        json_int(w, "total_bytes", g.total_bytes);
        json_int(w, "free_bytes", g.free_bytes);
        json_int(w, "process_peak_bytes", g.process_peak_bytes);
        json_end_object(w);
    }
    json_end_array(w);
    json_end_object(w);
}

static void json_machine(json_writer *w)
{
    spacrbench_machine mc = {.size = sizeof mc};
    if (spacrbench_discover(&mc) != 0) {
        json_null(w, "machine");
        return;
    }
    json_begin_object(w, "machine");
    json_int(w, "available_bytes", mc.available_bytes);
    json_int(w, "host_available_bytes", mc.host_available_bytes);
    json_string(w, "memory_source", source_name(mc.memory_source));
    json_int(w, "memory_limit_bytes", mc.memory_limit_bytes);
    json_string_n(w, "memory_cgroup", mc.memory_cgroup, strnlen(mc.memory_cgroup, sizeof mc.memory_cgroup));
    json_int(w, "cores", mc.cores);
    json_string(w, "cores_source", source_name(mc.cores_source));
    json_int(w, "affinity_cores", mc.affinity_cores);
    if (mc.cpu_quota_cores < 0)
        json_null(w, "cpu_quota_cores");
    else
        json_double(w, "cpu_quota_cores", mc.cpu_quota_cores);
    json_string_n(w, "cores_cgroup", mc.cores_cgroup, strnlen(mc.cores_cgroup, sizeof mc.cores_cgroup));
    json_end_object(w);
}

static void json_recommendation(json_writer *w, const spacrbench_recommendation *r)
{
    if (!r) {
        json_null(w, "recommendation");
        return;
    }
    json_begin_object(w, "recommendation");
    json_int(w, "workers", r->workers);
    json_string(w, "bound", bound_name(r->bound));
    json_string_n(w, "reason", r->reason, strnlen(r->reason, sizeof r->reason));
    json_int(w, "cores", r->cores);
    json_string(w, "cores_source", source_name(r->cores_source));
    json_string_n(w, "cores_where", r->cores_where, strnlen(r->cores_where, sizeof r->cores_where));
    json_int(w, "available_bytes", r->available_bytes);
    json_string(w, "memory_source", source_name(r->memory_source));
    json_string_n(w, "memory_where", r->memory_where,
                  strnlen(r->memory_where, sizeof r->memory_where));
    json_int(w, "memory_limit_bytes", r->memory_limit_bytes);
    json_int(w, "reserve_bytes", r->reserve_bytes);
    json_int(w, "per_worker_bytes", r->per_worker_bytes);
    json_int(w, "memory_workers", r->memory_workers);
    json_int(w, "maximum", r->maximum);
    json_int(w, "per_worker_vram_bytes", r->per_worker_vram_bytes);
    json_int(w, "free_vram_bytes", r->free_vram_bytes);
    json_int(w, "vram_reserve_bytes", r->vram_reserve_bytes);
    json_int(w, "vram_workers", r->vram_workers);
    json_end_object(w);
}

static void json_schedule(json_writer *w, const spacrbench_schedule *s)
{
    if (!s) {
        json_null(w, "schedule");
        return;
    }
    json_begin_object(w, "schedule");
    json_int(w, "cpus_per_task", s->cpus_per_task);
    json_int(w, "mem_per_task_bytes", s->mem_per_task_bytes);
    json_int(w, "array_concurrency", s->array_concurrency);
    json_int(w, "n_workers", s->n_workers);
    json_int(w, "threads_per_worker", s->threads_per_worker);
    json_int(w, "memory_limit_bytes", s->memory_limit_bytes);
    json_double(w, "margin", s->margin);
    json_int(w, "margin_floor_bytes", s->margin_floor_bytes);
    json_end_object(w);
}

/* The library's report followed by one line per item. NULL on failure. */
/* Append label to text at *at with control characters written as \n, \t,
 * \r or \xNN, so one item stays on one line of the report. */
static void append_label(char *text, size_t cap, size_t *at, const char *label)
{
    for (const unsigned char *p = (const unsigned char *)label; *p && *at + 5 < cap; p++) {
        if (*p >= 0x20 && *p != 0x7f) {
            text[(*at)++] = (char)*p;
            continue;
        }
        const char *named = *p == '\n' ? "\\n" : *p == '\t' ? "\\t" : *p == '\r' ? "\\r" : NULL;
        if (named)
            *at += (size_t)snprintf(text + *at, cap - *at, "%s", named);
        else
            *at += (size_t)snprintf(text + *at, cap - *at, "\\x%02x", *p);
    }
    text[*at] = '\0';
}

static char *human_text(const spacrbench_measurement *m, const spacrbench_recommendation *rec,
                        const spacrbench_figures *f, const cli_context *ctx)
{
    int len = spacrbench_format_report(m, rec, NULL, 0);
    if (len < 0)
        return NULL;
    size_t per_item = 160;
    size_t labels = 0;
    for (size_t i = 0; ctx->item_labels && i < ctx->n_labels; i++)
        labels += 4 * strlen(ctx->item_labels[i]) + 8; /* room for \xNN escapes */
    size_t cap = (size_t)len + 64 + (size_t)f->record_count * per_item + labels;
    char *text = malloc(cap);
    if (!text)
        return NULL;
    spacrbench_format_report(m, rec, text, (size_t)len + 1);
    size_t at = (size_t)len;
    at += (size_t)snprintf(text + at, cap - at, "\n");
    for (int64_t i = 0; i < f->record_count && at < cap; i++) {
        spacrbench_item_record r = {.size = sizeof r};
        if (spacrbench_measurement_record(m, (size_t)i, &r) != 0)
            continue;
        char peak[32];
        cli_format_bytes(peak, sizeof peak, r.peak_rss_bytes);
        at += (size_t)snprintf(text + at, cap - at, "  item %-14lld %.3f s, peak %s%s",
                               (long long)r.index + 1, r.seconds, peak,
                               r.is_warmup ? " (warm-up)" : "");
        if (ctx->item_labels && (size_t)i < ctx->n_labels && at + 2 < cap) {
            at += (size_t)snprintf(text + at, cap - at, ": ");
            append_label(text, cap, &at, ctx->item_labels[i]);
        }
        if (at < cap)
            at += (size_t)snprintf(text + at, cap - at, "\n");
    }
    return text;
}

static char *json_text(const spacrbench_measurement *m, const spacrbench_recommendation *rec,
                       const spacrbench_schedule *sched, const spacrbench_figures *f,
                       const char *human, const cli_context *ctx)
{
    json_writer w;
    json_init(&w, 1);
    json_begin_object(&w, NULL);
    json_string(&w, "spacrbench_version", spacrbench_version_string());
    json_string(&w, "mode", ctx->mode);
    if (ctx->describe)
        ctx->describe(&w, ctx->describe_arg);
    json_measurement(&w, m, f, ctx);
    json_machine(&w);
    json_recommendation(&w, rec);
    json_schedule(&w, sched);
    json_string(&w, "report", human);
    json_end_object(&w);
    const char *doc = json_result(&w);
    char *copy = doc ? malloc(strlen(doc) + 2) : NULL;
    if (copy) {
        strcpy(copy, doc);
        strcat(copy, "\n");
    }
    json_free(&w);
    return copy;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

int cli_finish(const cli_common *c, const spacrbench_measurement *m, const cli_context *ctx)
{
    spacrbench_figures f = {.size = sizeof f};
    if (spacrbench_measurement_figures(m, &f) != 0) {
        fprintf(stderr, "spacrbench: %s\n", spacrbench_last_error_message());
        return CLI_EXIT_ERROR;
    }
    spacrbench_recommendation rec_value = {.size = sizeof rec_value};
    const spacrbench_recommendation *rec = &rec_value;
    if (spacrbench_recommend(m, &c->rec, &rec_value) != 0) {
        fprintf(stderr, "spacrbench: no recommendation: %s\n", spacrbench_last_error_message());
        rec = NULL;
    }
    spacrbench_schedule sched_value = {.size = sizeof sched_value};
    const spacrbench_schedule *sched = NULL;
    char why_no_schedule[512] = "";
    if (rec && spacrbench_schedule_compute(m, rec, &sched_value) == 0)
        sched = &sched_value;
    else
        snprintf(why_no_schedule, sizeof why_no_schedule, "%s",
                 rec ? spacrbench_last_error_message() : "no recommendation");

    int status = CLI_EXIT_OK;
    char *human = human_text(m, rec, &f, ctx);
    char *json = human && (c->json || (c->report_path && ends_with(c->report_path, ".json")))
                     ? json_text(m, rec, sched, &f, human, ctx)
                     : NULL;
    if (!human || ((c->json || (c->report_path && ends_with(c->report_path, ".json"))) && !json)) {
        fprintf(stderr, "spacrbench: out of memory formatting the report\n");
        status = CLI_EXIT_ERROR;
        goto done;
    }

    if (c->emit != CLI_EMIT_REPORT) {
        if (!sched) {
            fprintf(stderr, "spacrbench: --emit %s: %s\n", c->emit == CLI_EMIT_SLURM ? "slurm" : "dask",
                    why_no_schedule);
            status = CLI_EXIT_ERROR;
        } else {
            char text[2048];
            int n = c->emit == CLI_EMIT_SLURM ? spacrbench_format_slurm(m, rec, text, sizeof text)
                                              : spacrbench_format_dask(m, rec, text, sizeof text);
            if (n < 0) {
                fprintf(stderr, "spacrbench: %s\n", spacrbench_last_error_message());
                status = CLI_EXIT_ERROR;
            } else
                fputs(text, stdout);
        }
        /* The hand-off alone goes to stdout (ready to paste or redirect);
         * the report it follows from goes to stderr. */
        if (!c->quiet)
            fputs(human, stderr);
    } else if (c->json)
        fputs(json, stdout);
    else
        fputs(human, stdout);

    if (c->report_path) {
        const char *doc = ends_with(c->report_path, ".json") ? json : human;
        if (cli_write_file_atomic(c->report_path, doc, strlen(doc)) != 0) {
            fprintf(stderr, "spacrbench: --report: cannot write %s: %s\n", c->report_path,
                    strerror(errno));
            status = CLI_EXIT_ERROR;
        }
    }
done:
    fflush(stdout);
    free(human);
    free(json);
    return status;
}
