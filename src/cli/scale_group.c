/* k copies at once in one group; see scale_group.h. */
#include "scale_group.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli_stdio.h"
#include "run_item.h"
#include "run_signals.h"

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Copy side (async-signal-safe calls only: the parent may have threads in
 * a sanitizer runtime). Wait for the go byte, run all but the last item as
 * children, then become the last one, so a one-item copy IS the command
 * and the group holds nothing but the commands. A failing item ends the
 * copy with its status (a signal as 128 + its number). */
static void copy_main(char **const *argvs, int64_t m, int go, int stdout_is_output,
                      const sigset_t *mask)
{
    run_signals_reset_in_child();
    cli_stdio_reset_in_child();
    sigprocmask(SIG_SETMASK, mask, NULL);
    if (stdout_is_output && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
        _exit(127);
    char b;
    ssize_t n;
    while ((n = read(go, &b, 1)) < 0 && errno == EINTR)
        ;
    if (n != 1)
        _exit(127); /* never released: spacrbench gave up on this point */
    for (int64_t j = 0; j + 1 < m; j++) {
        pid_t pid = fork();
        if (pid < 0)
            _exit(127);
        if (pid == 0) {
            execvp(argvs[j][0], argvs[j]);
            _exit(127);
        }
        int st;
        while (waitpid(pid, &st, 0) < 0)
            if (errno != EINTR)
                _exit(127);
        if (WIFSIGNALED(st))
            _exit(128 + WTERMSIG(st));
        if (WEXITSTATUS(st) != 0)
            _exit(WEXITSTATUS(st));
    }
    execvp(argvs[m - 1][0], argvs[m - 1]);
    _exit(127);
}

static int find_copy(const scale_copy *copies, int64_t k, pid_t pid)
{
    for (int64_t i = 0; i < k; i++)
        if (copies[i].pid == pid && !copies[i].done)
            return (int)i;
    return -1;
}

/* One VRAM sample of the copies: every PID of the group's cgroup, or the
 * copies and the descendants the tree sampler has seen. */
static void sample_vram(const scale_setup *setup, const sb_group *g, const scale_copy *copies)
{
    if (setup->vram && run_vram_active(setup->vram))
        run_vram_sample(setup->vram, setup->use_cgroup ? g : NULL, setup->tree, copies[0].pid);
}

/* Reap every copy. With a cgroup and no GPU to sample, wait4 blocks (no
 * polling); otherwise the tree (no cgroup) and the GPU memory are sampled
 * every RUN_SAMPLE_INTERVAL_NS or RUN_VRAM_INTERVAL_NS meanwhile. A stop
 * signal is passed on to the copies still running (the handler knows one
 * pid only). */
static void wait_copies(const scale_setup *setup, const sb_group *g, scale_copy *copies, int64_t k,
                        double t0)
{
    int64_t left = 0;
    for (int64_t i = 0; i < k; i++)
        left += copies[i].pid > 0 && !copies[i].done;
    int vram = setup->vram && run_vram_active(setup->vram);
    int poll = !setup->use_cgroup || vram;
    long interval = setup->use_cgroup ? RUN_VRAM_INTERVAL_NS : RUN_SAMPLE_INTERVAL_NS;
    int passed_on = 0;
    while (left > 0) {
        if (run_signals_pending() && !passed_on) {
            for (int64_t i = 0; i < k; i++)
                if (copies[i].pid > 0 && !copies[i].done)
                    kill(copies[i].pid, run_signals_pending());
            passed_on = 1;
        }
        int st;
        struct rusage ru;
        pid_t w = wait4(-1, &st, poll ? WNOHANG : 0, &ru);
        if (w > 0) {
            int i = find_copy(copies, k, w);
            if (i >= 0) {
                copies[i].done = 1;
                copies[i].status = st;
                copies[i].seconds = now_seconds() - t0;
                copies[i].maxrss = (int64_t)ru.ru_maxrss * 1024;
                left--;
            }
            continue;
        }
        if (w < 0 && errno == ECHILD)
            break; /* cannot happen while copies are unreaped; do not spin */
        if (w == 0) {
            if (!setup->use_cgroup)
                tree_sample(setup->tree);
            sample_vram(setup, g, copies);
            struct timespec pause = {0, interval};
            nanosleep(&pause, NULL);
        }
    }
}

/* Never released (setup failed or a signal came): close the go pipe, so
 * the copies read EOF and exit, and reap them. */
static void abandon(scale_copy *copies, int64_t started, int go_write)
{
    close(go_write);
    for (int64_t i = 0; i < started; i++)
        while (waitpid(copies[i].pid, NULL, 0) < 0 && errno == EINTR)
            ;
}

static void measure_group(sb_group *g, scale_outcome *o)
{
    o->peak = sb_group_peak(g);
    o->oom_kills = sb_group_oom_kills(g);
    o->limit = sb_group_limit(g);
}

int scale_group_run(const scale_setup *setup, char **const *argvs, int64_t k, int64_t m,
                    const char *name, scale_copy *copies, scale_outcome *o)
{
    memset(o, 0, sizeof *o);
    memset(copies, 0, (size_t)k * sizeof *copies);
    o->peak = o->oom_kills = o->limit = o->vram_peak = -1;
    if (k < 1 || k > 1024 || m < 1) {
        fprintf(stderr, "spacrbench: --scale: %lld copies of %lld item(s) (a bug)\n", (long long)k,
                (long long)m);
        return -1;
    }
    sb_group g = *setup->cg;
    g.dir[0] = '\0';
    char why[600];
    if (setup->use_cgroup && sb_group_create(&g, name, why, sizeof why) != 0) {
        fprintf(stderr, "spacrbench: --scale: %s\n", why);
        return -1;
    }
    int go[2];
    if (pipe2(go, O_CLOEXEC) != 0) {
        fprintf(stderr, "spacrbench: pipe: %s\n", strerror(errno));
        sb_group_remove(&g, NULL);
        return -1;
    }
    if (!setup->use_cgroup && tree_sampler_exclude_current(setup->tree) < 0)
        fprintf(stderr, "spacrbench: cannot list the processes left by earlier items; "
                        "they may be counted in the group's peak\n");
    fflush(stdout);
    fflush(stderr);
    /* As for one item: hold the stop signals until every copy has dropped
     * spacrbench's handler, so none is lost in between. */
    sigset_t before;
    run_signals_block(&before);
    int64_t started = 0;
    int rc = 0;
    for (; started < k; started++) {
        pid_t pid = fork();
        if (pid == 0) {
            close(go[1]); /* else no copy could ever see EOF */
            copy_main(argvs + started * m, m, go[0], setup->stdout_is_output, &before);
        }
        if (pid < 0) {
            fprintf(stderr, "spacrbench: fork: %s\n", strerror(errno));
            rc = -1;
            break;
        }
        copies[started].pid = pid;
    }
    close(go[0]);
    sigprocmask(SIG_SETMASK, &before, NULL); /* a pending one runs the handler now */
    for (int64_t i = 0; rc == 0 && setup->use_cgroup && i < k; i++)
        if (sb_group_attach(&g, copies[i].pid) != 0) {
            fprintf(stderr, "spacrbench: cannot move a copy into %s: %s\n", g.dir, strerror(errno));
            rc = -1;
        }
    if (rc != 0 || run_signals_pending()) {
        o->interrupted = rc == 0;
        abandon(copies, started, go[1]);
        sb_group_remove(&g, NULL);
        return rc;
    }
    tree_sampler_reset(setup->tree);
    if (setup->vram)
        run_vram_begin(setup->vram);
    /* One byte per copy, in one write (k <= 1024 < PIPE_BUF, so it is
     * atomic): they start together. A short write leaves some copies to
     * read EOF and fail, which marks the point failed. */
    char release[1024];
    memset(release, 'x', sizeof release);
    double t0 = now_seconds();
    ssize_t sent;
    while ((sent = write(go[1], release, (size_t)k)) < 0 && errno == EINTR)
        ;
    close(go[1]);
    sample_vram(setup, &g, copies);
    wait_copies(setup, &g, copies, k, t0);
    o->seconds = now_seconds() - t0;
    sample_vram(setup, &g, copies); /* what is left in the group at the end */
    if (setup->vram)
        o->vram_peak = run_vram_end(setup->vram);
    /* Orphaned grandchildren come back to us without a cgroup (subreaper). */
    while (waitpid(-1, NULL, WNOHANG) > 0)
        ;
    if (setup->use_cgroup) {
        measure_group(&g, o);
        if (sb_group_remove(&g, &o->left_behind) != 0) {
            fprintf(stderr, "spacrbench: cannot remove %s: %s\n", g.dir, strerror(errno));
            return -1;
        }
    } else {
        int64_t largest = 0;
        for (int64_t i = 0; i < k; i++)
            largest = copies[i].maxrss > largest ? copies[i].maxrss : largest;
        o->peak = tree_peak(setup->tree, 0, largest);
        int alive = tree_sample(setup->tree);
        o->left_behind = alive > 0 ? alive : 0;
    }
    return 0;
}
