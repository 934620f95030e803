/* What every mode does once it holds a measurement: recommend once on the
 * machine snapshot it discovered, then print the report, the JSON document
 * or the scheduler hand-off, and write the --report file and the exports
 * (see cli.h). Every text and object is the library's own formatting, so
 * the command and Python spell every name and number the same way. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "util.h"

/* Room for the usual measurement, so each object is serialised once. */
#define CLI_JSON_FIRST_ROOM (64 * 1024)

/* Which of the library's snprintf-style formatters doc_into calls. */
typedef enum doc_kind {
    DOC_REPORT,
    DOC_ITEM,
    DOC_PLATE,
    DOC_SCALING,
    DOC_BRIEF,
    DOC_EXPORT,
    DOC_HANDOFF,
    DOC_MEASUREMENT_JSON,
    DOC_MACHINE_JSON,
    DOC_RECOMMENDATION_JSON,
    DOC_SCHEDULE_JSON,
    DOC_SCALING_JSON,
} doc_kind;

typedef struct doc {
    doc_kind kind;
    const spacrbench_measurement *m;
    const spacrbench_recommendation *rec;
    const cli_context *ctx;
    const void *object;               /* the *_JSON kinds' */
    const spacrbench_schedule *sched; /* DOC_HANDOFF's */
    const cli_common *common;
    int arg;   /* DOC_REPORT: verbose; DOC_ITEM: the record; DOC_EXPORT: the format */
    int *last; /* DOC_EXPORT: what the library returned (< 0: its error, not memory's) */
} doc;

static int doc_into(char *buf, size_t cap, const void *arg)
{
    const doc *d = arg;
    const cli_context *x = d->ctx;
    switch (d->kind) {
    case DOC_REPORT:
        return d->arg ? spacrbench_format_report_verbose(d->m, d->rec, NULL, buf, cap)
                      : spacrbench_format_report(d->m, d->rec, buf, cap);
    case DOC_ITEM:
        return spacrbench_measurement_format_item(
            d->m, (size_t)d->arg,
            x->item_labels && (size_t)d->arg < x->n_labels ? x->item_labels[d->arg] : NULL, buf,
            cap);
    case DOC_PLATE:
        return spacrbench_format_plate_section(d->m, x->item_labels, x->n_labels, buf, cap);
    case DOC_SCALING:
        return spacrbench_format_scaling(x->scaling, buf, cap);
    case DOC_BRIEF:
        return spacrbench_format_brief(d->m, d->rec, buf, cap);
    case DOC_EXPORT:
        return *d->last = spacrbench_format_export(d->m, d->rec, d->arg, x->item_labels,
                                                   x->n_labels, buf, cap);
    case DOC_HANDOFF: {
        const spacrbench_slurm_job *job = d->common->slurm_job; /* a cli_slurm_job's first */
        if (d->common->emit == CLI_EMIT_SLURM && job)
            return spacrbench_format_slurm_job(
                d->m, d->sched, job, &((const cli_slurm_job *)(const void *)job)->tasks, buf, cap);
        return spacrbench_format_schedule(
            d->m, d->sched,
            d->common->emit == CLI_EMIT_SLURM ? SPACRBENCH_HANDOFF_SLURM : SPACRBENCH_HANDOFF_DASK,
            buf, cap);
    }
    case DOC_MEASUREMENT_JSON:
        return spacrbench_measurement_to_json(d->m, x->item_labels, x->n_labels, buf, cap);
    case DOC_MACHINE_JSON:
        return spacrbench_machine_to_json(d->object, buf, cap);
    case DOC_RECOMMENDATION_JSON:
        return spacrbench_recommendation_to_json(d->object, buf, cap);
    case DOC_SCHEDULE_JSON:
        return spacrbench_schedule_to_json(d->object, buf, cap);
    default:
        return spacrbench_scale_to_json(d->object, buf, cap);
    }
}

/* Append one document of kind to t (then a newline where newline). */
static void append(sb_text *t, doc d, doc_kind kind, int newline)
{
    d.kind = kind;
    sb_text_append(t, doc_into, &d);
    if (newline)
        sb_text_printf(t, "\n");
}

/* One document alone, malloc'd (NULL when it failed). */
static char *render(doc d, doc_kind kind, int newline)
{
    sb_text t = {0};
    append(&t, d, kind, newline);
    return sb_text_take(&t);
}

/* The report: verbose, with its notes on method and a line per record
 * (the JSON and the exports always keep them); then the plate's section
 * and the scaling check. malloc'd, NULL after the message. */
static char *report_text(const doc *d, int verbose)
{
    sb_text t = {0};
    doc r = *d;
    r.arg = verbose;
    append(&t, r, DOC_REPORT, 1);
    spacrbench_figures f = {.size = sizeof f};
    if (spacrbench_measurement_figures(d->m, &f) != 0)
        t.failed = 1;
    spacrbench_plate_section plate = {.size = sizeof plate};
    for (int64_t i = 0; verbose && !t.failed && i < f.record_count; i++) {
        r.arg = (int)i;
        append(&t, r, DOC_ITEM, 1);
    }
    if (spacrbench_measurement_plate(d->m, &plate) == 0) {
        sb_text_printf(&t, "\n");
        append(&t, r, DOC_PLATE, 1);
    }
    if (d->ctx->scaling) {
        sb_text_printf(&t, "\n");
        append(&t, r, DOC_SCALING, 0);
    }
    char *text = sb_text_take(&t);
    if (!text)
        cli_error(CLI_EXIT_ERROR, "cannot format the report: %s", spacrbench_last_error_message());
    return text;
}

/* One of the library's objects as the value of key (null when absent), or
 * its members spliced into the document (key NULL: the scaling check's
 * top-level members, as Python's ScaleResult.to_dict() has them). */
static void add_object(json_writer *w, sb_text *scratch, const char *key, doc d, doc_kind kind,
                       const void *object)
{
    if (!object) {
        if (key)
            json_null(w, key);
        return;
    }
    d.kind = kind;
    d.object = object;
    sb_text_clear(scratch);
    if (sb_text_append(scratch, doc_into, &d) < 0)
        w->failed = 1;
    else if (key)
        json_raw(w, key, scratch->data);
    else
        json_members(w, scratch->data);
}

char *cli_json_document(const spacrbench_measurement *m, const spacrbench_machine *machine,
                        const spacrbench_recommendation *rec, const spacrbench_schedule *sched,
                        const char *report, const cli_context *ctx)
{
    sb_text scratch = {0};
    sb_text_reserve(&scratch, CLI_JSON_FIRST_ROOM);
    json_writer w;
    json_init(&w, 1);
    json_begin_object(&w, NULL);
    json_string(&w, "spacrbench_version", spacrbench_version_string());
    json_string(&w, "mode", ctx->mode);
    if (ctx->describe)
        ctx->describe(&w, ctx->describe_arg, m);
    doc d = {.m = m, .ctx = ctx};
    add_object(&w, &scratch, "measurement", d, DOC_MEASUREMENT_JSON, m);
    add_object(&w, &scratch, "machine", d, DOC_MACHINE_JSON, machine);
    add_object(&w, &scratch, "recommendation", d, DOC_RECOMMENDATION_JSON, rec);
    add_object(&w, &scratch, "schedule", d, DOC_SCHEDULE_JSON, sched);
    add_object(&w, &scratch, NULL, d, DOC_SCALING_JSON, ctx->scaling);
    int library_failed = scratch.failed;
    sb_text_free(&scratch);
    json_string(&w, "report", report);
    json_end_object(&w);
    const char *text = json_result(&w);
    char *copy = text ? sb_textf("%s\n", text) : NULL;
    json_free(&w);
    if (!copy)
        cli_error(CLI_EXIT_ERROR, "cannot format the JSON document: %s",
                  library_failed ? spacrbench_last_error_message() : "out of memory");
    return copy;
}

void cli_note(spacrbench_measurement *m, const char *fmt, ...)
{
    /* Sized to the text: a note cut short loses its end (the reason). */
    va_list ap;
    va_start(ap, fmt);
    char *text = sb_vtextf(fmt, ap);
    va_end(ap);
    spacrbench_measurement_add_note(m, text ? text
                                            : "(a note could not be formatted: out of "
                                              "memory)");
    free(text);
}

int cli_export_takes_stdout(const cli_common *c)
{
    return (c->export_markdown_path && cli_is_stdout_name(c->export_markdown_path)) ||
           (c->export_csv_path && cli_is_stdout_name(c->export_csv_path));
}

/* --export-markdown or --export-csv: written atomically, as --report is. */
static int export_file(const char *option, const char *path, doc d, int format)
{
    if (!path)
        return 0;
    int last = 0;
    d.arg = format;
    d.last = &last;
    char *text = render(d, DOC_EXPORT, 0);
    if (!text)
        return cli_error(-1, "%s: %s", option,
                         last < 0 ? spacrbench_last_error_message() : "out of memory");
    int rc;
    if (cli_is_stdout_name(path)) /* in place of the report, which went to stderr */
        rc = cli_stdout_put(text, strlen(text)) | cli_stdout_check();
    else if ((rc = cli_write_file_atomic(option, path, text, strlen(text))) != 0)
        cli_error(CLI_EXIT_ERROR, "%s: cannot write %s: %s", option, path, strerror(errno));
    free(text);
    return rc != 0 ? -1 : 0;
}

/* The hand-off alone goes to stdout (ready to paste or redirect). */
static int emit_settings(const cli_common *c, const doc *d, const char *why_none)
{
    const char *option = c->emit == CLI_EMIT_SLURM ? "--emit slurm" : "--emit dask";
    if (!d->sched)
        return cli_error(CLI_EXIT_ERROR, "%s: %s", option, why_none);
    char *text = render(*d, DOC_HANDOFF, 0);
    if (!text)
        return cli_library_error(CLI_EXIT_ERROR, option);
    /* The array's index and the manifest summarize reads, first: a script
     * whose tasks cannot find their items is not printed. */
    const spacrbench_slurm_job *job = c->emit == CLI_EMIT_SLURM ? c->slurm_job : NULL;
    if (job && spacrbench_slurm_write_array(d->m, d->sched, job,
                                            &((const cli_slurm_job *)(const void *)job)->tasks)) {
        const char *why = spacrbench_last_error_message();
        if (strstr(why, "another job array's files")) /* refused: says what to do */
            cli_error(CLI_EXIT_ERROR, "--emit slurm: %s", why);
        else
            cli_error(CLI_EXIT_ERROR,
                      "--emit slurm: %s: the tasks find their items through %s/%s; emit the "
                      "script again",
                      why, job->output_dir, "spacrbench-items.idx");
        free(text);
        return CLI_EXIT_ERROR;
    }
    cli_stdout_put(text, strlen(text)); /* cli_stdout_check says what failed */
    free(text);
    return CLI_EXIT_OK;
}

const spacrbench_recommendation *cli_recommend(const cli_common *c, const spacrbench_measurement *m,
                                               const spacrbench_machine *machine,
                                               spacrbench_recommendation *out)
{
    memset(out, 0, sizeof *out);
    out->size = sizeof *out;
    if (spacrbench_recommend_on(m, &c->rec, machine, out) == 0) {
        /* The caller here is an option: name it. */
        if (out->memory_source == SPACRBENCH_SOURCE_CALLER)
            snprintf(out->memory_where, sizeof out->memory_where, "--available");
        if (out->cores_source == SPACRBENCH_SOURCE_CALLER)
            snprintf(out->cores_where, sizeof out->cores_where, "--cores");
        return out;
    }
    cli_library_error(CLI_EXIT_ERROR, "no recommendation");
    return NULL;
}

static int is_json_name(const char *path)
{
    size_t n = strlen(path);
    return n >= 5 && strcmp(path + n - 5, ".json") == 0;
}

int cli_finish(const cli_common *c, const spacrbench_measurement *m,
               const spacrbench_machine *machine, const spacrbench_recommendation *rec,
               const cli_context *ctx)
{
    int want_json = c->json || (c->report_path && is_json_name(c->report_path)) ||
                    (c->plot_path && !ctx->scaling);
    /* One schedule per run, for the JSON document and --emit alike, from
     * the hand-off's figures: a plate's largest item (run --sample), else m's. */
    spacrbench_schedule sched_value = {.size = sizeof sched_value};
    char why_none[512] = "no recommendation";
    doc d = {.m = m, .rec = rec, .ctx = ctx, .common = c};
    const spacrbench_measurement *handoff = ctx->handoff ? ctx->handoff : m;
    if (rec && (want_json || c->emit != CLI_EMIT_REPORT)) {
        if (spacrbench_schedule_compute(handoff, rec, &sched_value) == 0)
            d.sched = &sched_value;
        else
            snprintf(why_none, sizeof why_none, "%s", spacrbench_last_error_message());
    }
    int status = CLI_EXIT_OK;
    /* The JSON embeds the report as printed; its notes and records are
     * every one, verbose or not. */
    char *human = report_text(&d, c->verbose), *line = NULL;
    char *json =
        human && want_json ? cli_json_document(m, machine, rec, d.sched, human, ctx) : NULL;
    if (!human || (want_json && !json)) {
        status = CLI_EXIT_ERROR;
        goto done;
    }
    if (c->emit != CLI_EMIT_REPORT) {
        doc h = d;
        h.m = handoff;
        status = emit_settings(c, &h, why_none);
        if (!c->quiet) /* the report it follows from goes to stderr */
            fputs(human, stderr);
    } else if (cli_export_takes_stdout(c)) {
        if (!c->quiet) /* as next to --emit: the export written below is stdout's */
            fputs(human, stderr);
    } else if (ctx->brief) { /* --json, --emit and exports to '-' are refused with it */
        if (!(line = render(d, DOC_BRIEF, 1)))
            status = cli_error(CLI_EXIT_ERROR, "cannot format the line: %s",
                               spacrbench_last_error_message());
        else
            cli_stdout_put(line, strlen(line));
    } else
        cli_stdout_put(c->json ? json : human, strlen(c->json ? json : human));
    /* Said now, before a --report file or a plot: the report is lost. */
    if (cli_stdout_check() != 0)
        status = CLI_EXIT_ERROR;
    if (c->report_path) {
        const char *text = is_json_name(c->report_path) ? json : human;
        if (cli_write_file_atomic("--report", c->report_path, text, strlen(text)) != 0)
            status = cli_error(CLI_EXIT_ERROR, "--report: cannot write %s: %s", c->report_path,
                               strerror(errno));
    }
    if (export_file("--export-markdown", c->export_markdown_path, d, SPACRBENCH_FORMAT_MARKDOWN))
        status = CLI_EXIT_ERROR;
    if (export_file("--export-csv", c->export_csv_path, d, SPACRBENCH_FORMAT_CSV) != 0)
        status = CLI_EXIT_ERROR;
    /* A serial run's --plot; with --scale the command plots the check itself. */
    if (c->plot_path && !ctx->scaling && run_plot_document(json, c->plot_path, 1) != 0)
        status = CLI_EXIT_ERROR;
done:
    fflush(stdout);
    free(human);
    free(json);
    free(line);
    return status;
}
