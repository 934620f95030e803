/* summarize's public functions: read, whose array, decide, render. */
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "internal.h"

static void free_lines(char **lines, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(lines[i]);
    free(lines);
}

void spacrbench_summary_free(spacrbench_summary *s)
{
    if (!s)
        return;
    for (sum_task *t = s->tasks; t < s->tasks + s->n_tasks; t++) {
        free(t->file);
        free(t->why);
        free((char *)t->rec.item); /* copies (summary_read.c) */
        free((char *)t->rec.array_job_id);
        free((char *)t->rec.array_key);
    }
    free(s->tasks);
    for (size_t i = 0; i < s->n_ignored; i++)
        free(s->ignored[i]);
    free(s->ignored);
    for (size_t i = 0; i < s->n_logs; i++)
        free(s->logs[i].said);
    free(s->logs);
    free(s->manifest.problem);
    free((char *)s->manifest.rec.script);
    free((char *)s->manifest.rec.array_key);
    sum_ranges_free(&s->array);
    sum_ranges_free(&s->missing);
    sum_ranges_free(&s->rerun);
    free_lines(s->lines, s->n_lines);
    for (int n = 0; n < SUM_NEEDS; n++) {
        sum_ranges_free(&s->act[n]);
        free_lines(s->act_lines[n], s->n_act_lines[n]);
    }
    free(s->array_source);
    free(s->job_script);
    free(s->newest_job);
    free(s->directory);
    free(s->text);
    free(s->json);
    free(s);
}

int spacrbench_summarize(const char *directory, const char *job_script, spacrbench_summary **out)
{
    SB_REFUSE(!out, "out is NULL");
    *out = NULL;
    if (!directory || !*directory)
        return sb_fail(SPACRBENCH_EINVAL, "directory is NULL or empty");
    if (job_script && !*job_script)
        return sb_fail(SPACRBENCH_EINVAL, "job_script is empty (NULL: none)");
    spacrbench_summary *s = calloc(1, sizeof *s);
    if (!s || !(s->directory = strdup(directory))) {
        free(s);
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory");
    }
    int rc = sum_read(s, job_script); /* on Windows: EUNSUPPORTED */
#if !defined(_WIN32)
    if (rc == 0)
        rc = sum_check_owner(s, job_script);
    if (rc == 0)
        rc = sum_decide(s);
    if (rc == 0)
        rc = sum_render(s);
#endif
    if (rc != 0) {
        spacrbench_summary_free(s);
        return rc;
    }
    *out = s;
    return 0;
}

static int deliver(const char *text, char *buf, size_t cap)
{
    if (!text)
        return sb_fail(SPACRBENCH_EINVAL, "summary is NULL");
    if (!buf && cap > 0)
        return sb_fail(SPACRBENCH_EINVAL, "buf is NULL but cap is %zu", cap);
    size_t len = strlen(text);
    if (len > (size_t)INT32_MAX)
        return sb_fail(SPACRBENCH_ERANGE, "the summary is larger than 2 GiB");
    if (cap > 0) {
        size_t n = len < cap - 1 ? len : cap - 1;
        memcpy(buf, text, n);
        buf[n] = '\0';
    }
    return (int)len;
}

int spacrbench_summary_text(const spacrbench_summary *s, char *buf, size_t cap)
{
    sb_clear_error();
    return deliver(s ? s->text : NULL, buf, cap);
}

int spacrbench_summary_json(const spacrbench_summary *s, char *buf, size_t cap)
{
    sb_clear_error();
    return deliver(s ? s->json : NULL, buf, cap);
}

int spacrbench_summary_status(const spacrbench_summary *s)
{
    SB_REFUSE(!s, "summary is NULL");
    int act = 0;
    for (int n = SUM_NEED_ITEM; n < SUM_NEEDS; n++)
        act |= s->act[n].n > 0;
    return s->rerun.n || act ? 3 : 0;
}
