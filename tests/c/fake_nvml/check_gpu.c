/* The GPU probe against a scripted fake libnvidia-ml.so.1 (fake_nvml.h):
 * every branch of sb_gpu_*, the NSpid parser, and VRAM figures through the
 * public spacrbench_benchmark. The fake is loaded by path, so this machine
 * needs no GPU and no driver. */
#include <check.h>
#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fake_nvml.h"
#include "gpu.h"
#include "spacrbench.h"

#define GiB (1LL << 30)
#define MiB (1LL << 20)

/* ---- fixture: the fake stays loaded, so its controls and counters
 * survive the probe's dlclose ----------------------------------------- */

typedef struct fake_controls {
    void *lib;
    fake_nvml_set_used_fn set_used;
    fake_nvml_queries_fn queries;
    fake_nvml_fail_fn make_fail;
    fake_nvml_live_inits_fn live_inits;
    fake_nvml_last_version_fn last_version;
} fake_controls;

static fake_controls fake;
static char script_path[64];

static void *find(void *lib, const char *name)
{
    void *sym = dlsym(lib, name);
    ck_assert_msg(sym != NULL, "fake NVML lacks %s", name);
    return sym;
}

static void load_fake(const char *path)
{
    if (fake.lib)
        dlclose(fake.lib);
    memset(&fake, 0, sizeof fake);
    fake.lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    ck_assert_msg(fake.lib != NULL, "cannot load the fake NVML %s: %s", path, dlerror());
    void *p;
    p = find(fake.lib, "fake_nvml_set_used");
    memcpy(&fake.set_used, &p, sizeof p);
    p = find(fake.lib, "fake_nvml_queries");
    memcpy(&fake.queries, &p, sizeof p);
    p = find(fake.lib, "fake_nvml_fail");
    memcpy(&fake.make_fail, &p, sizeof p);
    p = find(fake.lib, "fake_nvml_live_inits");
    memcpy(&fake.live_inits, &p, sizeof p);
    p = find(fake.lib, "fake_nvml_last_version");
    memcpy(&fake.last_version, &p, sizeof p);
    setenv("SPACRBENCH_NVML_LIBRARY", path, 1);
}

static void setup(void)
{
    snprintf(script_path, sizeof script_path, "/tmp/spacrbench-fake-nvml-XXXXXX");
    int fd = mkstemp(script_path);
    ck_assert_msg(fd >= 0, "mkstemp: %s", strerror(errno));
    close(fd);
    setenv("SPACRBENCH_FAKE_NVML_SCRIPT", script_path, 1);
    load_fake(FAKE_NVML_FULL);
}

static void teardown(void)
{
    unlink(script_path);
    unsetenv("SPACRBENCH_FAKE_NVML_SCRIPT");
    if (fake.lib)
        dlclose(fake.lib);
    memset(&fake, 0, sizeof fake);
}

static void script(const char *text)
{
    FILE *f = fopen(script_path, "w");
    ck_assert_msg(f != NULL, "cannot write %s", script_path);
    fputs(text, f);
    fclose(f);
}

static sb_gpu *open_ok(void)
{
    char why[256] = "";
    sb_gpu *gpu = sb_gpu_open(why, sizeof why);
    ck_assert_msg(gpu != NULL, "sb_gpu_open failed: %s", why);
    ck_assert_int_eq(fake.live_inits(), 1);
    return gpu;
}

/* Opening must fail with a reason containing expected, and leave NVML
 * shut down again. */
static void expect_open_fails(const char *expected)
{
    char why[256] = "";
    sb_gpu *gpu = sb_gpu_open(why, sizeof why);
    ck_assert_msg(gpu == NULL, "sb_gpu_open succeeded; expected \"%s\"", expected);
    ck_assert_msg(strstr(why, expected) != NULL, "why is \"%s\", expected \"%s\"", why, expected);
    ck_assert_int_eq(fake.live_inits(), 0);
}

static void close_ok(sb_gpu *gpu)
{
    sb_gpu_close(gpu);
    ck_assert_int_eq(fake.live_inits(), 0); /* nvmlShutdown was called */
}

static spacrbench_gpu_info info_of(sb_gpu *gpu, size_t i)
{
    spacrbench_gpu_info info;
    memset(&info, 0, sizeof info);
    info.size = sizeof info;
    ck_assert_int_eq(sb_gpu_info(gpu, i, &info), 0);
    return info;
}

/* ---- no measurement possible: NULL with a reason ---------------------- */

START_TEST(no_library_at_override_path)
{
    setenv("SPACRBENCH_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    char why[256] = "";
    ck_assert_ptr_null(sb_gpu_open(why, sizeof why));
    ck_assert_msg(strstr(why, "cannot load NVML from SPACRBENCH_NVML_LIBRARY=/nonexistent") != NULL,
                  "why: %s", why);
}
END_TEST

START_TEST(no_driver_on_this_machine)
{
    /* The loaded fake has the SONAME libnvidia-ml.so.1 and would answer a
     * dlopen by that name: unload it first. */
    dlclose(fake.lib);
    fake.lib = NULL;
    void *real = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (real) {
        dlclose(real);
        printf("SKIP no_driver_on_this_machine: a real libnvidia-ml.so.1 is installed here\n");
        return;
    }
    unsetenv("SPACRBENCH_NVML_LIBRARY");
    char why[256] = "";
    ck_assert_ptr_null(sb_gpu_open(why, sizeof why));
    ck_assert_str_eq(why, "no NVIDIA driver: libnvidia-ml.so.1 not found");
}
END_TEST

START_TEST(init_failure)
{
    script("device 16G 16G Fake\ninit_fail 9\n");
    expect_open_fails("NVML init failed: Driver Not Loaded (NVML error 9)");
}
END_TEST

START_TEST(mistyped_script_fails_init)
{
    script("device 16G 16G Fake\nbogus directive\n");
    expect_open_fails("NVML init failed");
}
END_TEST

START_TEST(zero_devices)
{
    script("# no devices\n");
    expect_open_fails("no GPU devices");
}
END_TEST

START_TEST(count_failure)
{
    script("device 16G 16G Fake\ncount_fail 999\n");
    expect_open_fails("NVML device count failed: Unknown Error (NVML error 999)");
}
END_TEST

START_TEST(no_device_can_be_opened)
{
    script("device 16G 16G A\ndevice 16G 16G B\nhandle_fail 0 4\nhandle_fail 1 4\n");
    expect_open_fails(
        "no usable GPU devices: 2 found, none could be opened (Insufficient Permissions");
}
END_TEST

START_TEST(per_process_figures_not_supported)
{
    script("device 16G 16G Fake vGPU\ncompute_fail 0 3\n");
    expect_open_fails("per-process GPU memory unavailable on GPU 0 (Fake vGPU): Not Supported");
}
END_TEST

START_TEST(required_symbol_missing)
{
    load_fake(FAKE_NVML_NO_MEMORY_INFO);
    script("device 16G 16G Fake\n");
    expect_open_fails("NVML lacks nvmlDeviceGetMemoryInfo");
}
END_TEST

/* ---- figures ---------------------------------------------------------- */

START_TEST(timeline_with_short_spike)
{
    script("device 80G 70G Fake H100\nused 0 0 512M 3G 512M 0\n");
    sb_gpu *gpu = open_ok();
    const int64_t expected[] = {0, 512 * MiB, 3 * GiB, 512 * MiB, 0, 0};
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++)
        ck_assert_msg(sb_gpu_sample(gpu) == expected[i], "sample %zu", i);
    ck_assert_uint_eq(sb_gpu_count(gpu), 1);
    spacrbench_gpu_info info = info_of(gpu, 0);
    ck_assert_str_eq(info.name, "Fake H100");
    ck_assert_int_eq(info.index, 0);
    ck_assert_int_eq(info.total_bytes, 80 * GiB);
    ck_assert_int_eq(info.free_bytes, 70 * GiB);
    ck_assert_int_eq(info.process_peak_bytes, 3 * GiB);
    ck_assert_int_eq(sb_gpu_failed_samples(gpu), 0);
    ck_assert_str_eq(sb_gpu_last_error(gpu), "");
    close_ok(gpu);
}
END_TEST

START_TEST(unused_device_contributes_zero)
{
    script("device 16G 16G A\ndevice 24G 20G B\nused 1 1G 2G\n");
    sb_gpu *gpu = open_ok();
    ck_assert_int_eq(sb_gpu_sample(gpu), 1 * GiB);
    ck_assert_int_eq(sb_gpu_sample(gpu), 2 * GiB);
    ck_assert_uint_eq(sb_gpu_count(gpu), 2);
    ck_assert_int_eq(info_of(gpu, 0).process_peak_bytes, 0);
    ck_assert_int_eq(info_of(gpu, 1).process_peak_bytes, 2 * GiB);
    ck_assert_str_eq(info_of(gpu, 1).name, "B");
    close_ok(gpu);
}
END_TEST

START_TEST(sum_over_devices)
{
    script("device 16G 16G A\ndevice 16G 16G B\nused 0 1G 3G\nused 1 2G 1G\n");
    sb_gpu *gpu = open_ok();
    ck_assert_int_eq(sb_gpu_sample(gpu), 3 * GiB);
    ck_assert_int_eq(sb_gpu_sample(gpu), 4 * GiB);
    ck_assert_int_eq(info_of(gpu, 0).process_peak_bytes, 3 * GiB);
    ck_assert_int_eq(info_of(gpu, 1).process_peak_bytes, 2 * GiB);
    close_ok(gpu);
}
END_TEST

START_TEST(process_that_used_nothing_is_zero)
{
    script("device 16G 16G Fake\nother 0 1 5G\n");
    sb_gpu *gpu = open_ok();
    ck_assert_int_eq(sb_gpu_sample(gpu), 0);
    ck_assert_int_eq(info_of(gpu, 0).process_peak_bytes, 0);
    close_ok(gpu);
}
END_TEST

START_TEST(other_processes_are_ignored)
{
    char text[256];
    snprintf(text, sizeof text, "device 16G 16G Fake\nother 0 1 5G\nother 0 %u 7G\nused 0 1G\n",
             (unsigned)getpid() + 1);
    script(text);
    sb_gpu *gpu = open_ok();
    ck_assert_int_eq(sb_gpu_sample(gpu), 1 * GiB);
    close_ok(gpu);
}
END_TEST

/* A set of PIDs (a command's process tree): their entries are summed over
 * devices, others' are not, and this process's own entry is not in it. */
START_TEST(a_set_of_pids_sums_its_entries)
{
    script("device 16G 16G Fake\nother 0 101 1G\nother 0 102 2G\nother 0 103 4G\n"
           "device 16G 16G Fake\nother 1 103 512M\nused 0 8G\n");
    sb_gpu *gpu = open_ok();
    ck_assert(sb_gpu_pids_are_host(gpu)); /* the test runs in the initial namespace */
    const unsigned int tree[] = {101, 103, 999};
    ck_assert_int_eq(sb_gpu_sample_pids(gpu, tree, 3), 5 * GiB + 512 * MiB);
    ck_assert_int_eq(sb_gpu_sample_pids(gpu, tree, 0), 0);
    ck_assert_int_eq(sb_gpu_sample_pids(gpu, NULL, 1), -1);
    /* The set does not stick: the next plain sample is this process's. */
    ck_assert_int_eq(sb_gpu_sample(gpu), 8 * GiB);
    close_ok(gpu);
}
END_TEST

/* pids_in: live processes named in a directory, as the tests of
 * `spacrbench run` use it; a dead PID's file is not listed. */
START_TEST(fake_lists_live_pids_of_a_directory)
{
    char dir[] = "/tmp/sbgpu-pids-XXXXXX", path[256], text[512];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    pid_t dead = fork();
    if (dead == 0)
        _exit(0);
    waitpid(dead, NULL, 0);
    unsigned int me = (unsigned)getpid(), gone = (unsigned)dead;
    snprintf(path, sizeof path, "%s/%u", dir, me);
    fclose(fopen(path, "w"));
    snprintf(path, sizeof path, "%s/%u", dir, gone);
    fclose(fopen(path, "w"));
    snprintf(text, sizeof text, "device 16G 16G Fake\npids_in 0 %s 300M\n", dir);
    script(text);
    sb_gpu *gpu = open_ok();
    const unsigned int both[] = {me, gone};
    ck_assert_int_eq(sb_gpu_sample_pids(gpu, both, 2), 300 * MiB);
    close_ok(gpu);
    snprintf(path, sizeof path, "%s/%u", dir, gone);
    unlink(path);
    snprintf(path, sizeof path, "%s/%u", dir, me);
    unlink(path);
    rmdir(dir);
}
END_TEST

START_TEST(a_pid_that_is_not_ours_is_zero)
{
    script("device 16G 16G Fake\npid 4294967\nused 0 2G\n");
    sb_gpu *gpu = open_ok();
    ck_assert_int_eq(sb_gpu_sample(gpu), 0);
    close_ok(gpu);
}
END_TEST

/* Each variant of the fake offers a different newest query; others are
 * listed before us, so a wrong entry stride would misread our figure. */
static void check_api_version(const char *library, int version)
{
    load_fake(library);
    script("device 16G 16G Fake\nothers 0 3\nused 0 1536M\n");
    sb_gpu *gpu = open_ok();
    ck_assert_int_eq(sb_gpu_process_api_version(gpu), version);
    ck_assert_int_eq(sb_gpu_sample(gpu), 1536 * MiB);
    ck_assert_int_eq(fake.last_version(), version);
    close_ok(gpu);
}

START_TEST(uses_v3_when_present) { check_api_version(FAKE_NVML_FULL, 3); }
END_TEST
START_TEST(falls_back_to_v2) { check_api_version(FAKE_NVML_NO_V3, 2); }
END_TEST
START_TEST(falls_back_to_v1) { check_api_version(FAKE_NVML_V1_ONLY, 1); }
END_TEST

/* R535.43-535.86 drivers wrote 32-byte _v3 entries: read with the 24-byte
 * stride, our entry behind three others would be missed (a false 0), and a
 * full buffer would overflow. */
START_TEST(r535_v3_entries_are_read_with_their_own_size)
{
    load_fake(FAKE_NVML_V3_CC);
    script("device 16G 16G Fake\nothers 0 3\nused 0 1536M\n");
    sb_gpu *gpu = open_ok();
    ck_assert_int_eq(sb_gpu_process_api_version(gpu), 3);
    ck_assert_uint_eq(sb_gpu_process_entry_size(gpu), 32);
    ck_assert_int_eq(sb_gpu_sample(gpu), 1536 * MiB);
    close_ok(gpu);
    load_fake(FAKE_NVML_V3_CC);
    script("device 16G 16G Fake\nothers 0 200\nused 0 700M\n");
    gpu = open_ok();
    ck_assert_int_eq(sb_gpu_sample(gpu), 700 * MiB);
    close_ok(gpu);
    load_fake(FAKE_NVML_FULL);
    script("device 16G 16G Fake\nused 0 1G\n");
    gpu = open_ok();
    ck_assert_uint_eq(sb_gpu_process_entry_size(gpu), 24);
    close_ok(gpu);
}
END_TEST

START_TEST(long_list_grows_the_buffer)
{
    script("device 16G 16G Fake\nothers 0 200\nused 0 700M\n");
    sb_gpu *gpu = open_ok();
    ck_assert_int_eq(sb_gpu_sample(gpu), 700 * MiB);
    ck_assert_int_eq(sb_gpu_sample(gpu), 700 * MiB);
    close_ok(gpu);
}
END_TEST

START_TEST(insufficient_size_on_first_call)
{
    script("device 16G 16G Fake\ninsufficient_first\nused 0 1G 2G\n");
    sb_gpu *gpu = open_ok();
    ck_assert_int_eq(sb_gpu_sample(gpu), 1 * GiB);
    ck_assert_int_eq(sb_gpu_sample(gpu), 2 * GiB);
    ck_assert_int_eq(sb_gpu_failed_samples(gpu), 0);
    close_ok(gpu);
}
END_TEST

START_TEST(insufficient_size_forever_fails_the_sample)
{
    script("device 16G 16G Fake\ninsufficient_always\nused 0 1G\n");
    sb_gpu *gpu = open_ok();
    ck_assert_int_eq(sb_gpu_sample(gpu), -1);
    ck_assert_msg(strstr(sb_gpu_last_error(gpu), "Insufficient Size") != NULL, "%s",
                  sb_gpu_last_error(gpu));
    ck_assert_int_eq(sb_gpu_failed_samples(gpu), 1);
    close_ok(gpu);
}
END_TEST

/* A wild count must not turn into a huge allocation (ASan would abort). */
START_TEST(implausible_count_is_not_allocated)
{
    script("device 16G 16G Fake\ninsufficient_always 4294967295\nused 0 1G\n");
    sb_gpu *gpu = open_ok();
    ck_assert_int_eq(sb_gpu_sample(gpu), -1);
    ck_assert_msg(strstr(sb_gpu_last_error(gpu), "Insufficient Size") != NULL, "%s",
                  sb_gpu_last_error(gpu));
    close_ok(gpu);
}
END_TEST

START_TEST(value_not_available_is_unknown)
{
    script("device 16G 16G Fake\nused 0 1G na 2G\n");
    sb_gpu *gpu = open_ok();
    ck_assert_int_eq(sb_gpu_sample(gpu), 1 * GiB);
    ck_assert_int_eq(sb_gpu_sample(gpu), -1);
    ck_assert_msg(strstr(sb_gpu_last_error(gpu), "NVML_VALUE_NOT_AVAILABLE") != NULL, "%s",
                  sb_gpu_last_error(gpu));
    ck_assert_int_eq(sb_gpu_sample(gpu), 2 * GiB);
    ck_assert_int_eq(info_of(gpu, 0).process_peak_bytes, 2 * GiB);
    ck_assert_int_eq(sb_gpu_failed_samples(gpu), 1);
    close_ok(gpu);
}
END_TEST

START_TEST(failure_mid_run_keeps_earlier_peaks)
{
    script("device 16G 16G A\ndevice 16G 16G B\nused 0 1G 5G 1G\nused 1 1G fail 1G\n");
    sb_gpu *gpu = open_ok();
    ck_assert_int_eq(sb_gpu_sample(gpu), 2 * GiB);
    /* Device 1 fails after device 0 read 5G: a partial round is not a
     * sample, so the 5G must not reach device 0's peak either. */
    ck_assert_int_eq(sb_gpu_sample(gpu), -1);
    ck_assert_msg(strstr(sb_gpu_last_error(gpu), "compute processes of GPU 1: GPU is lost") != NULL,
                  "%s", sb_gpu_last_error(gpu));
    ck_assert_int_eq(sb_gpu_sample(gpu), 2 * GiB);
    ck_assert_int_eq(info_of(gpu, 0).process_peak_bytes, 1 * GiB);
    ck_assert_int_eq(info_of(gpu, 1).process_peak_bytes, 1 * GiB);
    ck_assert_int_eq(sb_gpu_failed_samples(gpu), 1);
    close_ok(gpu);
}
END_TEST

START_TEST(graphics_and_compute_take_the_larger)
{
    script("device 16G 16G Fake\nused 0 1G\ngraphics 0 2G\n");
    sb_gpu *gpu = open_ok();
    ck_assert_int_eq(sb_gpu_sample(gpu), 2 * GiB);
    close_ok(gpu);
}
END_TEST

START_TEST(graphics_failure_leaves_compute_figure)
{
    script("device 16G 16G Fake\nused 0 1G\ngraphics 0 2G\ngraphics_fail 3\n");
    sb_gpu *gpu = open_ok();
    ck_assert_int_eq(sb_gpu_sample(gpu), 1 * GiB);
    ck_assert_str_eq(sb_gpu_last_error(gpu), "");
    close_ok(gpu);
}
END_TEST

START_TEST(memory_info_failure_means_unknown_total)
{
    script("device 16G 8G Fake\nmemory_fail\nused 0 1G\n");
    sb_gpu *gpu = open_ok();
    ck_assert_int_eq(sb_gpu_sample(gpu), 1 * GiB);
    spacrbench_gpu_info info = info_of(gpu, 0);
    ck_assert_int_eq(info.total_bytes, -1);
    ck_assert_int_eq(info.free_bytes, -1);
    ck_assert_int_eq(info.process_peak_bytes, 1 * GiB);
    close_ok(gpu);
}
END_TEST

START_TEST(skips_a_device_it_cannot_open)
{
    script("device 16G 16G A\ndevice 32G 30G B\nhandle_fail 0 4\nused 1 1G\n");
    sb_gpu *gpu = open_ok();
    ck_assert_uint_eq(sb_gpu_count(gpu), 1);
    spacrbench_gpu_info info = info_of(gpu, 0);
    ck_assert_int_eq(info.index, 1); /* NVML's index, not ours */
    ck_assert_str_eq(info.name, "B");
    ck_assert_int_eq(sb_gpu_sample(gpu), 1 * GiB);
    close_ok(gpu);
}
END_TEST

START_TEST(bad_arguments)
{
    ck_assert_int_eq(sb_gpu_sample(NULL), -1);
    ck_assert_uint_eq(sb_gpu_count(NULL), 0);
    sb_gpu_close(NULL);
    spacrbench_gpu_info info;
    memset(&info, 0, sizeof info);
    info.size = sizeof info;
    ck_assert_int_eq(sb_gpu_info(NULL, 0, &info), SPACRBENCH_EINVAL);

    script("device 16G 16G Fake\n");
    sb_gpu *gpu = sb_gpu_open(NULL, 0); /* no room for a reason is fine */
    ck_assert_ptr_nonnull(gpu);
    ck_assert_int_eq(sb_gpu_info(gpu, 1, &info), SPACRBENCH_ERANGE);
    ck_assert_int_eq(sb_gpu_info(gpu, 0, NULL), SPACRBENCH_EINVAL);
    /* An older caller's smaller struct gets the prefix it knows. */
    struct {
        size_t size;
        int64_t index;
        char name[96];
    } old;
    memset(&old, 0, sizeof old);
    old.size = sizeof old;
    ck_assert_int_eq(sb_gpu_info(gpu, 0, (spacrbench_gpu_info *)(void *)&old), 0);
    ck_assert_str_eq(old.name, "Fake");
    close_ok(gpu);
}
END_TEST

/* ---- PIDs across namespaces ------------------------------------------ */

START_TEST(nspid_parser)
{
    unsigned int pids[4];
    const char *status = "Name:\tx\nPid:\t1\nNSpid:\t4242\t77\t1\nNSsid:\t1\n";
    ck_assert_uint_eq(sb_gpu_parse_nspid(status, pids, 4), 3);
    ck_assert_uint_eq(pids[0], 4242);
    ck_assert_uint_eq(pids[1], 77);
    ck_assert_uint_eq(pids[2], 1);
    ck_assert_uint_eq(sb_gpu_parse_nspid(status, pids, 2), 2);      /* capped */
    ck_assert_uint_eq(sb_gpu_parse_nspid("NSpid:\t9", pids, 4), 1); /* no newline */
    ck_assert_uint_eq(pids[0], 9);
    ck_assert_uint_eq(sb_gpu_parse_nspid("Name:\tx\nPid:\t5\n", pids, 4), 0);
    ck_assert_uint_eq(sb_gpu_parse_nspid("NSpid:\t12x 3\n", pids, 4), 0);
    ck_assert_uint_eq(sb_gpu_parse_nspid("NSpid:\t99999999999\n", pids, 4), 0);
    ck_assert_uint_eq(sb_gpu_parse_nspid("NSpid:\t0\n", pids, 4), 0);
    ck_assert_uint_eq(sb_gpu_parse_nspid("NSpid:\n", pids, 4), 0);
    ck_assert_uint_eq(sb_gpu_parse_nspid(NULL, pids, 4), 0);
    ck_assert_uint_eq(sb_gpu_parse_nspid(status, NULL, 4), 0);

    ck_assert_uint_ge(sb_gpu_own_pids(pids, 4), 1);
    int found = 0;
    size_t n = sb_gpu_own_pids(pids, 4);
    for (size_t i = 0; i < n; i++)
        found |= pids[i] == (unsigned int)getpid();
    ck_assert_msg(found, "getpid() is not among this process's NSpid entries");
}
END_TEST

/* In a new PID namespace this process is PID 1 to itself, while a driver
 * outside (the fake's "pid outer") lists it under its outer PID. The
 * namespace is made in a helper child, so the test process itself (and
 * LeakSanitizer's tracer in it) stays in the original one. */
static int child_in_new_namespace(void)
{
    if (unshare(CLONE_NEWPID) != 0)
        return 20;
    pid_t inner = fork();
    if (inner < 0)
        return 21;
    if (inner == 0) {
        if (getpid() != 1)
            _exit(10); /* not in a new namespace: the test would prove nothing */
        char why[256];
        sb_gpu *gpu = sb_gpu_open(why, sizeof why);
        if (!gpu)
            _exit(11);
        int64_t used = sb_gpu_sample(gpu);
        sb_gpu_close(gpu);
        _exit(used == 1 * GiB ? 0 : 12);
    }
    int status = 0;
    if (waitpid(inner, &status, 0) != inner || !WIFEXITED(status))
        return 22;
    return WEXITSTATUS(status);
}

/* Like a container: a new PID namespace with its own /proc, where the
 * host PID is nowhere to be seen. Mounts stay in a private mount
 * namespace that dies with the helper. */
static int child_in_container(void)
{
    if (unshare(CLONE_NEWPID | CLONE_NEWNS) != 0)
        return 20;
    if (mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) != 0) /* valgrind wants strings */
        return 20;
    pid_t inner = fork();
    if (inner < 0)
        return 21;
    if (inner == 0) {
        if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
            _exit(23);
        unsigned int pids[4];
        if (sb_gpu_own_pids(pids, 4) != 1 || pids[0] != 1)
            _exit(10); /* /proc still shows outer PIDs: proves nothing */
        char why[256] = "";
        sb_gpu *gpu = sb_gpu_open(why, sizeof why);
        if (gpu) {
            sb_gpu_close(gpu);
            _exit(11);
        }
        _exit(strstr(why, "--pid=host") ? 0 : 12);
    }
    int status = 0;
    if (waitpid(inner, &status, 0) != inner || !WIFEXITED(status))
        return 22;
    return WEXITSTATUS(status);
}

START_TEST(refuses_when_host_pids_are_hidden)
{
    script("device 16G 16G Fake\nused 0 1G\n");
    pid_t helper = fork();
    ck_assert_int_ge(helper, 0);
    if (helper == 0)
        _exit(child_in_container());
    int status = 0;
    ck_assert_int_eq(waitpid(helper, &status, 0), helper);
    ck_assert(WIFEXITED(status));
    if (WEXITSTATUS(status) == 20) {
        printf("SKIP refuses_when_host_pids_are_hidden: cannot make PID and mount namespaces "
               "here (needs root)\n");
        return;
    }
    ck_assert_msg(WEXITSTATUS(status) == 0,
                  "status %d (10: /proc not private, 11: opened, 12: wrong reason, 2x: setup)",
                  WEXITSTATUS(status));
}
END_TEST

START_TEST(host_pid_visibility_rule)
{
    const uint64_t init_ns = 0xEFFFFFFCu, other_ns = 4026532100u;
    ck_assert_int_eq(sb_gpu_host_pid_visible(init_ns, 1, 1), 1);  /* on the host */
    ck_assert_int_eq(sb_gpu_host_pid_visible(other_ns, 1, 2), 1); /* host's /proc */
    ck_assert_int_eq(sb_gpu_host_pid_visible(other_ns, 0, 1), 0); /* container */
    ck_assert_int_eq(sb_gpu_host_pid_visible(other_ns, 0, 2), 0); /* nested, /proc not host's */
    ck_assert_int_eq(sb_gpu_host_pid_visible(other_ns, 1, 1), 0); /* inconsistent: refuse */
    ck_assert_int_eq(sb_gpu_host_pid_visible(0, 0, 1), 1);        /* no namespaces */
}
END_TEST

START_TEST(matches_the_pid_seen_outside_a_namespace)
{
    script("device 16G 16G Fake\npid outer\nused 0 1G\n");
    pid_t helper = fork();
    ck_assert_int_ge(helper, 0);
    if (helper == 0)
        _exit(child_in_new_namespace());
    int status = 0;
    ck_assert_int_eq(waitpid(helper, &status, 0), helper);
    ck_assert(WIFEXITED(status));
    if (WEXITSTATUS(status) == 20) {
        printf("SKIP matches_the_pid_seen_outside_a_namespace: unshare(CLONE_NEWPID) is not "
               "permitted here\n");
        return;
    }
    ck_assert_msg(WEXITSTATUS(status) == 0,
                  "status %d (10: not PID 1, 11: open failed, 12: wrong figure, 2x: setup)",
                  WEXITSTATUS(status));
}
END_TEST

/* ---- through the public API ------------------------------------------- */

/* Wait until the sampler has queried device 0 at least n more times, so
 * a figure set by the work is certainly seen. A guard, not a timing
 * assertion: it only fails if the sampler stopped sampling. */
static int wait_for_queries(unsigned long n)
{
    unsigned long start = fake.queries(0);
    struct timespec pause = {0, 200000};
    for (int i = 0; i < 50000; i++) { /* >= 10 s */
        if (fake.queries(0) >= start + n)
            return 0;
        nanosleep(&pause, NULL);
    }
    return 1;
}

static int spiky_work(void *item, void *payload)
{
    (void)payload;
    long long gib = (long long)(intptr_t)item;
    fake.set_used(0, (unsigned long long)(gib * GiB));
    if (wait_for_queries(2))
        return 100;
    fake.set_used(0, 1ULL << 30); /* back down after the spike */
    return wait_for_queries(2) ? 101 : 0;
}

static spacrbench_measurement *bench(spacrbench_work_fn work, uint32_t flags)
{
    void *items[] = {(void *)(intptr_t)1, (void *)(intptr_t)6, (void *)(intptr_t)2};
    spacrbench_options opts;
    ck_assert_int_eq(spacrbench_options_init(&opts, sizeof opts), 0);
    opts.sample_interval_us = 1000;
    opts.flags = flags;
    spacrbench_measurement *m = NULL;
    int rc = spacrbench_benchmark(work, items, 3, NULL, &opts, &m);
    ck_assert_msg(rc == 0, "spacrbench_benchmark: %d %s (work result %d)", rc,
                  spacrbench_last_error_message(), spacrbench_last_work_result());
    return m;
}

static spacrbench_figures figures_of(const spacrbench_measurement *m)
{
    spacrbench_figures f;
    memset(&f, 0, sizeof f);
    f.size = sizeof f;
    ck_assert_int_eq(spacrbench_measurement_figures(m, &f), 0);
    return f;
}

static int has_note(const spacrbench_measurement *m, const char *text)
{
    for (size_t i = 0; spacrbench_measurement_note(m, i); i++)
        if (strstr(spacrbench_measurement_note(m, i), text))
            return 1;
    return 0;
}

START_TEST(benchmark_finds_the_spike)
{
    script("device 80G 70G Fake H100\nused 0 512M\n");
    spacrbench_measurement *m = bench(spiky_work, 0);
    spacrbench_figures f = figures_of(m);
    ck_assert_int_eq(f.peak_vram_bytes, 6 * GiB);
    ck_assert_int_eq(f.vram_source, SPACRBENCH_SOURCE_NVML);
    ck_assert_int_eq(f.gpu_count, 1);
    spacrbench_gpu_info g;
    memset(&g, 0, sizeof g);
    g.size = sizeof g;
    ck_assert_int_eq(spacrbench_measurement_gpu(m, 0, &g), 0);
    ck_assert_str_eq(g.name, "Fake H100");
    ck_assert_int_eq(g.total_bytes, 80 * GiB);
    ck_assert_int_eq(g.free_bytes, 70 * GiB);
    ck_assert_int_eq(g.process_peak_bytes, 6 * GiB);
    spacrbench_measurement_free(m);
    ck_assert_int_eq(fake.live_inits(), 0);
}
END_TEST

/* A sandbox whose kernel shows no nested namespace (gVisor): NVML lists
 * this process under a PID that names no process here (4294967 is above
 * any pid_max). Each sum over our own PIDs is 0; seen in two samples
 * running, that is recognised instead of reported. */
START_TEST(a_pid_unseen_here_twice_is_a_sandbox)
{
    script("device 16G 16G Fake\npid 4294967\nused 0 2G\n");
    sb_gpu *gpu = open_ok();
    char why[512] = "";
    ck_assert_int_eq(sb_gpu_sample(gpu), 0);
    /* Once could be a process that exited between NVML's list and ours. */
    ck_assert_int_eq(sb_gpu_pids_unverified(gpu, why, sizeof why), 0);
    ck_assert_int_eq(sb_gpu_sample(gpu), 0);
    ck_assert_int_eq(sb_gpu_pids_unverified(gpu, why, sizeof why), 1);
    ck_assert_msg(strstr(why, "NVML lists PID 4294967, which is no process here"), "%s", why);
    ck_assert_int_eq(sb_gpu_pids_unverified(gpu, NULL, 0), 1);
    close_ok(gpu);
}
END_TEST

START_TEST(a_pid_listed_once_is_no_sign)
{
    script("device 16G 16G Fake\npid 4294967\nused 0 1G 0\n");
    sb_gpu *gpu = open_ok();
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(sb_gpu_sample(gpu), 0);
    ck_assert_int_eq(sb_gpu_pids_unverified(gpu, NULL, 0), 0);
    close_ok(gpu);
}
END_TEST

/* Once NVML lists a PID being measured, its PIDs are ours: an unseen one
 * is some other namespace's process, and checking stops. */
START_TEST(a_listed_pid_of_ours_proves_the_pids)
{
    script("device 16G 16G Fake\nother 0 4294000 2G\nused 0 1G\n");
    sb_gpu *gpu = open_ok();
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(sb_gpu_sample(gpu), 1 * GiB);
    ck_assert_int_eq(sb_gpu_pids_unverified(gpu, NULL, 0), 0);
    const unsigned int tree[] = {4294000};
    ck_assert_int_eq(sb_gpu_sample_pids(gpu, tree, 1), 2 * GiB);
    close_ok(gpu);
}
END_TEST

START_TEST(other_processes_seen_here_are_no_sign)
{
    script("device 16G 16G Fake\nother 0 1 5G\n");
    sb_gpu *gpu = open_ok();
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(sb_gpu_sample(gpu), 0);
    ck_assert_int_eq(sb_gpu_pids_unverified(gpu, NULL, 0), 0);
    close_ok(gpu);
}
END_TEST

START_TEST(pid_existence_here)
{
    ck_assert(sb_gpu_pid_exists_here((unsigned)getpid()));
    ck_assert(sb_gpu_pid_exists_here(1));
    ck_assert(!sb_gpu_pid_exists_here(0));
    ck_assert(!sb_gpu_pid_exists_here(0x80000000u)); /* kill() would take a group */
    ck_assert(!sb_gpu_pid_exists_here(4294967));
    pid_t child = fork();
    if (child == 0)
        _exit(0);
    ck_assert_int_gt(child, 0);
    siginfo_t info;
    ck_assert_int_eq(waitid(P_PID, (id_t)child, &info, WEXITED | WNOWAIT), 0);
    ck_assert(sb_gpu_pid_exists_here((unsigned)child)); /* a zombie is still there */
    ck_assert_int_eq(waitpid(child, NULL, 0), child);
    ck_assert(!sb_gpu_pid_exists_here((unsigned)child));
}
END_TEST

static int idle_work(void *item, void *payload)
{
    (void)item;
    (void)payload;
    return wait_for_queries(1);
}

static int cpu_only_work(void *item, void *payload)
{
    (void)item;
    (void)payload;
    return 0;
}

START_TEST(benchmark_without_gpu_use_is_zero)
{
    script("device 16G 16G Fake\nother 0 1 3G\n");
    spacrbench_measurement *m = bench(idle_work, 0);
    spacrbench_figures f = figures_of(m);
    ck_assert_int_eq(f.peak_vram_bytes, 0);
    ck_assert_int_eq(f.vram_source, SPACRBENCH_SOURCE_NVML);
    spacrbench_measurement_free(m);
}
END_TEST

START_TEST(benchmark_in_a_sandbox_is_not_measured)
{
    script("device 16G 16G Fake\npid 4294967\nused 0 3G\n");
    spacrbench_measurement *m = bench(idle_work, 0);
    spacrbench_figures f = figures_of(m);
    ck_assert_int_eq(f.peak_vram_bytes, SPACRBENCH_NOT_MEASURED);
    ck_assert_int_eq(f.vram_source, SPACRBENCH_SOURCE_UNKNOWN);
    ck_assert_int_eq(f.gpu_count, 0);
    ck_assert_msg(strstr(spacrbench_measurement_vram_reason(m), "NVML lists PID 4294967"), "%s",
                  spacrbench_measurement_vram_reason(m));
    ck_assert_msg(has_note(m, "VRAM not measured: NVML lists PID 4294967"), "note missing");
    ck_assert_int_eq(f.record_count, 3);
    for (size_t i = 0; i < 3; i++) {
        spacrbench_item_record r;
        memset(&r, 0, sizeof r);
        r.size = sizeof r;
        ck_assert_int_eq(spacrbench_measurement_record(m, i, &r), 0);
        ck_assert_int_eq(r.peak_vram_bytes, SPACRBENCH_NOT_MEASURED); /* not a false 0 */
    }
    spacrbench_measurement_free(m);
}
END_TEST

START_TEST(benchmark_without_nvml_is_not_measured)
{
    setenv("SPACRBENCH_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    spacrbench_measurement *m = bench(cpu_only_work, 0);
    spacrbench_figures f = figures_of(m);
    ck_assert_int_eq(f.peak_vram_bytes, SPACRBENCH_NOT_MEASURED);
    ck_assert_int_eq(f.gpu_count, 0);
    ck_assert_msg(has_note(m, "no CUDA device, so VRAM was not measured (cannot load NVML"),
                  "note missing");
    spacrbench_measurement_free(m);
}
END_TEST

START_TEST(benchmark_with_no_gpu_flag_does_not_load_nvml)
{
    script("device 16G 16G Fake\nused 0 1G\n");
    unsigned long before = fake.queries(0);
    spacrbench_measurement *m = bench(cpu_only_work, SPACRBENCH_FLAG_NO_GPU);
    spacrbench_figures f = figures_of(m);
    ck_assert_int_eq(f.peak_vram_bytes, SPACRBENCH_NOT_MEASURED);
    ck_assert_msg(has_note(m, "VRAM not measured"), "note missing");
    ck_assert_int_eq(fake.live_inits(), 0);
    ck_assert_uint_eq(fake.queries(0), before);
    spacrbench_measurement_free(m);
}
END_TEST

START_TEST(benchmark_with_zero_devices_is_not_measured)
{
    script("# no devices\n");
    spacrbench_measurement *m = bench(cpu_only_work, 0);
    ck_assert_int_eq(figures_of(m).peak_vram_bytes, SPACRBENCH_NOT_MEASURED);
    ck_assert_msg(has_note(m, "no CUDA device, so VRAM was not measured (no GPU devices)"),
                  "note missing");
    spacrbench_measurement_free(m);
}
END_TEST

/* NVML answers, then fails for good mid-run: no crash, and the peak seen
 * before the failure stands. */
static int then_failing_work(void *item, void *payload)
{
    (void)payload;
    if ((intptr_t)item == 1) {
        fake.set_used(0, 2ULL << 30);
        return wait_for_queries(2);
    }
    if ((intptr_t)item == 6) {
        fake.set_used(0, 8ULL << 30); /* never seen: NVML fails from here */
        fake.make_fail(0, 15);
        return wait_for_queries(2);
    }
    return 0;
}

START_TEST(benchmark_survives_failures)
{
    script("device 16G 16G Fake\nused 0 1G\n");
    spacrbench_measurement *m = bench(then_failing_work, 0);
    spacrbench_figures f = figures_of(m);
    ck_assert_int_eq(f.peak_vram_bytes, 2 * GiB);
    spacrbench_measurement_free(m);
    ck_assert_int_eq(fake.live_inits(), 0);
}
END_TEST

/* Every sample fails: VRAM was not measured, which is not "none". */
START_TEST(benchmark_where_every_sample_fails_is_not_measured)
{
    script("device 16G 16G Fake\nused 0 fail\n");
    spacrbench_measurement *m = bench(idle_work, 0);
    ck_assert_int_eq(figures_of(m).peak_vram_bytes, SPACRBENCH_NOT_MEASURED);
    ck_assert_msg(has_note(m, "GPU is lost"), "no note says why VRAM was not measured");
    spacrbench_measurement_free(m);
}
END_TEST

static Suite *gpu_suite(void)
{
    Suite *s = suite_create("gpu");
    TCase *tc = tcase_create("not_measured");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, no_library_at_override_path);
    tcase_add_test(tc, no_driver_on_this_machine);
    tcase_add_test(tc, init_failure);
    tcase_add_test(tc, mistyped_script_fails_init);
    tcase_add_test(tc, zero_devices);
    tcase_add_test(tc, count_failure);
    tcase_add_test(tc, no_device_can_be_opened);
    tcase_add_test(tc, per_process_figures_not_supported);
    tcase_add_test(tc, required_symbol_missing);
    suite_add_tcase(s, tc);

    tc = tcase_create("figures");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, timeline_with_short_spike);
    tcase_add_test(tc, unused_device_contributes_zero);
    tcase_add_test(tc, sum_over_devices);
    tcase_add_test(tc, process_that_used_nothing_is_zero);
    tcase_add_test(tc, other_processes_are_ignored);
    tcase_add_test(tc, a_pid_that_is_not_ours_is_zero);
    tcase_add_test(tc, a_set_of_pids_sums_its_entries);
    tcase_add_test(tc, fake_lists_live_pids_of_a_directory);
    tcase_add_test(tc, graphics_and_compute_take_the_larger);
    tcase_add_test(tc, graphics_failure_leaves_compute_figure);
    tcase_add_test(tc, memory_info_failure_means_unknown_total);
    tcase_add_test(tc, skips_a_device_it_cannot_open);
    tcase_add_test(tc, bad_arguments);
    suite_add_tcase(s, tc);

    tc = tcase_create("nvml_versions");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, uses_v3_when_present);
    tcase_add_test(tc, falls_back_to_v2);
    tcase_add_test(tc, falls_back_to_v1);
    tcase_add_test(tc, r535_v3_entries_are_read_with_their_own_size);
    tcase_add_test(tc, long_list_grows_the_buffer);
    tcase_add_test(tc, insufficient_size_on_first_call);
    tcase_add_test(tc, insufficient_size_forever_fails_the_sample);
    tcase_add_test(tc, implausible_count_is_not_allocated);
    suite_add_tcase(s, tc);

    tc = tcase_create("failures");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, value_not_available_is_unknown);
    tcase_add_test(tc, failure_mid_run_keeps_earlier_peaks);
    suite_add_tcase(s, tc);

    tc = tcase_create("pids");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, nspid_parser);
    tcase_add_test(tc, matches_the_pid_seen_outside_a_namespace);
    tcase_add_test(tc, refuses_when_host_pids_are_hidden);
    tcase_add_test(tc, host_pid_visibility_rule);
    tcase_add_test(tc, a_pid_unseen_here_twice_is_a_sandbox);
    tcase_add_test(tc, a_pid_listed_once_is_no_sign);
    tcase_add_test(tc, a_listed_pid_of_ours_proves_the_pids);
    tcase_add_test(tc, other_processes_seen_here_are_no_sign);
    tcase_add_test(tc, pid_existence_here);
    suite_add_tcase(s, tc);

    tc = tcase_create("benchmark");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, benchmark_finds_the_spike);
    tcase_add_test(tc, benchmark_without_gpu_use_is_zero);
    tcase_add_test(tc, benchmark_without_nvml_is_not_measured);
    tcase_add_test(tc, benchmark_in_a_sandbox_is_not_measured);
    tcase_add_test(tc, benchmark_with_no_gpu_flag_does_not_load_nvml);
    tcase_add_test(tc, benchmark_with_zero_devices_is_not_measured);
    tcase_add_test(tc, benchmark_survives_failures);
    tcase_add_test(tc, benchmark_where_every_sample_fails_is_not_measured);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(gpu_suite());
    srunner_run_all(sr, CK_ENV); /* CK_VERBOSITY=verbose lists every test */
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
