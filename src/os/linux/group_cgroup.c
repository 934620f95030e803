/* Per-group memory cgroups; see group.h. */
#include "group.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "child.h"
#include "clock.h"
#include "parse.h"

/* Same plausibility caps as discovery (cgroup_locate.c). */
#define PROC_CGROUP_LIMIT (64u * 1024u)
#define MOUNTINFO_LIMIT   (4u * 1024u * 1024u)

/* The directory of this process's cgroup in hierarchy `version` and its
 * mount point, from the texts already read. 0 when found. */
static int locate_in(const char *cg, size_t cg_len, const char *mi, size_t mi_len, int version,
                     char *dir, size_t cap, char *mount, size_t mount_cap)
{
    char path[SB_MOUNT_PATH_MAX];
    int found = version == 1 ? sb_parse_proc_cgroup_v1(cg, cg_len, "memory", path, sizeof path)
                             : sb_parse_proc_cgroup_v2(cg, cg_len, path, sizeof path);
    if (found != SB_PARSE_OK)
        return -1;
    sb_cgroup_query q = {version, "memory", path};
    sb_cgroup_location loc;
    if (sb_locate_cgroup(mi, mi_len, &q, &loc) != SB_PARSE_OK)
        return -1;
    snprintf(mount, mount_cap, "%s", loc.mount_point);
    return (size_t)snprintf(dir, cap, "%s", loc.dir) < cap ? 0 : -1;
}

int sb_group_locate(sb_group *g, const sb_probe_env *env, char *why, size_t why_cap)
{
    memset(g, 0, sizeof *g);
    sb_probe_env live = sb_probe_env_live();
    if (!env)
        env = &live;
    char *cg = NULL, *mi = NULL;
    size_t cg_len = 0, mi_len = 0;
    int truncated = 0, rc = -1;
    if (sb_cg_read_file(env->proc_self_cgroup, PROC_CGROUP_LIMIT, &cg, &cg_len, &truncated) != 0) {
        snprintf(why, why_cap, "cannot read %s: %s", env->proc_self_cgroup, strerror(errno));
        goto done;
    }
    if (sb_cg_read_file(env->mountinfo, MOUNTINFO_LIMIT, &mi, &mi_len, &truncated) != 0) {
        snprintf(why, why_cap, "cannot read %s: %s", env->mountinfo, strerror(errno));
        goto done;
    }
    /* On hybrid hosts /proc/self/cgroup can name a v1 memory path whose
     * hierarchy is not mounted here: the unified one is tried next (and
     * sb_group_create checks that it reports memory.peak). */
    char mount[SB_MOUNT_PATH_MAX];
    for (int version = 1; version <= 2 && rc != 0; version++)
        if (locate_in(cg, cg_len, mi, mi_len, version, g->own, sizeof g->own, mount,
                      sizeof mount) == 0) {
            g->version = version;
            rc = 0;
        }
    if (rc != 0)
        snprintf(why, why_cap, "no mounted memory cgroup for this process");
    else
        sb_group_choose(g, mount, geteuid(), getpid());
done:
    free(cg);
    free(mi);
    return rc;
}

static int join(char *out, size_t cap, const char *dir, const char *file)
{
    return (size_t)snprintf(out, cap, "%s/%s", dir, file) < cap ? 0 : -1;
}

static const char *peak_file(const sb_group *g)
{
    return g->version == 1 ? "memory.max_usage_in_bytes" : "memory.peak";
}

/* Why a v2 child has no memory.peak, in the words that fit: the kernel
 * lets only a cgroup WITHOUT processes enable controllers for its children
 * ("no internal processes"), and a process running in a job step or a
 * container's leaf is exactly such a process. */
static void explain_v2(const sb_group *g, const char *file, int e, char *why, size_t why_cap)
{
    char path[SB_GROUP_PATH_MAX + 64], text[1024], shown[64];
    size_t len = 0;
    int enabled = 0, busy = 0;
    sb_group_short_path(g->parent, shown, sizeof shown);
    if (join(path, sizeof path, g->parent, "cgroup.subtree_control") == 0 &&
        sb_cg_read_small(path, text, sizeof text, &len) == 0)
        enabled = strstr(text, "memory") != NULL;
    if (join(path, sizeof path, g->parent, "cgroup.procs") == 0 &&
        sb_cg_read_small(path, text, sizeof text, &len) == 0)
        busy = len > 0;
    if (!enabled && busy)
        snprintf(why, why_cap,
                 "%s is not readable: processes run in %s itself, and cgroup v2 lets only a "
                 "cgroup without processes enable the memory controller for its children",
                 file, shown);
    else if (!enabled)
        snprintf(why, why_cap,
                 "%s is not readable: the memory controller is not enabled in %s/"
                 "cgroup.subtree_control",
                 file, shown);
    else
        snprintf(why, why_cap, "%s is not readable (%s): memory.peak needs Linux 5.19", file,
                 strerror(e));
}

int sb_group_create(sb_group *g, const char *name, char *why, size_t why_cap)
{
    char dir[SB_GROUP_PATH_MAX], file[SB_GROUP_PATH_MAX + 64], shown[64];
    if (g->version && g->place == SB_GROUP_NONE) {
        snprintf(why, why_cap, "%s", g->found);
        return -1;
    }
    if (!g->version || join(dir, sizeof dir, g->parent, name) != 0) {
        snprintf(why, why_cap, g->version ? "cgroup path too long" : "no parent cgroup located");
        return -1;
    }
    if (mkdir(dir, 0755) != 0) {
        sb_group_short_path(g->parent, shown, sizeof shown);
        snprintf(why, why_cap, "cannot create a cgroup in %s: %s", shown, strerror(errno));
        return -1;
    }
    join(file, sizeof file, dir, peak_file(g));
    if (access(file, R_OK) != 0) {
        int e = errno;
        rmdir(dir);
        if (g->version == 2)
            explain_v2(g, peak_file(g), e, why, why_cap);
        else
            snprintf(why, why_cap, "%s is not readable (%s)", peak_file(g), strerror(e));
        return -1;
    }
    snprintf(g->dir, sizeof g->dir, "%s", dir);
    return 0;
}

int sb_group_write_file(const char *file, const char *text)
{
    int fd = open(file, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t n = strlen(text);
    ssize_t w = write(fd, text, n);
    int e = errno;
    close(fd);
    if (w != (ssize_t)n) {
        errno = w < 0 ? e : EIO;
        return -1;
    }
    return 0;
}

int sb_group_attach(const sb_group *g, pid_t pid)
{
    char file[SB_GROUP_PATH_MAX + 64], text[32];
    if (!g->dir[0] || join(file, sizeof file, g->dir, "cgroup.procs") != 0) {
        errno = EINVAL;
        return -1;
    }
    snprintf(text, sizeof text, "%ld", (long)pid);
    return sb_group_write_file(file, text);
}

/* Read a small control file of the group into buf. 0 or -1. */
static int read_control(const sb_group *g, const char *name, char *buf, size_t cap, size_t *len)
{
    char file[SB_GROUP_PATH_MAX + 64];
    if (!g->dir[0] || join(file, sizeof file, g->dir, name) != 0)
        return -1;
    return sb_cg_read_small(file, buf, cap, len);
}

static int64_t read_bytes(const sb_group *g, const char *name)
{
    char text[64];
    size_t len = 0;
    int64_t v = -1;
    if (read_control(g, name, text, sizeof text, &len) != 0 ||
        sb_parse_int64(text, len, &v) != SB_PARSE_OK || v < 0)
        return -1;
    return v;
}

int64_t sb_group_peak(const sb_group *g) { return read_bytes(g, peak_file(g)); }

int64_t sb_group_usage(const sb_group *g)
{
    return read_bytes(g, g->version == 1 ? "memory.usage_in_bytes" : "memory.current");
}

int64_t sb_group_oom_kills(const sb_group *g)
{
    char text[1024];
    size_t len = 0;
    int64_t v = -1;
    const char *file = g->version == 1 ? "memory.oom_control" : "memory.events";
    if (read_control(g, file, text, sizeof text, &len) != 0 ||
        sb_parse_stat_key(text, len, "oom_kill", &v) != SB_PARSE_OK)
        return -1;
    return v;
}

int64_t sb_group_limit(const sb_group *g)
{
    char text[64];
    size_t len = 0;
    int64_t v = -1;
    const char *file = g->version == 1 ? "memory.limit_in_bytes" : "memory.max";
    if (read_control(g, file, text, sizeof text, &len) != 0 ||
        sb_parse_memory_limit(text, len, &v) != SB_PARSE_OK)
        return -1;
    return v;
}

/* Pids a pass could not move or just killed: waited for, by pidfd. */
#define PASS_PIDS 256

typedef struct pid_pass {
    const char *target; /* the parent's cgroup.procs (evacuate), or NULL (kill) */
    int done;           /* moved, or killed */
    pid_t left[PASS_PIDS];
    size_t n_left;
} pid_pass;

static void keep_left(pid_pass *p, pid_t pid)
{
    if (p->n_left < PASS_PIDS)
        p->left[p->n_left++] = pid;
}

/* evacuate's step: write one listed pid into the parent's cgroup.procs; one
 * that cannot move (exiting) is waited for. */
static int move_one(pid_t pid, void *arg)
{
    pid_pass *m = arg;
    char line[32];
    snprintf(line, sizeof line, "%ld", (long)pid);
    if (sb_group_write_file(m->target, line) == 0)
        m->done++;
    else
        keep_left(m, pid);
    return 0;
}

/* Move every process still in the group to the parent: how many moved. */
static int evacuate(const sb_group *g, pid_pass *m)
{
    char target[SB_MOUNT_PATH_MAX + 64];
    if (join(target, sizeof target, g->parent, "cgroup.procs") != 0)
        return 0;
    *m = (pid_pass){target, 0, {0}, 0};
    sb_group_procs(g, move_one, m);
    m->target = NULL;
    return m->done;
}

/* A few passes at most, none of them a sleep: a cgroup is busy while a
 * process in it is still exiting (its pidfd says when it is gone), or when
 * one forked as we moved the others (the next pass moves it). */
#define REMOVE_PASSES 4

int sb_group_remove(sb_group *g, int *left_behind)
{
    if (left_behind)
        *left_behind = 0;
    if (!g->dir[0])
        return 0;
    int rc = rmdir(g->dir);
    for (int pass = 0; rc != 0 && errno == EBUSY && pass < REMOVE_PASSES; pass++) {
        pid_pass m;
        int moved = evacuate(g, &m);
        if (left_behind && pass == 0)
            *left_behind = moved;
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
    if (join(file, sizeof file, dir, "cgroup.procs") != 0) {
        errno = ENAMETOOLONG;
        return -1;
    }
    FILE *f = fopen(file, "re");
    if (!f)
        return -1;
    long pid;
    int n = 0;
    /* The kernel writes one decimal pid per line; anything else ends it. */
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
    char file[SB_GROUP_PATH_MAX + 64], text[32];
    if (!g->dir[0] || bytes <= 0) {
        errno = EINVAL;
        return -1;
    }
    snprintf(text, sizeof text, "%lld", (long long)bytes);
    if (join(file, sizeof file, g->dir, g->version == 1 ? "memory.limit_in_bytes" : "memory.max") !=
            0 ||
        sb_group_write_file(file, text) != 0)
        return -1;
    /* v2: the OOM killer ends the whole group at once, never a part of
     * it (Linux >= 4.19); v1 has no such switch (the caller kills the rest). */
    if (g->version == 2 && join(file, sizeof file, g->dir, "memory.oom.group") == 0 &&
        access(file, W_OK) == 0)
        sb_group_write_file(file, "1");
    return 0;
}

/* sb_group_kill_all's fallback: SIGKILL one listed process, count it. */
static int kill_one(pid_t pid, void *arg)
{
    pid_pass *p = arg;
    if (kill(pid, SIGKILL) == 0) {
        p->done++;
        keep_left(p, pid);
    }
    return 0;
}

int sb_group_kill_all(const sb_group *g)
{
    char file[SB_GROUP_PATH_MAX + 64];
    if (!g->dir[0])
        return 0;
    /* v2 cgroup.kill (Linux >= 5.14) kills the tree without a pid race. */
    if (g->version == 2 && join(file, sizeof file, g->dir, "cgroup.kill") == 0 &&
        sb_group_write_file(file, "1") == 0)
        return 0;
    int killed = 0;
    /* A process may fork while we read: go round until the group is empty,
     * each round once the last one's killed are gone (their pidfds). */
    for (int round = 0; round < 20; round++) {
        pid_pass p = {NULL, 0, {0}, 0};
        if (sb_group_procs(g, kill_one, &p) < 0)
            return -1;
        killed += p.done;
        if (!p.done)
            break;
        sb_wait_exited(p.left, p.n_left, sb_now() + 0.1);
    }
    return killed;
}
