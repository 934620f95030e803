/* The Linux process probe: files opened once, read with pread. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "os.h"

int sb_proc_open(sb_proc *p, int want_hwm_reset)
{
    p->status_buf = NULL;
    p->status_cap = 0;
    p->statm_fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    p->status_fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    p->clear_refs_fd = want_hwm_reset ? open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC) : -1;
    long page = sysconf(_SC_PAGESIZE);
    p->page_size = page > 0 ? page : 4096;
    if (p->statm_fd < 0 || p->status_fd < 0) {
        int err = errno;
        sb_proc_close(p);
        return sb_fail(SPACRBENCH_ESYSTEM, "cannot open /proc/self/statm or status: %s",
                       strerror(err));
    }
    return SPACRBENCH_OK;
}

void sb_proc_close(sb_proc *p)
{
    if (p->statm_fd >= 0)
        close(p->statm_fd);
    if (p->status_fd >= 0)
        close(p->status_fd);
    if (p->clear_refs_fd >= 0)
        close(p->clear_refs_fd);
    p->statm_fd = p->status_fd = p->clear_refs_fd = -1;
    free(p->status_buf);
    p->status_buf = NULL;
    p->status_cap = 0;
}

int64_t sb_proc_rss(const sb_proc *p)
{
    char buf[128];
    ssize_t n = pread(p->statm_fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    /* statm: size resident shared text lib data dt, in pages. */
    char *end;
    strtoll(buf, &end, 10);
    long long resident = strtoll(end, &end, 10);
    return resident >= 0 ? (int64_t)resident * p->page_size : -1;
}

/* A "\nKey:" line of the status text in bytes; -1 when absent. */
static int64_t status_kib(const char *status, const char *key)
{
    const char *line = status ? strstr(status, key) : NULL;
    long long kib = line ? strtoll(line + strlen(key), NULL, 10) : -1;
    return kib >= 0 ? (int64_t)kib * 1024 : -1;
}

int64_t sb_proc_hwm(sb_proc *p)
{
    /* Read the whole file: a long Groups: line comes before VmHWM. */
    for (size_t need = 8192;; need = 2 * p->status_cap) {
        if (need > ((size_t)1 << 24) || sb_grow(&p->status_buf, &p->status_cap, need, 1))
            return -1;
        ssize_t n = pread(p->status_fd, p->status_buf, p->status_cap - 1, 0);
        if (n <= 0)
            return -1;
        if ((size_t)n == p->status_cap - 1)
            continue;
        p->status_buf[n] = '\0';
        break;
    }
    return status_kib(p->status_buf, "\nVmHWM:");
}

int sb_proc_reset_hwm(const sb_proc *p)
{
    if (p->clear_refs_fd < 0)
        return -1;
    /* "5" resets only the peak RSS, not the referenced/soft-dirty bits. */
    return write(p->clear_refs_fd, "5", 1) == 1 ? 0 : -1;
}

int sb_proc_reset_hwm_verified(sb_proc *p)
{
    if (sb_proc_reset_hwm(p) != 0)
        return -1;
    int64_t hwm = sb_proc_hwm(p), rss = sb_proc_rss(p);
    const int64_t slack = INT64_C(4) << 20;
    return hwm >= 0 && rss >= 0 && hwm <= rss + slack ? 0 : -1;
}

int64_t sb_proc_hugetlb_last(const sb_proc *p)
{
    return status_kib(p->status_buf, "\nHugetlbPages:");
}

static int64_t read_number(const char *path, const char *key)
{
    char buf[8192];
    if (sb_cg_read_small(path, buf, sizeof buf, NULL) != 0)
        return -1;
    const char *at = key ? strstr(buf, key) : buf;
    return at ? strtoll(at + (key ? strlen(key) : 0), NULL, 10) : -1;
}

int64_t sb_hugetlb_pages_possible(void)
{
    int64_t total = read_number("/proc/meminfo", "\nHugePages_Total:");
    int64_t over = read_number("/proc/sys/vm/nr_overcommit_hugepages", NULL);
    return (total > 0 ? total : 0) + (over > 0 ? over : 0);
}

const char *sb_proc_no_reset_reason(void)
{
    return "the high-water mark could not be reset or the reset did not lower it";
}

/* The parent's name: /proc/PPID/comm ("time"), else its executable's last
 * component (a `time` renamed by prctl still runs /usr/bin/time). */
static int parent_is(const char *name)
{
    char path[64], text[256];
    snprintf(path, sizeof path, "/proc/%ld/comm", (long)getppid());
    if (sb_cg_read_small(path, text, sizeof text, NULL) == 0) {
        text[strcspn(text, "\n")] = '\0';
        if (strcmp(text, name) == 0)
            return 1;
    }
    snprintf(path, sizeof path, "/proc/%ld/exe", (long)getppid());
    ssize_t got = readlink(path, text, sizeof text - 1);
    if (got <= 0)
        return 0;
    text[got] = '\0';
    const char *base = strrchr(text, '/');
    return strcmp(base ? base + 1 : text, name) == 0;
}

const char *sb_proc_maxrss_reader(void)
{
    if (getenv("SLURM_JOB_ID") || getenv("SLURM_STEP_ID"))
        return "a SLURM step";
    return parent_is("time") ? "GNU time" : NULL;
}
