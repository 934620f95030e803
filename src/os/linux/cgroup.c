/* The Linux probe: MemAvailable, affinity, and the memory and CPU bounds
 * of this process's cgroup and every visible ancestor. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "os.h"

/* A busy Kubernetes node's mountinfo runs to a few hundred KiB. */
#define PROC_CGROUP_LIMIT (64u * 1024u)
#define MOUNTINFO_LIMIT   (4u * 1024u * 1024u)
#define SMALL_LIMIT       (64u * 1024u) /* memory.stat, meminfo */

int sb_cg_read_small(const char *path, char *buf, size_t cap, size_t *len)
{
    if (path == NULL || buf == NULL || cap < 2)
        return -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    long long got = sb_read_all(fd, buf, cap);
    int saved = errno;
    close(fd);
    if (got < 0 || (size_t)got >= cap) { /* a full buffer may be cut short */
        errno = got < 0 ? saved : EFBIG;
        return -1;
    }
    buf[got] = '\0';
    if (len)
        *len = (size_t)got;
    return 0;
}

int sb_cg_read_in(const char *dir, const char *file, char *buf, size_t cap, size_t *len)
{
    char path[SB_GROUP_PATH_MAX + 320];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, file) >= sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return sb_cg_read_small(path, buf, cap, len);
}

int sb_why(char *why, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, cap, fmt, ap);
    va_end(ap);
    return -1;
}

int sb_cg_write_in(const char *dir, const char *file, const char *text)
{
    char path[SB_GROUP_PATH_MAX + 320];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, file) >= sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd = open(path, O_WRONLY | O_CLOEXEC);
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

int sb_cg_read_file(const char *path, size_t limit, char **text, size_t *len, int *truncated)
{
    if (path == NULL || text == NULL || len == NULL || truncated == NULL || limit == 0) {
        errno = EINVAL;
        return -1;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = sb_read_fd(fd, limit, text, len, truncated);
    int saved = errno;
    close(fd);
    errno = saved;
    return rc;
}

sb_probe_env sb_probe_env_live(void)
{
    sb_probe_env env = {
        "/proc/self/cgroup", "/proc/self/mountinfo", "/proc/meminfo", "", 0, NULL, 0, NULL, 0};
    return env;
}

/* Unless already there. */
static int load_text(const char *path, size_t limit, const char **text, size_t *len)
{
    char *t = NULL;
    int truncated = 0;
    if (*text)
        return 0;
    if (sb_cg_read_file(path, limit, &t, len, &truncated) != 0)
        return -1;
    *text = t;
    return 0;
}

int sb_cgroup_in(const sb_probe_env *env, int version, const char *controller,
                 sb_cgroup_location *loc)
{
    char path[SB_MOUNT_PATH_MAX];
    const char *cg = env->cgroup_text;
    size_t n = env->cgroup_len;
    int found = version == 1 ? sb_parse_proc_cgroup_v1(cg, n, controller, path, sizeof path)
                             : sb_parse_proc_cgroup_v2(cg, n, path, sizeof path);
    if (found != SB_PARSE_OK)
        return -2;
    sb_cgroup_query q = {version, controller, path};
    return sb_locate_cgroup(env->mountinfo_text, env->mountinfo_len, &q, loc);
}

static int add_prefix(const char *prefix, char *path, size_t cap)
{
    size_t plen = strlen(prefix), len = strlen(path);
    if (plen == 0)
        return 0;
    if (plen + len + 1 > cap)
        return -1;
    memmove(path + plen, path, len + 1);
    memcpy(path, prefix, plen);
    return 0;
}

/* The hierarchy's version (0 none), env's prefix applied. A controller is
 * in one hierarchy: a v1 line naming it wins, else v2. */
static int find(const sb_probe_env *env, const char *controller, sb_cgroup_location *loc)
{
    if (!env->cgroup_text || !env->mountinfo_text)
        return 0;
    for (int version = 1; version <= 2; version++) {
        int where = sb_cgroup_in(env, version, controller, loc);
        if (where == -2)
            continue;
        return where == SB_PARSE_OK && add_prefix(env->prefix, loc->dir, sizeof loc->dir) == 0 &&
                       add_prefix(env->prefix, loc->mount_point, sizeof loc->mount_point) == 0
                   ? version
                   : 0; /* the controller is in this hierarchy or nowhere */
    }
    return 0;
}

void sb_cgroup_walk_up(const sb_cgroup_location *loc, int (*visit)(const char *dir, void *ctx),
                       void *ctx)
{
    char dir[SB_MOUNT_PATH_MAX];
    size_t mlen = strlen(loc->mount_point);
    size_t len = strlen(loc->dir);
    if (len >= sizeof dir || len < mlen || strncmp(loc->dir, loc->mount_point, mlen) != 0)
        return;
    memcpy(dir, loc->dir, len + 1);
    while (!visit(dir, ctx) && sb_cgroup_up(dir, loc->mount_point))
        ;
}

int sb_cgroup_up(char *dir, const char *mount)
{
    size_t mlen = strlen(mount);
    char *slash = strrchr(dir, '/');
    if (strlen(dir) <= mlen || !slash)
        return 0; /* the mount point: nothing above it is visible */
    size_t len = (size_t)(slash - dir);
    dir[len < mlen ? mlen : len ? len : 1] = '\0';
    return 1;
}

typedef struct walk {
    int version;
    sb_probe *out;
} walk;

static int read_value(const char *dir, const char *file, int is_limit, int64_t *value)
{
    char buf[128];
    size_t len;
    if (sb_cg_read_in(dir, file, buf, sizeof buf, &len) != 0)
        return -1;
    int rc = is_limit ? sb_parse_memory_limit(buf, len, value) : sb_parse_int64(buf, len, value);
    return rc == SB_PARSE_OK ? 0 : -1;
}

/* 0 when unknown: no reclaim credit. */
static int64_t inactive_file(const char *dir, int version)
{
    char path[SB_MOUNT_PATH_MAX + 64];
    if (snprintf(path, sizeof path, "%s/memory.stat", dir) >= (int)sizeof path)
        return 0;
    char *text = NULL;
    size_t len = 0;
    int truncated = 0;
    if (sb_cg_read_file(path, SMALL_LIMIT, &text, &len, &truncated) != 0)
        return 0;
    int64_t v = 0;
    /* v1's "total_" figures include the children, as its usage does. */
    if ((version != 1 || sb_parse_stat_key(text, len, "total_inactive_file", &v) != SB_PARSE_OK) &&
        sb_parse_stat_key(text, len, "inactive_file", &v) != SB_PARSE_OK)
        v = 0;
    free(text);
    return v < 0 ? 0 : v;
}

/* headroom = limit - (usage - inactive file cache): the kernel reclaims
 * that first. The tightest level binds, ties the innermost; memory.high
 * (throttles hard) and memsw (memory plus swap) bound too. */
static int visit_memory(const char *dir, void *ctx)
{
    static const char *const files[2][2][2] = {
        {{"memory.limit_in_bytes", "memory.usage_in_bytes"},
         {"memory.memsw.limit_in_bytes", "memory.memsw.usage_in_bytes"}},
        {{"memory.max", "memory.current"}, {"memory.high", "memory.current"}}};
    walk *w = ctx;
    sb_probe *b = w->out;
    int64_t inactive = -1; /* read once per level, only if a limit exists */
    for (int i = 0; i < 2; i++) {
        const char *const *f = files[w->version - 1][i];
        int64_t limit, usage;
        if (read_value(dir, f[0], 1, &limit) != 0 || limit == SB_UNLIMITED)
            continue;
        if (inactive < 0)
            inactive = inactive_file(dir, w->version);
        if (read_value(dir, f[1], 0, &usage) != 0 || usage < 0)
            usage = 0; /* unreadable usage: the limit itself is the best bound we have */
        int64_t used = usage > inactive ? usage - inactive : 0;
        int64_t headroom = limit > used ? limit - used : 0;
        if (b->memory_source == SPACRBENCH_SOURCE_UNKNOWN || headroom < b->memory_headroom_bytes) {
            b->memory_source =
                w->version == 1 ? SPACRBENCH_SOURCE_CGROUP_V1 : SPACRBENCH_SOURCE_CGROUP_V2;
            b->memory_headroom_bytes = headroom;
            b->memory_limit_bytes = limit;
            snprintf(b->memory_dir, sizeof b->memory_dir, "%s", dir);
        }
    }
    return 0;
}

/* A quota anywhere above throttles us too. */
static int visit_quota(const char *dir, void *ctx)
{
    walk *w = ctx;
    char buf[128];
    size_t len;
    int64_t quota = -1, period = -1;
    if (w->version == 2) {
        if (sb_cg_read_in(dir, "cpu.max", buf, sizeof buf, &len) != 0 ||
            sb_parse_cpu_max(buf, len, &quota, &period) != SB_PARSE_OK)
            return 0;
    } else if (read_value(dir, "cpu.cfs_quota_us", 0, &quota) != 0 ||
               read_value(dir, "cpu.cfs_period_us", 0, &period) != 0)
        return 0;
    if (quota <= 0 || period <= 0) /* v1 writes -1 for "no quota" */
        return 0;
    double q = (double)quota / (double)period;
    if (w->out->quota_source == SPACRBENCH_SOURCE_UNKNOWN || q < w->out->quota_cores) {
        w->out->quota_source =
            w->version == 1 ? SPACRBENCH_SOURCE_CGROUP_V1 : SPACRBENCH_SOURCE_CGROUP_V2;
        w->out->quota_cores = q;
        snprintf(w->out->quota_dir, sizeof w->out->quota_dir, "%s", dir);
    }
    return 0;
}

/* The nearest level that states its CPUs decides (the effective list folds
 * in every ancestor); a level without one defers to its parent. */
static int visit_cpuset(const char *dir, void *ctx)
{
    walk *w = ctx;
    static const char *const files[] = {"cpuset.effective_cpus", "cpuset.cpus",
                                        "cpuset.cpus.effective"};
    for (size_t i = w->version == 2 ? 2 : 0; i < (w->version == 2 ? 3u : 2u); i++) {
        char buf[4096];
        size_t len;
        int64_t count;
        if (sb_cg_read_in(dir, files[i], buf, sizeof buf, &len) != 0 ||
            sb_parse_cpuset(buf, len, &count) != SB_PARSE_OK || count == 0)
            continue;
        w->out->cpuset_source = SPACRBENCH_SOURCE_CPUSET;
        w->out->cpuset_cores = count;
        snprintf(w->out->cpuset_dir, sizeof w->out->cpuset_dir, "%s", dir);
        return 1;
    }
    return 0;
}

/* Hosts with more than CPU_SETSIZE (1024) CPUs exist. */
static int64_t affinity_cores(void)
{
    for (int ncpu = 1024; ncpu <= 1 << 20; ncpu *= 2) {
        cpu_set_t *set = CPU_ALLOC((size_t)ncpu);
        if (set == NULL)
            break;
        size_t size = CPU_ALLOC_SIZE((size_t)ncpu);
        CPU_ZERO_S(size, set);
        if (sched_getaffinity(0, size, set) == 0) {
            int count = CPU_COUNT_S(size, set);
            CPU_FREE(set);
            return count > 0 ? count : -1;
        }
        int err = errno;
        CPU_FREE(set);
        if (err != EINVAL)
            break;
    }
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? online : -1;
}

void sb_probe_machine(const struct sb_probe_env *env_in, sb_probe *out)
{
    sb_probe_env env = env_in != NULL ? *env_in : sb_probe_env_live();
    load_text(env.proc_self_cgroup, PROC_CGROUP_LIMIT, &env.cgroup_text, &env.cgroup_len);
    load_text(env.mountinfo, MOUNTINFO_LIMIT, &env.mountinfo_text, &env.mountinfo_len);
    memset(out, 0, sizeof *out);
    out->memory_headroom_bytes = out->memory_limit_bytes = out->cpuset_cores = -1;
    out->quota_cores = -1;
    char *text = NULL;
    size_t len = 0;
    int truncated = 0;
    out->host_available_bytes = -1; /* kernels before 3.14 lack MemAvailable */
    if (sb_cg_read_file(env.meminfo, SMALL_LIMIT, &text, &len, &truncated) == 0 &&
        sb_parse_meminfo(text, len, "MemAvailable", &out->host_available_bytes) != SB_PARSE_OK)
        out->host_available_bytes = -1;
    free(text);
    out->affinity_cores = env.affinity_cores > 0 ? env.affinity_cores : affinity_cores();
    static const struct {
        const char *controller;
        int (*visit)(const char *dir, void *ctx);
    } walks[] = {{"memory", visit_memory}, {"cpu", visit_quota}, {"cpuset", visit_cpuset}};
    for (size_t i = 0; i < sizeof walks / sizeof walks[0]; i++) {
        sb_cgroup_location loc;
        walk w = {find(&env, walks[i].controller, &loc), out};
        if (w.version)
            sb_cgroup_walk_up(&loc, walks[i].visit, &w);
    }
    if (!env_in || !env_in->cgroup_text)
        free((char *)env.cgroup_text);
    if (!env_in || !env_in->mountinfo_text)
        free((char *)env.mountinfo_text);
}
