/* Per-group memory cgroups, and stale ones. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "supervisor.h"

int sb_group_locate(sb_group *g, const sb_probe_env *env_in, char *why, size_t why_cap)
{
    memset(g, 0, sizeof *g);
    sb_probe_env env = env_in ? *env_in : sb_probe_env_live();
    char *cg = NULL, *mi = NULL;
    int truncated = 0, rc = -1;
    if (sb_cg_read_file(env.proc_self_cgroup, 64u << 10, &cg, &env.cgroup_len, &truncated) != 0) {
        snprintf(why, why_cap, "cannot read %s: %s", env.proc_self_cgroup, strerror(errno));
        goto done;
    }
    if (sb_cg_read_file(env.mountinfo, 4u << 20, &mi, &env.mountinfo_len, &truncated) != 0) {
        snprintf(why, why_cap, "cannot read %s: %s", env.mountinfo, strerror(errno));
        goto done;
    }
    env.cgroup_text = cg, env.mountinfo_text = mi;
    /* Hybrid hosts may name an unmounted v1 memory path: then v2. */
    sb_cgroup_location loc;
    for (int version = 1; version <= 2 && rc != 0; version++)
        if (sb_cgroup_in(&env, version, "memory", &loc) == SB_PARSE_OK &&
            (size_t)snprintf(g->own, sizeof g->own, "%s", loc.dir) < sizeof g->own) {
            g->version = version;
            rc = 0;
        }
    if (rc != 0)
        snprintf(why, why_cap, "no mounted memory cgroup for this process");
    else
        sb_group_choose(g, loc.mount_point, geteuid(), getpid());
done:
    free(cg);
    free(mi);
    return rc;
}

static const char *peak_file(const sb_group *g)
{
    return g->version == 1 ? "memory.max_usage_in_bytes" : "memory.peak";
}

/* Why a v2 child has no memory.peak (a job step or a container's leaf
 * holds processes: the rule in group_delegate.c). */
static int explain_v2(const sb_group *g, const char *file, int e, char *why, size_t why_cap)
{
    char text[1024], shown[64];
    size_t len = 0;
    int enabled = 0, busy = 0;
    sb_group_short_path(g->parent, shown, sizeof shown);
    if (sb_cg_read_in(g->parent, "cgroup.subtree_control", text, sizeof text, &len) == 0)
        enabled = strstr(text, "memory") != NULL;
    if (sb_cg_read_in(g->parent, "cgroup.procs", text, sizeof text, &len) == 0)
        busy = len > 0;
    if (!enabled && busy)
        return sb_why(why, why_cap,
                      "%s is not readable: processes run in %s itself, and cgroup v2 lets only a "
                      "cgroup without processes enable the memory controller for its children",
                      file, shown);
    if (!enabled)
        return sb_why(why, why_cap,
                      "%s is not readable: the memory controller is not enabled in %s/"
                      "cgroup.subtree_control",
                      file, shown);
    return sb_why(why, why_cap, "%s is not readable (%s): memory.peak needs Linux 5.19", file,
                  strerror(e));
}

int sb_group_create(sb_group *g, const char *name, char *why, size_t why_cap)
{
    char dir[SB_GROUP_PATH_MAX], file[SB_GROUP_PATH_MAX + 64], shown[64];
    if (g->version && g->place == SB_GROUP_NONE)
        return sb_why(why, why_cap, "%s", g->found);
    if (!g->version || (size_t)snprintf(dir, sizeof dir, "%s/%s", g->parent, name) >= sizeof dir)
        return sb_why(why, why_cap,
                      g->version ? "cgroup path too long" : "no parent cgroup located");
    if (mkdir(dir, 0755) != 0) {
        sb_group_short_path(g->parent, shown, sizeof shown);
        return sb_why(why, why_cap, "cannot create a cgroup in %s: %s", shown, strerror(errno));
    }
    snprintf(file, sizeof file, "%s/%s", dir, peak_file(g));
    if (access(file, R_OK) != 0) {
        int e = errno;
        rmdir(dir);
        if (g->version == 2)
            return explain_v2(g, peak_file(g), e, why, why_cap);
        return sb_why(why, why_cap, "%s is not readable (%s)", peak_file(g), strerror(e));
    }
    snprintf(g->dir, sizeof g->dir, "%s", dir);
    return 0;
}

int sb_cg_move(const char *dir, pid_t pid)
{
    char text[32];
    snprintf(text, sizeof text, "%ld", (long)pid);
    return sb_cg_write_in(dir, "cgroup.procs", text);
}

int sb_group_attach(const sb_group *g, pid_t pid)
{
    if (g->dir[0])
        return sb_cg_move(g->dir, pid);
    errno = EINVAL;
    return -1;
}

/* key's line, a limit ("max" too) or a byte count; -1 unreadable. */
static int64_t read_control(const sb_group *g, const char *name, const char *key, int limit)
{
    char text[1024];
    size_t len = 0;
    int64_t v = -1;
    if (!g->dir[0] || sb_cg_read_in(g->dir, name, text, sizeof text, &len) != 0)
        return -1;
    int rc = key     ? sb_parse_stat_key(text, len, key, &v)
             : limit ? sb_parse_memory_limit(text, len, &v)
                     : sb_parse_int64(text, len, &v);
    return rc != SB_PARSE_OK || (!key && !limit && v < 0) ? -1 : v;
}

int64_t sb_group_peak(const sb_group *g) { return read_control(g, peak_file(g), NULL, 0); }

int64_t sb_group_usage(const sb_group *g)
{
    return read_control(g, g->version == 1 ? "memory.usage_in_bytes" : "memory.current", NULL, 0);
}

int64_t sb_group_oom_kills(const sb_group *g)
{
    return read_control(g, g->version == 1 ? "memory.oom_control" : "memory.events", "oom_kill", 0);
}

int64_t sb_group_limit(const sb_group *g)
{
    return read_control(g, g->version == 1 ? "memory.limit_in_bytes" : "memory.max", NULL, 1);
}

#define PASS_PIDS 256 /* not moved, or killed: waited for */

typedef struct pid_pass {
    const char *target; /* the parent (evacuate), or NULL (kill) */
    int done;           /* moved, or killed */
    pid_t left[PASS_PIDS];
    size_t n_left;
} pid_pass;

static int pass_one(pid_t pid, void *arg)
{
    pid_pass *p = arg;
    int ok = p->target ? sb_cg_move(p->target, pid) == 0 : kill(pid, SIGKILL) == 0;
    p->done += ok;
    if ((p->target ? !ok : ok) && p->n_left < PASS_PIDS)
        p->left[p->n_left++] = pid;
    return 0;
}

/* Busy while one exits (its pidfd says when) or forked as we moved. */
#define REMOVE_PASSES 4

int sb_group_remove(sb_group *g, int *left_behind)
{
    if (left_behind)
        *left_behind = 0;
    if (!g->dir[0])
        return 0;
    int rc = rmdir(g->dir);
    for (int pass = 0; rc != 0 && errno == EBUSY && pass < REMOVE_PASSES; pass++) {
        pid_pass m = {g->parent, 0, {0}, 0};
        sb_group_procs(g, pass_one, &m);
        if (left_behind && pass == 0)
            *left_behind = m.done;
        sb_wait_exited(m.left, m.n_left, sb_now() + 0.5);
        rc = rmdir(g->dir);
    }
    if (rc == 0)
        g->dir[0] = '\0';
    return rc;
}

int sb_cgroup_procs_each(const char *dir, int (*each)(pid_t pid, void *arg), void *arg)
{
    char file[SB_GROUP_PATH_MAX + 320];
    if ((size_t)snprintf(file, sizeof file, "%s/cgroup.procs", dir) >= sizeof file) {
        errno = ENAMETOOLONG;
        return -1;
    }
    FILE *f = fopen(file, "re");
    if (!f)
        return -1;
    long pid;
    int n = 0;
    while (fscanf(f, "%ld", &pid) == 1) {
        if (pid <= 0 || pid != (long)(pid_t)pid)
            continue;
        n++;
        if (each && each((pid_t)pid, arg) != 0)
            break;
    }
    fclose(f);
    return n;
}

int sb_group_procs(const sb_group *g, int (*each)(pid_t pid, void *arg), void *arg)
{
    if (!g->dir[0]) {
        errno = ENOENT;
        return -1;
    }
    return sb_cgroup_procs_each(g->dir, each, arg);
}

int sb_group_set_limit(const sb_group *g, int64_t bytes)
{
    char text[32];
    if (!g->dir[0] || bytes <= 0) {
        errno = EINVAL;
        return -1;
    }
    snprintf(text, sizeof text, "%lld", (long long)bytes);
    if (sb_cg_write_in(g->dir, g->version == 1 ? "memory.limit_in_bytes" : "memory.max", text))
        return -1;
    /* v1 has no such switch: the caller kills the rest. */
    if (g->version == 2)
        sb_cg_write_in(g->dir, "memory.oom.group", "1");
    return 0;
}

int sb_group_kill_all(const sb_group *g)
{
    if (!g->dir[0])
        return 0;
    if (g->version == 2 && sb_cg_write_in(g->dir, "cgroup.kill", "1") == 0)
        return 0;
    int killed = 0;
    /* Rounds: a process may fork while we read. */
    for (int round = 0; round < 20; round++) {
        pid_pass p = {NULL, 0, {0}, 0};
        if (sb_group_procs(g, pass_one, &p) < 0)
            return -1;
        killed += p.done;
        if (!p.done)
            break;
        sb_wait_exited(p.left, p.n_left, sb_now() + 0.1);
    }
    return killed;
}

/* ---- stale groups: the owner is known by pid and start time, whatever
 * its program is called (a symlink, a renamed copy) ---- */
#define SHOWN_PIDS 8 /* pids named per group; more are counted */

int sb_group_owner_tag(char *buf, size_t cap) { return sb_group_owner_tag_of(getpid(), buf, cap); }

int sb_group_owner_tag_of(pid_t owner, char *buf, size_t cap)
{
    unsigned long long start = 0;
    long pid = (long)owner;
    if (sb_proc_stat("/proc", owner, NULL, NULL, &start) != 0)
        return snprintf(buf, cap, "%ld", pid) < 0 ? -1 : 0; /* no /proc: by pid alone */
    return snprintf(buf, cap, "%ld-t%llu", pid, start) < 0 ? -1 : 0;
}

static int owner_alive(long pid, long long start)
{
    unsigned long long now = 0;
    char state = 0;
    if (sb_proc_stat("/proc", (pid_t)pid, &state, NULL, &now) != 0 || state == 'Z')
        return 0;
    return start < 0 || now == (unsigned long long)start;
}

/* A name we could have made, PREFIX-PID[-tSTART]-REST: PID (*start -1
 * without one), or -1. */
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
