/* Recommendation and the choice of outputs; see cli_output.h. */
#include "cli_output.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_file.h"
#include "cli_json.h"
#include "cli_stdio.h"
#include "cli_text.h"
#include "slurm_job.h"

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The hand-off alone goes to stdout (ready to paste or redirect), formatted
 * from the schedule cli_finish already computed. */
static int emit_settings(const cli_common *c, const spacrbench_measurement *m,
                         const spacrbench_schedule *sched, const char *why_none)
{
    const char *name = c->emit == CLI_EMIT_SLURM ? "slurm" : "dask";
    if (!sched) {
        fprintf(stderr, "spacrbench: --emit %s: %s\n", name, why_none);
        return CLI_EXIT_ERROR;
    }
    int kind = c->emit == CLI_EMIT_SLURM ? SPACRBENCH_HANDOFF_SLURM : SPACRBENCH_HANDOFF_DASK;
    const spacrbench_slurm_job *job = c->emit == CLI_EMIT_SLURM ? c->slurm_job : NULL;
#define HANDOFF_TEXT(buf, cap)                                                                     \
    (job ? spacrbench_format_slurm_script(m, sched, job, buf, cap)                                 \
         : spacrbench_format_schedule(m, sched, kind, buf, cap))
    int n = HANDOFF_TEXT(NULL, 0);
    char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (text && HANDOFF_TEXT(text, (size_t)n + 1) == n) {
#undef HANDOFF_TEXT
        fputs(text, stdout);
        free(text);
        if (job) /* the script is out: summarize may now count its tasks */
            cli_slurm_job_write_manifest(job);
        return CLI_EXIT_OK;
    }
    free(text);
    fprintf(stderr, "spacrbench: --emit %s: %s\n", name,
            n < 0 ? spacrbench_last_error_message() : "out of memory");
    return CLI_EXIT_ERROR;
}

int cli_finish(const cli_common *c, const spacrbench_measurement *m,
               const spacrbench_machine *machine, const cli_context *ctx)
{
    spacrbench_recommendation rec_value = {.size = sizeof rec_value};
    const spacrbench_recommendation *rec = &rec_value;
    if (spacrbench_recommend_on(m, &c->rec, machine, &rec_value) != 0) {
        fprintf(stderr, "spacrbench: no recommendation: %s\n", spacrbench_last_error_message());
        rec = NULL;
    }
    /* One answer: a measured knee (within the serial bounds) is the advice. */
    if (rec && ctx && ctx->scaling)
        spacrbench_recommend_apply_scaling(&rec_value, ctx->scaling);
    int want_json = c->json || (c->report_path && ends_with(c->report_path, ".json"));
    /* One schedule per run, for the JSON document and --emit alike. */
    spacrbench_schedule sched_value = {.size = sizeof sched_value};
    const spacrbench_schedule *sched = NULL;
    char why_none[512] = "no recommendation";
    if (rec && (want_json || c->emit != CLI_EMIT_REPORT)) {
        if (spacrbench_schedule_compute(m, rec, &sched_value) == 0)
            sched = &sched_value;
        else
            snprintf(why_none, sizeof why_none, "%s", spacrbench_last_error_message());
    }

    int status = CLI_EXIT_OK;
    char *human = cli_report_text(m, rec, ctx);
    char *json = human && want_json ? cli_json_document(m, machine, rec, sched, human, ctx) : NULL;
    if (!human || (want_json && !json)) {
        status = CLI_EXIT_ERROR;
        goto done;
    }
    if (c->emit != CLI_EMIT_REPORT) {
        status = emit_settings(c, m, sched, why_none);
        /* The report it follows from goes to stderr. */
        if (!c->quiet)
            fputs(human, stderr);
    } else
        fputs(c->json ? json : human, stdout);
    /* Said now, before a --report file or a plot: the report is lost. */
    if (cli_stdout_check() != 0)
        status = CLI_EXIT_ERROR;

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
