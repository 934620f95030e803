/* CPU bounds from cgroups: the tightest CFS quota over this process's cpu
 * cgroup and its ancestors (a quota anywhere above throttles us too), and
 * the effective cpuset. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup.h"

typedef struct quota_walk {
    int version;
    sb_cgroup_cpu *out;
} quota_walk;

static int read_text(const char *dir, const char *file, char *buf, size_t cap, size_t *len)
{
    char path[SB_MOUNT_PATH_MAX + 64];
    if (snprintf(path, sizeof path, "%s/%s", dir, file) >= (int)sizeof path)
        return -1;
    return sb_cg_read_small(path, buf, cap, len);
}

/* quota/period of one level, or -1 when it has none. */
static double level_quota(const char *dir, int version)
{
    char buf[128];
    size_t len;
    int64_t quota, period;
    if (version == 2) {
        if (read_text(dir, "cpu.max", buf, sizeof buf, &len) != 0 ||
            sb_parse_cpu_max(buf, len, &quota, &period) != SB_PARSE_OK)
            return -1;
    } else {
        if (read_text(dir, "cpu.cfs_quota_us", buf, sizeof buf, &len) != 0 ||
            sb_parse_int64(buf, len, &quota) != SB_PARSE_OK)
            return -1;
        if (read_text(dir, "cpu.cfs_period_us", buf, sizeof buf, &len) != 0 ||
            sb_parse_int64(buf, len, &period) != SB_PARSE_OK)
            return -1;
    }
    if (quota <= 0 || period <= 0) /* v1 writes -1 for "no quota" */
        return -1;
    return (double)quota / (double)period;
}

static int visit_quota(const char *dir, void *ctx)
{
    quota_walk *w = ctx;
    double q = level_quota(dir, w->version);
    if (q > 0 && (w->out->quota_version == 0 || q < w->out->quota_cores)) {
        w->out->quota_version = w->version;
        w->out->quota_cores = q;
        snprintf(w->out->quota_dir, sizeof w->out->quota_dir, "%s", dir);
    }
    return 0;
}

typedef struct cpuset_walk {
    int version;
    sb_cgroup_cpu *out;
} cpuset_walk;

/* The nearest level that states its CPUs decides: the effective list
 * already folds in every ancestor. v1 kernels without effective_cpus, and
 * v2 levels without the cpuset controller, defer to their parent. */
static int visit_cpuset(const char *dir, void *ctx)
{
    cpuset_walk *w = ctx;
    static const char *const V1_FILES[] = {"cpuset.effective_cpus", "cpuset.cpus"};
    static const char *const V2_FILES[] = {"cpuset.cpus.effective"};
    const char *const *files = w->version == 2 ? V2_FILES : V1_FILES;
    size_t n = w->version == 2 ? 1 : 2;
    for (size_t i = 0; i < n; i++) {
        char buf[4096];
        size_t len;
        int64_t count;
        if (read_text(dir, files[i], buf, sizeof buf, &len) != 0 ||
            sb_parse_cpuset(buf, len, &count) != SB_PARSE_OK || count == 0)
            continue;
        w->out->cpuset_version = w->version;
        w->out->cpuset_cores = count;
        snprintf(w->out->cpuset_dir, sizeof w->out->cpuset_dir, "%s", dir);
        return 1;
    }
    return 0;
}

void sb_cgroup_cpu_bound(const sb_probe_env *env, sb_cgroup_cpu *out)
{
    memset(out, 0, sizeof *out);
    out->quota_cores = -1;
    out->cpuset_cores = -1;
    sb_cgroup_dir where;
    if (sb_cgroup_find(env, "cpu", &where) == 0) {
        quota_walk w = {where.version, out};
        sb_cgroup_walk_up(&where.loc, visit_quota, &w);
    }
    if (sb_cgroup_find(env, "cpuset", &where) == 0) {
        cpuset_walk w = {where.version, out};
        sb_cgroup_walk_up(&where.loc, visit_cpuset, &w);
    }
}
