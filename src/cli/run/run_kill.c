/* See run_kill.h. */
#include "run_kill.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "run_wait.h"

#define KILL_PASSES      50  /* forks racing the kill: each pass catches the new ones */
#define LEFTOVER_POLL_MS 10L /* how often the leftovers are counted while they may exit */

static void pause_ms(long ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

/* v2: one write kills the whole group atomically (Linux >= 5.14). */
static int cgroup_kill_file(const sb_group *g)
{
    char path[SB_GROUP_PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/cgroup.kill", g->dir);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int ok = write(fd, "1", 1) == 1;
    close(fd);
    return ok ? 0 : -1;
}

/* Signal each pid in cgroup.procs once (sig 0: count them); how many were
 * listed. */
static int cgroup_pass(const sb_group *g, int sig)
{
    char path[SB_GROUP_PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/cgroup.procs", g->dir);
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    long pid;
    int n = 0;
    while (fscanf(f, "%ld", &pid) == 1) {
        if (sig)
            kill((pid_t)pid, sig);
        n++;
    }
    fclose(f);
    return n;
}

static int in_cgroup(const run_procs *p) { return p->cg && p->cg->dir[0]; }

/* One pass over p's processes; how many were listed. */
static int pass(const run_procs *p, int sig)
{
    return in_cgroup(p) ? cgroup_pass(p->cg, sig) : tree_signal(p->tree, sig);
}

int run_kill_procs(const run_procs *p, int sig)
{
    if (in_cgroup(p) && sig == SIGKILL && cgroup_kill_file(p->cg) == 0) {
        /* Wait (briefly) until the group is empty, as the passes do. */
        for (int i = 0; i < KILL_PASSES && cgroup_pass(p->cg, 0) > 0; i++)
            pause_ms(2);
        return 1;
    }
    int total = 0;
    for (int i = 0; i < KILL_PASSES; i++) {
        int n = pass(p, sig);
        if (n < 0)
            return total ? total : -1;
        if (n == 0 || sig != SIGKILL)
            return total + n;
        total += n;
        pause_ms(2); /* let the killed ones leave the group */
    }
    return total;
}

int run_procs_alive(const run_procs *p) { return pass(p, 0); }

int run_kill_tree(const runner *r, pid_t child, int sig)
{
    run_procs p = {r->use_cgroup ? &r->cg : NULL, &r->tree};
    /* The child first: it is ours for sure (not yet reaped). */
    int total = !r->use_cgroup && child > 0 && kill(child, sig) == 0;
    int n = run_kill_procs(&p, sig);
    return n < 0 ? (total ? total : -1) : total + n;
}

int run_kill_leftovers(const run_procs *p, int sig, double kill_at)
{
    int n = run_procs_alive(p);
    if (n <= 0)
        return n < 0 ? -1 : 0;
    run_kill_procs(p, sig);
    while ((n = run_procs_alive(p)) > 0 && run_now() < kill_at)
        pause_ms(LEFTOVER_POLL_MS);
    if (n == 0)
        return 0;
    run_kill_procs(p, SIGKILL);
    return 1;
}
