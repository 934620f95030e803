/* PSS at statm's price; see os.h. */
#include "os.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void sb_pss_tracker_init(sb_pss_tracker *t, double refresh_floor_s, double share)
{
    memset(t, 0, sizeof *t);
    t->proc_root = "/proc";
    sb_sample_budget_init(&t->refresh, refresh_floor_s, share);
    long ps = sysconf(_SC_PAGESIZE);
    t->page_size = ps > 0 ? ps : 4096;
}

void sb_pss_tracker_free(sb_pss_tracker *t)
{
    free(t->m);
    t->m = NULL;
    t->n = t->cap = 0;
}

static int64_t rss_now(const sb_pss_tracker *t, pid_t pid)
{
    char path[96], text[256];
    snprintf(path, sizeof path, "%s/%ld/statm", t->proc_root, (long)pid);
    if (sb_cg_read_small(path, text, sizeof text, NULL) != 0)
        return -1;
    long long size, resident;
    if (sscanf(text, "%lld %lld", &size, &resident) != 2 || resident < 0)
        return -1;
    return (int64_t)resident * t->page_size;
}

static int read_rollup(const sb_pss_tracker *t, pid_t pid, int64_t *rss, int64_t *pss)
{
    char path[96], text[4096];
    size_t len = 0;
    snprintf(path, sizeof path, "%s/%ld/smaps_rollup", t->proc_root, (long)pid);
    if (sb_cg_read_small(path, text, sizeof text, &len) != 0 ||
        sb_parse_meminfo(text, len, "Rss", rss) != SB_PARSE_OK ||
        sb_parse_meminfo(text, len, "Pss", pss) != SB_PARSE_OK)
        return -1;
    return 0;
}

static const sb_pss_member *known(const sb_pss_tracker *t, pid_t pid)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->m[i].pid == pid)
            return &t->m[i];
    return NULL;
}

/* The shared part afresh when asked, new, or no longer fitting. */
static int64_t member_pss(sb_pss_tracker *t, pid_t pid, int full, sb_pss_member *out)
{
    const sb_pss_member *was = known(t, pid);
    int64_t rss = rss_now(t, pid);
    if (rss < 0)
        return -1;
    if (!full && was && rss >= was->shared_bytes) {
        *out = *was;
        return rss - was->shared_bytes;
    }
    int64_t smaps_rss = 0, pss = 0;
    double cpu0 = sb_thread_cpu_seconds();
    int got = read_rollup(t, pid, &smaps_rss, &pss);
    t->last_refresh_cpu += sb_thread_cpu_seconds() - cpu0;
    t->smaps_reads++;
    if (got != 0)
        return -1;
    out->pid = pid;
    out->shared_bytes = smaps_rss > pss ? smaps_rss - pss : 0;
    return pss;
}

int64_t sb_pss_tracker_sample(sb_pss_tracker *t, const pid_t *roots, size_t n, double now,
                              int paced)
{
    sb_pid_list all = {0};
    int rc = sb_proc_tree_descendants(t->proc_root, roots, n, NULL, NULL, &all);
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = sb_pid_list_add(&all, roots[i]);
    if (rc != 0) {
        sb_pid_list_free(&all);
        return -1;
    }
    sb_pss_member *next = all.n ? calloc(all.n, sizeof *next) : NULL;
    if (all.n && !next) {
        sb_pid_list_free(&all);
        return -1;
    }
    int full = paced && now >= t->refresh_due;
    int64_t sum = 0;
    size_t kept = 0;
    t->last_refresh_cpu = 0;
    for (size_t i = 0; i < all.n; i++) {
        int64_t pss = member_pss(t, all.pid[i], full, &next[kept]);
        if (pss >= 0) {
            sum += pss;
            kept++;
        }
    }
    /* New processes' full reads count in their pace too. */
    t->debt_cpu += t->last_refresh_cpu;
    if (full) {
        t->refresh_due = sb_sample_budget_next(&t->refresh, now, t->debt_cpu);
        t->debt_cpu = 0;
    }
    free(t->m);
    t->m = next;
    t->n = kept;
    t->cap = all.n;
    sb_pid_list_free(&all);
    return sum;
}
