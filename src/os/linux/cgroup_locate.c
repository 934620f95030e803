/* Which cgroup this process is in, per controller, and walking up its
 * ancestors to the mount point (levels above it are not visible to us). */
#include <stdlib.h>
#include <string.h>

#include "cgroup.h"

/* Sizes beyond which the texts are not plausible; mountinfo of a busy
 * Kubernetes node runs to a few hundred KiB. */
#define PROC_CGROUP_LIMIT (64u * 1024u)
#define MOUNTINFO_LIMIT   (4u * 1024u * 1024u)

sb_probe_env sb_probe_env_live(void)
{
    sb_probe_env env = {
        "/proc/self/cgroup", "/proc/self/mountinfo", "/proc/meminfo", "", 0, NULL, 0, NULL, 0};
    return env;
}

void sb_probe_env_load(sb_probe_env *env)
{
    char *text = NULL;
    size_t len = 0;
    int truncated = 0;
    if (!env->cgroup_text &&
        sb_cg_read_file(env->proc_self_cgroup, PROC_CGROUP_LIMIT, &text, &len, &truncated) == 0) {
        env->cgroup_text = text;
        env->cgroup_len = len;
    }
    text = NULL;
    if (!env->mountinfo_text &&
        sb_cg_read_file(env->mountinfo, MOUNTINFO_LIMIT, &text, &len, &truncated) == 0) {
        env->mountinfo_text = text;
        env->mountinfo_len = len;
    }
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

int sb_cgroup_find(const sb_probe_env *env, const char *controller, sb_cgroup_dir *out)
{
    memset(out, 0, sizeof *out);
    out->visible = 1;
    char *cg_own = NULL, *mi_own = NULL;
    const char *cg = env->cgroup_text, *mi = env->mountinfo_text;
    size_t cg_len = env->cgroup_len, mi_len = env->mountinfo_len;
    int truncated = 0;
    int rc = -1;
    if (!cg) {
        if (sb_cg_read_file(env->proc_self_cgroup, PROC_CGROUP_LIMIT, &cg_own, &cg_len,
                            &truncated) != 0)
            goto done;
        cg = cg_own;
    }
    if (!mi) {
        if (sb_cg_read_file(env->mountinfo, MOUNTINFO_LIMIT, &mi_own, &mi_len, &truncated) != 0)
            goto done;
        mi = mi_own;
    }
    char path[SB_MOUNT_PATH_MAX];
    /* A controller belongs to exactly one hierarchy: a v1 line naming it
     * wins; otherwise it can only be in the unified (v2) hierarchy. */
    for (int version = 1; version <= 2; version++) {
        int found = version == 1
                        ? sb_parse_proc_cgroup_v1(cg, cg_len, controller, path, sizeof path)
                        : sb_parse_proc_cgroup_v2(cg, cg_len, path, sizeof path);
        if (found != SB_PARSE_OK)
            continue;
        sb_cgroup_query q = {version, controller, path};
        int where = sb_locate_cgroup(mi, mi_len, &q, &out->loc);
        if (where == SB_PARSE_NOT_VISIBLE)
            out->visible = 0;
        if (where != SB_PARSE_OK)
            break; /* the controller is in this hierarchy or nowhere */
        if (add_prefix(env->prefix, out->loc.dir, sizeof out->loc.dir) != 0 ||
            add_prefix(env->prefix, out->loc.mount_point, sizeof out->loc.mount_point) != 0)
            break;
        out->version = version;
        out->visible = 1;
        rc = 0;
        break;
    }
done:
    free(cg_own);
    free(mi_own);
    return rc;
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
    for (;;) {
        if (visit(dir, ctx))
            return;
        if (len <= mlen)
            return; /* the mount point: nothing above it is visible */
        char *slash = strrchr(dir, '/');
        if (slash == NULL)
            return;
        len = (size_t)(slash - dir);
        if (len < mlen)
            len = mlen;
        if (len == 0) { /* mounted at "/" */
            dir[0] = '/';
            len = 1;
        }
        dir[len] = '\0';
    }
}
