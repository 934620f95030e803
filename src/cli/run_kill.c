/* See run_kill.h. */
#include "run_kill.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#define KILL_PASSES 50 /* forks racing the kill: each pass catches the new ones */

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

/* Signal each pid in cgroup.procs once; how many were listed. */
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
        kill((pid_t)pid, sig);
        n++;
    }
    fclose(f);
    return n;
}

static int kill_cgroup(const sb_group *g, int sig)
{
    if (sig == SIGKILL && cgroup_kill_file(g) == 0)
        return 1;
    int total = 0;
    for (int pass = 0; pass < KILL_PASSES; pass++) {
        int n = cgroup_pass(g, sig);
        if (n < 0)
            return total ? total : -1;
        if (n == 0 || sig != SIGKILL)
            return total + n;
        total += n;
        pause_ms(2); /* let the killed ones leave the group */
    }
    return total;
}

int run_kill_tree(const runner *r, pid_t child, int sig)
{
    if (r->use_cgroup)
        return kill_cgroup(&r->cg, sig);
    /* The child first: it is ours for sure (not yet reaped). */
    int total = kill(child, sig) == 0;
    for (int pass = 0; pass < KILL_PASSES; pass++) {
        int n = tree_signal(&r->tree, sig);
        if (n < 0)
            return total ? total : -1;
        if (n == 0 || sig != SIGKILL)
            return total + n;
        total += n;
        pause_ms(2);
    }
    return total;
}
