/* What a user without root gets, beside what root gets, measured in one
 * run through the code the command and the scaling check use:
 *   - `spacrbench run`'s supervisor (run_item) on a sleeping item: this
 *     process's CPU while it waits, as a share of one core (the tree
 *     sampler's cost without a cgroup, the cgroup's RSS samples with one),
 *     and the gaps between samples really used;
 *   - the same on an item that touches 64 MiB: its peak and how it was
 *     measured (cgroup, or the tree's VmHWM sum);
 *   - spacrbench_group (the scaling check's count) over two forked workers
 *     that share 64 MiB of their parent's and touch 32 MiB each: this
 *     process's CPU while they sleep (only the group's sampler thread
 *     works then), the pace its note reports, and the group's peak.
 * Each column runs in a forked child: root itself, then USER (setuid) in
 * this process's cgroup, then, with a v1 memory hierarchy, USER in a
 * memory cgroup chowned to it below this one (an administrator's
 * delegation; made and removed here). Peaks are shown against root's.
 * Prints figures and ratios; never fails on speed. Usage, as root:
 *   spacrbench_perf_nonroot USER [SECONDS]
 * and as anyone, for one column of the user running it:
 *   spacrbench_perf_nonroot [SECONDS] */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "os.h"
#include "spacrbench.h"
#include "supervisor.h"

#define MIB (1024.0 * 1024.0)

typedef struct column {
    char who[48];
    char found[600];
    double run_cpu;           /* % of a core while an item sleeps */
    double run_mean, run_max; /* ms between the tree's samples */
    double run_peak;          /* MiB, the 64 MiB item */
    char run_method[24];      /* "cgroup" or "tree" */
    double group_cpu;         /* % of a core while the workers sleep */
    double group_peak;        /* MiB */
    char group_method[24];    /* "cgroup" or "pss_sum" */
    char group_pace[400];     /* spacrbench_group_sampling_note, "" with a cgroup */
    int ok;
} column;

static double clock_of(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void measure_run(column *c, double seconds)
{
    sb_supervisor sup;
    char *stale = NULL;
    run_supervisor_init(&sup, NULL, 0, 0, -1, 0, &stale);
    free(stale);
    snprintf(c->found, sizeof c->found, "%s", sup.use_cgroup ? sup.cg.found : sup.why_no_cgroup);
    char secs[32];
    snprintf(secs, sizeof secs, "%g", seconds);
    char *sleeper[] = {"sleep", secs, NULL};
    run_outcome o;
    double c0 = clock_of(CLOCK_PROCESS_CPUTIME_ID), t0 = clock_of(CLOCK_MONOTONIC);
    if (run_item(&sup, sleeper, 0, &o) != 0 || !run_outcome_ok(&o))
        goto done;
    c->run_cpu = 100 * (clock_of(CLOCK_PROCESS_CPUTIME_ID) - c0) / (clock_of(CLOCK_MONOTONIC) - t0);
    c->run_mean = sb_sample_budget_mean(&sup.budget) * 1e3;
    c->run_max = sup.budget.longest_s * 1e3;
    char *toucher[] = {HELPER_ALLOC_TOUCH, "64", "300", NULL};
    if (run_item(&sup, toucher, 1, &o) != 0 || !run_outcome_ok(&o))
        goto done;
    c->run_peak = (double)o.group.peak / MIB;
    snprintf(c->run_method, sizeof c->run_method, "%s", sup.use_cgroup ? "cgroup" : "tree");
    c->ok = 1;
done:
    sb_supervisor_free(&sup);
}

static void *touch(size_t n)
{
    char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    memset(p, 1, n);
    return p;
}

static void measure_group(column *c, double seconds)
{
    size_t shared = 64u << 20, own = 32u << 20;
    void *inherited = touch(shared);
    spacrbench_group *g = NULL;
    if (!inherited || spacrbench_group_open(0, &g) != 0) {
        c->ok = 0;
        return;
    }
    int go[2];
    if (pipe(go) != 0) {
        c->ok = 0;
        return;
    }
    pid_t w[2];
    for (int i = 0; i < 2; i++) {
        w[i] = fork();
        if (w[i] == 0) {
            close(go[1]);
            char b;
            if (read(go[0], &b, 1) != 1 || !touch(own))
                _exit(1);
            struct timespec hold = {(time_t)seconds,
                                    (long)((seconds - (double)(time_t)seconds) * 1e9)};
            nanosleep(&hold, NULL);
            _exit(0);
        }
        spacrbench_group_add_process(g, w[i]);
    }
    close(go[0]);
    if (write(go[1], "xx", 2) != 2)
        c->ok = 0;
    close(go[1]);
    double c0 = clock_of(CLOCK_PROCESS_CPUTIME_ID), t0 = clock_of(CLOCK_MONOTONIC);
    for (int i = 0; i < 2; i++)
        waitpid(w[i], NULL, 0);
    c->group_cpu =
        100 * (clock_of(CLOCK_PROCESS_CPUTIME_ID) - c0) / (clock_of(CLOCK_MONOTONIC) - t0);
    int64_t bytes = -1;
    int32_t method = 0;
    spacrbench_group_peak(g, &bytes, &method);
    c->group_peak = (double)bytes / MIB;
    snprintf(c->group_method, sizeof c->group_method, "%s", spacrbench_peak_method_name(method));
    snprintf(c->group_pace, sizeof c->group_pace, "%s", spacrbench_group_sampling_note(g));
    spacrbench_group_close(g);
    munmap(inherited, shared);
}

/* As uid/gid (when given), in cgroup dir (when given): one column. */
static int run_column(column *c, const struct passwd *pw, const char *cgroup_dir, double seconds)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        column mine = *c;
        if (cgroup_dir) {
            char procs[SB_GROUP_PATH_MAX + 32], text[32];
            snprintf(procs, sizeof procs, "%s/cgroup.procs", cgroup_dir);
            snprintf(text, sizeof text, "%ld", (long)getpid());
            int fd = open(procs, O_WRONLY);
            if (fd < 0 || write(fd, text, strlen(text)) < 0)
                _exit(3);
            close(fd);
        }
        if (pw && (setgroups(0, NULL) != 0 || setgid(pw->pw_gid) != 0 || setuid(pw->pw_uid) != 0))
            _exit(4);
        /* A uid change makes a process undumpable (its /proc files root's,
         * smaps_rollup closed to its own user) until it execs: as the user
         * would be, having started this program themselves. */
        if (pw)
            prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
        measure_run(&mine, seconds);
        measure_group(&mine, seconds);
        _exit(write(fds[1], &mine, sizeof mine) == (ssize_t)sizeof mine ? 0 : 5);
    }
    close(fds[1]);
    ssize_t got = read(fds[0], c, sizeof *c);
    close(fds[0]);
    int st;
    waitpid(pid, &st, 0);
    return got == (ssize_t)sizeof *c ? 0 : -1;
}

/* A v1 memory cgroup below this process's, chowned to the user as an
 * administrator delegates one; "" when there is no v1 memory hierarchy. */
static void delegate_v1(const struct passwd *pw, char *dir, size_t cap)
{
    sb_group g;
    char why[600];
    dir[0] = '\0';
    if (sb_group_locate(&g, NULL, why, sizeof why) != 0 || g.version != 1)
        return;
    snprintf(dir, cap, "%s/spacrbench-perf-user-%ld", g.own, (long)getpid());
    if (mkdir(dir, 0755) != 0) {
        dir[0] = '\0';
        return;
    }
    static const char *const files[] = {"", "/cgroup.procs", "/tasks"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[SB_GROUP_PATH_MAX + 32];
        snprintf(path, sizeof path, "%s%s", dir, files[i]);
        if (chown(path, pw->pw_uid, pw->pw_gid) != 0) {
            rmdir(dir);
            dir[0] = '\0';
            return;
        }
    }
}

/* One line of figures: the double at offset in each column, decimals
 * after the point. */
static void row(const char *what, const column *c, int n, int decimals, size_t offset)
{
    printf("  %-44s", what);
    for (int i = 0; i < n; i++) {
        double v;
        memcpy(&v, (const char *)&c[i] + offset, sizeof v);
        printf("%26.*f", decimals, v);
    }
    printf("\n");
}

int main(int argc, char **argv)
{
    const struct passwd *pw = NULL;
    int a = 1;
    if (geteuid() == 0) {
        if (argc < 2 || !(pw = getpwnam(argv[1])) || pw->pw_uid == 0) {
            fprintf(stderr, "usage: %s USER [SECONDS] (as root; USER not root)\n", argv[0]);
            return 2;
        }
        a = 2;
    }
    double seconds = argc > a ? atof(argv[a]) : 3;
    if (!(seconds >= 0.5 && seconds <= 60)) {
        fprintf(stderr, "SECONDS: 0.5 to 60\n");
        return 2;
    }
    column c[3];
    memset(c, 0, sizeof c);
    int n = 0;
    char dir[SB_GROUP_PATH_MAX] = "";
    snprintf(c[n].who, sizeof c[n].who, "%s", pw ? "root" : "this user");
    if (run_column(&c[n], NULL, NULL, seconds) == 0 && c[n].ok)
        n++;
    if (pw) {
        snprintf(c[n].who, sizeof c[n].who, "%.20s, no cgroup", pw->pw_name);
        if (run_column(&c[n], pw, NULL, seconds) == 0 && c[n].ok)
            n++;
        delegate_v1(pw, dir, sizeof dir);
        snprintf(c[n].who, sizeof c[n].who, "%.20s, v1 chowned", pw->pw_name);
        if (dir[0] && run_column(&c[n], pw, dir, seconds) == 0 && c[n].ok)
            n++;
        if (dir[0])
            rmdir(dir);
    }
    printf("samplers' cost and peaks, %g s items, side by side (%d column(s))\n", seconds, n);
    printf("  %-44s", "");
    for (int i = 0; i < n; i++)
        printf("%26s", c[i].who);
    printf("\n");
    row("run: spacrbench CPU while an item sleeps, %", c, n, 3, offsetof(column, run_cpu));
    row("run: ms between the tree's samples, mean", c, n, 1, offsetof(column, run_mean));
    row("run: ms between the tree's samples, longest", c, n, 1, offsetof(column, run_max));
    row("run: 64 MiB item's peak, MiB", c, n, 2, offsetof(column, run_peak));
    printf("  %-44s", "run: ... against the first column");
    for (int i = 0; i < n; i++)
        printf("%25.3fx", c[0].run_peak > 0 ? c[i].run_peak / c[0].run_peak : 0);
    printf("\n  %-44s", "run: peak method");
    for (int i = 0; i < n; i++)
        printf("%26s", c[i].run_method);
    printf("\n");
    row("scale: CPU while 2 workers sleep, %", c, n, 3, offsetof(column, group_cpu));
    row("scale: 2 workers' peak, MiB", c, n, 2, offsetof(column, group_peak));
    printf("  %-44s", "scale: ... against the first column");
    for (int i = 0; i < n; i++)
        printf("%25.3fx", c[0].group_peak > 0 ? c[i].group_peak / c[0].group_peak : 0);
    printf("\n  %-44s", "scale: peak method");
    for (int i = 0; i < n; i++)
        printf("%26s", c[i].group_method);
    printf("\n");
    for (int i = 0; i < n; i++) {
        printf("  %s: %s\n", c[i].who, c[i].found);
        if (c[i].group_pace[0])
            printf("  %s: %s\n", c[i].who, c[i].group_pace);
    }
    printf("(the scaling check's workers share 64 MiB of their parent's: a cgroup counts only "
           "what they touch after joining, 2 x 32 MiB; PSS counts a third of the shared 64 MiB "
           "each as well)\n");
    return n > 0 ? 0 : 1;
}
