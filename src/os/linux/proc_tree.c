/* Listing a process tree (os.h), and this thread's CPU time. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "os.h"

/* A children file lists one thread's children, a few bytes each. */
#define CHILDREN_LIMIT (1u << 20)

static int list_has(const sb_pid_list *l, pid_t pid)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->pid[i] == pid)
            return 1;
    return 0;
}

int sb_pid_list_add(sb_pid_list *l, pid_t pid)
{
    if (sb_grow(&l->pid, &l->cap, l->n + 1, sizeof *l->pid))
        return -1;
    l->pid[l->n++] = pid;
    return 0;
}

void sb_pid_list_free(sb_pid_list *l)
{
    free(l->pid);
    l->pid = NULL;
    l->n = l->cap = 0;
}

/* Unless skipped, listed already (a reused pid) or past the bound. */
static int take(sb_pid_list *out, pid_t pid, sb_pid_skip skip, const void *arg)
{
    if (pid <= 0 || out->n >= SB_PROC_TREE_MAX || (skip && skip(pid, arg)) || list_has(out, pid))
        return 0;
    return sb_pid_list_add(out, pid);
}

static int take_listed(sb_pid_list *out, const char *text, sb_pid_skip skip, const void *arg)
{
    const char *p = text;
    while (*p) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p)
            break;
        if (v > 0 && v == (long)(pid_t)v && take(out, (pid_t)v, skip, arg) != 0)
            return -1;
        p = end;
        while (*p == ' ' || *p == '\n')
            p++;
    }
    return 0;
}

/* Through each thread's children file. 1: the kernel has none; 0 done;
 * -1 out of memory. */
static int children_of(const char *root, pid_t pid, sb_pid_list *out, sb_pid_skip skip,
                       const void *arg)
{
    char path[96];
    snprintf(path, sizeof path, "%s/%ld/task", root, (long)pid);
    DIR *d = opendir(path);
    if (!d)
        return 0;
    int rc = 0, files = 0, threads = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (!isdigit((unsigned char)e->d_name[0]))
            continue;
        threads++;
        char file[sizeof path + sizeof e->d_name + 16];
        snprintf(file, sizeof file, "%s/%s/children", path, e->d_name);
        char *text = NULL;
        size_t len = 0;
        int truncated = 0;
        if (sb_cg_read_file(file, CHILDREN_LIMIT, &text, &len, &truncated) != 0)
            continue; /* the thread ended, or no such file */
        files++;
        rc = take_listed(out, text, skip, arg);
        free(text);
    }
    closedir(d);
    if (rc == 0 && threads > 0 && files == 0) {
        /* No children files at all, if the process still exists. */
        snprintf(path, sizeof path, "%s/%ld/stat", root, (long)pid);
        if (access(path, F_OK) == 0)
            return 1;
    }
    return rc;
}

int sb_proc_stat(const char *root, pid_t pid, char *state, pid_t *ppid, unsigned long long *start)
{
    char path[96], buf[1024];
    snprintf(path, sizeof path, "%s/%ld/stat", root, (long)pid);
    if (sb_cg_read_small(path, buf, sizeof buf, NULL) != 0)
        return -1;
    /* The fields after the last ')': the command name may hold ')' and spaces. */
    const char *p = strrchr(buf, ')');
    char st;
    long pp;
    if (!p || sscanf(p + 1, " %c %ld", &st, &pp) != 2)
        return -1;
    if (start) { /* field 22: when it started, in clock ticks since boot */
        for (int field = 2; field < 22 && p; field++)
            if ((p = strchr(p + 1, ' ')) == NULL)
                return -1;
        char *end;
        errno = 0;
        *start = strtoull(p + 1, &end, 10);
        if (errno || end == p + 1)
            return -1;
    }
    if (state)
        *state = st;
    if (ppid)
        *ppid = (pid_t)pp;
    return 0;
}

char sb_proc_state(const char *proc_root, pid_t pid)
{
    char state = 0;
    return sb_proc_stat(proc_root, pid, &state, NULL, NULL) == 0 ? state : 0;
}

double sb_thread_cpu_seconds(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return sb_now();
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct pid_pair {
    pid_t pid, ppid;
} pid_pair;

/* Without children files: grow from the roots until none joins (a child
 * may come before its parent in the table). */
static int scan_all(const char *root, const pid_t *roots, size_t n_roots, sb_pid_list *out,
                    sb_pid_skip skip, const void *arg)
{
    DIR *d = opendir(root);
    if (!d)
        return -1;
    pid_pair *all = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!isdigit((unsigned char)e->d_name[0]))
            continue;
        pid_t pid = (pid_t)atol(e->d_name);
        pid_t ppid = 0;
        if (sb_proc_stat(root, pid, NULL, &ppid, NULL) != 0 || ppid <= 0)
            continue;
        if (sb_grow(&all, &cap, n + 1, sizeof *all)) {
            rc = -1;
            break;
        }
        all[n++] = (pid_pair){pid, ppid};
    }
    closedir(d);
    for (int grew = 1; rc == 0 && grew;) {
        grew = 0;
        for (size_t i = 0; i < n && rc == 0; i++) {
            pid_t p = all[i].ppid;
            int parent_in = list_has(out, p);
            for (size_t r = 0; r < n_roots && !parent_in; r++)
                parent_in = roots[r] == p;
            if (!parent_in || list_has(out, all[i].pid))
                continue;
            size_t before = out->n;
            rc = take(out, all[i].pid, skip, arg);
            grew |= out->n > before;
        }
    }
    free(all);
    return rc;
}

int sb_proc_tree_descendants(const char *proc_root, const pid_t *roots, size_t n, sb_pid_skip skip,
                             const void *arg, sb_pid_list *out)
{
    out->n = 0;
    int rc = 0;
    /* out is its own queue. */
    for (size_t r = 0; r < n && rc == 0; r++)
        rc = children_of(proc_root, roots[r], out, skip, arg);
    for (size_t i = 0; i < out->n && rc == 0; i++)
        rc = children_of(proc_root, out->pid[i], out, skip, arg);
    if (rc != 1)
        return rc;
    out->n = 0;
    return scan_all(proc_root, roots, n, out, skip, arg);
}
