/* Groups left by a process that died without removing them; see
 * sb_group_clean_stale in group.h. Used by `spacrbench run` (its
 * spacrbench-run-PID-tSTART-... groups) and by the library's process
 * groups (spacrbench-group-PID-tSTART-...), each time a new one is made.
 * A group's owner is known by identity, not by name: the pid and the
 * start time in the group's name (sb_group_owner_tag) are a process that
 * runs now only if it is that very process, whatever its program is
 * called (a symlink, a renamed copy, another install). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "group.h"

#define SHOWN_PIDS 8 /* pids named per group; more are counted */

/* Field 22 of /proc/PID/stat (after the command's parenthesis, whatever
 * it holds): when the process started, in clock ticks since boot. With the
 * state (field 3): 0 when it runs, -1 when it is gone or a zombie. */
static int process_start(long pid, unsigned long long *start)
{
    char path[64], stat[2048] = "";
    size_t len = 0;
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    if (sb_cg_read_small(path, stat, sizeof stat, &len) != 0)
        return -1;
    const char *p = strrchr(stat, ')');
    if (!p || p[1] != ' ' || p[2] == 'Z')
        return -1;
    p += 2; /* field 3 */
    for (int field = 3; field < 22 && p; field++) {
        p = strchr(p, ' ');
        if (p)
            p++;
    }
    char *end;
    errno = 0;
    unsigned long long v = p ? strtoull(p, &end, 10) : 0;
    if (!p || errno || end == p)
        return -1;
    *start = v;
    return 0;
}

int sb_group_owner_tag(char *buf, size_t cap) { return sb_group_owner_tag_of(getpid(), buf, cap); }

int sb_group_owner_tag_of(pid_t owner, char *buf, size_t cap)
{
    unsigned long long start = 0;
    long pid = (long)owner;
    if (process_start(pid, &start) != 0)
        return snprintf(buf, cap, "%ld", pid) < 0 ? -1 : 0; /* no /proc: by pid alone */
    return snprintf(buf, cap, "%ld-t%llu", pid, start) < 0 ? -1 : 0;
}

/* The owner runs: its pid is alive and, when the name holds its start
 * time, started then (the pid was not reused). Its name does not matter:
 * a run started through a symlink or a renamed binary is a live run. */
static int owner_alive(long pid, long long start)
{
    unsigned long long now = 0;
    if (process_start(pid, &now) != 0)
        return 0;
    return start < 0 || now == (unsigned long long)start;
}

/* PREFIX-PID[-tSTART]-REST with REST non-empty and every byte of the name
 * plain: a name we could have made. The owner's pid (and start time, -1
 * in a name without one), or -1. */
static long owner_of(const char *name, const char *prefix, long long *start)
{
    size_t n = strlen(prefix);
    *start = -1;
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
    if (end[1] == 't' && end[2] >= '0' && end[2] <= '9') {
        char *after;
        long long t = strtoll(end + 2, &after, 10);
        if (!errno && after[0] == '-' && after[1])
            *start = t;
    }
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

int sb_group_clean_stale(const sb_group *g, const char *prefix,
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
        long long start;
        long pid = owner_of(e->d_name, prefix, &start);
        if (pid <= 0 || pid == self || owner_alive(pid, start))
            continue;
        handle(g, e->d_name, pid, found, arg);
        count++;
    }
    closedir(d);
    return count;
}
