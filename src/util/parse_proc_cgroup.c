/* /proc/self/cgroup: one "HIERARCHY-ID:CONTROLLERS:PATH" line per
 * hierarchy. v1 lines name their controllers; the v2 line is "0::PATH".
 * PATH may itself contain ':' so only the first two colons split. */
#include <string.h>

#include "util.h"

typedef struct proc_cgroup_line {
    const char *id, *controllers, *path;
    size_t id_len, controllers_len, path_len;
} proc_cgroup_line;

static int split_line(const char *line, size_t n, proc_cgroup_line *out)
{
    const char *c1 = memchr(line, ':', n);
    if (c1 == NULL)
        return 0;
    size_t rest = n - (size_t)(c1 + 1 - line);
    const char *c2 = memchr(c1 + 1, ':', rest);
    if (c2 == NULL)
        return 0;
    out->id = line;
    out->id_len = (size_t)(c1 - line);
    out->controllers = c1 + 1;
    out->controllers_len = (size_t)(c2 - c1 - 1);
    out->path = c2 + 1;
    out->path_len = n - (size_t)(c2 + 1 - line);
    if (out->id_len == 0)
        return 0;
    for (size_t i = 0; i < out->id_len; i++)
        if (line[i] < '0' || line[i] > '9')
            return 0;
    return 1;
}

static int copy_path(const proc_cgroup_line *l, char *path, size_t cap)
{
    if (l->path_len == 0 || l->path[0] != '/' || l->path_len >= cap ||
        memchr(l->path, '\0', l->path_len) != NULL)
        return SB_PARSE_BAD;
    memcpy(path, l->path, l->path_len);
    path[l->path_len] = '\0';
    return SB_PARSE_OK;
}

/* The path of the line of v1's controller, or of v2's "0::" line (NULL). */
static int find_path(const char *text, size_t len, const char *controller, char *path, size_t cap)
{
    size_t pos = 0, n;
    const char *line;
    proc_cgroup_line l;
    while (sb_next_line(text, len, &pos, &line, &n)) {
        if (!split_line(line, n, &l))
            continue;
        if (controller
                ? l.controllers_len && sb_list_has(l.controllers, l.controllers_len, controller)
                : l.id_len == 1 && l.id[0] == '0' && l.controllers_len == 0)
            return copy_path(&l, path, cap);
    }
    return SB_PARSE_ABSENT;
}

int sb_parse_proc_cgroup_v1(const char *text, size_t len, const char *controller, char *path,
                            size_t cap)
{
    if (text == NULL || controller == NULL || path == NULL || cap == 0 || controller[0] == '\0')
        return SB_PARSE_BAD;
    return find_path(text, len, controller, path, cap);
}

int sb_parse_proc_cgroup_v2(const char *text, size_t len, char *path, size_t cap)
{
    if (text == NULL || path == NULL || cap == 0)
        return SB_PARSE_BAD;
    return find_path(text, len, NULL, path, cap);
}
