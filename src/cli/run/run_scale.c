/* The scaling check of `spacrbench run`; see run_scale.h. This file picks
 * the worker counts, rotates the items, times each count as the library's
 * check does (a warm-up round, then timed repeats: spacrbench_scale_timing's
 * rules), turns the rounds into a point and its spread and writes the
 * notes; the supervisor starts and measures each round's group (its N=k
 * case) with the memory budget as the group's limit. */
#include "run_scale.h"

#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_error.h"
#include "cli_escape.h"
#include "command_line.h"

#define MAX_NOTES (2 * CLI_SCALE_MAX + 6)
/* Kept for the method notes and the last ones (interrupted, failures said
 * on stderr only): failing copies never push them out of the result. */
#define LAST_NOTES 9
#define MAX_LINES  100000 /* items per copy and round, as --scale-items' maximum */
#define MAX_GROW   3      /* rounds too short for --scale-seconds, redone with more items */

typedef struct scale_state {
    const run_scale_input *in;
    size_t offset; /* next item: the points take different items in turn */
    int copy_failed;
    int64_t stopped_k;    /* the count a stop signal interrupted (marked failed), 0 none */
    int64_t rss_peak_max; /* the largest RSS peak of a count's copies, -1 none */
    int64_t budget;       /* the memory budget: each group's limit where > 0 */
    spacrbench_scale_timing timing;
    int64_t rounds, short_rounds, max_lines; /* for the method note */
    char notes[MAX_NOTES][700];
    char spill[700]; /* a note past its limit */
    size_t n_notes;
    int last;        /* the method notes are being added: up to MAX_NOTES */
    int64_t spilled; /* failure notes past MAX_NOTES - LAST_NOTES: on stderr only */
} scale_state;

/* A note of the result (past its limit it is only formatted, for stderr). */
static const char *vnote(scale_state *s, const char *fmt, va_list ap) CLI_PRINTF(2, 0);
static const char *vnote(scale_state *s, const char *fmt, va_list ap)
{
    size_t limit = s->last ? MAX_NOTES : MAX_NOTES - LAST_NOTES;
    char *text = s->n_notes < limit ? s->notes[s->n_notes++] : s->spill;
    s->spilled += text == s->spill && !s->last;
    vsnprintf(text, sizeof s->spill, fmt, ap);
    return text;
}

static void note(scale_state *s, const char *fmt, ...) CLI_PRINTF(2, 3);
static void note(scale_state *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const char *text = vnote(s, fmt, ap);
    va_end(ap);
    if (text == s->spill) /* not kept in the result: said on stderr instead */
        cli_notice("--scale: %s", text);
}

/* A note said on stderr too: a copy or a whole count failed, and the run
 * goes on to the report. */
static void note_said(scale_state *s, const char *fmt, ...) CLI_PRINTF(2, 3);
static void note_said(scale_state *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const char *text = vnote(s, fmt, ap);
    va_end(ap);
    cli_notice("--scale: %s", text);
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

/* The command lines of one count: copy i runs the items
 * [offset + i*m, offset + i*m + m) (wrapping), built as each copy starts. */
typedef struct point_lines {
    const cli_args *args;
    const item_list *items;
    size_t offset;
    int64_t k, m;
} point_lines;

static size_t item_of(const point_lines *p, int64_t copy, int64_t line)
{
    return (p->offset + (size_t)(copy * p->m + line)) % p->items->n;
}

static char **line_argv(void *arg, int64_t copy, int64_t line)
{
    const point_lines *p = arg;
    return command_for_item(p->args->cmd, p->args->cmd_len,
                            p->items->items[item_of(p, copy, line)]);
}

static void on_grace_kill(void *arg, int what, int sig)
{
    const point_lines *p = arg;
    if (what == 0)
        cli_notice("--scale: %lld worker%s: still running %.0f s after signal %d: killing the "
                   "copies and all their processes (SIGKILL)",
                   (long long)p->k, p->k == 1 ? "" : "s", SB_SUPERVISOR_GRACE_S, sig);
    else
        cli_notice("--scale: %lld worker%s: processes the copies started were still running "
                   "%.0f s after signal %d: killing them (SIGKILL)",
                   (long long)p->k, p->k == 1 ? "" : "s", SB_SUPERVISOR_GRACE_S, sig);
}

/* Did a copy die of SIGKILL (or, running several items, end as one of its
 * items did: 128 + 9)? */
static int copy_sigkilled(const sb_copy *c, int64_t m)
{
    if (!c->done)
        return 0;
    if (WIFSIGNALED(c->status))
        return WTERMSIG(c->status) == SIGKILL;
    return m > 1 && WEXITSTATUS(c->status) == 128 + SIGKILL;
}

/* Without a cgroup of the count's own, the rise of the oom_kill counter of
 * spacrbench's own cgroup is the OOM killer only when a copy died of a
 * SIGKILL spacrbench did not send (the serial fallback's rule). */
static void judge_outside_oom(const sb_copy *copies, int64_t k, int64_t m, sb_outcome *o)
{
    if (!o->oom_outside || o->oom_kills <= 0)
        return;
    int sigkilled = 0;
    for (int64_t i = 0; i < k; i++)
        sigkilled |= copy_sigkilled(&copies[i], m);
    if (!sigkilled || o->killed_after_grace || o->timed_out)
        o->oom_kills = 0;
}

/* "exited with status 3", "killed by signal 15 (Terminated)", or, when the
 * OOM killer ran in the group and the copy (or, with several items, one
 * of them: 128 + 9) died of a SIGKILL spacrbench did not send, "OOM-killed
 * (...)" with the limit, as a serial item says. */
static void describe_copy(const sb_copy *c, const sb_outcome *o, int64_t m, char *buf, size_t cap)
{
    if (c->exec_errno) {
        snprintf(buf, cap, "cannot be started: %s", strerror(c->exec_errno));
        return;
    }
    if (copy_sigkilled(c, m) && o->oom_kills > 0 && !o->killed_after_grace && !o->timed_out) {
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

/* The note (and stderr line) of a point the copies did not all complete
 * for a reason of the whole group: never started, a stop signal, the
 * timeout. 1 when one applied. */
static int note_group_failure(scale_state *s, int64_t k, int64_t m, const sb_outcome *o)
{
    if (o->start_errno)
        note_said(
            s,
            "%lld worker%s: only %lld of the %lld copies could be started (fork: %s), so none "
            "was released; the point is marked failed",
            (long long)k, k == 1 ? "" : "s", (long long)o->started, (long long)k,
            strerror(o->start_errno));
    else if (o->stopped_by) {
        char killed[128] = "";
        if (o->killed_after_grace)
            snprintf(killed, sizeof killed,
                     " (still running %.0f s later: killed with all their processes, SIGKILL)",
                     SB_SUPERVISOR_GRACE_S);
        note_said(
            s,
            "%lld worker%s: interrupted by signal %d (%s) while the copies ran%s; the point is "
            "marked failed",
            (long long)k, k == 1 ? "" : "s", o->stopped_by, strsignal(o->stopped_by), killed);
    } else if (o->timed_out)
        note_said(s,
                  "%lld worker%s: timed out after %g s (--timeout %g s per item, %lld item(s) per "
                  "copy): the copies were killed with all their processes; the point is marked "
                  "failed",
                  (long long)k, k == 1 ? "" : "s", s->in->args->timeout_s * (double)m,
                  s->in->args->timeout_s, (long long)m);
    else
        return 0;
    return 1;
}

/* The first failed copy is named (stderr and a note); an OOM kill in the
 * group is named too, as it explains the failure. A point the whole group
 * failed (never started, a stop signal, the timeout) is named as such
 * instead. */
static void note_failures(scale_state *s, int64_t k, const sb_copy *copies, const sb_outcome *o,
                          point_lines *lines)
{
    int64_t m = lines->m;
    int whole = note_group_failure(s, k, m, o);
    for (int64_t i = 0; i < k && !whole; i++) {
        if (WIFEXITED(copies[i].status) && WEXITSTATUS(copies[i].status) == 0 &&
            !copies[i].exec_errno)
            continue;
        char what[160];
        describe_copy(&copies[i], o, m, what, sizeof what);
        char **argv = line_argv(lines, i, 0);
        char *shown = argv ? command_display(argv) : NULL;
        command_free(argv);
        char *label = cli_escape_label(s->in->items->items[item_of(lines, i, 0)]);
        note_said(s, "%lld worker%s: copy %lld (item %s%s) %s: %s; the point is marked failed",
                  (long long)k, k == 1 ? "" : "s", (long long)i + 1, label ? label : "?",
                  m > 1 ? ", the first of its items" : "", what, shown ? shown : "");
        free(label);
        free(shown);
        break;
    }
    if (o->oom_kills > 0) {
        char limit[32] = "unknown";
        if (o->limit > 0)
            spacrbench_format_bytes(o->limit, limit, sizeof limit);
        note_said(
            s,
            "%lld worker%s: the kernel's OOM killer ended %lld process(es) %s (memory limit %s%s)",
            (long long)k, k == 1 ? "" : "s", (long long)o->oom_kills,
            o->oom_outside ? "while the copies ran" : "in the group", limit,
            o->oom_outside ? "; counted by the oom_kill count of spacrbench's own cgroup, "
                             "which held the copies"
                           : "");
    }
    if (o->left_behind)
        note(s, "%lld worker%s: %d process(es) outlived their copy%s", (long long)k,
             k == 1 ? "" : "s", o->left_behind,
             s->in->sup->use_cgroup ? " and were moved back to spacrbench's own cgroup" : "");
}

/* One round of a count: k copies of m items each, the next k * m items
 * (wrapping), copy i taking items [i*m, i*m + m). The supervisor's rc: 0
 * ran (*o, copies filled), 1 a stop signal came before the release (nothing
 * ran), -1 an internal error (printed). *failed: a copy or the group failed. */
static int run_round(scale_state *s, int64_t k, int64_t m, sb_copy *copies, sb_outcome *o,
                     point_lines *lines, int *failed)
{
    const cli_args *a = s->in->args;
    *lines = (point_lines){a, s->in->items, s->offset, k, m};
    s->offset = (s->offset + (size_t)(k * m)) % s->in->items->n;
    char name[64], why[SB_GROUP_PATH_MAX + 200];
    snprintf(name, sizeof name, "scale-%lld", (long long)k);
    sb_launch l = {k, m, line_argv, command_free, lines, name, on_grace_kill, s->budget};
    int rc = sb_supervisor_run(s->in->sup, &l, copies, o, why, sizeof why);
    s->rounds++;
    if (rc != 0) {
        cli_error(CLI_EXIT_ERROR, "--scale: %s", why);
        return -1;
    }
    if (o->earlier_unlisted)
        cli_notice("cannot list the processes left by earlier items; they may be counted in "
                   "the group's peak");
    if (o->interrupted)
        return 1;
    judge_outside_oom(copies, k, m, o);
    *failed = o->oom_kills > 0 || o->stopped_by || o->timed_out || o->start_errno;
    for (int64_t i = 0; i < k; i++)
        *failed |= !copies[i].done || !WIFEXITED(copies[i].status) ||
                   WEXITSTATUS(copies[i].status) != 0 || copies[i].exec_errno;
    if (o->rss_peak > s->rss_peak_max)
        s->rss_peak_max = o->rss_peak;
    return 0;
}

/* The items per copy of a timed round: at least --scale-items, and enough
 * for --scale-seconds at the pace of `seconds` for `lines` items. */
static int64_t lines_for(const scale_state *s, int64_t lines, double seconds)
{
    double want = (double)s->timing.min_items;
    if (s->timing.min_seconds > 0 && seconds > 0)
        want = fmax(want, ceil(1.2 * s->timing.min_seconds * (double)lines / seconds));
    else if (s->timing.min_seconds > 0)
        want = MAX_LINES;
    return want > MAX_LINES ? MAX_LINES : (int64_t)want;
}

/* The spread of n repeats' items/s, as the library's check computes it
 * (spacrbench_scale_spread: (max - min) / (2 * mean), NaN below 2). */
static void spread_of(const double *ips, size_t n, spacrbench_scale_spread *sp)
{
    sp->repeats = (int64_t)n;
    if (n == 0)
        return;
    double lo = ips[0], hi = ips[0], sum = 0;
    for (size_t i = 0; i < n; i++) {
        lo = fmin(lo, ips[i]);
        hi = fmax(hi, ips[i]);
        sum += ips[i];
    }
    sp->items_per_second_min = lo;
    sp->items_per_second_max = hi;
    sp->spread = n >= 2 && sum > 0 ? (hi - lo) / (2 * sum / (double)n) : NAN;
}

/* Another timed repeat after n (spacrbench_scale_timing's rule): below
 * min_repeats, or below max_repeats while the spread exceeds the target. */
static int want_repeat(const spacrbench_scale_timing *t, const double *ips, size_t n)
{
    if ((int64_t)n < t->min_repeats)
        return 1;
    if ((int64_t)n >= t->max_repeats)
        return 0;
    spacrbench_scale_spread sp;
    spacrbench_scale_spread_init(&sp, sizeof sp);
    spread_of(ips, n, &sp);
    return isfinite(sp.spread) && sp.spread > t->target_spread;
}

/* A failed round ends its count: the point is failed, named in the notes.
 * An OOM kill in the count's own group at the budget is the check's
 * answer (a `memory` point), not a failed copy; an interruption is the
 * signal's. */
static void fail_point(scale_state *s, int64_t k, const sb_copy *copies, const sb_outcome *o,
                       point_lines *lines, spacrbench_scale_point *pt, spacrbench_scale_spread *sp)
{
    pt->failed = 1;
    int at_budget = o->oom_kills > 0 && !o->oom_outside && s->budget > 0;
    /* 2: killed at a limit outside the count's group (the notes name it);
     * limit_bytes stays the group's own. */
    sp->oom_killed = o->oom_kills > 0 ? (at_budget ? 1 : 2) : 0;
    s->copy_failed |= !o->stopped_by && !at_budget;
    if (o->stopped_by)
        s->stopped_k = k;
    note_failures(s, k, copies, o, lines);
    if (at_budget) {
        char b[32];
        spacrbench_format_bytes(s->budget, b, sizeof b);
        note(s,
             "%lld worker%s: over the memory budget: OOM-killed in %s group at its limit of %s "
             "(the budget), a memory point, not a failed command; spacrbench is above the group "
             "and was not touched",
             (long long)k, k == 1 ? "" : "s", k == 1 ? "its" : "their", b);
    }
}

/* One count: a warm-up round (one untimed item per copy), then timed
 * repeats of at least --scale-items items per copy and --scale-seconds,
 * min to max repeats while they differ by more than the target. The point
 * is every timed item over every timed second; its peak the largest of
 * all its rounds. 1 when a stop signal came before the copies first
 * started (no point), 0 with *pt and *sp filled, -1 on an internal error. */
static int run_point(scale_state *s, int64_t k, spacrbench_scale_point *pt,
                     spacrbench_scale_spread *sp)
{
    sb_copy *copies = calloc((size_t)k, sizeof *copies);
    if (!copies)
        return cli_error(-1, "out of memory");
    spacrbench_scale_point_init(pt, sizeof *pt);
    spacrbench_scale_spread_init(sp, sizeof *sp);
    pt->workers = k;
    pt->peak_method =
        s->in->sup->use_cgroup ? SPACRBENCH_PEAK_CGROUP : SPACRBENCH_PEAK_CHILD_RUSAGE;
    sp->warmup_items = s->timing.warmup_items;
    sp->limit_bytes = s->budget > 0 && s->in->sup->use_cgroup ? s->budget : -1;
    sb_outcome o;
    point_lines lines;
    int failed = 0;
    int rc = run_round(s, k, 1, copies, &o, &lines, &failed);
    if (rc != 0) {
        free(copies);
        return rc;
    }
    int64_t peak = o.peak, vram = o.vram_peak, m = lines_for(s, 1, o.seconds), items = 0;
    double seconds = 0, busy = 0, ips[100];
    size_t n = 0;
    int grown = 0;
    while (!failed && want_repeat(&s->timing, ips, n)) {
        rc = run_round(s, k, m, copies, &o, &lines, &failed);
        if (rc != 0)
            break;
        peak = o.peak > peak ? o.peak : peak;
        vram = o.vram_peak > vram ? o.vram_peak : vram;
        if (failed)
            break;
        if (o.seconds < s->timing.min_seconds && m < MAX_LINES && grown < MAX_GROW) {
            grown++, s->short_rounds++; /* too short: redone with more items */
            m = lines_for(s, m, o.seconds);
            continue;
        }
        ips[n++] = o.seconds > 0 ? (double)(k * m) / o.seconds : 0;
        items += k * m;
        seconds += o.seconds;
        for (int64_t i = 0; i < k; i++)
            busy += copies[i].seconds;
        s->max_lines = m > s->max_lines ? m : s->max_lines;
    }
    if (rc < 0) {
        free(copies);
        return -1;
    }
    if (rc == 1) { /* a stop signal between rounds: the count did not finish */
        pt->failed = 1;
        s->stopped_k = k;
    } else if (failed)
        fail_point(s, k, copies, &o, &lines, pt, sp);
    else if (o.left_behind)
        note_failures(s, k, copies, &o, &lines);
    /* Failed before a timed repeat: the round that failed (one that a stop
     * signal kept from starting ran no item). */
    if (n == 0 && rc != 1) {
        items = k * lines.m;
        seconds = o.start_errno ? 0 : o.seconds;
        for (int64_t i = 0; i < k; i++)
            busy += copies[i].seconds;
    }
    pt->items = items;
    pt->seconds = seconds;
    pt->mean_item_seconds = items > 0 ? busy / (double)items : 0;
    pt->peak_bytes = peak;
    pt->vram_peak_bytes = vram;
    spread_of(ips, n, sp);
    free(copies);
    return 0;
}

static void method_notes(scale_state *s)
{
    const sb_supervisor *r = s->in->sup;
    const spacrbench_scale_timing *t = &s->timing;
    char most[64] = "no timed round finished";
    if (s->max_lines > 0)
        snprintf(most, sizeof most, "up to %lld items per copy here", (long long)s->max_lines);
    note(s,
         "each count k ran k copies of the command at once, each on items of its own (the "
         "items rotate): first %lld untimed warm-up item per copy, then %lld to %lld timed "
         "repeats (more while they differ by over %.0f %%), each of at least %lld item(s) per "
         "copy and %g s (%s; %lld round(s) in all, %lld too short and redone with more items); "
         "items/s = all timed items / all timed seconds",
         (long long)t->warmup_items, (long long)t->min_repeats, (long long)t->max_repeats,
         100 * t->target_spread, (long long)t->min_items, t->min_seconds, most,
         (long long)s->rounds, (long long)s->short_rounds);
    if (s->budget > 0 && r->use_cgroup) {
        char b[32];
        spacrbench_format_bytes(s->budget, b, sizeof b);
        note(s,
             "each count's cgroup had the memory budget (%s) as its limit: a count over it is "
             "OOM-killed inside its group (a memory point), never spacrbench",
             b);
    }
    if (r->use_cgroup)
        note(s,
             "group peak from one memory cgroup per count holding all its copies (cgroup v%d "
             "%s): exact, page cache included; %s",
             r->cg.version, r->cg.version == 1 ? "memory.max_usage_in_bytes" : "memory.peak",
             r->cg.found);
    else {
        char how[200];
        double miss_ms = sb_supervisor_sampling(r, how, sizeof how);
        note(s,
             "group peak = the largest sum of the VmHWM of the processes alive together, "
             "sampled %s; an upper bound: the peaks may not coincide, processes living less "
             "than %g ms may be seen only through ru_maxrss; no cgroup of its own because %s",
             how, miss_ms, r->why_no_cgroup);
    }
    if (r->vram.gpu)
        note(s,
             "group VRAM: NVML's usedGpuMemory of %s, summed, sampled every %ld ms while the "
             "copies ran and once at their end",
             r->use_cgroup ? "every PID in the count's cgroup" : "the copies and their descendants",
             SB_SUPERVISOR_VRAM_NS / 1000000);
    if (r->use_cgroup && s->rss_peak_max > 0) {
        char rss[32];
        spacrbench_format_bytes(s->rss_peak_max, rss, sizeof rss);
        note(s,
             "the copies' RSS peak (the VmHWM of their processes alive together, summed, sampled, "
             "as "
             "GNU time or "
             "--no-cgroup count it) reached %s at most; the knee and the budget use the "
             "cgroup's charge",
             rss);
    }
}

int run_scale(const run_scale_input *in, spacrbench_scale_result **out, int *copy_failed)
{
    *out = NULL;
    *copy_failed = 0;
    scale_state *s = calloc(1, sizeof *s);
    if (!s)
        return cli_error(CLI_EXIT_ERROR, "out of memory");
    s->in = in;
    s->budget = memory_budget(in->rec);
    spacrbench_scale_timing_init(&s->timing, sizeof s->timing);
    s->timing.min_items = in->args->scale_items;
    s->timing.min_seconds = in->args->scale_seconds;
    s->timing.warmup_items = 1;
    int64_t counts[CLI_SCALE_MAX];
    size_t n = worker_counts(in, counts);
    spacrbench_scale_point points[CLI_SCALE_MAX];
    spacrbench_scale_spread spreads[CLI_SCALE_MAX];
    size_t done = 0;
    int rc = 0;
    sb_stop_signals_catch(1);
    for (size_t i = 0; i < n && rc == 0 && !sb_stop_signal(); i++) {
        if (in->args->common.quiet == 0 && isatty(STDERR_FILENO))
            cli_progress("scaling: %lld worker(s) at once...", (long long)counts[i]);
        rc = run_point(s, counts[i], &points[done], &spreads[done]);
        if (rc == 0)
            done++;
    }
    sb_stop_signals_catch(0);
    s->last = 1;
    if (s->spilled)
        note(s, "%lld more note(s) of failed copies were said on stderr only",
             (long long)s->spilled);
    method_notes(s);
    if (sb_stop_signal() && s->stopped_k)
        note(s,
             "interrupted by signal %d (%s) during the count of %lld worker%s (marked failed, "
             "never the knee); %zu of %zu worker counts measured before it",
             sb_stop_signal(), strsignal(sb_stop_signal()), (long long)s->stopped_k,
             s->stopped_k == 1 ? "" : "s", done - 1, n);
    else if (sb_stop_signal())
        note(s, "interrupted by signal %d (%s) after %zu of %zu worker counts", sb_stop_signal(),
             strsignal(sb_stop_signal()), done, n);
    int status = CLI_EXIT_OK;
    if (rc < 0)
        status = CLI_EXIT_ERROR;
    else if (spacrbench_scale_from_points_spread(points, done, sizeof points[0], spreads,
                                                 sizeof spreads[0], s->budget, out) != 0) {
        status = cli_library_error(CLI_EXIT_ERROR, "--scale");
    }
    for (size_t i = 0; status == CLI_EXIT_OK && i < s->n_notes; i++)
        spacrbench_scale_add_note(*out, s->notes[i]);
    *copy_failed = s->copy_failed;
    free(s);
    return status;
}
