/* Process-tree sampling through /proc; see tree_sampler.h. */
#include "tree_sampler.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"
#include "parse.h"

/* /proc/PID/status grows with the group list; this bounds it. */
#define STATUS_LIMIT (1u << 20)

typedef struct pid_pair {
    pid_t pid, ppid;
    char state; /* 'Z': a zombie, already dead */
} pid_pair;

void tree_sampler_init(tree_sampler *t, pid_t self)
{
    memset(t, 0, sizeof *t);
    t->self = self;
    t->proc_root = "/proc";
}

void tree_sampler_reset(tree_sampler *t)
{
    t->count = 0;
    t->peak_sum = 0;
    t->hugetlb_peak = 0;
}

void tree_sampler_free(tree_sampler *t)
{
    free(t->procs);
    t->procs = NULL;
    t->count = t->cap = 0;
    free(t->old);
    t->old = NULL;
    t->n_old = t->old_cap = 0;
}

static int is_old(const tree_sampler *t, pid_t pid)
{
    for (size_t i = 0; i < t->n_old; i++)
        if (t->old[i] == pid)
            return 1;
    return 0;
}

static ssize_t read_small(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, cap - 1);
    close(fd);
    if (n >= 0)
        buf[n] = '\0';
    return n;
}

/* Parent pid from /proc/PID/stat: the field after the state, which follows
 * the last ')' (the command name may itself hold ')' and spaces). */
static pid_t parent_of(const char *root, pid_t pid, char *state)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "%s/%ld/stat", root, (long)pid);
    if (read_small(path, buf, sizeof buf) <= 0)
        return -1;
    char *close_paren = strrchr(buf, ')');
    long ppid;
    if (!close_paren || sscanf(close_paren + 1, " %c %ld", state, &ppid) != 2)
        return -1;
    return (pid_t)ppid;
}

/* VmHWM of one process, its VmRSS now added to *rss_sum (the timeline's
 * figure) and its HugetlbPages now to *huge_sum (in neither of the
 * others): same file, no extra read. A long Groups: line can
 * push VmHWM far into the status file, so the whole file is read
 * (bounded), never a fixed 4 KiB. */
static int64_t hwm_of(const char *root, pid_t pid, int64_t *rss_sum, int64_t *huge_sum)
{
    char path[64];
    snprintf(path, sizeof path, "%s/%ld/status", root, (long)pid);
    char *text = NULL;
    size_t len = 0;
    int truncated = 0;
    int64_t bytes = -1;
    if (sb_cg_read_file(path, STATUS_LIMIT, &text, &len, &truncated) != 0)
        return -1;
    if (sb_parse_meminfo(text, len, "VmHWM", &bytes) != SB_PARSE_OK)
        bytes = -1; /* zombies and kernel threads have no VmHWM */
    int64_t rss = -1;
    if (bytes >= 0 && sb_parse_meminfo(text, len, "VmRSS", &rss) == SB_PARSE_OK && rss >= 0)
        *rss_sum += rss;
    int64_t huge = -1; /* Linux >= 4.4 */
    if (bytes >= 0 && sb_parse_meminfo(text, len, "HugetlbPages", &huge) == SB_PARSE_OK && huge > 0)
        *huge_sum += huge;
    free(text);
    return bytes;
}

static int remember(tree_sampler *t, pid_t pid, int64_t hwm)
{
    for (size_t i = 0; i < t->count; i++) {
        if (t->procs[i].pid == pid) {
            if (hwm > t->procs[i].hwm_bytes)
                t->procs[i].hwm_bytes = hwm;
            return 0;
        }
    }
    if (t->count == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        tree_proc *grown = realloc(t->procs, cap * sizeof *grown);
        if (!grown)
            return -1;
        t->procs = grown;
        t->cap = cap;
    }
    t->procs[t->count++] = (tree_proc){pid, hwm};
    return 0;
}

/* The process table as (pid, parent) pairs, and which of them descend from
 * t->self without passing through an excluded (old) process. */
static int scan_descendants(const tree_sampler *t, pid_pair **all_out, unsigned char **mine_out,
                            size_t *n_out)
{
    DIR *d = opendir(t->proc_root);
    if (!d)
        return -1;
    pid_pair *all = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!isdigit((unsigned char)e->d_name[0]))
            continue;
        pid_t pid = (pid_t)atol(e->d_name);
        char state = '?';
        pid_t ppid = parent_of(t->proc_root, pid, &state);
        if (ppid <= 0)
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 256;
            pid_pair *grown = realloc(all, cap * sizeof *grown);
            if (!grown) {
                free(all);
                closedir(d);
                return -1;
            }
            all = grown;
        }
        all[n++] = (pid_pair){pid, ppid, state};
    }
    closedir(d);

    /* Mark descendants of self: a few passes over the table settle even a
     * deep tree whose pids are not in parent-before-child order. */
    unsigned char *mine = calloc(n ? n : 1, 1);
    if (!mine) {
        free(all);
        return -1;
    }
    for (int changed = 1; changed;) {
        changed = 0;
        for (size_t i = 0; i < n; i++) {
            if (mine[i] || is_old(t, all[i].pid))
                continue;
            int parent_mine = all[i].ppid == t->self;
            for (size_t j = 0; j < n && !parent_mine; j++)
                parent_mine = mine[j] && all[j].pid == all[i].ppid;
            if (parent_mine)
                mine[i] = 1, changed = 1;
        }
    }
    *all_out = all;
    *mine_out = mine;
    *n_out = n;
    return 0;
}

int tree_sampler_exclude_current(tree_sampler *t)
{
    t->n_old = 0;
    pid_pair *all;
    unsigned char *mine;
    size_t n;
    if (scan_descendants(t, &all, &mine, &n) != 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (!mine[i])
            continue;
        if (t->n_old == t->old_cap) {
            size_t cap = t->old_cap ? 2 * t->old_cap : 16;
            pid_t *grown = realloc(t->old, cap * sizeof *grown);
            if (!grown) {
                t->n_old = 0;
                rc = -1;
                break;
            }
            t->old = grown;
            t->old_cap = cap;
        }
        t->old[t->n_old++] = all[i].pid;
    }
    free(mine);
    free(all);
    return rc == 0 ? (int)t->n_old : -1;
}

int tree_sample(tree_sampler *t)
{
    pid_pair *all;
    unsigned char *mine;
    size_t n;
    if (scan_descendants(t, &all, &mine, &n) != 0)
        return -1;
    int seen = 0;
    int64_t alive_sum = 0, huge = 0;
    t->rss_now = 0;
    for (size_t i = 0; i < n; i++) {
        if (!mine[i])
            continue;
        int64_t hwm = hwm_of(t->proc_root, all[i].pid, &t->rss_now, &huge);
        if (hwm >= 0)
            alive_sum += hwm;
        if (hwm >= 0 && remember(t, all[i].pid, hwm) == 0)
            seen++;
    }
    free(mine);
    free(all);
    if (alive_sum > t->peak_sum)
        t->peak_sum = alive_sum;
    if (huge > t->hugetlb_peak)
        t->hugetlb_peak = huge;
    return seen;
}

void tree_sample_pids(tree_sampler *t, const pid_t *pids, size_t n)
{
    int64_t alive_sum = 0, huge = 0;
    t->rss_now = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t hwm = hwm_of(t->proc_root, pids[i], &t->rss_now, &huge);
        if (hwm >= 0) {
            alive_sum += hwm;
            remember(t, pids[i], hwm);
        }
    }
    if (alive_sum > t->peak_sum)
        t->peak_sum = alive_sum;
    if (huge > t->hugetlb_peak)
        t->hugetlb_peak = huge;
}

int tree_signal(const tree_sampler *t, int sig) { return tree_signal_each(t, sig, NULL, NULL); }

int tree_signal_each(const tree_sampler *t, int sig, int (*each)(pid_t pid, void *arg), void *arg)
{
    pid_pair *all;
    unsigned char *mine;
    size_t n;
    if (scan_descendants(t, &all, &mine, &n) != 0)
        return -1;
    int count = 0;
    for (size_t i = 0; i < n; i++)
        if (mine[i] && all[i].state != 'Z') {
            if (each ? each(all[i].pid, arg) == 0 : kill(all[i].pid, sig) == 0)
                count++;
        }
    free(mine);
    free(all);
    return count;
}

int64_t tree_peak(const tree_sampler *t, pid_t child, int64_t child_maxrss_bytes)
{
    (void)child;
    return t->peak_sum > child_maxrss_bytes ? t->peak_sum : child_maxrss_bytes;
}

size_t tree_others(const tree_sampler *t, pid_t child)
{
    size_t n = 0;
    for (size_t i = 0; i < t->count; i++)
        n += t->procs[i].pid != child;
    return n;
}
