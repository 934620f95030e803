/* `spacrbench run`: run an external command once per item, serially, and
 * measure each run's wall time and the peak memory of its whole process
 * tree (a cgroup of its own when possible, else wait4 + sampling). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "group.h"
#include "cli_modes.h"
#include "cli_options.h"
#include "cli_output.h"
#include "command_line.h"
#include "tree_sampler.h"

#define SAMPLE_INTERVAL_NS 5000000L /* fallback sampling period: 5 ms */

typedef struct run_config {
    int64_t warmup;
    int64_t own_rss_bytes; /* this process's resident size when the commands start */
    const char *items_file;
    int no_cgroup;
    char **cmd;
    size_t cmd_len;
    char **items; /* owned */
    size_t n_items;
} run_config;

typedef struct item_outcome {
    int exec_errno; /* non-zero: the command could not be started */
    int status;     /* wait status */
    double seconds;
    double cpu_seconds;
    int64_t peak;   /* bytes, -1 unknown */
    int left_behind;
} item_outcome;

typedef struct runner {
    int use_cgroup;
    int stdout_is_output; /* stdout carries JSON or settings: the command writes to stderr */
    sb_group cg;
    char why_no_cgroup[600];
    tree_sampler tree;
} runner;

static volatile sig_atomic_t g_signal;
static volatile sig_atomic_t g_child;

/* Remember the signal so the run stops after the current item (and the
 * cgroup is removed); pass a signal sent by kill() on to the command,
 * which already gets terminal-generated ones through its process group. */
static void on_signal(int sig, siginfo_t *info, void *context)
{
    (void)context;
    g_signal = sig;
    if (g_child > 0 && info && info->si_code <= 0)
        kill((pid_t)g_child, sig);
}

/* Signals that stop the run after the current item (and are passed on to
 * the command) instead of killing spacrbench, which would leave the item's
 * cgroup behind and the command running. SIGQUIT and SIGUSR1/2 (SLURM's
 * --signal warning) terminate by default too, so they are caught as well.
 * A signal spacrbench inherited as ignored (nohup) stays ignored, and so it
 * is for the command. */
static const int k_stop_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
#define N_STOP_SIGNALS (sizeof k_stop_signals / sizeof k_stop_signals[0])
static struct sigaction g_old_action[N_STOP_SIGNALS];
static int g_caught[N_STOP_SIGNALS];

static void catch_signals(int on)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO; /* no SA_RESTART: wait4 returns EINTR */
    for (size_t i = 0; i < N_STOP_SIGNALS; i++) {
        if (!on) {
            if (g_caught[i])
                sigaction(k_stop_signals[i], &g_old_action[i], NULL);
            g_caught[i] = 0;
            continue;
        }
        g_caught[i] = 0;
        if (sigaction(k_stop_signals[i], NULL, &g_old_action[i]) != 0 ||
            g_old_action[i].sa_handler == SIG_IGN)
            continue;
        g_caught[i] = sigaction(k_stop_signals[i], &sa, NULL) == 0;
    }
}

/* The signals catch_signals(1) installed a handler for. */
static void stop_signal_set(sigset_t *set)
{
    sigemptyset(set);
    for (size_t i = 0; i < N_STOP_SIGNALS; i++)
        if (g_caught[i])
            sigaddset(set, k_stop_signals[i]);
}

/* In a forked child before exec: default actions again for the signals
 * spacrbench caught, so one arriving before exec acts on the command. */
static void uncatch_signals_in_child(void)
{
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    sigemptyset(&dfl.sa_mask);
    dfl.sa_handler = SIG_DFL;
    for (size_t i = 0; i < N_STOP_SIGNALS; i++)
        if (g_caught[i])
            sigaction(k_stop_signals[i], &dfl, NULL);
}

/* Resident size of this process (it is what a forked child starts with). */
static int64_t own_rss_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "re");
    long long size = 0, resident = -1;
    if (f) {
        if (fscanf(f, "%lld %lld", &size, &resident) != 2)
            resident = -1;
        fclose(f);
    }
    return resident < 0 ? -1 : (int64_t)resident * sysconf(_SC_PAGESIZE);
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cpu_of(const struct rusage *ru)
{
    return (double)ru->ru_utime.tv_sec + (double)ru->ru_utime.tv_usec * 1e-6 +
           (double)ru->ru_stime.tv_sec + (double)ru->ru_stime.tv_usec * 1e-6;
}

/* Start argv with the child held until it sits in its cgroup, then wait.
 * Returns 0 when the command ran (whatever its status), -1 with a message
 * printed when this program could not do its part. */
static int run_item(runner *r, char **argv, size_t index, item_outcome *o)
{
    memset(o, 0, sizeof *o);
    o->peak = -1;
    if (r->use_cgroup) {
        char name[64], why[600];
        snprintf(name, sizeof name, "spacrbench-run-%ld-%zu", (long)getpid(), index);
        if (sb_group_create(&r->cg, name, why, sizeof why) != 0) {
            fprintf(stderr, "spacrbench: item %zu: %s\n", index + 1, why);
            return -1;
        }
    }
    int go[2], err[2];
    if (pipe2(go, O_CLOEXEC) != 0) {
        fprintf(stderr, "spacrbench: pipe: %s\n", strerror(errno));
        sb_group_remove(&r->cg, NULL);
        return -1;
    }
    if (pipe2(err, O_CLOEXEC) != 0) {
        fprintf(stderr, "spacrbench: pipe: %s\n", strerror(errno));
        close(go[0]), close(go[1]);
        sb_group_remove(&r->cg, NULL);
        return -1;
    }
    /* Without a cgroup, leftovers of earlier items are our descendants too
     * (we are their subreaper): they belong to no later item. */
    if (!r->use_cgroup && tree_sampler_exclude_current(&r->tree) < 0)
        fprintf(stderr, "spacrbench: cannot list the processes left by earlier items; "
                        "they may be counted in this item's peak\n");
    fflush(stdout);
    fflush(stderr);
    g_child = 0;
    /* Hold the stop signals until the child's pid is known here and the
     * child has dropped spacrbench's handler: one arriving in between is
     * then passed on (or kills the child) instead of being lost. */
    sigset_t stops, before;
    stop_signal_set(&stops);
    sigprocmask(SIG_BLOCK, &stops, &before);
    pid_t pid = fork();
    if (pid == 0) {
        /* Child: default actions for the signals spacrbench catches (an
         * ignored one stays ignored), then wait for the go byte (sent once
         * we are in the cgroup) and exec; report an exec failure through
         * the CLOEXEC pipe. */
        uncatch_signals_in_child();
        sigprocmask(SIG_SETMASK, &before, NULL);
        close(go[1]);
        close(err[0]);
        if (r->stdout_is_output && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
            _exit(127);
        char b;
        ssize_t n;
        while ((n = read(go[0], &b, 1)) < 0 && errno == EINTR)
            ;
        if (n != 1)
            _exit(127);
        execvp(argv[0], argv);
        int e = errno;
        if (write(err[1], &e, sizeof e) < 0)
            _exit(126);
        _exit(127);
    }
    close(go[0]);
    close(err[1]);
    if (pid < 0) {
        fprintf(stderr, "spacrbench: fork: %s\n", strerror(errno));
        sigprocmask(SIG_SETMASK, &before, NULL);
        close(go[1]), close(err[0]);
        sb_group_remove(&r->cg, NULL);
        return -1;
    }
    g_child = pid;
    sigprocmask(SIG_SETMASK, &before, NULL); /* a pending one runs the handler now */
    int rc = 0;
    /* Stopped before the command started (a terminal signal is not passed
     * on by the handler): end the child the same way, so the item reads as
     * interrupted like one stopped while running. */
    if (g_signal)
        kill(pid, (int)g_signal);
    if (r->use_cgroup && sb_group_attach(&r->cg, pid) != 0) {
        fprintf(stderr, "spacrbench: cannot move the command into %s: %s\n", r->cg.dir,
                strerror(errno));
        rc = -1;
    }
    double t0 = now_seconds();
    if (rc == 0 && write(go[1], "x", 1) != 1)
        rc = -1;
    close(go[1]); /* on failure the child reads EOF and exits 127 */
    int e = 0;
    ssize_t got;
    while ((got = read(err[0], &e, sizeof e)) < 0 && errno == EINTR)
        ;
    close(err[0]);
    if (got == (ssize_t)sizeof e)
        o->exec_errno = e ? e : ENOEXEC;

    tree_sampler_reset(&r->tree);
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    int status = 0;
    for (;;) {
        pid_t w = wait4(pid, &status, r->use_cgroup ? 0 : WNOHANG, &ru);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR) {
            fprintf(stderr, "spacrbench: wait4: %s\n", strerror(errno));
            rc = -1;
            break;
        }
        if (!r->use_cgroup && w == 0) {
            tree_sample(&r->tree);
            struct timespec pause = {0, SAMPLE_INTERVAL_NS};
            nanosleep(&pause, NULL);
        }
    }
    double t1 = now_seconds();
    g_child = 0;
    o->seconds = t1 - t0;
    o->status = status;
    o->cpu_seconds = cpu_of(&ru);
    /* Orphaned grandchildren were reparented to us (child subreaper). */
    while (waitpid(-1, NULL, WNOHANG) > 0)
        ;
    if (r->use_cgroup) {
        o->peak = sb_group_peak(&r->cg);
        if (sb_group_remove(&r->cg, &o->left_behind) != 0) {
            fprintf(stderr, "spacrbench: cannot remove %s: %s\n", r->cg.dir, strerror(errno));
            rc = -1;
        }
    } else {
        o->peak = tree_peak(&r->tree, pid, (int64_t)ru.ru_maxrss * 1024);
        int alive = tree_sample(&r->tree);
        o->left_behind = alive > 0 ? alive : 0;
    }
    return rc;
}

static void describe_outcome(char *buf, size_t cap, const item_outcome *o)
{
    if (o->exec_errno)
        snprintf(buf, cap, "cannot be started: %s", strerror(o->exec_errno));
    else if (WIFSIGNALED(o->status))
        snprintf(buf, cap, "killed by signal %d (%s)", WTERMSIG(o->status),
                 strsignal(WTERMSIG(o->status)));
    else
        snprintf(buf, cap, "exited with status %d", WEXITSTATUS(o->status));
}

static int outcome_ok(const item_outcome *o)
{
    return !o->exec_errno && WIFEXITED(o->status) && WEXITSTATUS(o->status) == 0;
}

static int parse_run(int argc, char **argv, run_config *rc, cli_common *c)
{
    int i = 0, positional = 0;
    for (; i < argc; i++) {
        const char *arg = argv[i], *v;
        if (strcmp(arg, "--") == 0)
            break;
        int used = cli_parse_common(argc, argv, &i, c);
        if (used < 0)
            return -used;
        if (used)
            continue;
        if (cli_is_option(arg, "--warmup")) {
            if (!(v = cli_option_value(argc, argv, &i, "--warmup")))
                return CLI_EXIT_USAGE;
            if (cli_parse_int(v, 0, INT32_MAX, &rc->warmup) != 0)
                return cli_usage_error("--warmup", "expected a whole number >= 0, got '%s'", v);
        } else if (strcmp(arg, "--no-cgroup") == 0) {
            rc->no_cgroup = 1;
        } else if (cli_is_option(arg, "--items")) {
            if (!(v = cli_option_value(argc, argv, &i, "--items")))
                return CLI_EXIT_USAGE;
            rc->items_file = v;
        } else if (arg[0] == '-' && arg[1] == '-')
            return cli_usage_error(arg, "unknown option for 'spacrbench run'");
        else
            positional++;
    }
    if (i >= argc || i + 1 >= argc)
        return cli_usage_error("run", "missing '-- COMMAND ARG... {}' after the items");
    rc->cmd = argv + i + 1;
    rc->cmd_len = (size_t)(argc - i - 1);
    if (positional && rc->items_file)
        return cli_usage_error("--items", "give items either as arguments or in a file, not both");
    if (c->json && c->emit != CLI_EMIT_REPORT)
        return cli_usage_error("--emit", "cannot be combined with --json (the JSON document "
                                         "already holds the schedule)");
    /* Collect the items. */
    if (positional) {
        rc->items = calloc((size_t)positional, sizeof *rc->items);
        if (!rc->items)
            return CLI_EXIT_ERROR;
        for (int k = 0; k < i; k++) {
            const char *a = argv[k];
            if (strcmp(a, "--json") == 0 || strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0 ||
                strcmp(a, "--no-cgroup") == 0)
                continue;
            if (a[0] == '-' && a[1] == '-') {
                if (!strchr(a, '='))
                    k++; /* skip the option's separate value */
                continue;
            }
            if (!(rc->items[rc->n_items] = strdup(a)))
                return CLI_EXIT_ERROR;
            rc->n_items++;
        }
    } else {
        FILE *f = stdin;
        if (rc->items_file && strcmp(rc->items_file, "-") != 0 &&
            !(f = fopen(rc->items_file, "re")))
            return cli_usage_error("--items", "cannot open '%s': %s", rc->items_file,
                                   strerror(errno));
        if (f == stdin && isatty(STDIN_FILENO))
            fprintf(stderr, "spacrbench: reading items from standard input, one per line "
                            "(end with Ctrl-D)\n");
        int r = items_read(f, &rc->items, &rc->n_items);
        int e = errno;
        if (f != stdin)
            fclose(f);
        if (r != 0)
            return cli_usage_error(rc->items_file ? "--items" : "stdin", "cannot read items: %s",
                                   strerror(e));
    }
    if (rc->n_items == 0)
        return cli_usage_error(rc->items_file ? "--items" : "run",
                               "no items to run (give ITEM arguments, --items FILE, or lines "
                               "on standard input)");
    return CLI_EXIT_OK;
}

static void describe_run(json_writer *w, const void *arg)
{
    const run_config *rc = arg;
    json_begin_array(w, "command");
    for (size_t i = 0; i < rc->cmd_len; i++)
        json_string(w, NULL, rc->cmd[i]);
    json_end_array(w);
    json_int(w, "items_given", (int64_t)rc->n_items);
    json_int(w, "spacrbench_rss_bytes", rc->own_rss_bytes);
}

static void notef(spacrbench_measurement *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void notef(spacrbench_measurement *m, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    spacrbench_measurement_add_note(m, text);
}

/* Decide once per run how peaks are measured. */
static void choose_method(runner *r, int no_cgroup)
{
    char why[600] = "--no-cgroup was given";
    tree_sampler_init(&r->tree, getpid());
    if (!no_cgroup && sb_group_locate(&r->cg, NULL, why, sizeof why) == 0) {
        char probe[64];
        snprintf(probe, sizeof probe, "spacrbench-run-%ld-probe", (long)getpid());
        if (sb_group_create(&r->cg, probe, why, sizeof why) == 0 && sb_group_remove(&r->cg, NULL) == 0) {
            r->use_cgroup = 1;
            return;
        }
    }
    snprintf(r->why_no_cgroup, sizeof r->why_no_cgroup, "%s", why);
    /* Keep orphaned grandchildren in view of the tree sampler. */
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

int run_main(int argc, char **argv)
{
    run_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cli_common c;
    cli_common_init(&c);
    int status = parse_run(argc, argv, &cfg, &c);
    if (status != CLI_EXIT_OK) {
        items_free(cfg.items, cfg.n_items);
        return status;
    }
    size_t warmup = (size_t)cfg.warmup < cfg.n_items ? (size_t)cfg.warmup : cfg.n_items - 1;

    runner r;
    memset(&r, 0, sizeof r);
    choose_method(&r, cfg.no_cgroup);
    r.stdout_is_output = c.json || c.emit != CLI_EMIT_REPORT;
    cfg.own_rss_bytes = own_rss_bytes();
    int progress = !c.quiet && isatty(STDERR_FILENO);

    spacrbench_item_record *records = calloc(cfg.n_items, sizeof *records);
    const char **labels = calloc(cfg.n_items, sizeof *labels);
    if (!records || !labels) {
        fprintf(stderr, "spacrbench: out of memory\n");
        free(records), free(labels);
        items_free(cfg.items, cfg.n_items);
        tree_sampler_free(&r.tree);
        return CLI_EXIT_ERROR;
    }
    spacrbench_figures f;
    memset(&f, 0, sizeof f);
    f.size = sizeof f;
    f.peak_rss_bytes = -1;
    f.peak_vram_bytes = SPACRBENCH_NOT_MEASURED;
    f.peak_method = r.use_cgroup ? SPACRBENCH_PEAK_CGROUP : SPACRBENCH_PEAK_CHILD_RUSAGE;
    f.sample_interval_us = r.use_cgroup ? 0 : SAMPLE_INTERVAL_NS / 1000;
    f.stopped_item = -1;
    double cpu = 0;
    size_t done = 0;
    item_outcome failed;
    char *failed_command = NULL;
    int internal_error = 0, left_total = 0;

    g_signal = 0;
    catch_signals(1);
    for (size_t i = 0; i < cfg.n_items && !g_signal; i++) {
        char **item_argv = command_for_item(cfg.cmd, cfg.cmd_len, cfg.items[i]);
        if (!item_argv) {
            fprintf(stderr, "spacrbench: out of memory\n");
            internal_error = 1;
            break;
        }
        item_outcome o;
        if (run_item(&r, item_argv, i, &o) != 0) {
            command_free(item_argv);
            internal_error = 1;
            break;
        }
        left_total += o.left_behind;
        if (!outcome_ok(&o)) {
            failed = o;
            failed_command = command_display(item_argv);
            f.stopped = 1;
            f.stopped_item = (int64_t)i;
            f.work_result = o.exec_errno ? 127
                            : WIFSIGNALED(o.status) ? -WTERMSIG(o.status)
                                                    : WEXITSTATUS(o.status);
            command_free(item_argv);
            break;
        }
        command_free(item_argv);
        int is_warmup = i < warmup;
        records[done] = (spacrbench_item_record){sizeof records[0], (int64_t)i, is_warmup, 0,
                                                 o.seconds, o.peak, SPACRBENCH_NOT_MEASURED};
        labels[done++] = cfg.items[i];
        if (o.peak > f.peak_rss_bytes)
            f.peak_rss_bytes = o.peak;
        if (is_warmup) {
            f.warmup_items++;
            f.warmup_seconds += o.seconds;
        } else {
            f.items++;
            f.seconds += o.seconds;
            cpu += o.cpu_seconds;
        }
        if (progress) {
            char peak[32];
            cli_format_bytes(peak, sizeof peak, o.peak);
            fprintf(stderr, "item %zu/%zu%s done in %.2f s, peak %s\n", i + 1, cfg.n_items,
                    is_warmup ? " (warm-up)" : "", o.seconds, peak);
        }
    }
    catch_signals(0);
    f.cpu_seconds = f.items ? cpu : NAN;
    if (f.peak_rss_bytes < 0)
        f.peak_method = SPACRBENCH_PEAK_NONE;

    spacrbench_measurement *m = NULL;
    if (spacrbench_measurement_create(&f, &m) != 0) {
        fprintf(stderr, "spacrbench: %s\n", spacrbench_last_error_message());
        status = CLI_EXIT_ERROR;
        goto done;
    }
    for (size_t k = 0; k < done; k++)
        spacrbench_measurement_add_record(m, &records[k]);
    if (r.use_cgroup)
        notef(m, "peak memory of each command's whole process tree from a memory cgroup of its "
                 "own (cgroup v%d %s under %s); page cache the command reads or writes is "
                 "included, while file pages already cached by other processes (shared "
                 "libraries) stay charged to them, as they would for an extra worker",
              r.cg.version, r.cg.version == 1 ? "memory.max_usage_in_bytes" : "memory.peak",
              r.cg.parent);
    else
        notef(m, "peak memory = the larger of wait4's ru_maxrss (largest single process of the "
                 "tree) and the sum of each process's VmHWM sampled every %ld ms (an upper bound: "
                 "the peaks may not coincide; a process living less than that is seen only "
                 "through ru_maxrss); page cache is not included; no cgroup of its own because %s",
              SAMPLE_INTERVAL_NS / 1000000, r.why_no_cgroup);
    if (!r.use_cgroup) {
        char own[32];
        cli_format_bytes(own, sizeof own, cfg.own_rss_bytes);
        notef(m, "ru_maxrss can include up to spacrbench's own resident size (%s): the kernel "
                 "keeps the peak of the forked copy across exec",
              own);
    }
    notef(m, "each item ran as its own process, serially; baseline 0 (the whole peak counts as "
             "the worker's)");
    if (warmup)
        notef(m, "%zu warm-up item(s) excluded from the timing (their memory still counts toward "
                 "the peak)",
              warmup);
    if (warmup < (size_t)cfg.warmup)
        notef(m, "warm-up of %lld clamped to %zu so the last item is measured",
              (long long)cfg.warmup, warmup);
    if (left_total)
        notef(m, "%d process(es) outlived their item%s", left_total,
              r.use_cgroup ? " and were moved back to spacrbench's own cgroup" : "");
    if (f.stopped) {
        char what[256], peak[32];
        describe_outcome(what, sizeof what, &failed);
        cli_format_bytes(peak, sizeof peak, failed.peak);
        notef(m, "stopped at item %lld (%s): %s after %.2f s, peak %s; not counted",
              (long long)f.stopped_item + 1, cfg.items[f.stopped_item], what, failed.seconds, peak);
    }
    if (g_signal)
        notef(m, "interrupted by signal %d (%s)", (int)g_signal, strsignal((int)g_signal));

    cli_context ctx = {"run", labels, done, describe_run, &cfg};
    status = cli_finish(&c, m, &ctx);
    spacrbench_measurement_free(m);
done:
    if (f.stopped) {
        char what[256];
        describe_outcome(what, sizeof what, &failed);
        fprintf(stderr, "spacrbench: item %lld (%s) %s: %s\n", (long long)f.stopped_item + 1,
                cfg.items[f.stopped_item], what, failed_command ? failed_command : "");
        status = CLI_EXIT_STOPPED;
    } else if (g_signal) {
        fprintf(stderr, "spacrbench: interrupted by signal %d; stopped after %zu item(s)\n",
                (int)g_signal, done);
        status = CLI_EXIT_STOPPED;
    } else if (internal_error)
        status = CLI_EXIT_ERROR;
    free(failed_command);
    free(records);
    free(labels);
    items_free(cfg.items, cfg.n_items);
    tree_sampler_free(&r.tree);
    return status;
}
