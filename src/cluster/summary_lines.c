/* The sbatch lines summarize prints: each runs as printed by a POSIX
 * shell, keeps the array's %K, exports the --time the tasks record (and
 * an item --timeout a submission gave), and holds no argument longer than
 * Linux takes (MAX_ARG_STRLEN): a longer --array is split over several
 * lines, each its own job. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "internal.h"

void sum_options(sb_text *t, const sum_line_settings *o)
{
    if (o->mem > 0)
        sb_text_printf(t, " --mem=%" PRId64 "M", (o->mem + (1 << 20) - 1) >> 20);
    sb_text_printf(t, " --cpus-per-task=%" PRId64, o->cpus);
    if (o->time > 0) {
        char time[32];
        sb_format_time_limit(time, sizeof time, o->time);
        sb_text_printf(t, " --time=%s --export=ALL,SPACRBENCH_TIME_LIMIT_MINUTES=%" PRId64, time,
                       o->time);
        if (o->item_timeout >= 0) {
            char seconds[48] = "0";
            if (o->item_timeout > 0)
                sb_slurm_seconds_text(seconds, sizeof seconds, o->item_timeout);
            sb_text_printf(t, ",SPACRBENCH_ITEM_TIMEOUT=%s", seconds);
        }
    }
}

static int push(char ***lines, size_t *n, sb_text *t)
{
    char *text = sb_text_take(t);
    char **grown = text ? realloc(*lines, (*n + 1) * sizeof **lines) : NULL;
    if (!grown) {
        free(text);
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory");
    }
    *lines = grown;
    (*lines)[(*n)++] = text;
    return 0;
}

/* The lines for set: as many as its --array takes within SUM_ARG_MAX. */
static int lines_for(const spacrbench_summary *s, const sum_ranges *set, const sum_line_settings *o,
                     char ***lines, size_t *n)
{
    char throttle[32] = "";
    if (s->throttle > 0)
        snprintf(throttle, sizeof throttle, "%%%" PRId64, s->throttle);
    const size_t room = SUM_ARG_MAX - strlen("--array=") - strlen(throttle);
    for (size_t from = 0; from < set->n;) {
        /* As many ranges as fit one argument (one always does). */
        size_t to = from, len = 0;
        while (to < set->n) {
            char part[80];
            size_t add = (size_t)sum_range_text(&set->r[to], to == from, part, sizeof part);
            if (to > from && len + add > room)
                break;
            len += add;
            to++;
        }
        sb_text t = {0};
        sb_text_printf(&t, "sbatch --array=");
        sum_ranges_write(&t, set, from, to);
        sb_text_printf(&t, "%s", throttle);
        sum_options(&t, o);
        sb_text_printf(&t, " ");
        if (s->job_script)
            sb_shell_word(&t, s->job_script, 1);
        else
            sb_text_printf(&t, "JOB_SCRIPT");
        if (push(lines, n, &t) != 0) /* a failed text too */
            return SPACRBENCH_ENOMEM;
        from = to;
    }
    return 0;
}

int sum_make_lines(spacrbench_summary *s)
{
    sum_line_settings main = {s->next_mem, s->next_cpus, s->next_time, s->given_item_timeout};
    int rc = lines_for(s, &s->rerun, &main, &s->lines, &s->n_lines);
    /* The item --timeout offer: twice the one that ended them, a --time to match. */
    sum_line_settings item = {s->next_mem, s->next_cpus, s->item_time, s->next_item_timeout};
    if (rc == 0)
        rc = lines_for(s, &s->act[SUM_NEED_ITEM], &item, &s->act_lines[SUM_NEED_ITEM],
                       &s->n_act_lines[SUM_NEED_ITEM]);
    /* The command's tasks, once fixed: the next submission's settings. */
    if (rc == 0)
        rc = lines_for(s, &s->act[SUM_NEED_COMMAND], &main, &s->act_lines[SUM_NEED_COMMAND],
                       &s->n_act_lines[SUM_NEED_COMMAND]);
    return rc;
}
