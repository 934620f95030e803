/* Whose manifest summarize read (summary.h): the job script (--job) and
 * the task reports (their "task".array_key, which the script exports)
 * state the key of the script that ran; the manifest states the key of
 * the script written with it (slurm_files.h). A manifest with another key
 * is another array's (written into the same directory later): its tasks
 * and requests are not used, and the text says so. Files are read as
 * summary_read.c reads them: regular files only, bounded. */
#if !defined(_WIN32)
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "handoff_rule.h"
#include "internal.h"
#include "json_reader.h"
#include "slurm_files.h"
#include "summary.h"

/* name in dir when it is a regular file of at most max bytes (malloc'd,
 * NUL-terminated), else NULL. */
static char *read_bounded(int dir, const char *name, size_t max, size_t *len)
{
    int fd = openat(dir, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return NULL;
    struct stat st;
    char *text = NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size <= max &&
        (text = malloc((size_t)st.st_size + 1)) != NULL) {
        size_t got = 0;
        while (got < (size_t)st.st_size) {
            ssize_t n = read(fd, text + got, (size_t)st.st_size - got);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            got += (size_t)n;
        }
        text[got] = '\0';
        *len = got;
    }
    close(fd);
    return text;
}

/* The string member key of object path[0].path[1] (NULL-ended) of the JSON
 * file name in dir, into out; 0 when it is there. */
static int json_member(int dir, const char *name, const char *const *path, char *out, size_t cap)
{
    size_t len = 0;
    char *text = read_bounded(dir, name, SUM_REPORT_MAX, &len);
    if (!text)
        return -1;
    const json_limits limits = {SUM_JSON_DEPTH, (size_t)1 << 20, 0};
    json_doc doc;
    int rc = -1;
    if (json_parse(&doc, text, len, &limits) == 0) {
        const json_node *n = json_root(&doc);
        for (size_t i = 0; n && path[i]; i++)
            n = json_get(&doc, n, path[i]);
        if (n && n->kind == JSON_STRING && strlen(n->text) < cap) {
            snprintf(out, cap, "%s", n->text);
            rc = 0;
        }
    }
    json_doc_free(&doc);
    free(text);
    return rc;
}

/* The report of the newest submission (the largest array job id; any
 * report outside a job when none has one). */
static const sum_task *newest_report(const spacrbench_summary *s)
{
    const sum_task *best = NULL;
    for (size_t i = 0; i < s->n_tasks; i++) {
        const sum_task *t = &s->tasks[i];
        if (t->state == SUM_UNREADABLE || !t->file)
            continue;
        unsigned long long job = t->array_job ? strtoull(t->array_job, NULL, 10) : 0;
        unsigned long long top = best && best->array_job ? strtoull(best->array_job, NULL, 10) : 0;
        if (!best || job > top)
            best = t;
    }
    return best;
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
            mf->req_mem = (int64_t)a << 20;
        else if (sscanf(line, "#SBATCH --cpus-per-task=%lld", &a) == 1 && a > 0 && a < (1 << 20))
            mf->req_cpus = a;
        else if (sscanf(line, "#SBATCH --time=%lld-%lld:%lld:%lld", &d, &a, &b, &c) == 4 ||
                 (d = 0, sscanf(line, "#SBATCH --time=%lld:%lld:%lld", &a, &b, &c) == 3))
            if (d >= 0 && d < 1000 && a >= 0 && a < 24 * 1000 && b >= 0 && b < 60)
                mf->req_time = (d * 24 + a) * 60 + b + (c > 0 ? 1 : 0);
        line = nl ? nl + 1 : NULL;
    }
}

static char *joined(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 1;
    char *out = malloc(n);
    if (out)
        snprintf(out, n, "%s%s", a, b);
    return out;
}

int sum_check_owner(spacrbench_summary *s, const char *job_script)
{
    if (!s->manifest.present || s->manifest.problem)
        return 0;
    int dir = open(s->directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0)
        return 0; /* sum_read opened it: nothing more to learn */
    char manifest_key[SB_SLURM_KEY_LEN + 1], owner[SB_SLURM_KEY_LEN + 1] = "";
    static const char *const key_path[] = {"array_key", NULL};
    static const char *const report_path[] = {"task", "array_key", NULL};
    char *script_text = NULL;
    const char *whose = "the reports' job script";
    if (json_member(dir, SB_SLURM_MANIFEST, key_path, manifest_key, sizeof manifest_key) != 0)
        manifest_key[0] = '\0';
    if (job_script) {
        size_t len = 0;
        script_text = read_bounded(AT_FDCWD, job_script, 4u << 20, &len);
        if (script_text && sb_slurm_stated_key(script_text, len, owner) != 0)
            owner[0] = '\0';
        whose = job_script;
    } else {
        const sum_task *t = newest_report(s);
        if (t && json_member(dir, t->file, report_path, owner, sizeof owner) != 0)
            owner[0] = '\0';
    }
    close(dir);
    if (!manifest_key[0] || !owner[0] || strcmp(manifest_key, owner) == 0) {
        free(script_text);
        return 0;
    }
    /* Another array's manifest: none of its figures. */
    sum_manifest *mf = &s->manifest;
    mf->req_mem = mf->req_cpus = mf->req_time = -1;
    mf->item_timeout = 0;
    char head[512];
    snprintf(head, sizeof head,
             "%s/" SB_SLURM_MANIFEST " belongs to another array (key %s; %s has key %s), so "
             "its tasks and requests are not used",
             s->directory, manifest_key, whose, owner);
    char *source = NULL;
    int rc = 0;
    if (script_text) { /* the tasks came from the script: its requests too */
        script_requests(script_text, mf);
        char tail[sizeof head + 8];
        snprintf(tail, sizeof tail, "; %s", head);
        source = joined(s->array_source ? s->array_source : "", tail);
    } else {
        /* The tasks came from the manifest: as far as the directory shows. */
        int64_t top = -1;
        for (size_t i = 0; i < s->n_tasks; i++)
            if (s->tasks[i].index > top)
                top = s->tasks[i].index;
        sum_ranges_free(&s->array);
        memset(&s->array, 0, sizeof s->array);
        if (top >= 0 && sum_ranges_add(&s->array, 0, top) < 0)
            rc = sb_fail(SPACRBENCH_ENOMEM, "out of memory");
        free(s->job_script); /* the manifest's: another array's script */
        s->job_script = NULL;
        char tail[sizeof head + 256];
        snprintf(tail, sizeof tail,
                 ": as far as its task reports show (up to task %" PRId64
                 "); --job JOB_SCRIPT checks against the script's --array",
                 top < 0 ? 0 : top);
        source = joined(head, tail);
    }
    free(script_text);
    if (!source)
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory");
    free(s->array_source);
    s->array_source = source;
    return rc;
}

#else /* Windows: summarize is not available (summary_read.c) */

#include "summary.h"

int sum_check_owner(spacrbench_summary *s, const char *job_script)
{
    (void)s;
    (void)job_script;
    return 0;
}
#endif
