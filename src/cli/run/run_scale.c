/* The scaling check of `spacrbench run`; see run_scale.h. This file picks
 * the worker counts, rotates the items, turns each group's outcome into a
 * point and writes the notes; scale_group.c starts and measures a group. */
#include "run_scale.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_escape.h"
#include "command_line.h"
#include "run_signals.h"
#include "run_wait.h"
#include "scale_group.h"

#define MAX_NOTES (2 * CLI_SCALE_MAX + 4)

typedef struct scale_state {
    const run_scale_input *in;
    scale_setup setup;
    tree_sampler tree;
    size_t offset; /* next item: the points take different items in turn */
    int copy_failed;
    int64_t stopped_k; /* the count a stop signal interrupted (marked failed), 0 none */
    char notes[MAX_NOTES][700];
    size_t n_notes;
} scale_state;

static void note(scale_state *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(scale_state *s, const char *fmt, ...)
{
    if (s->n_notes == MAX_NOTES)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->notes[s->n_notes++], sizeof s->notes[0], fmt, ap);
    va_end(ap);
}

/* --scale's list, or auto: 1, 2, 4, ... below max, then max, where max =
 * min(the recommendation + 1, usable cores): one count past the advice
 * shows whether it leaves throughput unused. */
static size_t worker_counts(const run_scale_input *in, int64_t *counts)
{
    const cli_args *a = in->args;
    if (!a->scale_auto) {
        memcpy(counts, a->scale, a->n_scale * sizeof *counts);
        return a->n_scale;
    }
    int64_t cores = in->rec ? in->rec->cores : (int64_t)sysconf(_SC_NPROCESSORS_ONLN);
    int64_t max = in->rec && in->rec->workers + 1 < cores ? in->rec->workers + 1 : cores;
    max = max < 1 ? 1 : max > CLI_SCALE_WORKERS_MAX ? CLI_SCALE_WORKERS_MAX : max;
    size_t n = 0;
    counts[n++] = 1;
    for (int64_t k = 2; k < max && n + 1 < CLI_SCALE_MAX; k *= 2)
        counts[n++] = k;
    if (max > 1)
        counts[n++] = max;
    return n;
}

/* available - reserve of the recommendation (the same snapshot and
 * reserve rule), else the library's own discovery. */
static int64_t memory_budget(const spacrbench_recommendation *rec)
{
    if (rec && rec->available_bytes >= 0 && rec->reserve_bytes >= 0)
        return rec->available_bytes > rec->reserve_bytes ? rec->available_bytes - rec->reserve_bytes
                                                         : 0;
    return spacrbench_scale_memory_budget();
}

/* "exited with status 3", "killed by signal 15 (Terminated)", or, when the
 * OOM killer ran in the group and the copy (or, with several items, one
 * of them: 128 + 9) died of a SIGKILL spacrbench did not send, "OOM-killed
 * (...)" with the limit, as a serial item says. */
static void describe_copy(const scale_copy *c, const scale_outcome *o, int64_t m, char *buf,
                          size_t cap)
{
    int sigkill = WIFSIGNALED(c->status) ? WTERMSIG(c->status) == SIGKILL
                                         : m > 1 && WEXITSTATUS(c->status) == 128 + SIGKILL;
    if (sigkill && o->oom_kills > 0 && !o->killed_after_grace) {
        char limit[32] = "unknown";
        if (o->limit > 0)
            spacrbench_format_bytes(o->limit, limit, sizeof limit);
        snprintf(buf, cap, "%sOOM-killed (the kernel's out-of-memory killer; memory limit %s)",
                 WIFSIGNALED(c->status) ? "" : "ended as its item was ", limit);
    } else if (WIFSIGNALED(c->status))
        snprintf(buf, cap, "killed by signal %d (%s)", WTERMSIG(c->status),
                 strsignal(WTERMSIG(c->status)));
    else
        snprintf(buf, cap, "exited with status %d", WEXITSTATUS(c->status));
}

/* The first failed copy is named (stderr and a note); an OOM kill in the
 * group is named too, as it explains the failure. A point a stop signal
 * interrupted is named as such instead: its copies ended because of it. */
static void note_failures(scale_state *s, int64_t k, const scale_copy *copies,
                          const scale_outcome *o, char **const *argvs, const size_t *index)
{
    const run_items *items = s->in->items;
    int64_t m = s->in->args->scale_items;
    if (o->stopped_by) {
        char killed[128] = "";
        if (o->killed_after_grace)
            snprintf(killed, sizeof killed,
                     " (still running %.0f s later: killed with all their processes, SIGKILL)",
                     RUN_KILL_GRACE_S);
        note(s,
             "%lld workers: interrupted by signal %d (%s) while the copies ran%s; the point is "
             "marked failed",
             (long long)k, o->stopped_by, strsignal(o->stopped_by), killed);
        fprintf(stderr, "spacrbench: --scale: %s\n", s->notes[s->n_notes - 1]);
    }
    for (int64_t i = 0; i < k && !o->stopped_by; i++) {
        if (WIFEXITED(copies[i].status) && WEXITSTATUS(copies[i].status) == 0)
            continue;
        char what[160];
        describe_copy(&copies[i], o, m, what, sizeof what);
        char *shown = command_display(argvs[i * m]);
        char *label = cli_escape_label(items->items[index[i * m]]);
        note(s, "%lld workers: copy %lld (item %s%s) %s: %s; the point is marked failed",
             (long long)k, (long long)i + 1, label ? label : "?",
             m > 1 ? ", the first of its items" : "", what, shown ? shown : "");
        fprintf(stderr, "spacrbench: --scale: %s\n", s->notes[s->n_notes - 1]);
        free(label);
        free(shown);
        break;
    }
    if (o->oom_kills > 0) {
        char limit[32] = "unknown";
        if (o->limit > 0)
            spacrbench_format_bytes(o->limit, limit, sizeof limit);
        note(s,
             "%lld workers: the kernel's OOM killer ended %lld process(es) %s (memory limit %s%s)",
             (long long)k, (long long)o->oom_kills,
             o->oom_outside ? "while the copies ran" : "in the group", limit,
             o->oom_outside ? "; counted by the oom_kill count of spacrbench's own cgroup, "
                              "which held the copies"
                            : "");
        fprintf(stderr, "spacrbench: --scale: %s\n", s->notes[s->n_notes - 1]);
    }
    if (o->left_behind)
        note(s, "%lld workers: %d process(es) outlived their copy%s", (long long)k, o->left_behind,
             s->setup.use_cgroup ? " and were moved back to spacrbench's own cgroup" : "");
}

/* One count: the next k * m items (wrapping), copy i taking items
 * [i*m, i*m + m). 1 when a stop signal came before the copies started
 * (no point), 0 with *pt filled, -1 on an internal error. */
static int run_point(scale_state *s, int64_t k, spacrbench_scale_point *pt)
{
    const cli_args *a = s->in->args;
    const run_items *items = s->in->items;
    size_t total = (size_t)(k * a->scale_items);
    char ***argvs = calloc(total, sizeof *argvs);
    size_t *index = calloc(total, sizeof *index);
    scale_copy *copies = calloc((size_t)k, sizeof *copies);
    int rc = argvs && index && copies ? 0 : -1;
    for (size_t j = 0; rc == 0 && j < total; j++) {
        index[j] = (s->offset + j) % items->n;
        if (!(argvs[j] = command_for_item(a->cmd, a->cmd_len, items->items[index[j]])))
            rc = -1;
    }
    if (rc != 0)
        fprintf(stderr, "spacrbench: out of memory\n");
    s->offset = (s->offset + total) % items->n;
    char name[96];
    snprintf(name, sizeof name, "spacrbench-run-%ld-scale-%lld", (long)getpid(), (long long)k);
    scale_outcome o;
    if (rc == 0)
        rc = scale_group_run(&s->setup, argvs, k, a->scale_items, name, copies, &o);
    if (rc == 0 && o.interrupted)
        rc = 1;
    if (rc == 0) {
        spacrbench_scale_point_init(pt, sizeof *pt);
        pt->workers = k;
        pt->items = (int64_t)total;
        pt->seconds = o.seconds;
        double busy = 0;
        int failed = o.oom_kills > 0 || o.stopped_by;
        for (int64_t i = 0; i < k; i++) {
            busy += copies[i].seconds;
            failed |= !copies[i].done || !WIFEXITED(copies[i].status) ||
                      WEXITSTATUS(copies[i].status) != 0;
        }
        pt->mean_item_seconds = busy / (double)total;
        pt->peak_bytes = o.peak;
        pt->vram_peak_bytes = o.vram_peak;
        pt->peak_method =
            s->setup.use_cgroup ? SPACRBENCH_PEAK_CGROUP : SPACRBENCH_PEAK_CHILD_RUSAGE;
        pt->failed = failed;
        if (failed) {
            /* An interrupted point is not a failed copy: the exit status
             * comes from the signal. */
            s->copy_failed |= !o.stopped_by;
            if (o.stopped_by)
                s->stopped_k = k;
            note_failures(s, k, copies, &o, argvs, index);
        } else if (o.left_behind)
            note_failures(s, k, copies, &o, argvs, index);
    }
    for (size_t j = 0; argvs && j < total; j++)
        command_free(argvs[j]);
    free(argvs);
    free(index);
    free(copies);
    return rc;
}

static void method_notes(scale_state *s)
{
    const runner *r = s->in->r;
    int64_t m = s->in->args->scale_items;
    note(s,
         "each count k ran k copies of the command at once, each on %lld item(s) of its own "
         "(the items rotate from one count to the next); items/s = k x %lld / the group's wall "
         "time",
         (long long)m, (long long)m);
    if (r->use_cgroup)
        note(s,
             "group peak from one memory cgroup per count holding all its copies (cgroup v%d "
             "%s under %s): exact, page cache included",
             r->cg.version, r->cg.version == 1 ? "memory.max_usage_in_bytes" : "memory.peak",
             r->cg.parent);
    else
        note(s,
             "group peak = the sum of each process's VmHWM sampled every %ld ms (an upper "
             "bound: the peaks may not coincide; shorter-lived processes are seen only through "
             "ru_maxrss); no cgroup of its own because %s",
             RUN_SAMPLE_INTERVAL_NS / 1000000, r->why_no_cgroup);
    if (run_vram_active(&r->vram))
        note(s,
             "group VRAM: NVML's usedGpuMemory of %s, summed, sampled every %ld ms while the "
             "copies ran and once at their end",
             r->use_cgroup ? "every PID in the count's cgroup" : "the copies and their descendants",
             (r->use_cgroup ? RUN_VRAM_INTERVAL_NS : RUN_SAMPLE_INTERVAL_NS) / 1000000);
}

int run_scale(const run_scale_input *in, spacrbench_scale_result **out, int *copy_failed)
{
    *out = NULL;
    *copy_failed = 0;
    scale_state *s = calloc(1, sizeof *s);
    if (!s) {
        fprintf(stderr, "spacrbench: out of memory\n");
        return CLI_EXIT_ERROR;
    }
    s->in = in;
    tree_sampler_init(&s->tree, getpid());
    s->setup = (scale_setup){.use_cgroup = in->r->use_cgroup,
                             .cg = &in->r->cg,
                             .stdout_is_output = in->r->stdout_is_output,
                             .tree = &s->tree,
                             .vram = &in->r->vram,
                             .machine_limit = in->r->machine_limit};
    int64_t counts[CLI_SCALE_MAX];
    size_t n = worker_counts(in, counts);
    spacrbench_scale_point points[CLI_SCALE_MAX];
    size_t done = 0;
    int rc = 0;
    run_signals_catch(1);
    for (size_t i = 0; i < n && rc == 0 && !run_signals_pending(); i++) {
        if (in->args->common.quiet == 0 && isatty(STDERR_FILENO))
            fprintf(stderr, "scaling: %lld worker(s) at once...\n", (long long)counts[i]);
        rc = run_point(s, counts[i], &points[done]);
        if (rc == 0)
            done++;
    }
    run_signals_catch(0);
    method_notes(s);
    if (run_signals_pending() && s->stopped_k)
        note(s,
             "interrupted by signal %d (%s) during the count of %lld workers (marked failed, "
             "never the knee); %zu of %zu worker counts measured before it",
             run_signals_pending(), strsignal(run_signals_pending()), (long long)s->stopped_k,
             done - 1, n);
    else if (run_signals_pending())
        note(s, "interrupted by signal %d (%s) after %zu of %zu worker counts",
             run_signals_pending(), strsignal(run_signals_pending()), done, n);
    int status = CLI_EXIT_OK;
    if (rc < 0)
        status = CLI_EXIT_ERROR;
    else if (spacrbench_scale_from_points(points, done, sizeof points[0], memory_budget(in->rec),
                                          out) != 0) {
        fprintf(stderr, "spacrbench: --scale: %s\n", spacrbench_last_error_message());
        status = CLI_EXIT_ERROR;
    }
    for (size_t i = 0; status == CLI_EXIT_OK && i < s->n_notes; i++)
        spacrbench_scale_add_note(*out, s->notes[i]);
    *copy_failed = s->copy_failed;
    tree_sampler_free(&s->tree);
    free(s);
    return status;
}
