/* The scaling check of `spacrbench run` (see cli.h). The library's
 * one driver (spacrbench_scale_execute) decides everything: the counts,
 * the warm-up, the timed repeats and their items, when to stop, what an
 * OOM kill means. This file is its executor: each round is one group of
 * the process supervisor (its N=k case), k copies of the command, copy i
 * running the items the driver gave it in turn, in a cgroup of its own
 * that carries the memory budget as its limit; it tells what happened in
 * the command's words (which copy, which item, which signal) and says the
 * failures on stderr as they happen. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "os.h"
#include "supervisor.h"
#include "util.h"

/* Notes about counts kept in the result; more are said on stderr only, so
 * failing copies never crowd the result (2 a count for 16 counts, less
 * what the method notes need). */
#define KEPT_NOTES (2 * CLI_SCALE_MAX - 3)

typedef struct scale_exec {
    const cli_args *args;
    const item_list *items;
    sb_supervisor *sup; /* the serial run's */
    int64_t budget;     /* the memory budget: each group's limit where > 0 */
    sb_copy *copies;
    sb_outcome o; /* the count's last round */
    const spacrbench_scale_round *round;
    int64_t k, peak, vram, rss_peak_max;
    int verdict; /* sb_oom_verdict of the last round */
    int64_t kept, spilled, stopped_k;
} scale_exec;

/* The command line of copy `copy`'s line `line`: the driver's items. */
static size_t item_of(const scale_exec *x, int64_t copy, int64_t line)
{
    return (size_t)((x->round->first[copy] + line) % (int64_t)x->items->n);
}

static char **line_argv(void *arg, int64_t copy, int64_t line)
{
    const scale_exec *x = arg;
    const cli_args *a = x->args;
    return command_for_item(a->cmd, a->cmd_len, x->items->items[item_of(x, copy, line)]);
}

static void on_grace_kill(void *arg, int what, int sig)
{
    const scale_exec *x = arg;
    cli_notice("--scale: %lld worker%s: %s %.0f s after signal %d: killing %s (SIGKILL)",
               (long long)x->k, x->k == 1 ? "" : "s",
               what == 0 ? "still running" : "processes the copies started were still running",
               SB_SUPERVISOR_GRACE_S, sig,
               what == 0 ? "the copies and all their processes" : "them");
}

/* Did a copy die of SIGKILL (or, running several items, end as one of its
 * items did: 128 + 9)? */
static int copy_sigkilled(const sb_copy *c, int64_t m)
{
    return c->done && (WIFSIGNALED(c->status) ? WTERMSIG(c->status) == SIGKILL
                                              : m > 1 && WEXITSTATUS(c->status) == 128 + SIGKILL);
}

static int copy_ok(const sb_copy *c)
{
    return c->done && !c->exec_errno && WIFEXITED(c->status) && WEXITSTATUS(c->status) == 0;
}

/* The round's OOM facts, for the one decision (os.h). */
static sb_oom_facts oom_facts(const scale_exec *x, int64_t m)
{
    int sigkilled = 0;
    for (int64_t i = 0; i < x->k; i++)
        sigkilled |= copy_sigkilled(&x->copies[i], m);
    sb_oom_facts f = {
        x->o.oom_kills, x->o.oom_outside,
        sigkilled,      x->o.killed_after_grace || x->o.timed_out || x->o.watch_ended > 0,
        x->o.peak,      x->o.limit};
    return f;
}

/* A note about a count: said on stderr as it happens where `said` (a
 * failure), and past KEPT_NOTES there only. 1 when it is not kept. */
static int spill(scale_exec *x, int said, const char *text)
{
    if (said || x->kept >= KEPT_NOTES)
        cli_notice("--scale: %s", text);
    if (x->kept >= KEPT_NOTES)
        return (int)(++x->spilled > 0);
    x->kept++;
    return 0;
}

/* The driver's notes: its method notes are kept, its notes about counts
 * are spilled as the executor's own are. */
static int hear_note(int32_t kind, const char *text, void *payload)
{
    return kind == SPACRBENCH_SCALE_NOTE_METHOD
               ? 0
               : spill(payload, kind == SPACRBENCH_SCALE_NOTE_FAILED, text);
}

/* As a serial item says; "OOM-killed" when the OOM killer ran and the
 * copy (or, with several items, one of them: 128 + 9) died of a SIGKILL
 * spacrbench did not send. */
static void describe_copy(const scale_exec *x, const sb_copy *c, int64_t m, char *buf, size_t cap)
{
    const char *oom = NULL;
    if (copy_sigkilled(c, m) && x->verdict != SB_OOM_NO)
        oom = WIFSIGNALED(c->status) ? "" : "ended as its item was ";
    if (!c->exec_errno && !c->done)
        snprintf(buf, cap, "did not end");
    else
        run_describe_end(buf, cap, c->exec_errno, c->status, oom, x->o.limit);
}

/* Why a round failed as a whole (never started, a stop signal, the
 * timeout) into why; 1 when one of them applied. */
static int group_failure(const scale_exec *x, int64_t m, char *why, size_t cap)
{
    const sb_outcome *o = &x->o;
    if (o->start_errno)
        snprintf(why, cap,
                 "only %lld of the %lld copies could be started (fork: %s), so none was "
                 "released",
                 (long long)o->started, (long long)x->k, strerror(o->start_errno));
    else if (o->stopped_by)
        snprintf(why, cap, "interrupted by signal %d (%s) while the copies ran%s", o->stopped_by,
                 strsignal(o->stopped_by),
                 o->killed_after_grace ? " (still running 5 s later: killed with all their "
                                         "processes, SIGKILL)"
                                       : "");
    else if (o->watch_ended) {
        char seen[32], b[32];
        spacrbench_format_bytes(o->watch_ended, seen, sizeof seen);
        spacrbench_format_bytes(x->budget, b, sizeof b);
        snprintf(why, cap,
                 "ended by spacrbench: the copies' memory reached %s, over the budget of %s (no "
                 "cgroup of its own could hold the limit)",
                 seen, b);
    } else if (o->timed_out)
        snprintf(why, cap,
                 "timed out after %g s (--timeout %g s per item, %lld item(s) per copy): the "
                 "copies were killed with all their processes",
                 x->args->timeout_s * (double)m, x->args->timeout_s, (long long)m);
    else
        return 0;
    return 1;
}

/* The first failed copy, named with its first item and command line. */
static void copy_failure(const scale_exec *x, int64_t m, char *why, size_t cap)
{
    for (int64_t i = 0; i < x->k; i++) {
        if (copy_ok(&x->copies[i]))
            continue;
        char what[160];
        describe_copy(x, &x->copies[i], m, what, sizeof what);
        char **argv = line_argv((void *)x, i, 0);
        char *shown = argv ? command_display(argv) : NULL;
        command_free(argv);
        char *label = sb_escape_text(x->items->items[item_of(x, i, 0)]);
        snprintf(why, cap, "copy %lld (item %s%s) %s: %s", (long long)i + 1, label ? label : "?",
                 m > 1 ? ", the first of its items" : "", what, shown ? shown : "");
        free(label);
        free(shown);
        return;
    }
    snprintf(why, cap, "the kernel's OOM killer ran while the copies ran");
}

/* What the supervisor said of the round, for the driver. */
static void tell_round(scale_exec *x, int64_t m, spacrbench_scale_worker *w,
                       spacrbench_scale_outcome *out)
{
    sb_oom_facts f = oom_facts(x, m);
    x->verdict = sb_oom_verdict(&f);
    out->seconds = x->o.seconds;
    out->stopped = x->o.stopped_by ? 1 : 0;
    int copies_failed = 0;
    for (int64_t i = 0; i < x->k; i++) {
        const sb_copy *c = &x->copies[i];
        copies_failed |= !copy_ok(c);
        w[i].items = copy_ok(c) ? m : 0;
        w[i].item_seconds = c->seconds;
        w[i].end = copy_ok(c)                                      ? SPACRBENCH_SCALE_WORKER_DONE
                   : c->done && !WIFSIGNALED(c->status) && !f.ours ? SPACRBENCH_SCALE_WORKER_FAILED
                                                                   : SPACRBENCH_SCALE_WORKER_LOST;
        w[i].sigkilled = copy_sigkilled(c, m) && !f.ours;
    }
    out->failed = x->verdict != SB_OOM_NO || x->o.stopped_by || x->o.timed_out ||
                  x->o.start_errno || x->o.watch_ended;
    int whole = group_failure(x, m, out->why, sizeof out->why);
    if (!whole && (copies_failed || out->failed))
        copy_failure(x, m, out->why, sizeof out->why);
    if (x->o.stopped_by)
        x->stopped_k = x->k;
    /* An OOM kill is the driver's to name (its note, said on stderr by
     * hear_note), in the words of every executor. */
}

static int exec_open(spacrbench_scale_driver *d, int64_t workers, int64_t budget, int64_t *pids,
                     spacrbench_scale_outcome *out, void *payload)
{
    (void)d, (void)pids, (void)out;
    scale_exec *x = payload;
    x->budget = budget; /* the driver's: each round's group limit */
    x->copies = calloc((size_t)workers, sizeof *x->copies);
    if (!x->copies)
        return SPACRBENCH_ENOMEM;
    x->k = workers;
    x->peak = x->vram = -1;
    memset(&x->o, 0, sizeof x->o);
    x->o.peak = x->o.limit = x->o.oom_kills = -1;
    x->verdict = SB_OOM_NO;
    if (x->args->common.quiet == 0 && isatty(STDERR_FILENO))
        cli_progress("scaling: %lld worker(s) at once...", (long long)workers);
    return 0;
}

/* One round: k copies of the command at once, copy i on its items. */
static int exec_round(spacrbench_scale_driver *d, const spacrbench_scale_round *r,
                      spacrbench_scale_worker *w, spacrbench_scale_outcome *out, void *payload)
{
    (void)d;
    scale_exec *x = payload;
    x->round = r;
    char name[64], why[SB_GROUP_PATH_MAX + 200];
    snprintf(name, sizeof name, "scale-%lld", (long long)x->k);
    /* Where no cgroup of its own can carry the budget, the budget is watched. */
    int64_t watch = x->sup->use_cgroup ? 0 : x->budget;
    sb_launch l = {.copies = x->k,
                   .lines = r->items,
                   .argv_for = line_argv,
                   .argv_free = command_free,
                   .arg = x,
                   .name = name,
                   .on_grace_kill = on_grace_kill,
                   .memory_limit = x->budget,
                   .child_flags = SB_CHILD_DIE_WITH_PARENT | SB_CHILD_OOM_FIRST,
                   .watch_limit = watch};
    if (sb_supervisor_run(x->sup, &l, x->copies, &x->o, why, sizeof why) != 0) {
        snprintf(out->why, sizeof out->why, "%.600s", why);
        return SPACRBENCH_ESYSTEM;
    }
    if (x->o.earlier_unlisted)
        cli_notice("cannot list the processes left by earlier items; they may be counted in "
                   "the group's peak");
    if (x->o.interrupted) { /* a stop signal before the release: nothing ran */
        out->stopped = 2;
        snprintf(out->why, sizeof out->why, "interrupted by signal %d (%s)", sb_stop_signal(),
                 strsignal(sb_stop_signal()));
        x->stopped_k = x->k;
        return 0;
    }
    x->peak = x->o.peak > x->peak ? x->o.peak : x->peak;
    x->vram = x->o.vram_peak > x->vram ? x->o.vram_peak : x->vram;
    x->rss_peak_max = x->o.rss_peak > x->rss_peak_max ? x->o.rss_peak : x->rss_peak_max;
    tell_round(x, r->items, w, out);
    return 0;
}

static int exec_close(spacrbench_scale_driver *d, int32_t failed, spacrbench_scale_count *count,
                      void *payload)
{
    (void)failed;
    scale_exec *x = payload;
    const sb_supervisor *sup = x->sup;
    count->peak_bytes = x->peak;
    count->peak_method = sup->use_cgroup ? SPACRBENCH_PEAK_CGROUP : SPACRBENCH_PEAK_CHILD_RUSAGE;
    count->vram_peak_bytes = x->vram;
    count->oom_kills = x->o.oom_kills;
    count->oom_outside = x->o.oom_outside;
    count->ours = x->o.killed_after_grace || x->o.timed_out || x->o.watch_ended > 0;
    count->limit_bytes = x->o.limit;
    count->limit_is_budget = x->budget <= 0 ? 0 : sup->use_cgroup ? 1 : 2;
    count->ended_at_budget = x->o.watch_ended > 0;
    char text[900]; /* a note of this executor's own, kept unless spilled */
    snprintf(text, sizeof text,
             "%lld worker%s: %d process(es) outlived their copy and were waited for%s%s",
             (long long)x->k, x->k == 1 ? "" : "s", x->o.outlived,
             x->o.leftovers[0] ? "; killed at --timeout or left running: " : "", x->o.leftovers);
    if (x->o.outlived && !spill(x, 0, text))
        spacrbench_scale_driver_note(d, text);
    free(x->copies);
    x->copies = NULL;
    return 0;
}

/* How the command measured, after the driver's own notes. */
static void method_notes(const scale_exec *x, spacrbench_scale_result *r)
{
    const sb_supervisor *sup = x->sup;
    char text[SB_MOUNT_PATH_MAX + 900];
    if (x->spilled) {
        snprintf(text, sizeof text, "%lld more note(s) of failed copies were said on stderr only",
                 (long long)x->spilled);
        spacrbench_scale_add_note(r, text);
    }
    spacrbench_scale_add_note(r, "each count k ran k copies of the command at once, each on "
                                 "items of its own (the items rotate), copy i running its items "
                                 "in turn; the rounds and their items as the timing note says");
    /* The group peak in the words of the library's group (os.h). */
    if (sup->use_cgroup)
        sb_group_words_cgroup(text, sizeof text, sup->cg.version, sup->cg.found);
    else {
        char how[200], sum[300], caveat[160];
        double miss_ms = sb_supervisor_sampling(sup, how, sizeof how);
        snprintf(sum, sizeof sum,
                 "the largest sum of the VmHWM of the processes alive together, sampled %s", how);
        snprintf(caveat, sizeof caveat,
                 "an upper bound: the peaks may not coincide, processes living less than %g ms "
                 "may be seen only through ru_maxrss",
                 miss_ms);
        sb_group_words_sampled(text, sizeof text, sum, caveat, sup->why_no_cgroup);
    }
    spacrbench_scale_add_note(r, text);
    if (sup->vram.gpu) {
        snprintf(text, sizeof text,
                 "group VRAM: NVML's usedGpuMemory of %s, summed, sampled every %ld ms while the "
                 "copies ran and once at their end",
                 sup->use_cgroup ? "every PID in the count's cgroup"
                                 : "the copies and their descendants",
                 SB_SUPERVISOR_VRAM_NS / 1000000);
        spacrbench_scale_add_note(r, text);
    }
    if (sup->use_cgroup && x->rss_peak_max > 0) {
        char rss[32];
        spacrbench_format_bytes(x->rss_peak_max, rss, sizeof rss);
        snprintf(text, sizeof text,
                 "the copies' RSS peak (the VmHWM of their processes alive together, summed, "
                 "sampled, as --no-cgroup counts it) reached %s at most; the knee and "
                 "the budget use the cgroup's charge",
                 rss);
        spacrbench_scale_add_note(r, text);
    }
}

/* available - reserve of the recommendation (the same snapshot and
 * reserve rule), else AUTO: the driver's own discovery. */
static int64_t memory_budget(const spacrbench_recommendation *rec)
{
    if (rec && rec->available_bytes >= 0 && rec->reserve_bytes >= 0)
        return rec->available_bytes > rec->reserve_bytes ? rec->available_bytes - rec->reserve_bytes
                                                         : 0;
    return SPACRBENCH_AUTO;
}

/* A copy failed (exit 3): a failed point that is not a memory point (an
 * OOM kill at the budget is the check's answer) nor the one a stop ended. */
static int copies_failed(const scale_exec *x, const spacrbench_scale_result *r)
{
    spacrbench_scale_point p;
    spacrbench_scale_spread sp;
    spacrbench_scale_point_init(&p, sizeof p);
    spacrbench_scale_spread_init(&sp, sizeof sp);
    for (size_t i = 0; spacrbench_scale_point_get(r, i, &p) == 0; i++) {
        spacrbench_scale_spread_get(r, i, &sp);
        if (p.failed && p.workers != x->stopped_k && sp.oom_killed != 1 && sp.oom_killed != 3)
            return 1;
    }
    return 0;
}

int run_scale(const cli_args *a, const item_list *items, sb_supervisor *sup,
              const spacrbench_recommendation *rec, spacrbench_scale_result **out, int *copy_failed)
{
    *out = NULL;
    *copy_failed = 0;
    scale_exec x;
    memset(&x, 0, sizeof x);
    x.args = a;
    x.items = items;
    x.sup = sup;
    x.rss_peak_max = -1;
    spacrbench_scale_executor ex;
    spacrbench_scale_executor_init(&ex, sizeof ex);
    ex.payload = &x;
    ex.cores = rec ? rec->cores : SPACRBENCH_AUTO;
    ex.open = exec_open;
    ex.round = exec_round;
    ex.close = exec_close;
    ex.note = hear_note;
    spacrbench_scale_options o;
    spacrbench_scale_options_init(&o, sizeof o);
    if (!a->scale_auto) {
        o.worker_counts = a->scale;
        o.n_worker_counts = a->n_scale;
    }
    o.memory_budget_bytes = memory_budget(rec);
    spacrbench_scale_timing t;
    spacrbench_scale_timing_init(&t, sizeof t);
    if (a->scale_items > 0)
        t.min_items = a->scale_items;
    if (a->scale_seconds >= 0)
        t.min_seconds = a->scale_seconds;
    sb_stop_signals_catch(1);
    int rc = spacrbench_scale_execute(&ex, items->n, &o, &t, out);
    sb_stop_signals_catch(0);
    free(x.copies);
    if (rc != 0)
        return cli_library_error(CLI_EXIT_ERROR, "--scale");
    method_notes(&x, *out);
    *copy_failed = copies_failed(&x, *out);
    return CLI_EXIT_OK;
}
