/* See run_kill.h. */
#include "run_kill.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

typedef struct proc_entry {
    pid_t pid, ppid;
    char state;
} proc_entry;

static int read_entry(pid_t pid, proc_entry *e)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    /* The name may hold ')' and spaces: the state follows the last ')'. */
    char *paren = strrchr(buf, ')');
    long ppid;
    if (!paren || sscanf(paren + 1, " %c %ld", &e->state, &ppid) != 2)
        return -1;
    e->pid = pid;
    e->ppid = (pid_t)ppid;
    return 0;
}

static int is_old(const tree_sampler *t, pid_t pid)
{
    for (size_t i = 0; i < t->n_old; i++)
        if (t->old[i] == pid)
            return 1;
    return 0;
}

/* One pass over /proc: signal every live descendant of self (not passing
 * through a leftover of an earlier item). How many, -1 on failure. */
static int descendants_pass(const tree_sampler *t, int sig)
{
    DIR *d = opendir("/proc");
    if (!d)
        return -1;
    proc_entry *all = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    int rc = 0;
    while ((de = readdir(d)) != NULL) {
        if (!isdigit((unsigned char)de->d_name[0]))
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 256;
            proc_entry *grown = realloc(all, cap * sizeof *grown);
            if (!grown) {
                rc = -1;
                break;
            }
            all = grown;
        }
        if (read_entry((pid_t)atol(de->d_name), &all[n]) == 0)
            n++;
    }
    closedir(d);
    unsigned char *mine = rc == 0 ? calloc(n ? n : 1, 1) : NULL;
    if (!mine) {
        free(all);
        return -1;
    }
    for (int changed = 1; changed;) {
        changed = 0;
        for (size_t i = 0; i < n; i++) {
            if (mine[i] || is_old(t, all[i].pid))
                continue;
            int parent_mine = all[i].ppid == t->self;
            for (size_t j = 0; j < n && !parent_mine; j++)
                parent_mine = mine[j] && all[j].pid == all[i].ppid;
            if (parent_mine)
                mine[i] = 1, changed = 1;
        }
    }
    int count = 0;
    for (size_t i = 0; i < n; i++)
        if (mine[i] && all[i].state != 'Z' && kill(all[i].pid, sig) == 0)
            count++;
    free(mine);
    free(all);
    return count;
}

int run_kill_tree(const runner *r, pid_t child, int sig)
{
    if (r->use_cgroup)
        return kill_cgroup(&r->cg, sig);
    /* The child first: it is ours for sure (not yet reaped). */
    int total = kill(child, sig) == 0;
    for (int pass = 0; pass < KILL_PASSES; pass++) {
        int n = descendants_pass(&r->tree, sig);
        if (n < 0)
            return total ? total : -1;
        if (n == 0 || sig != SIGKILL)
            return total + n;
        total += n;
        pause_ms(2);
    }
    return total;
}
