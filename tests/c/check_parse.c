/* The pure discovery parsers (src/util/util.h) on recorded /proc and cgroup
 * texts from v1, v2 and hybrid hosts, containers and SLURM jobs, and on
 * garbage. Texts are handed over in exact-size heap buffers without a NUL,
 * so a read past the end shows up under ASan and valgrind. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(_WIN32)
#include <fcntl.h>
#include <io.h>
#define make_pipe(fds) _pipe(fds, 1 << 16, _O_BINARY)
#else
#include <unistd.h>
#define make_pipe(fds) pipe(fds)
#endif

#include "util.h"

typedef struct text {
    char *data;
    size_t len;
} text;

static text load(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", SPACRBENCH_TEST_DATA, rel);
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open recorded text %s", path);
    char buf[65536];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    text t = {malloc(n ? n : 1), n};
    ck_assert_ptr_nonnull(t.data);
    memcpy(t.data, buf, n);
    return t;
}

/* An exact-size copy of a literal, without its NUL. */
static text lit(const char *s)
{
    size_t n = strlen(s);
    text t = {malloc(n ? n : 1), n};
    ck_assert_ptr_nonnull(t.data);
    memcpy(t.data, s, n);
    return t;
}

static void drop(text *t)
{
    free(t->data);
    t->data = NULL;
}

/* The MemAvailable figure of a recorded meminfo, read the plain way. */
static long long recorded_kb(const char *rel, const char *key)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", SPACRBENCH_TEST_DATA, rel);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char line[256], name[64];
    long long kb = -1, v;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "%63[^:]: %lld", name, &v) == 2 && strcmp(name, key) == 0)
            kb = v;
    fclose(f);
    return kb;
}

/* ---- numbers ---- */

static int64_t int_of(const char *s, int *rc)
{
    text t = lit(s);
    int64_t v = 12345;
    *rc = sb_parse_int64(t.data, t.len, &v);
    drop(&t);
    return v;
}

START_TEST(int64_values)
{
    int rc;
    ck_assert_int_eq(int_of(" 42\n", &rc), 42);
    ck_assert_int_eq(rc, SB_PARSE_OK);
    ck_assert_int_eq(int_of("-1\n", &rc), -1);
    ck_assert_int_eq(rc, SB_PARSE_OK);
    ck_assert_int_eq(int_of("9223372036854775807", &rc), INT64_MAX);
    ck_assert_int_eq(rc, SB_PARSE_OK);
    const char *bad[] = {"", "\n", "-", "12a", "9223372036854775808", "--1", "1 2", "0x10"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t v = int_of(bad[i], &rc);
        ck_assert_msg(rc == SB_PARSE_BAD, "'%s' should be rejected", bad[i]);
        ck_assert_int_eq(v, 12345); /* untouched on failure */
    }
}
END_TEST

static int64_t limit_of(const char *s, int *rc)
{
    text t = lit(s);
    int64_t v = 12345;
    *rc = sb_parse_memory_limit(t.data, t.len, &v);
    drop(&t);
    return v;
}

START_TEST(memory_limit_spellings)
{
    int rc;
    const char *unlimited[] = {"max\n",
                               "-1\n",
                               "9223372036854771712\n",
                               "4611686018427387904",
                               "18446744073709551615\n",
                               "99999999999999999999999"};
    for (size_t i = 0; i < sizeof unlimited / sizeof unlimited[0]; i++) {
        ck_assert_msg(limit_of(unlimited[i], &rc) == SB_UNLIMITED, "'%s' means no limit",
                      unlimited[i]);
        ck_assert_int_eq(rc, SB_PARSE_OK);
    }
    ck_assert_int_eq(limit_of("1073741824\n", &rc), INT64_C(1073741824));
    ck_assert_int_eq(rc, SB_PARSE_OK);
    ck_assert_int_eq(limit_of("4611686018427383808", &rc), SB_V1_UNLIMITED_FLOOR - 4096);
    ck_assert_int_eq(limit_of("0", &rc), 0);
    ck_assert_int_eq(rc, SB_PARSE_OK);
    const char *bad[] = {"", "  \n", "-5", "max max", "1G", "maximum", "12 34"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        limit_of(bad[i], &rc);
        ck_assert_msg(rc == SB_PARSE_BAD, "'%s' should be rejected", bad[i]);
    }
}
END_TEST

static int cpu_max_of(const char *s, int64_t *q, int64_t *p)
{
    text t = lit(s);
    *q = *p = 777;
    int rc = sb_parse_cpu_max(t.data, t.len, q, p);
    drop(&t);
    return rc;
}

START_TEST(cpu_max_values)
{
    int64_t q, p;
    ck_assert_int_eq(cpu_max_of("max 100000\n", &q, &p), SB_PARSE_OK);
    ck_assert_int_eq(q, SB_UNLIMITED);
    ck_assert_int_eq(p, 100000);
    ck_assert_int_eq(cpu_max_of("150000 100000\n", &q, &p), SB_PARSE_OK);
    ck_assert_int_eq(q, 150000);
    ck_assert_int_eq(p, 100000);
    ck_assert_int_eq(cpu_max_of("50000", &q, &p), SB_PARSE_OK);
    ck_assert_int_eq(q, 50000);
    ck_assert_int_eq(p, 100000);
    ck_assert_int_eq(cpu_max_of("max", &q, &p), SB_PARSE_OK);
    ck_assert_int_eq(q, SB_UNLIMITED);
    const char *bad[] = {"",       "0 100000", "100000 0", "1 2 3",
                         "-5 100", "+5 100",   "max -1",   "abc 100"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = cpu_max_of(bad[i], &q, &p);
        ck_assert_msg(rc == SB_PARSE_BAD, "'%s' should be rejected", bad[i]);
        ck_assert_int_eq(q, 777);
    }
}
END_TEST

static int cpuset_of(const char *s, int64_t *n)
{
    text t = lit(s);
    *n = 777;
    int rc = sb_parse_cpuset(t.data, t.len, n);
    drop(&t);
    return rc;
}

START_TEST(cpuset_lists)
{
    int64_t n;
    ck_assert_int_eq(cpuset_of("0-3,8,10-11\n", &n), SB_PARSE_OK);
    ck_assert_int_eq(n, 7);
    ck_assert_int_eq(cpuset_of("", &n), SB_PARSE_OK);
    ck_assert_int_eq(n, 0);
    ck_assert_int_eq(cpuset_of("\n", &n), SB_PARSE_OK);
    ck_assert_int_eq(n, 0);
    ck_assert_int_eq(cpuset_of("0-3,2-5", &n), SB_PARSE_OK); /* overlap counted once */
    ck_assert_int_eq(n, 6);
    ck_assert_int_eq(cpuset_of("8191", &n), SB_PARSE_OK);
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(cpuset_of("0-8191", &n), SB_PARSE_OK);
    ck_assert_int_eq(n, SB_MAX_CPUS);
    const char *bad[] = {"3-1", "0-",   "-3", "8192",    ",1",
                         "1,",  "1,,2", "a",  "0-3:1/2", "99999999999999999999999",
                         "0 1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_msg(cpuset_of(bad[i], &n) == SB_PARSE_BAD, "'%s' should be rejected", bad[i]);
        ck_assert_int_eq(n, 777);
    }
}
END_TEST

/* ---- /proc/meminfo and memory.stat ---- */

START_TEST(meminfo_recorded)
{
    text t = load("meminfo/host_6.18.txt");
    int64_t avail = 0, total = 0;
    ck_assert_int_eq(sb_parse_meminfo(t.data, t.len, "MemAvailable", &avail), SB_PARSE_OK);
    ck_assert_int_eq(avail, recorded_kb("meminfo/host_6.18.txt", "MemAvailable") * 1024);
    ck_assert_int_eq(sb_parse_meminfo(t.data, t.len, "MemTotal", &total), SB_PARSE_OK);
    ck_assert_int_gt(total, avail);
    /* A key with no unit is a count, not kB. */
    int64_t pages = -5;
    ck_assert_int_eq(sb_parse_meminfo(t.data, t.len, "HugePages_Total", &pages), SB_PARSE_OK);
    ck_assert_int_eq(pages, recorded_kb("meminfo/host_6.18.txt", "HugePages_Total"));
    /* "MemAvail" is a prefix of a key, not a key. */
    ck_assert_int_eq(sb_parse_meminfo(t.data, t.len, "MemAvail", &pages), SB_PARSE_ABSENT);
    drop(&t);

    t = load("meminfo/kernel_3.10_no_memavailable.txt");
    ck_assert_int_eq(sb_parse_meminfo(t.data, t.len, "MemAvailable", &avail), SB_PARSE_ABSENT);
    drop(&t);
}
END_TEST

START_TEST(meminfo_garbage)
{
    int64_t v = 99;
    const char *absent[] = {"", "\n\n", "MemAvailableX: 5 kB\n", "memavailable: 5 kB"};
    for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++) {
        text t = lit(absent[i]);
        ck_assert_int_eq(sb_parse_meminfo(t.data, t.len, "MemAvailable", &v), SB_PARSE_ABSENT);
        drop(&t);
    }
    const char *bad[] = {"MemAvailable: lots\n",
                         "MemAvailable:\n",
                         "MemAvailable: -5 kB\n",
                         "MemAvailable: 9999999999999999999 kB\n",
                         "MemAvailable: 9007199254740993 kB\n",
                         "MemAvailable: 5 MB\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        text t = lit(bad[i]);
        ck_assert_msg(sb_parse_meminfo(t.data, t.len, "MemAvailable", &v) == SB_PARSE_BAD,
                      "'%s' should be rejected", bad[i]);
        drop(&t);
    }
    ck_assert_int_eq(v, 99);
    text t = lit("MemAvailable:       7 kB"); /* no final newline */
    ck_assert_int_eq(sb_parse_meminfo(t.data, t.len, "MemAvailable", &v), SB_PARSE_OK);
    ck_assert_int_eq(v, 7 * 1024);
    drop(&t);
    ck_assert_int_eq(sb_parse_meminfo(NULL, 0, "MemAvailable", &v), SB_PARSE_BAD);
}
END_TEST

START_TEST(memory_stat_keys)
{
    text t = load("memory_stat/v2_container.txt");
    int64_t v = -7;
    ck_assert_int_eq(sb_parse_stat_key(t.data, t.len, "inactive_file", &v), SB_PARSE_OK);
    ck_assert_int_eq(v, INT64_C(41943040));
    ck_assert_int_eq(sb_parse_stat_key(t.data, t.len, "total_inactive_file", &v), SB_PARSE_ABSENT);
    ck_assert_int_eq(sb_parse_stat_key(t.data, t.len, "inactive", &v), SB_PARSE_ABSENT);
    drop(&t);

    /* The v1 record has both figures; each key finds its own line. */
    t = load("memory_stat/v1_process_api.txt");
    int64_t own = -1, total = -1;
    ck_assert_int_eq(sb_parse_stat_key(t.data, t.len, "inactive_file", &own), SB_PARSE_OK);
    ck_assert_int_eq(sb_parse_stat_key(t.data, t.len, "total_inactive_file", &total), SB_PARSE_OK);
    ck_assert_int_ge(own, 0);
    ck_assert_int_ge(total, own);
    drop(&t);

    t = lit("total_inactive_file 5\n");
    ck_assert_int_eq(sb_parse_stat_key(t.data, t.len, "inactive_file", &v), SB_PARSE_ABSENT);
    drop(&t);
    t = lit("inactive_file five\n");
    ck_assert_int_eq(sb_parse_stat_key(t.data, t.len, "inactive_file", &v), SB_PARSE_BAD);
    drop(&t);
}
END_TEST

/* ---- /proc/self/cgroup ---- */

static int v1_path(const char *rel, const char *ctrl, char *out, size_t cap)
{
    text t = load(rel);
    out[0] = '\0';
    int rc = sb_parse_proc_cgroup_v1(t.data, t.len, ctrl, out, cap);
    drop(&t);
    return rc;
}

static int v2_path(const char *rel, char *out, size_t cap)
{
    text t = load(rel);
    out[0] = '\0';
    int rc = sb_parse_proc_cgroup_v2(t.data, t.len, out, cap);
    drop(&t);
    return rc;
}

START_TEST(proc_cgroup_hybrid)
{
    char p[SB_MOUNT_PATH_MAX];
    const char *rel = "proc_cgroup/hybrid_process_api.txt";
    ck_assert_int_eq(v1_path(rel, "memory", p, sizeof p), SB_PARSE_OK);
    ck_assert_msg(strncmp(p, "/process_api/", 13) == 0 && strlen(p) > 13, "memory path %s", p);
    ck_assert_int_eq(v1_path(rel, "cpu", p, sizeof p), SB_PARSE_OK);
    ck_assert_str_eq(p, "/");
    ck_assert_int_eq(v1_path(rel, "name=systemd", p, sizeof p), SB_PARSE_OK);
    ck_assert_str_eq(p, "/");
    ck_assert_int_eq(v1_path(rel, "hugetlb", p, sizeof p), SB_PARSE_ABSENT);
    ck_assert_int_eq(v2_path(rel, p, sizeof p), SB_PARSE_OK);
    ck_assert_str_eq(p, "/");
}
END_TEST

START_TEST(proc_cgroup_layouts)
{
    char p[SB_MOUNT_PATH_MAX];
    const char *docker = "proc_cgroup/v1_docker_no_cgroupns.txt";
    ck_assert_int_eq(v1_path(docker, "memory", p, sizeof p), SB_PARSE_OK);
    ck_assert_str_eq(p, "/docker/4f1d6a2f0c3b8e9a");
    ck_assert_int_eq(v1_path(docker, "cpuacct", p, sizeof p), SB_PARSE_OK); /* "cpu,cpuacct" */
    ck_assert_str_eq(p, "/docker/4f1d6a2f0c3b8e9a");
    ck_assert_int_eq(v2_path(docker, p, sizeof p), SB_PARSE_OK);
    ck_assert_str_eq(p, "/system.slice/containerd.service");

    const char *slurm = "proc_cgroup/v1_slurm_task.txt";
    ck_assert_int_eq(v1_path(slurm, "memory", p, sizeof p), SB_PARSE_OK);
    ck_assert_str_eq(p, "/slurm/uid_1000/job_4242/step_0/task_0");
    ck_assert_int_eq(v1_path(slurm, "cpuset", p, sizeof p), SB_PARSE_OK);
    ck_assert_str_eq(p, "/slurm/uid_1000/job_4242/step_0");
    ck_assert_int_eq(v1_path(slurm, "cpu", p, sizeof p), SB_PARSE_OK); /* not "cpuset" */
    ck_assert_str_eq(p, "/");
    ck_assert_int_eq(v2_path(slurm, p, sizeof p), SB_PARSE_ABSENT);

    const char *v2 = "proc_cgroup/v2_systemd_user.txt";
    ck_assert_int_eq(v1_path(v2, "memory", p, sizeof p), SB_PARSE_ABSENT);
    ck_assert_int_eq(v2_path(v2, p, sizeof p), SB_PARSE_OK);
    ck_assert_str_eq(p, "/user.slice/user-1000.slice/user@1000.service/app.slice/"
                        "app-org.gnome.Terminal.slice/vte-spawn-5e1c.scope");

    ck_assert_int_eq(v2_path("proc_cgroup/path_with_colon_and_space.txt", p, sizeof p),
                     SB_PARSE_OK);
    ck_assert_str_eq(p, "/machine.slice/my job:1 (x)");
}
END_TEST

START_TEST(proc_cgroup_garbage)
{
    char p[SB_MOUNT_PATH_MAX];
    ck_assert_int_eq(v2_path("proc_cgroup/truncated_last_line.txt", p, sizeof p), SB_PARSE_OK);
    ck_assert_str_eq(p, "/kubepods/burstable");
    ck_assert_int_eq(v1_path("proc_cgroup/truncated_last_line.txt", "memory", p, sizeof p),
                     SB_PARSE_BAD);
    ck_assert_int_eq(v1_path("proc_cgroup/garbage.txt", "memory", p, sizeof p), SB_PARSE_ABSENT);
    ck_assert_int_eq(v2_path("proc_cgroup/garbage.txt", p, sizeof p), SB_PARSE_ABSENT);
    ck_assert_int_eq(v1_path("proc_cgroup/empty.txt", "memory", p, sizeof p), SB_PARSE_ABSENT);
    ck_assert_int_eq(v2_path("proc_cgroup/empty.txt", p, sizeof p), SB_PARSE_ABSENT);
    /* A path that does not fit is refused, not cut. */
    char small[8];
    ck_assert_int_eq(v1_path("proc_cgroup/v1_slurm_task.txt", "memory", small, sizeof small),
                     SB_PARSE_BAD);
    text t = lit("0::relative/path\n");
    ck_assert_int_eq(sb_parse_proc_cgroup_v2(t.data, t.len, p, sizeof p), SB_PARSE_BAD);
    drop(&t);
}
END_TEST

/* ---- mountinfo ---- */

static int unescape(const char *s, char *out, size_t cap)
{
    text t = lit(s);
    int rc = sb_unescape_mount_path(t.data, t.len, out, cap);
    drop(&t);
    return rc;
}

START_TEST(unescape_octal)
{
    char out[64];
    ck_assert_int_eq(unescape("/a\\040b", out, sizeof out), SB_PARSE_OK);
    ck_assert_str_eq(out, "/a b");
    ck_assert_int_eq(unescape("\\011\\012\\134", out, sizeof out), SB_PARSE_OK);
    ck_assert_str_eq(out, "\t\n\\");
    /* Not one of the kernel's escapes, or cut short: kept literally. */
    ck_assert_int_eq(unescape("\\101\\04", out, sizeof out), SB_PARSE_OK);
    ck_assert_str_eq(out, "\\101\\04");
    ck_assert_int_eq(unescape("\\999\\", out, sizeof out), SB_PARSE_OK);
    ck_assert_str_eq(out, "\\999\\");
    ck_assert_int_eq(unescape("", out, sizeof out), SB_PARSE_OK);
    ck_assert_str_eq(out, "");
    ck_assert_int_eq(unescape("/abcd", out, 5), SB_PARSE_BAD); /* needs 6 with the NUL */
    ck_assert_int_eq(unescape("/abc", out, 5), SB_PARSE_OK);
    const char with_nul[] = {'/', 'a', '\0', 'b'};
    ck_assert_int_eq(sb_unescape_mount_path(with_nul, sizeof with_nul, out, sizeof out),
                     SB_PARSE_BAD);
}
END_TEST

static int mount_line(const char *s, sb_mount *m)
{
    text t = lit(s);
    int rc = sb_parse_mountinfo_line(t.data, t.len, m);
    drop(&t);
    return rc;
}

START_TEST(mountinfo_lines)
{
    sb_mount m;
    ck_assert_int_eq(mount_line("35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup "
                                "rw,memory",
                                &m),
                     SB_PARSE_OK);
    ck_assert_str_eq(m.root, "/");
    ck_assert_str_eq(m.point, "/sys/fs/cgroup/memory");
    ck_assert_str_eq(m.fstype, "cgroup");
    ck_assert_str_eq(m.super_opts, "rw,memory");
    /* Optional fields before the separator. */
    ck_assert_int_eq(mount_line("650 647 0:29 /docker/x /sys/fs/cgroup/cpu,cpuacct ro "
                                "shared:9 master:16 - cgroup cgroup rw,cpu,cpuacct",
                                &m),
                     SB_PARSE_OK);
    ck_assert_str_eq(m.root, "/docker/x");
    ck_assert_str_eq(m.super_opts, "rw,cpu,cpuacct");
    /* Escaped point; no super options. */
    ck_assert_int_eq(mount_line("1 2 3:4 /my\\040slice /srv/my\\040cg rw - cgroup2 none", &m),
                     SB_PARSE_OK);
    ck_assert_str_eq(m.root, "/my slice");
    ck_assert_str_eq(m.point, "/srv/my cg");
    ck_assert_str_eq(m.super_opts, "");
    /* The separator must come after the six fixed fields. */
    const char *bad[] = {"",
                         "1 2 3:4 / /a rw",
                         "1 2 3:4 / /a rw -",
                         "1 2 3:4 / /a rw - cgroup2",
                         "1 2 - / /a rw cgroup2 x y",
                         "- - - - - - - - -"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(mount_line(bad[i], &m) == SB_PARSE_BAD, "'%s' should be rejected", bad[i]);
}
END_TEST

START_TEST(mountinfo_overlong_fields)
{
    /* A mount point longer than our buffers is refused, not cut. */
    size_t n = 3 * SB_MOUNT_PATH_MAX;
    char *line = malloc(n + 64);
    ck_assert_ptr_nonnull(line);
    int head = snprintf(line, 64, "1 2 3:4 / /");
    memset(line + head, 'p', n);
    memcpy(line + head + n, " rw - cgroup2 c rw", 18);
    sb_mount m;
    ck_assert_int_eq(sb_parse_mountinfo_line(line, (size_t)head + n + 18, &m), SB_PARSE_BAD);
    free(line);
}
END_TEST

static int locate(const char *rel, int version, const char *ctrl, const char *path,
                  sb_cgroup_location *loc)
{
    text t = load(rel);
    sb_cgroup_query q = {version, ctrl, path};
    memset(loc, 0, sizeof *loc);
    int rc = sb_locate_cgroup(t.data, t.len, &q, loc);
    drop(&t);
    return rc;
}

START_TEST(locate_hybrid)
{
    /* This machine's layout: memory on v1, cgroup2 without controllers. */
    char path[SB_MOUNT_PATH_MAX];
    ck_assert_int_eq(v1_path("proc_cgroup/hybrid_process_api.txt", "memory", path, sizeof path),
                     SB_PARSE_OK);
    sb_cgroup_location loc;
    const char *mi = "mountinfo/hybrid_process_api.txt";
    ck_assert_int_eq(locate(mi, 1, "memory", path, &loc), SB_PARSE_OK);
    char want[2 * SB_MOUNT_PATH_MAX];
    snprintf(want, sizeof want, "/sys/fs/cgroup/memory%s", path);
    ck_assert_str_eq(loc.dir, want);
    ck_assert_str_eq(loc.mount_point, "/sys/fs/cgroup/memory");
    ck_assert_int_eq(locate(mi, 1, "cpu", "/", &loc), SB_PARSE_OK);
    ck_assert_str_eq(loc.dir, "/sys/fs/cgroup/cpu");
    ck_assert_int_eq(locate(mi, 2, NULL, "/", &loc), SB_PARSE_OK);
    ck_assert_str_eq(loc.dir, "/sys/fs/cgroup/unified");
    ck_assert_int_eq(locate(mi, 1, "hugetlb", "/", &loc), SB_PARSE_ABSENT);
}
END_TEST

START_TEST(locate_container_roots)
{
    sb_cgroup_location loc;
    const char *mi = "mountinfo/v1_docker_no_cgroupns.txt";
    /* The container's own cgroup is the mount root: it IS the mount point. */
    ck_assert_int_eq(locate(mi, 1, "memory", "/docker/4f1d6a2f0c3b8e9a", &loc), SB_PARSE_OK);
    ck_assert_str_eq(loc.dir, "/sys/fs/cgroup/memory");
    ck_assert_str_eq(loc.mount_point, "/sys/fs/cgroup/memory");
    ck_assert_int_eq(locate(mi, 1, "cpu", "/docker/4f1d6a2f0c3b8e9a/sub", &loc), SB_PARSE_OK);
    ck_assert_str_eq(loc.dir, "/sys/fs/cgroup/cpu,cpuacct/sub");
    /* Outside the mount root, or only a name prefix of it: not visible. */
    ck_assert_int_eq(locate(mi, 1, "memory", "/docker/other", &loc), SB_PARSE_NOT_VISIBLE);
    ck_assert_int_eq(locate(mi, 1, "memory", "/docker/4f1d6a2f0c3b8e9afoo", &loc),
                     SB_PARSE_NOT_VISIBLE);
    ck_assert_int_eq(locate(mi, 2, NULL, "/", &loc), SB_PARSE_ABSENT);

    const char *v2 = "mountinfo/v2_systemd.txt";
    ck_assert_int_eq(locate(v2, 2, NULL, "/user.slice/a.scope/", &loc), SB_PARSE_OK);
    ck_assert_str_eq(loc.dir, "/sys/fs/cgroup/user.slice/a.scope");
    ck_assert_int_eq(locate(v2, 2, NULL, "/../../system.slice", &loc), SB_PARSE_NOT_VISIBLE);
    ck_assert_int_eq(locate(v2, 1, "memory", "/", &loc), SB_PARSE_ABSENT);

    const char *two = "mountinfo/v2_two_mounts_longest_root.txt";
    ck_assert_int_eq(locate(two, 2, NULL, "/kubepods/pod1/c", &loc), SB_PARSE_OK);
    ck_assert_str_eq(loc.dir, "/host/pod1/c");
    ck_assert_str_eq(loc.mount_point, "/host/pod1");
    ck_assert_int_eq(locate(two, 2, NULL, "/kubepods/pod2", &loc), SB_PARSE_OK);
    ck_assert_str_eq(loc.dir, "/sys/fs/cgroup/kubepods/pod2");
}
END_TEST

START_TEST(locate_escaped_and_garbage)
{
    sb_cgroup_location loc;
    const char *esc = "mountinfo/escaped_spaces.txt";
    ck_assert_int_eq(locate(esc, 2, NULL, "/x", &loc), SB_PARSE_OK);
    ck_assert_str_eq(loc.dir, "/mnt/cgroup v2\ttab\nnl\\bs/x");
    ck_assert_int_eq(locate(esc, 1, "memory", "/my slice/a b", &loc), SB_PARSE_OK);
    ck_assert_str_eq(loc.dir, "/srv/my cg/a b");

    /* Garbage lines are skipped; the one good line still counts. */
    ck_assert_int_eq(locate("mountinfo/garbage.txt", 2, NULL, "/x", &loc), SB_PARSE_OK);
    ck_assert_str_eq(loc.dir, "/a/x");
    ck_assert_int_eq(locate("mountinfo/empty.txt", 2, NULL, "/x", &loc), SB_PARSE_ABSENT);
    ck_assert_int_eq(locate("mountinfo/v2_systemd.txt", 2, NULL, "relative", &loc), SB_PARSE_BAD);
    ck_assert_int_eq(locate("mountinfo/v2_systemd.txt", 3, NULL, "/", &loc), SB_PARSE_BAD);
    ck_assert_int_eq(locate("mountinfo/v2_systemd.txt", 1, NULL, "/", &loc), SB_PARSE_BAD);
}
END_TEST

START_TEST(overlong_lines_do_not_hide_good_ones)
{
    size_t big = 200000;
    text t = load("mountinfo/hybrid_process_api.txt");
    size_t n = big + 1 + t.len;
    char *buf = malloc(n);
    ck_assert_ptr_nonnull(buf);
    memset(buf, 'x', big);
    buf[big] = '\n';
    memcpy(buf + big + 1, t.data, t.len);
    drop(&t);
    sb_cgroup_query q = {1, "memory", "/a"};
    sb_cgroup_location loc;
    ck_assert_int_eq(sb_locate_cgroup(buf, n, &q, &loc), SB_PARSE_OK);
    ck_assert_str_eq(loc.dir, "/sys/fs/cgroup/memory/a");
    char p[64];
    memcpy(buf + big + 1, "0::/ok\n", 7);
    ck_assert_int_eq(sb_parse_proc_cgroup_v2(buf, big + 8, p, sizeof p), SB_PARSE_OK);
    ck_assert_str_eq(p, "/ok");
    free(buf);
}
END_TEST

/* Durations people write: --timeout's units (compound ones included, as
 * SLURM users write them) and SLURM's --time clock forms, exact. */
START_TEST(duration_spellings)
{
    static const struct {
        const char *text;
        double seconds;
    } good[] = {
        {"10", 10},
        {"1.5", 1.5},
        {"90s", 90},
        {"2m", 120},
        {"1h", 3600},
        {"1h30m", 5400},
        {"90m", 5400},
        {"1h30m15s", 5415},
        {"1.5h", 5400},
        {"2d12h", 216000},
        {"0", 0},
        {"1:30", 90},
        {"1:30:00", 5400},
        {"2-00:00:00", 172800},
        {"1-12", 129600},
        {"0-1:30", 5400},
        {"0.000000001", 1e-9},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        double v = -1;
        ck_assert_msg(sb_parse_duration(good[i].text, strlen(good[i].text), &v) == SB_PARSE_OK,
                      "'%s' refused", good[i].text);
        ck_assert_msg(v == good[i].seconds, "'%s': %.17g", good[i].text, v);
    }
    static const char *const bad[] = {"",   "1h30",    "30m1h", "1h1h", "1:2:3:4", "-1",
                                      "1-", "12345-1", "1e3",   "1.",   ".5",      "1x",
                                      "h",  "1 h",     "1:",    "1::2", "1.5:00",  "1234567890"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double v = -1;
        ck_assert_msg(sb_parse_duration(bad[i], strlen(bad[i]), &v) == SB_PARSE_BAD && v == -1,
                      "'%s' accepted: %g", bad[i], v);
    }
    /* Bounded by len: "1h" of "1h30m". */
    double v = 0;
    ck_assert_int_eq(sb_parse_duration("1h30m", 2, &v), SB_PARSE_OK);
    ck_assert(v == 3600);
    /* A share: --sample-cost's and the replay's, strict. */
    static const struct {
        const char *text;
        double share;
    } shares[] = {{"5%", 0.05}, {"0.05", 0.05}, {"100%", 1}, {"0", 0}, {"1", 1}, {".5", 0.5}};
    for (size_t i = 0; i < sizeof shares / sizeof shares[0]; i++) {
        double f = -1;
        ck_assert_msg(sb_parse_share(shares[i].text, strlen(shares[i].text), &f) == SB_PARSE_OK &&
                          f == shares[i].share,
                      "'%s': %g", shares[i].text, f);
    }
    static const char *const not_shares[] = {"",    "abc", "-1",  "nan",  "inf", "1.5",  "101%",
                                             "5%%", "5 %", " 5%", "0.1x", "-0%", "1e400"};
    for (size_t i = 0; i < sizeof not_shares / sizeof not_shares[0]; i++) {
        double f = -1;
        ck_assert_msg(sb_parse_share(not_shares[i], strlen(not_shares[i]), &f) == SB_PARSE_BAD &&
                          f == -1,
                      "'%s' accepted: %g", not_shares[i], f);
    }
    /* SLURM's own reading: a bare number is minutes there. */
    int64_t s = 0;
    ck_assert_int_eq(sb_parse_slurm_time("90", 2, &s), SB_PARSE_OK);
    ck_assert_int_eq(s, 5400);
    ck_assert_int_eq(sb_parse_slurm_time("INFINITE", 8, &s), SB_PARSE_BAD);
}
END_TEST

/* Every parser on deterministic pseudo-random bytes: each answer must be
 * one of the documented results (and ASan/valgrind see no bad access). */
START_TEST(random_bytes_never_crash)
{
    uint32_t x = 2463534242u;
    char *buf = malloc(512);
    ck_assert_ptr_nonnull(buf);
    static const char alphabet[] = "0123456789-,: \n/\\max.kBdhs";
    for (int round = 0; round < 4000; round++) {
        size_t n = 0;
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        size_t len = x % 512;
        for (; n < len; n++) {
            x ^= x << 13, x ^= x >> 17, x ^= x << 5;
            buf[n] = (round & 1) ? (char)(x & 0xff) : alphabet[x % (sizeof alphabet - 1)];
        }
        int64_t a, b;
        double d;
        char p[128];
        sb_mount m;
        sb_cgroup_location loc;
        sb_cgroup_query q = {1 + (round & 1), "memory", "/a/b"};
        int rcs[] = {sb_parse_int64(buf, n, &a),
                     sb_parse_memory_limit(buf, n, &a),
                     sb_parse_cpu_max(buf, n, &a, &b),
                     sb_parse_cpuset(buf, n, &a),
                     sb_parse_meminfo(buf, n, "MemAvailable", &a),
                     sb_parse_stat_key(buf, n, "inactive_file", &a),
                     sb_parse_proc_cgroup_v1(buf, n, "memory", p, sizeof p),
                     sb_parse_proc_cgroup_v2(buf, n, p, sizeof p),
                     sb_unescape_mount_path(buf, n, p, sizeof p),
                     sb_parse_mountinfo_line(buf, n, &m),
                     sb_locate_cgroup(buf, n, &q, &loc),
                     sb_parse_slurm_time(buf, n, &a),
                     sb_parse_duration(buf, n, &d)};
        for (size_t i = 0; i < sizeof rcs / sizeof rcs[0]; i++)
            ck_assert_msg(rcs[i] >= SB_PARSE_BAD && rcs[i] <= SB_PARSE_NOT_VISIBLE,
                          "parser %zu answered %d", i, rcs[i]);
    }
    free(buf);
}
END_TEST

/* The one growing array keeps what it held and refuses a count no
 * allocation could hold instead of wrapping around to a small buffer. */
START_TEST(grow_keeps_contents_and_refuses_overflow)
{
    int *a = NULL;
    size_t cap = 0;
    for (int i = 0; i < 1000; i++) {
        ck_assert_int_eq(sb_grow(&a, &cap, (size_t)i + 1, sizeof *a), 0);
        ck_assert_uint_ge(cap, (size_t)i + 1);
        a[i] = i;
    }
    for (int i = 0; i < 1000; i++)
        ck_assert_int_eq(a[i], i);
    int *held = a;
    size_t held_cap = cap;
    ck_assert_int_eq(sb_grow(&a, &cap, SIZE_MAX / 2, sizeof *a), -1);
    ck_assert_int_eq(sb_grow(&a, &cap, SIZE_MAX, 1), -1);
    ck_assert_int_eq(sb_grow(&a, &cap, 10, sizeof *a), 0);
    ck_assert_ptr_eq(a, held);
    ck_assert_uint_eq(cap, held_cap);
    free(a);
}
END_TEST

/* A whole file up to a limit: what is longer is cut there and said so. */
START_TEST(read_fd_stops_at_the_limit)
{
    char data[10000];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (char)('a' + i % 26);
    const size_t limits[] = {4096, sizeof data, 1 << 20};
    for (size_t k = 0; k < sizeof limits / sizeof limits[0]; k++) {
        int fds[2];
        ck_assert_int_eq(make_pipe(fds), 0);
        ck_assert_int_eq(write(fds[1], data, sizeof data), (int)sizeof data);
        close(fds[1]);
        char *got = NULL;
        size_t len = 0;
        int truncated = -1;
        ck_assert_int_eq(sb_read_fd(fds[0], limits[k], &got, &len, &truncated), 0);
        close(fds[0]);
        size_t want = limits[k] < sizeof data ? limits[k] : sizeof data;
        ck_assert_uint_eq(len, want);
        ck_assert_int_eq(truncated, limits[k] < sizeof data);
        ck_assert_int_eq(memcmp(got, data, want), 0);
        ck_assert_int_eq(got[len], '\0');
        free(got);
    }
}
END_TEST

static Suite *parse_suite(void)
{
    Suite *s = suite_create("parse");
    struct {
        const char *name;
        const TTest *test;
    } cases[] = {
        {"int64", int64_values},
        {"memory_limit", memory_limit_spellings},
        {"cpu_max", cpu_max_values},
        {"cpuset", cpuset_lists},
        {"meminfo", meminfo_recorded},
        {"meminfo_garbage", meminfo_garbage},
        {"memory_stat", memory_stat_keys},
        {"proc_cgroup_hybrid", proc_cgroup_hybrid},
        {"proc_cgroup_layouts", proc_cgroup_layouts},
        {"proc_cgroup_garbage", proc_cgroup_garbage},
        {"unescape", unescape_octal},
        {"mountinfo_lines", mountinfo_lines},
        {"mountinfo_overlong", mountinfo_overlong_fields},
        {"locate_hybrid", locate_hybrid},
        {"locate_containers", locate_container_roots},
        {"locate_escaped_garbage", locate_escaped_and_garbage},
        {"overlong_lines", overlong_lines_do_not_hide_good_ones},
        {"durations", duration_spellings},
        {"random_bytes", random_bytes_never_crash},
        {"grow", grow_keeps_contents_and_refuses_overflow},
        {"read_fd", read_fd_stops_at_the_limit},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        TCase *tc = tcase_create(cases[i].name);
        tcase_add_test(tc, cases[i].test);
        suite_add_tcase(s, tc);
    }
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(parse_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
