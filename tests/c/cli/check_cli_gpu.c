/* GPU side of the `spacrbench` command, on any machine: the VRAM of `run`'s
 * commands through the tests' fake libnvidia-ml (tests/c/fake_nvml, whose
 * pids_in directive lists the processes that registered themselves), and
 * `spacrbench --gpu` where there is no CUDA device or no CUDA build. */
#include <check.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_test_support.h"

#define MiB (1LL << 20)

static char *json_of(const cli_result *r) { return cli_temp_file(r->out); }

static char *json_str(const char *path, const char *expr)
{
    char *v = cli_json_eval(path, expr);
    ck_assert_msg(v != NULL, "JSON query failed: %s", expr);
    return v;
}

static long long json_ll(const char *path, const char *expr)
{
    char *v = json_str(path, expr);
    long long x = strtoll(v, NULL, 10);
    free(v);
    return x;
}

/* A fake NVML with one device whose processes are those that wrote their
 * PID into dir, each using per_process bytes. */
static void fake_gpu(char *dir, size_t cap, const char *per_process)
{
    snprintf(dir, cap, "/tmp/sbcli-gpu-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char text[512];
    snprintf(text, sizeof text, "device 16G 16G Fake GPU\npids_in 0 %s %s\n", dir, per_process);
    char *script = cli_temp_file(text);
    setenv("SPACRBENCH_FAKE_NVML_SCRIPT", script, 1);
    setenv("SPACRBENCH_NVML_LIBRARY", FAKE_NVML_FULL, 1);
    free(script);
}

/* Register this test process (alive, outside every command's tree). */
static void register_outsider(const char *dir)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%ld", dir, (long)getpid());
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
}

static void remove_dir(const char *dir)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

/* Two processes of the command's tree register themselves and live half
 * a second: the item's peak is both, the outsider is not counted. The
 * loop index picks the cgroup (0) or the process-tree fallback (1). */
START_TEST(run_counts_the_vram_of_the_whole_tree)
{
    if (!cli_have_python())
        return;
    char dir[64], shell[512];
    fake_gpu(dir, sizeof dir, "100M");
    register_outsider(dir);
    snprintf(shell, sizeof shell, "touch %s/$$; sh -c 'touch %s/$$; sleep 0.5' & sleep 0.5; wait",
             dir, dir);
    char *argv[] = {SPACRBENCH_CLI, "run", "--json", _i ? "--no-cgroup" : "--json", "x", "--", "sh",
                    "-c",           shell, NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    char *path = json_of(&r);
    ck_assert_int_eq(json_ll(path, "d['measurement']['records'][0]['peak_vram_bytes']"), 200 * MiB);
    ck_assert_int_eq(json_ll(path, "d['measurement']['peak_vram_bytes']"), 200 * MiB);
    ck_assert_int_eq(json_ll(path, "d['recommendation']['per_worker_vram_bytes']"), 200 * MiB);
    /* The VRAM rule has the device's free memory: (16 GiB - 1 GiB) / 200 MiB. */
    ck_assert_int_eq(json_ll(path, "d['recommendation']['vram_workers']"), 76);
    char *source = json_str(path, "d['measurement']['vram_source']");
    ck_assert_str_eq(source, "nvml"); /* not "supplied": the builder knows where it came from */
    free(source);
    char *note = json_str(path, "[n for n in d['measurement']['notes'] if 'peak VRAM' in n][0]");
    ck_assert_msg(strstr(note, _i ? "descendants" : "cgroup") != NULL, "note: %s", note);
    free(note);
    unlink(path);
    free(path);
    cli_result_free(&r);
    remove_dir(dir);
}
END_TEST

/* --scale: the copies of one count are sampled together, so k copies of a
 * command using 100 MiB each make a point of k x 100 MiB; the outsider is
 * never counted. The loop index picks the cgroup (0) or the tree (1). One
 * item per copy (--scale-items 1 --scale-seconds 0, the shortest check):
 * every round of 2 still has both copies' 0.4 s side by side. */
START_TEST(scale_counts_the_vram_of_all_copies)
{
    if (!cli_have_python())
        return;
    char dir[64], shell[256];
    fake_gpu(dir, sizeof dir, "100M");
    register_outsider(dir);
    snprintf(shell, sizeof shell, "touch %s/$$; sleep 0.4", dir);
    char *argv[] = {SPACRBENCH_CLI,
                    "run",
                    "--json",
                    "--scale",
                    "1,2",
                    "--scale-items=1",
                    "--scale-seconds=0",
                    _i ? "--no-cgroup" : "--json",
                    "a",
                    "b",
                    "--",
                    "sh",
                    "-c",
                    shell,
                    NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    char *path = json_of(&r);
    ck_assert_int_eq(json_ll(path, "d['scaling'][0]['workers']"), 1);
    ck_assert_int_eq(json_ll(path, "d['scaling'][0]['vram_peak_bytes']"), 100 * MiB);
    ck_assert_int_eq(json_ll(path, "d['scaling'][1]['workers']"), 2);
    ck_assert_int_eq(json_ll(path, "d['scaling'][1]['vram_peak_bytes']"), 200 * MiB);
    char *note = json_str(path, "[n for n in d['scaling_notes'] if 'group VRAM' in n][0]");
    ck_assert_msg(strstr(note, _i ? "descendants" : "cgroup") != NULL, "note: %s", note);
    free(note);
    unlink(path);
    free(path);
    cli_result_free(&r);

    /* Without NVML the points say "not measured" (null), not 0: the
     * copies need not run long for that. */
    snprintf(shell, sizeof shell, "true");
    unsetenv("SPACRBENCH_NVML_LIBRARY");
    setenv("SPACRBENCH_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    path = json_of(&r);
    char *vram = json_str(path, "d['scaling'][1]['vram_peak_bytes']");
    ck_assert_str_eq(vram, "None");
    free(vram);
    unlink(path);
    free(path);
    cli_result_free(&r);
    remove_dir(dir);
}
END_TEST

/* A command that uses no GPU memory is measured as 0, not "not measured". */
START_TEST(run_without_gpu_use_is_zero)
{
    if (!cli_have_python())
        return;
    char dir[64];
    fake_gpu(dir, sizeof dir, "100M");
    register_outsider(dir);
    char *argv[] = {SPACRBENCH_CLI, "run", "--json", "x", "--", "sh", "-c", "sleep 0.1", NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    char *path = json_of(&r);
    ck_assert_int_eq(json_ll(path, "d['measurement']['records'][0]['peak_vram_bytes']"), 0);
    char *reason = json_str(path, "d['measurement']['vram_reason']");
    ck_assert_str_eq(reason, "None");
    free(reason);
    unlink(path);
    free(path);
    cli_result_free(&r);
    remove_dir(dir);
}
END_TEST

static void expect_not_measured(const char *expected)
{
    char *argv[] = {SPACRBENCH_CLI, "run", "--json", "x", "--", "true", NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    char *path = json_of(&r);
    char *vram = json_str(path, "d['measurement']['records'][0]['peak_vram_bytes']");
    ck_assert_str_eq(vram, "None"); /* not 0 */
    char *reason = json_str(path, "d['measurement']['vram_reason']");
    ck_assert_msg(strstr(reason, expected) != NULL, "vram_reason: %s", reason);
    free(vram);
    free(reason);
    unlink(path);
    free(path);
    cli_result_free(&r);
}

START_TEST(run_without_nvml_is_not_measured)
{
    if (!cli_have_python())
        return;
    setenv("SPACRBENCH_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    expect_not_measured("cannot load NVML from SPACRBENCH_NVML_LIBRARY=/nonexistent");
}
END_TEST

START_TEST(run_without_a_driver_says_so)
{
    if (!cli_have_python())
        return;
    unsetenv("SPACRBENCH_NVML_LIBRARY");
    void *nvml = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (nvml) {
        dlclose(nvml);
        printf("skip run_without_a_driver_says_so: this machine has an NVIDIA driver\n");
        return;
    }
    expect_not_measured("no NVIDIA driver: libnvidia-ml.so.1 not found");
}
END_TEST

/* A sandbox whose PIDs NVML does not use (gVisor): the driver lists a
 * PID that is no process here, and none of the tree's. The items, the run
 * and the scaling points are "not measured", not 0. */
START_TEST(run_in_a_sandbox_is_not_measured)
{
    if (!cli_have_python())
        return;
    char *script = cli_temp_file("device 16G 16G Fake GPU\nother 0 4294967 1G\n");
    setenv("SPACRBENCH_FAKE_NVML_SCRIPT", script, 1);
    setenv("SPACRBENCH_NVML_LIBRARY", FAKE_NVML_FULL, 1);
    char *argv[] = {
        SPACRBENCH_CLI, "run", "--json", "--scale",   "1", "--scale-seconds=0", "a", "b",
        "--",           "sh",  "-c",     "sleep 0.1", NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    char *path = json_of(&r);
    const char *nulls[] = {"d['measurement']['records'][0]['peak_vram_bytes']",
                           "d['measurement']['records'][1]['peak_vram_bytes']",
                           "d['measurement']['peak_vram_bytes']",
                           "d['scaling'][0]['vram_peak_bytes']"};
    for (size_t i = 0; i < sizeof nulls / sizeof *nulls; i++) {
        char *v = json_str(path, nulls[i]);
        ck_assert_msg(strcmp(v, "None") == 0, "%s = %s", nulls[i], v);
        free(v);
    }
    char *reason = json_str(path, "d['measurement']['vram_reason']");
    ck_assert_msg(strstr(reason, "NVML lists PID 4294967, which is no process here"), "%s", reason);
    free(reason);
    unlink(path);
    free(path);
    unlink(script);
    free(script);
    cli_result_free(&r);
}
END_TEST

/* `spacrbench --gpu` without a usable device, or without the CUDA build:
 * exit 2 and a message that says which. */
START_TEST(gpu_workload_without_device_exits_2)
{
    char *argv[] = {SPACRBENCH_CLI, "--gpu", "--size", "64x64", "--fields", "1", NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    if (SPACRBENCH_TEST_CUDA && r.exited && r.code == 0) {
        printf("skip gpu_workload_without_device_exits_2: a CUDA device is present\n");
        cli_result_free(&r);
        return;
    }
    ck_assert_msg(r.exited && r.code == 2, "exit %d: %s", r.code, r.err);
    const char *expected =
        SPACRBENCH_TEST_CUDA ? "--gpu: no usable CUDA device" : "--gpu: built without CUDA";
    ck_assert_msg(strstr(r.err, expected) != NULL, "stderr: %s", r.err);
    if (!SPACRBENCH_TEST_CUDA)
        printf("skip (part of) gpu_workload_without_device_exits_2: built without CUDA, so "
               "only the 'built without CUDA' refusal is checked\n");
    cli_result_free(&r);
}
END_TEST

static Suite *gpu_suite(void)
{
    Suite *s = suite_create("cli_gpu");
    TCase *t = tcase_create("vram");
    tcase_set_timeout(t, 60);
    tcase_add_loop_test(t, run_counts_the_vram_of_the_whole_tree, 0, 2);
    tcase_add_loop_test(t, scale_counts_the_vram_of_all_copies, 0, 2);
    tcase_add_test(t, run_without_gpu_use_is_zero);
    tcase_add_test(t, run_in_a_sandbox_is_not_measured);
    tcase_add_test(t, run_without_nvml_is_not_measured);
    tcase_add_test(t, run_without_a_driver_says_so);
    suite_add_tcase(s, t);
    t = tcase_create("workload");
    tcase_add_test(t, gpu_workload_without_device_exits_2);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(gpu_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
