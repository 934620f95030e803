/* Groups left by a process that died without removing them; see
 * sb_group_clean_stale in group.h. Used by `spacrbench run` (its
 * spacrbench-run-PID-... groups) and by the library's process groups
 * (spacrbench-group-PID-...), each time a new one is made. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "group.h"

#define SHOWN_PIDS 8 /* pids named per group; more are counted */

/* Does pid run (not a zombie), and as owner_comm when that is given? */
static int owner_alive(long pid, const char *owner_comm)
{
    char path[64], comm[64] = "", stat[2048] = "";
    size_t len = 0;
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    if (sb_cg_read_small(path, stat, sizeof stat, &len) != 0)
        return 0;
    const char *paren = strrchr(stat, ')');
    if (!paren || paren[1] != ' ' || paren[2] == 'Z')
        return 0;
    if (!owner_comm)
        return 1;
    snprintf(path, sizeof path, "/proc/%ld/comm", pid);
    if (sb_cg_read_small(path, comm, sizeof comm, &len) != 0)
        return 0;
    comm[strcspn(comm, "\n")] = '\0';
    return strcmp(comm, owner_comm) == 0;
}

/* PREFIX-PID-REST with REST non-empty and every byte of the name plain: a
 * name we could have made. The owner's pid, or -1. */
static long owner_of(const char *name, const char *prefix)
{
    size_t n = strlen(prefix);
    if (strncmp(name, prefix, n) != 0 || name[n] != '-')
        return -1;
    for (const char *p = name; *p; p++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_", *p))
            return -1;
    char *end;
    errno = 0;
    long pid = strtol(name + n + 1, &end, 10);
    if (errno || end == name + n + 1 || pid <= 0 || end[0] != '-' || !end[1])
        return -1;
    return pid;
}

typedef struct pid_list {
    char *text;
    size_t cap, used;
    int n;
} pid_list;

static int add_pid(pid_t pid, void *arg)
{
    pid_list *l = arg;
    if (l->n++ < SHOWN_PIDS && l->used < l->cap)
        l->used += (size_t)snprintf(l->text + l->used, l->cap - l->used, " %ld", (long)pid);
    return 0;
}

static void handle(const sb_group *g, const char *name, long pid,
                   void (*found)(void *arg, const sb_stale_group *stale), void *arg)
{
    char dir[SB_GROUP_PATH_MAX + 300], pids[256] = "", what[400];
    snprintf(dir, sizeof dir, "%s/%s", g->parent, name);
    pid_list l = {pids, sizeof pids, 0, 0};
    int n = sb_cgroup_procs_each(dir, add_pid, &l);
    int removed = 0;
    if (n > SHOWN_PIDS && l.used < l.cap)
        snprintf(pids + l.used, l.cap - l.used, " (and %d more)", n - SHOWN_PIDS);
    if (n == 0 && rmdir(dir) == 0) {
        removed = 1;
        snprintf(what, sizeof what, "empty, removed");
    } else if (n == 0)
        snprintf(what, sizeof what, "empty, but cannot be removed: %s", strerror(errno));
    else if (n > 0)
        snprintf(what, sizeof what,
                 "process(es)%s still in it: left alone, not killed (end them, then rmdir it)",
                 pids);
    else
        snprintf(what, sizeof what, "unreadable: %s", strerror(errno));
    sb_stale_group stale = {g->parent, name, pid, n, removed, what};
    if (found)
        found(arg, &stale);
}

int sb_group_clean_stale(const sb_group *g, const char *prefix, const char *owner_comm,
                         void (*found)(void *arg, const sb_stale_group *stale), void *arg)
{
    if (!g->version)
        return -1;
    DIR *d = opendir(g->parent);
    if (!d)
        return -1;
    struct dirent *e;
    long self = (long)getpid();
    int count = 0;
    while ((e = readdir(d)) != NULL) {
        long pid = owner_of(e->d_name, prefix);
        if (pid <= 0 || pid == self || owner_alive(pid, owner_comm))
            continue;
        handle(g, e->d_name, pid, found, arg);
        count++;
    }
    closedir(d);
    return count;
}
