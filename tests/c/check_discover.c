/* Machine discovery: the combining rule, the cgroup walk on recorded trees
 * (v2 nested containers, a v1 SLURM job, escaped mount points, garbage),
 * the public API, and REAL cgroups and affinity on this machine: a child
 * process is moved into a cgroup we create, discovers from inside, and
 * reports back through a pipe. Where cgroups cannot be created the test
 * prints "SKIP: ..." and passes. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core.h"
#include "os.h"
#include "sb_test_memory.h"

#define GIB (INT64_C(1) << 30)
#define MIB (INT64_C(1) << 20)

static void skip(const char *test, const char *why)
{
    printf("SKIP: check_discover %s: %s\n", test, why);
    fprintf(stderr, "SKIP: check_discover %s: %s\n", test, why);
    fflush(stdout);
}

/* ---- recorded trees ---- */

typedef struct tree {
    char cgroup[1024], mountinfo[1024], meminfo[1024], prefix[1024];
    sb_probe_env env;
} tree;

static void tree_env(tree *t, const char *name, int64_t affinity)
{
    t->env = sb_probe_env_live(); /* then every path points at the tree */
    snprintf(t->cgroup, sizeof t->cgroup, "%s/trees/%s/proc_self_cgroup", SPACRBENCH_TEST_DATA,
             name);
    snprintf(t->mountinfo, sizeof t->mountinfo, "%s/trees/%s/mountinfo", SPACRBENCH_TEST_DATA,
             name);
    snprintf(t->meminfo, sizeof t->meminfo, "%s/trees/%s/meminfo", SPACRBENCH_TEST_DATA, name);
    snprintf(t->prefix, sizeof t->prefix, "%s/trees/%s/root", SPACRBENCH_TEST_DATA, name);
    t->env.proc_self_cgroup = t->cgroup;
    t->env.mountinfo = t->mountinfo;
    t->env.meminfo = t->meminfo;
    t->env.prefix = t->prefix;
    t->env.affinity_cores = affinity;
}

static void discover_tree(const char *name, int64_t affinity, spacrbench_machine *m)
{
    tree t;
    tree_env(&t, name, affinity);
    sb_discover_with(&t.env, m);
}

static void assert_dir(const char *got, const char *tree_name, const char *below_root)
{
    char want[2048];
    snprintf(want, sizeof want, "%s/trees/%s/root%s", SPACRBENCH_TEST_DATA, tree_name, below_root);
    ck_assert_str_eq(got, want);
}

START_TEST(v2_nested_container)
{
    /* Limits at three levels: the pod's 4 GiB with 3 GiB used, 1 GiB of it
     * inactive cache, leaves 2 GiB, tighter than the scope's memory.high
     * (6 GiB, same usage: 4 GiB) and memory.max (8 GiB). */
    spacrbench_machine m;
    discover_tree("v2_nested_container", 16, &m);
    ck_assert_int_eq(m.host_available_bytes, 16 * GIB);
    ck_assert_int_eq(m.memory_source, SPACRBENCH_SOURCE_CGROUP_V2);
    ck_assert_int_eq(m.available_bytes, 2 * GIB);
    ck_assert_int_eq(m.memory_limit_bytes, 4 * GIB);
    assert_dir(m.memory_cgroup, "v2_nested_container", "/sys/fs/cgroup/kubepods.slice/pod-a.slice");
    /* cpu.max 2.5 CPUs on the pod -> 3 workers can make progress. */
    ck_assert_int_eq(m.cores, 3);
    ck_assert_int_eq(m.cores_source, SPACRBENCH_SOURCE_CGROUP_V2);
    ck_assert(m.cpu_quota_cores > 2.49 && m.cpu_quota_cores < 2.51);
    ck_assert_int_eq(m.affinity_cores, 16);
    assert_dir(m.cores_cgroup, "v2_nested_container", "/sys/fs/cgroup/kubepods.slice/pod-a.slice");
}
END_TEST

START_TEST(v2_affinity_binds_when_tighter)
{
    /* Same tree, affinity of 64: the quota (3) still binds over the
     * scope's cpuset of 8. With an affinity of 2, the mask binds. */
    spacrbench_machine m;
    discover_tree("v2_nested_container", 2, &m);
    ck_assert_int_eq(m.cores, 2);
    ck_assert_int_eq(m.cores_source, SPACRBENCH_SOURCE_AFFINITY);
    ck_assert_str_eq(m.cores_cgroup, "");
    ck_assert(m.cpu_quota_cores > 2.49); /* still reported as evidence */
}
END_TEST

START_TEST(v1_slurm_job)
{
    /* The job's memsw headroom (8 GiB - 7.5 GiB) is tighter than its
     * memory headroom (8 - 7 GiB); the task's own level is unlimited. */
    spacrbench_machine m;
    discover_tree("v1_slurm_job", 64, &m);
    ck_assert_int_eq(m.memory_source, SPACRBENCH_SOURCE_CGROUP_V1);
    ck_assert_int_eq(m.available_bytes, 512 * MIB);
    ck_assert_int_eq(m.memory_limit_bytes, 8 * GIB);
    assert_dir(m.memory_cgroup, "v1_slurm_job", "/sys/fs/cgroup/memory/slurm/uid_1000/job_4242");
    /* cpuset of the step: 4 CPUs; no quota anywhere. */
    ck_assert_int_eq(m.cores, 4);
    ck_assert_int_eq(m.cores_source, SPACRBENCH_SOURCE_CPUSET);
    ck_assert(m.cpu_quota_cores < 0);
    assert_dir(m.cores_cgroup, "v1_slurm_job",
               "/sys/fs/cgroup/cpuset/slurm/uid_1000/job_4242/step_0");
}
END_TEST

START_TEST(escaped_mount_point)
{
    spacrbench_machine m;
    discover_tree("escaped_mount_point", 8, &m);
    ck_assert_int_eq(m.memory_source, SPACRBENCH_SOURCE_CGROUP_V2);
    ck_assert_int_eq(m.available_bytes, GIB);
    assert_dir(m.memory_cgroup, "escaped_mount_point", "/run/cg v2/my job.slice");
    ck_assert_int_eq(m.cores, 1); /* 0.5 CPU rounds up to one worker */
    ck_assert_int_eq(m.cores_source, SPACRBENCH_SOURCE_CGROUP_V2);
}
END_TEST

START_TEST(outside_namespace_is_host)
{
    /* "/../.." cannot be mapped: the root's tiny memory.max must not be
     * mistaken for ours. */
    spacrbench_machine m;
    discover_tree("outside_namespace", 4, &m);
    ck_assert_int_eq(m.memory_source, SPACRBENCH_SOURCE_HOST);
    ck_assert_int_eq(m.available_bytes, 4 * GIB);
    ck_assert_int_eq(m.memory_limit_bytes, -1);
    ck_assert_str_eq(m.memory_cgroup, "");
    ck_assert_int_eq(m.cores, 4);
}
END_TEST

START_TEST(garbage_and_missing_files)
{
    spacrbench_machine m;
    discover_tree("garbage_files", 4, &m);
    ck_assert_int_eq(m.host_available_bytes, -1);
    ck_assert_int_eq(m.available_bytes, 0);
    ck_assert_int_eq(m.memory_source, SPACRBENCH_SOURCE_UNKNOWN);
    ck_assert_int_eq(m.memory_limit_bytes, -1);
    ck_assert_int_eq(m.cores, 4);
    ck_assert_int_eq(m.cores_source, SPACRBENCH_SOURCE_AFFINITY);

    discover_tree("no_such_tree", 3, &m);
    ck_assert_int_eq(m.available_bytes, 0);
    ck_assert_int_eq(m.host_available_bytes, -1);
    ck_assert_int_eq(m.cores, 3);
}
END_TEST

/* ---- the combining rule ---- */

static sb_probe blank_probe(void)
{
    sb_probe p;
    memset(&p, 0, sizeof p);
    p.host_available_bytes = -1;
    p.affinity_cores = -1;
    p.memory_headroom_bytes = -1;
    p.memory_limit_bytes = -1;
    p.quota_cores = -1;
    p.cpuset_cores = -1;
    return p;
}

START_TEST(rule_memory)
{
    spacrbench_machine m;
    sb_probe p = blank_probe();
    sb_machine_from_probe(&p, &m);
    ck_assert_int_eq(m.size, sizeof m);
    ck_assert_int_eq(m.available_bytes, 0);
    ck_assert_int_eq(m.memory_source, SPACRBENCH_SOURCE_UNKNOWN);
    ck_assert_int_eq(m.cores, 1); /* never below one, even knowing nothing */

    p.host_available_bytes = 10 * GIB;
    p.memory_source = SPACRBENCH_SOURCE_CGROUP_V1;
    p.memory_headroom_bytes = 10 * GIB; /* a tie: the host stays the reason */
    p.memory_limit_bytes = 12 * GIB;
    snprintf(p.memory_dir, sizeof p.memory_dir, "/cg");
    sb_machine_from_probe(&p, &m);
    ck_assert_int_eq(m.memory_source, SPACRBENCH_SOURCE_HOST);
    ck_assert_int_eq(m.memory_limit_bytes, -1);

    p.memory_headroom_bytes = 0; /* a full cgroup: zero, not "unknown" */
    sb_machine_from_probe(&p, &m);
    ck_assert_int_eq(m.available_bytes, 0);
    ck_assert_int_eq(m.memory_source, SPACRBENCH_SOURCE_CGROUP_V1);
    ck_assert_int_eq(m.memory_limit_bytes, 12 * GIB);
    ck_assert_str_eq(m.memory_cgroup, "/cg");

    p.host_available_bytes = -1; /* no meminfo: the cgroup alone */
    p.memory_headroom_bytes = 3 * GIB;
    sb_machine_from_probe(&p, &m);
    ck_assert_int_eq(m.available_bytes, 3 * GIB);
    ck_assert_int_eq(m.host_available_bytes, -1);

    /* A directory longer than the public field is cut, NUL-terminated. */
    memset(p.memory_dir, 'd', sizeof p.memory_dir - 1);
    p.memory_dir[sizeof p.memory_dir - 1] = '\0';
    sb_machine_from_probe(&p, &m);
    ck_assert_uint_eq(strlen(m.memory_cgroup), sizeof m.memory_cgroup - 1);
}
END_TEST

START_TEST(rule_cores)
{
    spacrbench_machine m;
    sb_probe p = blank_probe();
    p.affinity_cores = 8;
    p.quota_source = SPACRBENCH_SOURCE_CGROUP_V2;
    p.quota_cores = 8.0; /* equal: affinity remains the reason */
    sb_machine_from_probe(&p, &m);
    ck_assert_int_eq(m.cores, 8);
    ck_assert_int_eq(m.cores_source, SPACRBENCH_SOURCE_AFFINITY);
    ck_assert(m.cpu_quota_cores == 8.0);

    p.quota_cores = 0.3;
    snprintf(p.quota_dir, sizeof p.quota_dir, "/q");
    sb_machine_from_probe(&p, &m);
    ck_assert_int_eq(m.cores, 1);
    ck_assert_int_eq(m.cores_source, SPACRBENCH_SOURCE_CGROUP_V2);
    ck_assert_str_eq(m.cores_cgroup, "/q");

    p.quota_cores = 3.0000000001;
    sb_machine_from_probe(&p, &m);
    ck_assert_int_eq(m.cores, 3);

    p.quota_cores = 1e300; /* absurd quota: no overflow, affinity binds */
    p.cpuset_source = SPACRBENCH_SOURCE_CPUSET;
    p.cpuset_cores = 6;
    snprintf(p.cpuset_dir, sizeof p.cpuset_dir, "/s");
    sb_machine_from_probe(&p, &m);
    ck_assert_int_eq(m.cores, 6);
    ck_assert_int_eq(m.cores_source, SPACRBENCH_SOURCE_CPUSET);
    ck_assert_str_eq(m.cores_cgroup, "/s");

    p.affinity_cores = -1; /* unknown mask: the cpuset still tells */
    sb_machine_from_probe(&p, &m);
    ck_assert_int_eq(m.cores, 6);
    ck_assert_int_eq(m.affinity_cores, -1);
}
END_TEST

/* ---- walking and reading ---- */

typedef struct visits {
    char seen[8][256];
    int n, stop_at;
} visits;

static int record_visit(const char *dir, void *ctx)
{
    visits *v = ctx;
    if (v->n < 8)
        snprintf(v->seen[v->n], sizeof v->seen[0], "%s", dir);
    v->n++;
    return v->n == v->stop_at;
}

START_TEST(walk_up_to_mount_point)
{
    sb_cgroup_location loc;
    snprintf(loc.dir, sizeof loc.dir, "/m/a/b");
    snprintf(loc.mount_point, sizeof loc.mount_point, "/m");
    visits v = {.n = 0, .stop_at = -1};
    sb_cgroup_walk_up(&loc, record_visit, &v);
    ck_assert_int_eq(v.n, 3);
    ck_assert_str_eq(v.seen[0], "/m/a/b");
    ck_assert_str_eq(v.seen[1], "/m/a");
    ck_assert_str_eq(v.seen[2], "/m");

    snprintf(loc.dir, sizeof loc.dir, "/x/y");
    snprintf(loc.mount_point, sizeof loc.mount_point, "/");
    v.n = 0;
    sb_cgroup_walk_up(&loc, record_visit, &v);
    ck_assert_int_eq(v.n, 3);
    ck_assert_str_eq(v.seen[2], "/");

    v.n = 0;
    v.stop_at = 1;
    sb_cgroup_walk_up(&loc, record_visit, &v);
    ck_assert_int_eq(v.n, 1);

    /* A directory not below the mount point is not walked at all. */
    snprintf(loc.dir, sizeof loc.dir, "/other");
    snprintf(loc.mount_point, sizeof loc.mount_point, "/m");
    v.n = 0;
    v.stop_at = -1;
    sb_cgroup_walk_up(&loc, record_visit, &v);
    ck_assert_int_eq(v.n, 0);
}
END_TEST

static int open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    ck_assert_ptr_nonnull(d);
    int n = 0;
    while (readdir(d) != NULL)
        n++;
    closedir(d);
    return n;
}

START_TEST(read_files_bounded_and_closed)
{
    int before = open_fds();
    for (int i = 0; i < 200; i++) {
        char *text = NULL;
        size_t len = 0;
        int truncated = -1;
        ck_assert_int_eq(sb_cg_read_file("/proc/self/mountinfo", 64, &text, &len, &truncated), 0);
        ck_assert_uint_eq(len, 64);
        ck_assert_int_eq(truncated, 1);
        ck_assert_uint_eq(strlen(text), 64);
        free(text);
        ck_assert_int_eq(sb_cg_read_file("/proc/self/mountinfo", 1 << 22, &text, &len, &truncated),
                         0);
        ck_assert_int_eq(truncated, 0);
        ck_assert_uint_gt(len, 64);
        free(text);
        errno = 0;
        ck_assert_int_eq(sb_cg_read_file("/nonexistent/x", 100, &text, &len, &truncated), -1);
        ck_assert_int_eq(errno, ENOENT);
        char small[8];
        ck_assert_int_eq(sb_cg_read_small("/proc/self/mountinfo", small, sizeof small, &len), -1);
        ck_assert_int_eq(sb_cg_read_small("/proc/sys/kernel/ostype", small, sizeof small, &len), 0);
        ck_assert_str_eq(small, "Linux\n");
    }
    ck_assert_int_eq(open_fds(), before);
}
END_TEST

/* ---- public API on the live system ---- */

START_TEST(public_api_live)
{
    ck_assert_int_eq(spacrbench_discover(NULL), SPACRBENCH_EINVAL);
    ck_assert_str_ne(spacrbench_last_error_message(), "");

    spacrbench_machine m;
    memset(&m, 0x5a, sizeof m);
    m.size = 0;
    ck_assert_int_eq(spacrbench_discover(&m), SPACRBENCH_EINVAL);

    m.size = sizeof m;
    ck_assert_int_eq(spacrbench_discover(&m), SPACRBENCH_OK);
    ck_assert_int_ge(m.cores, 1);
    ck_assert_int_ge(m.affinity_cores, m.cores);
    cpu_set_t set;
    ck_assert_int_eq(sched_getaffinity(0, sizeof set, &set), 0);
    ck_assert_int_eq(m.affinity_cores, CPU_COUNT(&set));
    ck_assert_int_gt(m.host_available_bytes, 0);
    ck_assert_int_gt(m.available_bytes, 0);
    ck_assert_int_le(m.available_bytes, m.host_available_bytes);
    ck_assert_int_ne(m.memory_source, SPACRBENCH_SOURCE_UNKNOWN);
    ck_assert_int_gt(spacrbench_available_memory_bytes(), 0);
    ck_assert_int_ge(spacrbench_usable_cores(), 1);
    ck_assert_int_le(spacrbench_usable_cores(), m.affinity_cores);

    /* An older, smaller struct gets only its prefix. */
    unsigned char raw[sizeof(spacrbench_machine) + 32];
    memset(raw, 0x5a, sizeof raw);
    size_t old = offsetof(spacrbench_machine, cores);
    memcpy(raw, &old, sizeof old);
    ck_assert_int_eq(spacrbench_discover((spacrbench_machine *)(void *)raw), SPACRBENCH_OK);
    for (size_t i = old; i < sizeof raw; i++)
        ck_assert_int_eq(raw[i], 0x5a);
    /* A newer, larger one gets a zeroed tail. */
    size_t big = sizeof raw;
    memcpy(raw, &big, sizeof big);
    ck_assert_int_eq(spacrbench_discover((spacrbench_machine *)(void *)raw), SPACRBENCH_OK);
    for (size_t i = sizeof(spacrbench_machine); i < sizeof raw; i++)
        ck_assert_int_eq(raw[i], 0);
}
END_TEST

/* ---- real cgroups and affinity ---- */

/* Directories this test process created, removed by the fixture even when
 * an assertion fails midway (innermost first). */
static char created[4][1024];
static int n_created;

static void remove_created(void)
{
    while (n_created > 0) {
        n_created--;
        if (rmdir(created[n_created]) != 0 && errno != ENOENT)
            fprintf(stderr, "warning: could not remove test cgroup %s: %s\n", created[n_created],
                    strerror(errno));
    }
}

static void setup_none(void) { n_created = 0; }

/* This process's directory in the v1 hierarchy mounted at /sys/fs/cgroup/NAME,
 * found the plain way (independently of the code under test). */
static int own_v1_dir(const char *controller, const char *mount_name, char *dir, size_t cap)
{
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (f == NULL)
        return -1;
    char line[1024];
    int found = -1;
    while (fgets(line, sizeof line, f)) {
        char *c1 = strchr(line, ':');
        char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (c2 == NULL)
            continue;
        *c2 = '\0';
        line[strcspn(c2 + 1, "\n") + (size_t)(c2 + 1 - line)] = '\0';
        char *save = NULL;
        for (char *tok = strtok_r(c1 + 1, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
            if (strcmp(tok, controller) == 0) {
                const char *path = c2 + 1;
                snprintf(dir, cap, "/sys/fs/cgroup/%s%s", mount_name,
                         strcmp(path, "/") == 0 ? "" : path);
                found = 0;
            }
    }
    fclose(f);
    struct stat st;
    if (found == 0 && (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)))
        found = -1;
    return found;
}

static int write_text(const char *dir, const char *file, const char *value)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, value, strlen(value));
    close(fd);
    return n == (ssize_t)strlen(value) ? 0 : -1;
}

static int make_cgroup(const char *parent, const char *leaf, char *out, size_t cap)
{
    static int counter;
    int n = snprintf(out, cap, "%s/sbtest-%ld-%d-%s", parent, (long)getpid(), counter++, leaf);
    if (n < 0 || (size_t)n >= cap) /* a cut path could name another cgroup */
        return -1;
    if (mkdir(out, 0755) != 0)
        return -1;
    snprintf(created[n_created++], sizeof created[0], "%s", out);
    return 0;
}

/* Do two paths name the same directory? (/sys/fs/cgroup/cpu is often a
 * symlink to cpu,cpuacct, and mountinfo names the real one.) */
static int same_dir(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* What a child reports back. */
typedef struct child_report {
    int moved; /* 0 when it could not join the cgroup */
    int rc;
    spacrbench_machine machine;
} child_report;

/* Fork a child that joins cgroup dir (unless NULL), pins itself to one CPU
 * (if pin), optionally touches touch_bytes, discovers, and reports. */
static int run_child(const char *dir, int pin, size_t touch_bytes, child_report *out)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        child_report r;
        memset(&r, 0, sizeof r);
        char me[32];
        snprintf(me, sizeof me, "%ld\n", (long)getpid());
        r.moved = dir == NULL || write_text(dir, "cgroup.procs", me) == 0;
        if (pin) {
            cpu_set_t set;
            CPU_ZERO(&set);
            CPU_SET(sched_getcpu() >= 0 ? sched_getcpu() : 0, &set);
            r.moved = r.moved && sched_setaffinity(0, sizeof set, &set) == 0;
        }
        void *mem = touch_bytes ? sb_test_touch_alloc(touch_bytes) : NULL;
        r.machine.size = sizeof r.machine;
        r.rc = r.moved ? spacrbench_discover(&r.machine) : -1;
        if (mem)
            sb_test_touch_free(mem, touch_bytes);
        ssize_t w = write(fds[1], &r, sizeof r);
        _exit(w == (ssize_t)sizeof r ? 0 : 1);
    }
    close(fds[1]);
    size_t got = 0;
    while (got < sizeof *out) {
        ssize_t n = read(fds[0], (char *)out + got, sizeof *out - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return got == sizeof *out && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

START_TEST(real_v1_memory_limit)
{
    char own[1024], cg[1024];
    if (own_v1_dir("memory", "memory", own, sizeof own) != 0) {
        skip("real_v1_memory_limit", "no v1 memory cgroup of ours under /sys/fs/cgroup/memory");
        return;
    }
    if (make_cgroup(own, "mem", cg, sizeof cg) != 0 ||
        write_text(cg, "memory.limit_in_bytes", "1073741824") != 0) {
        char why[1200];
        snprintf(why, sizeof why, "cannot create a limited cgroup under %s: %s", own,
                 strerror(errno));
        remove_created();
        skip("real_v1_memory_limit", why);
        return;
    }
    /* The child touches 64 MiB inside: it is charged to the cgroup, so the
     * headroom must shrink by at least that much. */
    child_report r;
    int ok = run_child(cg, 0, (size_t)(64 * MIB), &r);
    int named = ok == 0 && same_dir(r.machine.memory_cgroup, cg);
    remove_created();
    ck_assert_int_eq(ok, 0);
    if (!r.moved) {
        skip("real_v1_memory_limit", "could not move a child into the test cgroup");
        return;
    }
    ck_assert_int_eq(r.rc, SPACRBENCH_OK);
    ck_assert_int_eq(r.machine.memory_source, SPACRBENCH_SOURCE_CGROUP_V1);
    ck_assert_int_eq(r.machine.memory_limit_bytes, GIB);
    ck_assert_msg(named, "memory_cgroup %s should be %s", r.machine.memory_cgroup, cg);
    ck_assert_int_gt(r.machine.available_bytes, 0);
    ck_assert_int_le(r.machine.available_bytes, GIB - 64 * MIB);
    ck_assert_int_le(r.machine.available_bytes, r.machine.host_available_bytes);
    printf("real v1 cgroup, 1 GiB limit, 64 MiB touched: available %lld bytes\n",
           (long long)r.machine.available_bytes);
}
END_TEST

START_TEST(real_v1_limit_on_parent)
{
    char own[1024], parent[1024], child[1024];
    if (own_v1_dir("memory", "memory", own, sizeof own) != 0) {
        skip("real_v1_limit_on_parent", "no v1 memory cgroup of ours under /sys/fs/cgroup/memory");
        return;
    }
    if (make_cgroup(own, "parent", parent, sizeof parent) != 0 ||
        write_text(parent, "memory.limit_in_bytes", "805306368") != 0 ||
        make_cgroup(parent, "child", child, sizeof child) != 0) {
        char why[1200];
        snprintf(why, sizeof why, "cannot create nested cgroups under %s: %s", own,
                 strerror(errno));
        remove_created();
        skip("real_v1_limit_on_parent", why);
        return;
    }
    child_report r;
    int ok = run_child(child, 0, 0, &r);
    int named = ok == 0 && same_dir(r.machine.memory_cgroup, parent);
    remove_created();
    ck_assert_int_eq(ok, 0);
    if (!r.moved) {
        skip("real_v1_limit_on_parent", "could not move a child into the test cgroup");
        return;
    }
    ck_assert_int_eq(r.rc, SPACRBENCH_OK);
    ck_assert_int_eq(r.machine.memory_source, SPACRBENCH_SOURCE_CGROUP_V1);
    ck_assert_int_eq(r.machine.memory_limit_bytes, 768 * MIB);
    /* The ancestor binds, not our own level. */
    ck_assert_msg(named, "memory_cgroup %s should be %s", r.machine.memory_cgroup, parent);
    ck_assert_int_le(r.machine.available_bytes, 768 * MIB);
}
END_TEST

START_TEST(real_v1_cpu_quota)
{
    char own[1024], cg[1024];
    if (own_v1_dir("cpu", "cpu", own, sizeof own) != 0) {
        skip("real_v1_cpu_quota", "no v1 cpu cgroup of ours under /sys/fs/cgroup/cpu");
        return;
    }
    if (spacrbench_usable_cores() < 2) {
        skip("real_v1_cpu_quota", "fewer than 2 usable cores: a 1-CPU quota would not bind");
        return;
    }
    if (make_cgroup(own, "cpu", cg, sizeof cg) != 0 ||
        write_text(cg, "cpu.cfs_period_us", "100000") != 0 ||
        write_text(cg, "cpu.cfs_quota_us", "100000") != 0) {
        char why[1200];
        snprintf(why, sizeof why, "cannot create a cpu cgroup with a quota under %s: %s", own,
                 strerror(errno));
        remove_created();
        skip("real_v1_cpu_quota", why);
        return;
    }
    child_report r;
    int ok = run_child(cg, 0, 0, &r);
    int named = ok == 0 && same_dir(r.machine.cores_cgroup, cg);
    remove_created();
    ck_assert_int_eq(ok, 0);
    if (!r.moved) {
        skip("real_v1_cpu_quota", "could not move a child into the test cgroup");
        return;
    }
    ck_assert_int_eq(r.rc, SPACRBENCH_OK);
    ck_assert_int_eq(r.machine.cores, 1);
    ck_assert_int_eq(r.machine.cores_source, SPACRBENCH_SOURCE_CGROUP_V1);
    ck_assert(r.machine.cpu_quota_cores == 1.0);
    ck_assert_msg(named, "cores_cgroup %s should be %s", r.machine.cores_cgroup, cg);
    ck_assert_int_ge(r.machine.affinity_cores, 2);
}
END_TEST

START_TEST(real_affinity_one_cpu)
{
    child_report r;
    ck_assert_int_eq(run_child(NULL, 1, 0, &r), 0);
    ck_assert_int_eq(r.moved, 1);
    ck_assert_int_eq(r.rc, SPACRBENCH_OK);
    ck_assert_int_eq(r.machine.cores, 1);
    ck_assert_int_eq(r.machine.affinity_cores, 1);
    ck_assert_int_eq(r.machine.cores_source, SPACRBENCH_SOURCE_AFFINITY);
}
END_TEST

static Suite *discover_suite(void)
{
    Suite *s = suite_create("discover");
    struct {
        const char *name;
        const TTest *test;
        int real_cgroup;
    } cases[] = {
        {"v2_nested_container", v2_nested_container, 0},
        {"v2_affinity_binds_when_tighter", v2_affinity_binds_when_tighter, 0},
        {"v1_slurm_job", v1_slurm_job, 0},
        {"escaped_mount_point", escaped_mount_point, 0},
        {"outside_namespace", outside_namespace_is_host, 0},
        {"garbage_and_missing", garbage_and_missing_files, 0},
        {"rule_memory", rule_memory, 0},
        {"rule_cores", rule_cores, 0},
        {"walk_up", walk_up_to_mount_point, 0},
        {"read_files", read_files_bounded_and_closed, 0},
        {"public_api_live", public_api_live, 0},
        {"real_v1_memory_limit", real_v1_memory_limit, 1},
        {"real_v1_limit_on_parent", real_v1_limit_on_parent, 1},
        {"real_v1_cpu_quota", real_v1_cpu_quota, 1},
        {"real_affinity_one_cpu", real_affinity_one_cpu, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        TCase *tc = tcase_create(cases[i].name);
        if (cases[i].real_cgroup)
            tcase_add_checked_fixture(tc, setup_none, remove_created);
        tcase_add_test(tc, cases[i].test);
        suite_add_tcase(s, tc);
    }
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(discover_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
