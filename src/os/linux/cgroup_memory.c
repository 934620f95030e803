/* Memory headroom of this process's cgroup and every visible ancestor:
 * for each limit, headroom = limit - (usage - inactive file cache), since
 * the kernel reclaims inactive page cache before it refuses memory. The
 * tightest level binds; ties go to the innermost level. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup.h"

#define STAT_LIMIT (64u * 1024u)

typedef struct limit_file {
    const char *limit; /* the limit */
    const char *usage; /* what counts against it */
} limit_file;

/* v2: memory.high throttles hard before memory.max kills; both bound. */
static const limit_file V2_LIMITS[] = {{"memory.max", "memory.current"},
                                       {"memory.high", "memory.current"}};
/* v1: memsw counts memory plus swap, so its headroom is also a bound. */
static const limit_file V1_LIMITS[] = {
    {"memory.limit_in_bytes", "memory.usage_in_bytes"},
    {"memory.memsw.limit_in_bytes", "memory.memsw.usage_in_bytes"}};

typedef struct memory_walk {
    int version;
    sb_cgroup_memory *best;
} memory_walk;

static int read_value(const char *dir, const char *file, int is_limit, int64_t *value)
{
    char path[SB_MOUNT_PATH_MAX + 64];
    char buf[128];
    size_t len;
    if (snprintf(path, sizeof path, "%s/%s", dir, file) >= (int)sizeof path ||
        sb_cg_read_small(path, buf, sizeof buf, &len) != 0)
        return -1;
    int rc = is_limit ? sb_parse_memory_limit(buf, len, value) : sb_parse_int64(buf, len, value);
    return rc == SB_PARSE_OK ? 0 : -1;
}

/* Inactive file cache of this level (0 when unknown: no reclaim credit). */
static int64_t inactive_file(const char *dir, int version)
{
    char path[SB_MOUNT_PATH_MAX + 64];
    if (snprintf(path, sizeof path, "%s/memory.stat", dir) >= (int)sizeof path)
        return 0;
    char *text = NULL;
    size_t len = 0;
    int truncated = 0;
    if (sb_cg_read_file(path, STAT_LIMIT, &text, &len, &truncated) != 0)
        return 0;
    int64_t v = 0;
    /* v1's "total_" figures include the children, as its usage does. */
    if (version == 1 && sb_parse_stat_key(text, len, "total_inactive_file", &v) == SB_PARSE_OK) {
        free(text);
        return v < 0 ? 0 : v;
    }
    if (sb_parse_stat_key(text, len, "inactive_file", &v) != SB_PARSE_OK)
        v = 0;
    free(text);
    return v < 0 ? 0 : v;
}

static int visit_level(const char *dir, void *ctx)
{
    memory_walk *w = ctx;
    const limit_file *files = w->version == 2 ? V2_LIMITS : V1_LIMITS;
    size_t n = w->version == 2 ? sizeof V2_LIMITS / sizeof V2_LIMITS[0]
                               : sizeof V1_LIMITS / sizeof V1_LIMITS[0];
    int64_t inactive = -1; /* read once per level, only if a limit exists */
    for (size_t i = 0; i < n; i++) {
        int64_t limit;
        if (read_value(dir, files[i].limit, 1, &limit) != 0 || limit == SB_UNLIMITED)
            continue;
        if (inactive < 0)
            inactive = inactive_file(dir, w->version);
        int64_t usage;
        if (read_value(dir, files[i].usage, 0, &usage) != 0 || usage < 0)
            usage = 0; /* unreadable usage: the limit itself is the best bound we have */
        int64_t used = usage > inactive ? usage - inactive : 0;
        int64_t headroom = limit > used ? limit - used : 0;
        sb_cgroup_memory *b = w->best;
        if (b->version == 0 || headroom < b->headroom_bytes) {
            b->version = w->version;
            b->headroom_bytes = headroom;
            b->limit_bytes = limit;
            snprintf(b->dir, sizeof b->dir, "%s", dir);
            snprintf(b->file, sizeof b->file, "%s", files[i].limit);
        }
    }
    return 0;
}

void sb_cgroup_memory_bound(const sb_probe_env *env, sb_cgroup_memory *out)
{
    memset(out, 0, sizeof *out);
    out->headroom_bytes = -1;
    out->limit_bytes = -1;
    sb_cgroup_dir where;
    if (sb_cgroup_find(env, "memory", &where) != 0)
        return;
    memory_walk w = {where.version, out};
    sb_cgroup_walk_up(&where.loc, visit_level, &w);
}
