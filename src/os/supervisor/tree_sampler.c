/* Process-tree sampling through /proc; see supervisor.h. */
#include "supervisor.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* /proc/PID/status grows with the group list; this bounds it. */
#define STATUS_LIMIT (1u << 20)

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
    sb_pid_list_free(&t->old);
}

int tree_sampler_is_old(const tree_sampler *t, pid_t pid)
{
    for (size_t i = 0; i < t->old.n; i++)
        if (t->old.pid[i] == pid)
            return 1;
    return 0;
}

/* VmHWM, adding VmRSS and HugetlbPages to the sums from the same read. A
 * long Groups: line can push VmHWM past a fixed 4 KiB. */
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
    int64_t huge = -1;
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
    if (sb_grow(&t->procs, &t->cap, t->count + 1, sizeof *t->procs))
        return -1;
    t->procs[t->count++] = (tree_proc){pid, hwm};
    return 0;
}

static int skip_old(pid_t pid, const void *arg) { return tree_sampler_is_old(arg, pid); }

static int descendants(const tree_sampler *t, sb_pid_list *out)
{
    int rc = sb_proc_tree_descendants(t->proc_root, &t->self, 1, skip_old, t, out);
    if (rc != 0)
        sb_pid_list_free(out);
    return rc;
}

int tree_sampler_exclude_current(tree_sampler *t)
{
    t->old.n = 0;
    sb_pid_list now = {0};
    if (descendants(t, &now) != 0)
        return -1;
    sb_pid_list_free(&t->old);
    t->old = now;
    return (int)now.n;
}

int tree_sample_pids(tree_sampler *t, const pid_t *pids, size_t n)
{
    int seen = 0;
    int64_t alive_sum = 0, huge = 0;
    t->rss_now = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t hwm = hwm_of(t->proc_root, pids[i], &t->rss_now, &huge);
        if (hwm >= 0)
            alive_sum += hwm;
        if (hwm >= 0 && remember(t, pids[i], hwm) == 0)
            seen++;
    }
    if (alive_sum > t->peak_sum)
        t->peak_sum = alive_sum;
    if (huge > t->hugetlb_peak)
        t->hugetlb_peak = huge;
    return seen;
}

int tree_sample(tree_sampler *t)
{
    sb_pid_list mine = {0};
    if (descendants(t, &mine) != 0)
        return -1;
    int seen = tree_sample_pids(t, mine.pid, mine.n);
    sb_pid_list_free(&mine);
    return seen;
}

int tree_signal_each(const tree_sampler *t, int (*each)(pid_t pid, void *arg), void *arg)
{
    sb_pid_list mine = {0};
    if (descendants(t, &mine) != 0)
        return -1;
    int count = 0;
    for (size_t i = 0; i < mine.n; i++) {
        char state = sb_proc_state(t->proc_root, mine.pid[i]);
        if (state && state != 'Z' && each(mine.pid[i], arg) == 0)
            count++;
    }
    sb_pid_list_free(&mine);
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
