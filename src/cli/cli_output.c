/* Recommendation and the choice of outputs; see cli_output.h. */
#include "cli_output.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_error.h"
#include "cli_export.h"
#include "cli_file.h"
#include "cli_json.h"
#include "cli_stdio.h"
#include "cli_text.h"
#include "slurm_job.h"
#include "text_buffer.h"

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

typedef struct handoff_args {
    const spacrbench_measurement *m;
    const spacrbench_schedule *sched;
    const spacrbench_slurm_job *job; /* NULL: the settings alone */
    int kind;
} handoff_args;

static int handoff_into(char *buf, size_t cap, const void *arg)
{
    const handoff_args *h = arg;
    return h->job ? cli_slurm_job_script(h->job, h->m, h->sched, buf, cap)
                  : spacrbench_format_schedule(h->m, h->sched, h->kind, buf, cap);
}

/* The hand-off alone goes to stdout (ready to paste or redirect), formatted
 * from the schedule cli_finish already computed. */
static int emit_settings(const cli_common *c, const spacrbench_measurement *m,
                         const spacrbench_schedule *sched, const char *why_none)
{
    const char *option = c->emit == CLI_EMIT_SLURM ? "--emit slurm" : "--emit dask";
    if (!sched)
        return cli_error(CLI_EXIT_ERROR, "%s: %s", option, why_none);
    handoff_args h = {m, sched, c->emit == CLI_EMIT_SLURM ? c->slurm_job : NULL,
                      c->emit == CLI_EMIT_SLURM ? SPACRBENCH_HANDOFF_SLURM
                                                : SPACRBENCH_HANDOFF_DASK};
    sb_text t = {0};
    sb_text_reserve(&t, 8192);
    char *text = sb_text_append(&t, handoff_into, &h) >= 0 ? sb_text_take(&t) : NULL;
    sb_text_free(&t);
    if (!text)
        return cli_library_error(CLI_EXIT_ERROR, option);
    /* The script's index and the manifest summarize reads, first: a script
     * whose tasks cannot find their items is not printed. */
    if (h.job && cli_slurm_job_write_manifest(h.job, m, sched) != 0) {
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

int cli_finish(const cli_common *c, const spacrbench_measurement *m,
               const spacrbench_machine *machine, const spacrbench_recommendation *rec,
               const cli_context *ctx)
{
    int want_json = c->json || (c->report_path && ends_with(c->report_path, ".json")) ||
                    (c->plot_path && !ctx->scaling);
    /* One schedule per run, for the JSON document and --emit alike. */
    spacrbench_schedule sched_value = {.size = sizeof sched_value};
    const spacrbench_schedule *sched = NULL;
    char why_none[512] = "no recommendation";
    /* The hand-off's figures: a plate's largest item (run --sample), else m's. */
    const spacrbench_measurement *handoff = ctx->handoff ? ctx->handoff : m;
    if (rec && (want_json || c->emit != CLI_EMIT_REPORT)) {
        if (spacrbench_schedule_compute(handoff, rec, &sched_value) == 0)
            sched = &sched_value;
        else
            snprintf(why_none, sizeof why_none, "%s", spacrbench_last_error_message());
    }

    int status = CLI_EXIT_OK;
    /* The JSON embeds the report as printed; its notes and records are
     * every one, verbose or not. */
    char *human = cli_report_text(m, rec, ctx, c->verbose);
    char *json = human && want_json ? cli_json_document(m, machine, rec, sched, human, ctx) : NULL;
    if (!human || (want_json && !json)) {
        status = CLI_EXIT_ERROR;
        goto done;
    }
    if (c->emit != CLI_EMIT_REPORT) {
        status = emit_settings(c, handoff, sched, why_none);
        /* The report it follows from goes to stderr. */
        if (!c->quiet)
            fputs(human, stderr);
    } else if (cli_export_takes_stdout(c)) {
        if (!c->quiet) /* as next to --emit: the export written below is stdout's */
            fputs(human, stderr);
    } else if (ctx->brief) { /* --json, --emit and exports to '-' are refused with it */
        char *line = cli_brief_text(m, rec);
        if (!line)
            status = CLI_EXIT_ERROR;
        else
            cli_stdout_put(line, strlen(line));
        free(line);
    } else
        cli_stdout_put(c->json ? json : human, strlen(c->json ? json : human));
    /* Said now, before a --report file or a plot: the report is lost. */
    if (cli_stdout_check() != 0)
        status = CLI_EXIT_ERROR;

    if (c->report_path) {
        const char *doc = ends_with(c->report_path, ".json") ? json : human;
        if (cli_write_file_atomic("--report", c->report_path, doc, strlen(doc)) != 0) {
            status = cli_error(CLI_EXIT_ERROR, "--report: cannot write %s: %s", c->report_path,
                               strerror(errno));
        }
    }
    if (cli_write_exports(c, m, rec, ctx, json) != 0)
        status = CLI_EXIT_ERROR;
done:
    fflush(stdout);
    free(human);
    free(json);
    return status;
}
