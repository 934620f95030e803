/* This process's PIDs in every nested PID namespace. NVML lists processes
 * by the PID the driver sees, which in a container may be the host's PID
 * rather than getpid(); the kernel's NSpid line gives all the PIDs of this
 * process that are visible from the namespace of the mounted /proc. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpu.h"
#include "util.h"

size_t sb_gpu_parse_nspid(const char *status_text, unsigned int *pids, size_t cap)
{
    if (!status_text || !pids || cap == 0)
        return 0;
    const char *line = status_text;
    while (line && strncmp(line, "NSpid:", 6) != 0) {
        line = strchr(line, '\n');
        if (line)
            line++;
    }
    if (!line)
        return 0;
    const char *p = line + 6;
    size_t n = 0;
    while (n < cap) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p < '0' || *p > '9')
            break; /* end of line, end of text, or garbage */
        char *end = NULL;
        errno = 0;
        unsigned long v = strtoul(p, &end, 10);
        if (errno || v == 0 || v > UINT_MAX ||
            (*end != ' ' && *end != '\t' && *end != '\n' && *end))
            return 0; /* a malformed line is not trusted at all */
        pids[n++] = (unsigned int)v;
        p = end;
    }
    return n;
}

size_t sb_gpu_own_pids(unsigned int *pids, size_t cap)
{
    if (!pids || cap == 0)
        return 0;
    /* NSpid follows the Groups: line, which can run to kilobytes. */
    char *buf = NULL;
    size_t n = 0, len;
    int truncated, fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (fd >= 0 && sb_read_fd(fd, (1 << 16) - 1, &buf, &len, &truncated) == 0)
        n = sb_gpu_parse_nspid(buf, pids, cap);
    if (fd >= 0)
        close(fd);
    free(buf);
    if (n == 0) { /* kernels before 4.1 have no NSpid line */
        pids[0] = (unsigned int)getpid();
        n = 1;
    }
    return n;
}

/* The kernel's fixed inode number of the initial PID namespace
 * (PROC_PID_INIT_INO in include/linux/proc_ns.h). */
#define SB_INITIAL_PID_NS_INO 0xEFFFFFFCu

int sb_gpu_host_pid_visible(uint64_t self_ns_ino, int proc_is_host, size_t n_nspid)
{
    if (self_ns_ino == 0)
        return 1; /* no namespace files (very old kernel): no namespaces */
    if (self_ns_ino == SB_INITIAL_PID_NS_INO)
        return 1;
    /* In a nested namespace, the outermost NSpid entry is the host PID
     * only if /proc was mounted by the initial namespace. */
    return n_nspid >= 2 && proc_is_host;
}

static uint64_t ns_inode(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (uint64_t)st.st_ino : 0;
}

/* Only the initial PID namespace holds kernel threads: PID 2 there is
 * kthreadd, whose parent is 0. Reading /proc/2/status needs no privilege,
 * unlike /proc/1/ns/pid. */
static int proc_shows_kthreadd(void)
{
    char buf[1024];
    int fd = open("/proc/2/status", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    return strncmp(buf, "Name:\tkthreadd\n", 15) == 0 && strstr(buf, "\nPPid:\t0\n") != NULL;
}

int sb_gpu_host_pid_visible_here(size_t n_nspid)
{
    uint64_t self = ns_inode("/proc/self/ns/pid");
    if (self == 0 || self == SB_INITIAL_PID_NS_INO)
        return 1;
    int proc_is_host = ns_inode("/proc/1/ns/pid") == SB_INITIAL_PID_NS_INO || proc_shows_kthreadd();
    return sb_gpu_host_pid_visible(self, proc_is_host, n_nspid);
}

int sb_gpu_pid_exists_here(unsigned int pid)
{
    if (pid == 0 || pid > (unsigned int)INT_MAX)
        return 0; /* kill() would read it as a process group */
    int saved = errno;
    int gone = kill((pid_t)pid, 0) != 0 && errno == ESRCH;
    errno = saved;
    return !gone;
}
