/* Whose array summarize reads: every script carries its key, each report
 * records it (task.array_key), each log's first line and the manifest
 * state it. The manifest is the newest emit into the directory (an emit
 * never replaces another array's files), so it wins over the reports. A
 * report of another key (or none, when the key is known) is shown, never
 * counted. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "internal.h"

/* The key of the newest submission's reports (the largest array job id;
 * any keyed report outside a job when none has one), or NULL. */
static const char *newest_key(const spacrbench_summary *s)
{
    const sum_task *best = NULL;
    for (size_t i = 0; i < s->n_tasks; i++) {
        const sum_task *t = &s->tasks[i];
        if (t->state == SUM_UNREADABLE || !t->rec.array_key)
            continue;
        if (!best || t->job > best->job)
            best = t;
    }
    return best ? best->rec.array_key : NULL;
}

/* #SBATCH --mem=<N>M, --cpus-per-task=<N>, --time=[D-]HH:MM:SS as the job
 * script writes them (the last of each before the first command). */
static void script_requests(const char *text, sum_manifest *mf)
{
    for (const char *line = text; line && *line;) {
        const char *nl = strchr(line, '\n');
        if (*line != '#' && *line != '\n')
            break;
        long long a = 0, b = 0, c = 0, d = 0;
        char unit = 0;
        if (sscanf(line, "#SBATCH --mem=%lld%c", &a, &unit) == 2 && unit == 'M' && a > 0 &&
            a < (1LL << 40))
            mf->rec.mem_bytes = (int64_t)a << 20;
        else if (sscanf(line, "#SBATCH --cpus-per-task=%lld", &a) == 1 && a > 0 && a < (1 << 20))
            mf->rec.cpus = a;
        else if (sscanf(line, "#SBATCH --time=%lld-%lld:%lld:%lld", &d, &a, &b, &c) == 4 ||
                 (d = 0, sscanf(line, "#SBATCH --time=%lld:%lld:%lld", &a, &b, &c) == 3))
            if (d >= 0 && d < 1000 && a >= 0 && a < 24 * 1000 && b >= 0 && b < 60)
                mf->rec.time_minutes = (d * 24 + a) * 60 + b + (c > 0 ? 1 : 0);
        line = nl ? nl + 1 : NULL;
    }
}

/* With --job: a manifest of another key is another array's. */
static int drop_manifest(spacrbench_summary *s, const char *job_script, const char *script_text,
                         const char *script_key)
{
    sum_manifest *mf = &s->manifest;
    mf->rec.mem_bytes = mf->rec.cpus = mf->rec.time_minutes = -1;
    mf->rec.item_timeout_seconds = 0;
    script_requests(script_text, mf);
    char head[512];
    snprintf(head, sizeof head,
             "; %s/" SB_SLURM_MANIFEST " belongs to another array (key %s; %s has key %s), so "
             "its tasks and requests are not used",
             s->directory, mf->rec.array_key, job_script, script_key);
    char *source = sb_textf("%s%s", s->array_source ? s->array_source : "", head);
    if (!source)
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory");
    free(s->array_source);
    s->array_source = source;
    return 0;
}

int sum_check_owner(spacrbench_summary *s, const char *job_script)
{
    char script_key[SB_SLURM_KEY_LEN + 1] = "";
    char *script_text = NULL;
    if (job_script) {
        size_t len = 0;
        char *why = NULL;
        sum_read_small(AT_FDCWD, job_script, 4u << 20, &script_text, &len, &why);
        free(why);
        if (script_text && sb_slurm_stated_key(script_text, len, script_key) != 0)
            script_key[0] = '\0';
    }
    const sum_manifest *mf = &s->manifest;
    const char *manifest_key = mf->present && !mf->problem ? mf->rec.array_key : NULL;
    const char *key = script_key[0] ? script_key : manifest_key ? manifest_key : newest_key(s);
    snprintf(s->job_key, sizeof s->job_key, "%s", key ? key : "");
    int rc = 0;
    if (script_key[0] && manifest_key && strcmp(script_key, manifest_key) != 0)
        rc = drop_manifest(s, job_script, script_text, script_key);
    free(script_text);
    /* A script path with control characters was not written by the
     * library: not printed into a command line (the text says so). */
    if (s->job_script && sb_has_control(s->job_script)) {
        free(s->job_script);
        s->job_script = NULL;
        s->script_unusable = 1;
    }
    /* Another array's reports: shown, never counted. */
    for (size_t i = 0; i < s->n_tasks && rc == 0 && s->job_key[0]; i++) {
        sum_task *t = &s->tasks[i];
        if (t->state == SUM_UNREADABLE ||
            (t->rec.array_key && strcmp(t->rec.array_key, s->job_key) == 0))
            continue;
        t->state = SUM_FOREIGN;
        free(t->why);
        sb_text w = {0};
        sb_text_printf(&w, "another array's report (key ");
        sb_text_label(&w, t->rec.array_key ? t->rec.array_key : "none");
        sb_text_printf(&w, "; this array's key %s): not counted", s->job_key);
        t->why = sb_text_take(&w);
        s->n_foreign++;
    }
    return rc;
}
