/* /proc/self/mountinfo, and mapping a cgroup path to its directory.
 *
 * A line reads (proc(5)):
 *   ID PARENT MAJ:MIN ROOT POINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER_OPTIONS
 * ROOT is the part of the filesystem seen at POINT; for a cgroup mount it is
 * the cgroup that appears as POINT, so a cgroup PATH lives at
 * POINT + (PATH minus ROOT), and only when ROOT contains PATH. */
#include <string.h>

#include "util.h"

static int octal_digit(char c) { return c >= '0' && c <= '7'; }

int sb_unescape_mount_path(const char *src, size_t len, char *dst, size_t cap)
{
    if (src == NULL || dst == NULL || cap == 0)
        return SB_PARSE_BAD;
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        char c = src[i];
        if (c == '\0')
            return SB_PARSE_BAD;
        if (c == '\\' && i + 3 < len && octal_digit(src[i + 1]) && octal_digit(src[i + 2]) &&
            octal_digit(src[i + 3])) {
            int v = (src[i + 1] - '0') * 64 + (src[i + 2] - '0') * 8 + (src[i + 3] - '0');
            /* The kernel escapes exactly these; leave anything else alone. */
            if (v == 040 || v == 011 || v == 012 || v == 0134) {
                c = (char)v;
                i += 3;
            }
        }
        if (o + 1 >= cap)
            return SB_PARSE_BAD;
        dst[o++] = c;
    }
    dst[o] = '\0';
    return SB_PARSE_OK;
}

static int copy_word(const char *src, size_t len, char *dst, size_t cap)
{
    if (len >= cap || memchr(src, '\0', len) != NULL)
        return SB_PARSE_BAD;
    memcpy(dst, src, len);
    dst[len] = '\0';
    return SB_PARSE_OK;
}

#define MOUNTINFO_FIELDS_BEFORE_SEPARATOR 6

int sb_parse_mountinfo_line(const char *line, size_t len, sb_mount *out)
{
    if (line == NULL || out == NULL)
        return SB_PARSE_BAD;
    /* The words kept: ROOT, MOUNT POINT, FSTYPE, SUPER_OPTIONS. */
    const char *w_at[4] = {NULL, NULL, NULL, NULL};
    size_t l_at[4] = {0, 0, 0, 0};
    int field = 0;  /* index of the field before the separator */
    int after = -1; /* index after the "-" separator, -1 before it */
    size_t i = 0;
    while (i <= len) {
        const char *sp = i < len ? memchr(line + i, ' ', len - i) : NULL;
        size_t end = sp ? (size_t)(sp - line) : len;
        const char *w = line + i;
        size_t wlen = end - i;
        int keep = after < 0 ? (field == 3 || field == 4 ? field - 3 : -1)
                             : (after == 1 || after == 3 ? 2 + after / 2 : -1);
        if (keep >= 0) {
            w_at[keep] = w;
            l_at[keep] = wlen;
        } else if (after < 0 && field >= MOUNTINFO_FIELDS_BEFORE_SEPARATOR && wlen == 1 &&
                   w[0] == '-')
            after = 0; /* the next field is FSTYPE */
        if (after < 0)
            field++;
        else
            after++;
        i = end + 1;
    }
    /* Need the separator, FSTYPE and SOURCE; SUPER_OPTIONS may be absent. */
    if (w_at[0] == NULL || w_at[1] == NULL || after < 3 || l_at[2] == 0 || l_at[0] == 0 ||
        l_at[1] == 0 || w_at[1][0] != '/')
        return SB_PARSE_BAD;
    if (sb_unescape_mount_path(w_at[0], l_at[0], out->root, sizeof out->root) != SB_PARSE_OK ||
        sb_unescape_mount_path(w_at[1], l_at[1], out->point, sizeof out->point) != SB_PARSE_OK ||
        copy_word(w_at[2], l_at[2], out->fstype, sizeof out->fstype) != SB_PARSE_OK ||
        copy_word(w_at[3] ? w_at[3] : "", l_at[3], out->super_opts, sizeof out->super_opts) !=
            SB_PARSE_OK)
        return SB_PARSE_BAD;
    return SB_PARSE_OK;
}

/* Does the path climb with a ".." component? Such a path (a process
 * outside our cgroup namespace) cannot be mapped to a directory. */
static int climbs(const char *path)
{
    for (const char *p = path; (p = strstr(p, "..")) != NULL; p += 2) {
        int starts = p == path || p[-1] == '/';
        int ends = p[2] == '\0' || p[2] == '/';
        if (starts && ends)
            return 1;
    }
    return 0;
}

/* The part of path below root ("" when equal); NULL if root does not
 * contain path. */
static const char *below_root(const char *path, const char *root)
{
    size_t rlen = strlen(root);
    while (rlen > 0 && root[rlen - 1] == '/')
        rlen--; /* "/" and "/a/" compare as "" and "/a" */
    if (strncmp(path, root, rlen) != 0)
        return NULL;
    if (path[rlen] == '\0' || path[rlen] == '/')
        return path + rlen;
    return NULL;
}

static int matches_hierarchy(const sb_mount *m, const sb_cgroup_query *q)
{
    if (q->version == 2)
        return strcmp(m->fstype, "cgroup2") == 0;
    return strcmp(m->fstype, "cgroup") == 0 && q->controller != NULL &&
           sb_list_has(m->super_opts, strlen(m->super_opts), q->controller);
}

static int join_dir(const char *point, const char *rel, char *dst, size_t cap)
{
    size_t plen = strlen(point);
    while (plen > 1 && point[plen - 1] == '/')
        plen--;
    while (rel[0] == '/' && rel[1] == '/')
        rel++;
    if (strcmp(rel, "/") == 0)
        rel = "";
    if (plen == 1 && point[0] == '/' && rel[0] == '/')
        plen = 0; /* mounted at "/": the directory is the relative path */
    size_t rlen = strlen(rel);
    while (rlen > 1 && rel[rlen - 1] == '/')
        rlen--;
    if (plen + rlen + 1 > cap)
        return SB_PARSE_BAD;
    memcpy(dst, point, plen);
    memcpy(dst + plen, rel, rlen);
    dst[plen + rlen] = '\0';
    return SB_PARSE_OK;
}

int sb_locate_cgroup(const char *mountinfo, size_t len, const sb_cgroup_query *query,
                     sb_cgroup_location *out)
{
    if (mountinfo == NULL || query == NULL || out == NULL || query->path == NULL ||
        (query->version != 1 && query->version != 2) ||
        (query->version == 1 && query->controller == NULL))
        return SB_PARSE_BAD;
    if (query->path[0] != '/')
        return SB_PARSE_BAD;
    int found_mount = 0;
    size_t best_root = 0;
    int have_best = 0;
    sb_mount m;
    size_t pos = 0;
    const char *line;
    size_t n;
    while (sb_next_line(mountinfo, len, &pos, &line, &n)) {
        if (sb_parse_mountinfo_line(line, n, &m) != SB_PARSE_OK || !matches_hierarchy(&m, query))
            continue;
        found_mount = 1;
        if (climbs(query->path))
            continue;
        const char *rel = below_root(query->path, m.root);
        if (rel == NULL)
            continue;
        size_t rlen = strlen(m.root);
        if (have_best && rlen <= best_root)
            continue;
        sb_cgroup_location loc;
        if (join_dir(m.point, rel, loc.dir, sizeof loc.dir) != SB_PARSE_OK ||
            join_dir(m.point, "", loc.mount_point, sizeof loc.mount_point) != SB_PARSE_OK)
            continue;
        *out = loc;
        best_root = rlen;
        have_best = 1;
    }
    if (have_best)
        return SB_PARSE_OK;
    return found_mount ? SB_PARSE_NOT_VISIBLE : SB_PARSE_ABSENT;
}
