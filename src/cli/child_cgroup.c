/* Per-command memory cgroups; see child_cgroup.h. */
#include "child_cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape_octal(char *s)
{
    char *out = s;
    for (char *in = s; *in; in++) {
        if (in[0] == '\\' && in[1] >= '0' && in[1] <= '3' && in[2] >= '0' && in[2] <= '7' &&
            in[3] >= '0' && in[3] <= '7') {
            *out++ = (char)((in[1] - '0') * 64 + (in[2] - '0') * 8 + (in[3] - '0'));
            in += 3;
        } else
            *out++ = *in;
    }
    *out = '\0';
}

static int has_word(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; (p = strstr(p, word)) != NULL; p += n)
        if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0' || p[n] == '\n'))
            return 1;
    return 0;
}

/* This process's path in the v1 memory hierarchy (version 1) or the v2
 * unified hierarchy (version 2), from /proc/self/cgroup. */
static int own_cgroup_path(const char *file, char *v1, char *v2, size_t cap)
{
    FILE *f = fopen(file, "re");
    if (!f)
        return -1;
    char line[CG_PATH_MAX + 64];
    v1[0] = v2[0] = '\0';
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *c1 = strchr(line, ':');
        char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        *c1 = *c2 = '\0'; /* hierarchy-id:controllers:path */
        if (strcmp(line, "0") == 0 && c1[1] == '\0')
            snprintf(v2, cap, "%s", c2 + 1);
        else if (has_word(c1 + 1, "memory"))
            snprintf(v1, cap, "%s", c2 + 1);
    }
    fclose(f);
    return 0;
}

/* Directory of cgroup path `path` on the mount of type fstype (v1: with the
 * memory super option). */
static int mounted_dir(const char *file, int version, const char *path, char *out, size_t cap)
{
    FILE *f = fopen(file, "re");
    if (!f)
        return -1;
    char line[3 * CG_PATH_MAX];
    int found = -1;
    while (found < 0 && fgets(line, sizeof line, f)) {
        char *fields[6] = {0};
        char *save = NULL, *tok = strtok_r(line, " ", &save);
        int n = 0;
        while (tok && n < 5) {
            fields[n++] = tok;
            tok = strtok_r(NULL, " ", &save);
        }
        /* Skip optional fields up to the " - " separator. */
        while (tok && strcmp(tok, "-") != 0)
            tok = strtok_r(NULL, " ", &save);
        char *fstype = tok ? strtok_r(NULL, " ", &save) : NULL;
        char *source = fstype ? strtok_r(NULL, " ", &save) : NULL;
        char *super = source ? strtok_r(NULL, " \n", &save) : NULL;
        if (n < 5 || !super)
            continue;
        if (version == 1 && !(strcmp(fstype, "cgroup") == 0 && has_word(super, "memory")))
            continue;
        if (version == 2 && strcmp(fstype, "cgroup2") != 0)
            continue;
        char *root = fields[3], *point = fields[4];
        unescape_octal(root);
        unescape_octal(point);
        size_t rl = strlen(root);
        const char *rest;
        if (strcmp(root, "/") == 0)
            rest = path;
        else if (strncmp(path, root, rl) == 0 && (path[rl] == '/' || path[rl] == '\0'))
            rest = path + rl;
        else
            continue; /* a mount of another part of the hierarchy */
        if (strcmp(rest, "/") == 0)
            rest = "";
        if ((size_t)snprintf(out, cap, "%s%s", point, rest) < cap)
            found = 0;
    }
    fclose(f);
    return found;
}

int cg_locate(child_cgroup *cg, const char *proc_cgroup, const char *mountinfo, char *why,
              size_t why_cap)
{
    memset(cg, 0, sizeof *cg);
    char v1[CG_PATH_MAX], v2[CG_PATH_MAX];
    if (own_cgroup_path(proc_cgroup ? proc_cgroup : "/proc/self/cgroup", v1, v2, sizeof v1) != 0) {
        snprintf(why, why_cap, "cannot read %s: %s", proc_cgroup ? proc_cgroup : "/proc/self/cgroup",
                 strerror(errno));
        return -1;
    }
    const char *mi = mountinfo ? mountinfo : "/proc/self/mountinfo";
    if (v1[0] && mounted_dir(mi, 1, v1, cg->parent, sizeof cg->parent) == 0) {
        cg->version = 1;
        return 0;
    }
    if (v2[0] && mounted_dir(mi, 2, v2, cg->parent, sizeof cg->parent) == 0) {
        cg->version = 2;
        return 0;
    }
    snprintf(why, why_cap, "no mounted memory cgroup for this process");
    return -1;
}

static int join(char *out, size_t cap, const char *dir, const char *file)
{
    return (size_t)snprintf(out, cap, "%s/%s", dir, file) < cap ? 0 : -1;
}

static const char *peak_file(const child_cgroup *cg)
{
    return cg->version == 1 ? "memory.max_usage_in_bytes" : "memory.peak";
}

int cg_create(child_cgroup *cg, const char *name, char *why, size_t why_cap)
{
    char dir[CG_PATH_MAX], file[CG_FILE_MAX];
    if (join(dir, sizeof dir, cg->parent, name) != 0) {
        snprintf(why, why_cap, "cgroup path too long");
        return -1;
    }
    if (mkdir(dir, 0755) != 0) {
        snprintf(why, why_cap, "cannot create %s: %s", dir, strerror(errno));
        return -1;
    }
    join(file, sizeof file, dir, peak_file(cg));
    if (access(file, R_OK) != 0) {
        int e = errno;
        rmdir(dir);
        snprintf(why, why_cap, "%s is not readable (%s)%s", file, strerror(e),
                 cg->version == 2 ? ": memory.peak needs Linux 5.19 and the memory controller "
                                    "enabled in the parent's cgroup.subtree_control"
                                  : "");
        return -1;
    }
    snprintf(cg->dir, sizeof cg->dir, "%s", dir);
    return 0;
}

static int write_text(const char *file, const char *text)
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

int cg_attach(const child_cgroup *cg, pid_t pid)
{
    char file[CG_FILE_MAX], text[32];
    if (!cg->dir[0] || join(file, sizeof file, cg->dir, "cgroup.procs") != 0) {
        errno = EINVAL;
        return -1;
    }
    snprintf(text, sizeof text, "%ld", (long)pid);
    return write_text(file, text);
}

int64_t cg_peak(const child_cgroup *cg)
{
    char file[CG_FILE_MAX], text[64];
    if (!cg->dir[0] || join(file, sizeof file, cg->dir, peak_file(cg)) != 0)
        return -1;
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0)
        return -1;
    text[n] = '\0';
    char *end = NULL;
    long long v = strtoll(text, &end, 10);
    return end == text || v < 0 ? -1 : (int64_t)v;
}

/* Move every process still in the child cgroup to the parent. */
static int evacuate(const child_cgroup *cg)
{
    char file[CG_FILE_MAX], target[CG_FILE_MAX];
    if (join(file, sizeof file, cg->dir, "cgroup.procs") != 0 ||
        join(target, sizeof target, cg->parent, "cgroup.procs") != 0)
        return 0;
    FILE *f = fopen(file, "re");
    if (!f)
        return 0;
    int moved = 0;
    char line[32];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] && write_text(target, line) == 0)
            moved++;
    }
    fclose(f);
    return moved;
}

int cg_remove(child_cgroup *cg, int *left_behind)
{
    if (left_behind)
        *left_behind = 0;
    if (!cg->dir[0])
        return 0;
    int rc = rmdir(cg->dir);
    if (rc != 0 && errno == EBUSY) {
        int moved = evacuate(cg);
        if (left_behind)
            *left_behind = moved;
        /* The kernel may need a moment after the last task leaves. */
        for (int tries = 0; tries < 50 && (rc = rmdir(cg->dir)) != 0 && errno == EBUSY; tries++)
            usleep(2000);
    }
    if (rc == 0)
        cg->dir[0] = '\0';
    return rc;
}
