/* The command's internal parts: JSON escaping, option parsing, command
 * lines, item lists, the field workload, cgroup discovery from recorded
 * /proc texts, the process-tree sampler and the atomic report write. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "field_workload.h"
#include "os.h"
#include "record.h"
#include "supervisor.h"
#include "util.h"

static char *write_temp(const char *text)
{
    char *path = strdup("/tmp/spacrbench-parts-XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return path;
}

START_TEST(json_escapes_quotes_controls_and_bad_utf8)
{
    json_writer w;
    json_init(&w, 0);
    json_begin_object(&w, NULL);
    json_string(&w, "q", "say \"hi\" \\ back");
    json_string(&w, "ctl", "a\nb\tc\x01\x1f\r\b\f");
    json_string(&w, "utf8", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xac");
    json_string(&w, "bad",
                "x\xff"
                "y\xc3"
                "z\xed\xa0\x80"
                "\xc0\xaf");
    json_string(&w, "k\"ey", NULL);
    json_end_object(&w);
    ck_assert_str_eq(json_result(&w),
                     "{\"q\":\"say \\\"hi\\\" \\\\ back\","
                     "\"ctl\":\"a\\nb\\tc\\u0001\\u001f\\r\\b\\f\","
                     "\"utf8\":\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xac\","
                     "\"bad\":\"x\xef\xbf\xbdy\xef\xbf\xbdz\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
                     "\xef\xbf\xbd\xef\xbf\xbd\","
                     "\"k\\\"ey\":null}");
    json_free(&w);
}
END_TEST

START_TEST(json_numbers_nesting_and_misuse)
{
    json_writer w;
    json_init(&w, 0);
    json_begin_object(&w, NULL);
    json_int(&w, "min", INT64_MIN);
    json_double(&w, "half", 0.5);
    json_double(&w, "nan", 0.0 / 0.0);
    json_double(&w, "third", 1.0 / 3.0);
    json_begin_array(&w, "a");
    json_bool(&w, NULL, 1);
    json_begin_array(&w, NULL);
    json_end_array(&w);
    json_begin_object(&w, NULL);
    json_end_object(&w);
    json_end_array(&w);
    json_end_object(&w);
    ck_assert_str_eq(json_result(&w), "{\"min\":-9223372036854775808,\"half\":0.5,\"nan\":null,"
                                      "\"third\":0.33333333333333331,\"a\":[true,[],{}]}");
    json_free(&w);
    /* An unclosed container or a stray close yields no document. */
    json_init(&w, 1);
    json_begin_object(&w, NULL);
    ck_assert_ptr_null(json_result(&w));
    json_end_object(&w);
    ck_assert_ptr_nonnull(json_result(&w));
    json_end_object(&w);
    ck_assert_ptr_null(json_result(&w));
    json_free(&w);
}
END_TEST

START_TEST(byte_sizes_and_numbers_parse)
{
    int64_t v;
    ck_assert_int_eq(cli_parse_bytes("2G", &v), 0);
    ck_assert_int_eq(v, INT64_C(2) << 30);
    ck_assert_int_eq(cli_parse_bytes("512M", &v), 0);
    ck_assert_int_eq(v, INT64_C(512) << 20);
    ck_assert_int_eq(cli_parse_bytes("1.5GiB", &v), 0);
    ck_assert_int_eq(v, INT64_C(3) << 29);
    ck_assert_int_eq(cli_parse_bytes("64k", &v), 0);
    ck_assert_int_eq(v, 65536);
    ck_assert_int_eq(cli_parse_bytes("1048576", &v), 0);
    ck_assert_int_eq(v, 1048576);
    ck_assert_int_eq(cli_parse_bytes("0", &v), 0);
    ck_assert_int_eq(v, 0);
    const char *bad[] = {"",   "G",    "-1G", "2Q", "2GG", "1e400", "nan",    "inf", "9999999T",
                         " 1", "0x10", "1e3", "+4", "1.",  ".5",    "1.5e2G", "2 G"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(cli_parse_bytes(bad[i], &v) == -1, "'%s' accepted", bad[i]);
    ck_assert_int_eq(cli_parse_int("12", 1, 20, &v), 0);
    ck_assert_int_eq(v, 12);
    ck_assert_int_eq(cli_parse_int("21", 1, 20, &v), -1);
    ck_assert_int_eq(cli_parse_int("1x", 1, 20, &v), -1);
    const char *bad_ints[] = {" 4", "+4", "4 ", "-0", "0x4", "4e0", ""};
    for (size_t i = 0; i < sizeof bad_ints / sizeof bad_ints[0]; i++)
        ck_assert_msg(cli_parse_int(bad_ints[i], 0, 20, &v) == -1, "'%s' accepted", bad_ints[i]);
    ck_assert_int_eq(cli_parse_int("007", 0, 20, &v), 0);
    ck_assert_int_eq(v, 7);
    ck_assert_int_eq(cli_parse_bytes("0.5K", &v), 0);
    ck_assert_int_eq(v, 512);
    ck_assert_int_eq(cli_parse_int("99999999999999999999", 1, INT64_MAX, &v), -1);
    int64_t w, h;
    ck_assert_int_eq(cli_parse_size("640x480", &w, &h), 0);
    ck_assert_int_eq(w * 10000 + h, 6400480);
    ck_assert_int_eq(cli_parse_size("640", &w, &h), -1);
    ck_assert_int_eq(cli_parse_size("x480", &w, &h), -1);
    ck_assert_int_eq(cli_parse_size("640x", &w, &h), -1);
}
END_TEST

START_TEST(command_lines_substitute_and_display)
{
    char *cmd[] = {"tool", "--in={}", "{}.out", "fixed"};
    char **argv = command_for_item(cmd, 4, "a b'c");
    ck_assert_str_eq(argv[0], "tool");
    ck_assert_str_eq(argv[1], "--in=a b'c");
    ck_assert_str_eq(argv[2], "a b'c.out");
    ck_assert_str_eq(argv[3], "fixed");
    ck_assert_ptr_null(argv[4]);
    char *shown = command_display(argv);
    ck_assert_str_eq(shown, "tool '--in=a b'\\''c' 'a b'\\''c.out' fixed");
    free(shown);
    command_free(argv);
    /* No placeholder: the item is appended. */
    char *plain[] = {"echo"};
    argv = command_for_item(plain, 1, "");
    ck_assert_str_eq(argv[0], "echo");
    ck_assert_str_eq(argv[1], "");
    ck_assert_ptr_null(argv[2]);
    shown = command_display(argv);
    ck_assert_str_eq(shown, "echo ''");
    free(shown);
    command_free(argv);
}
END_TEST

START_TEST(item_lists_read_one_per_line)
{
    char *path = write_temp("one\r\n\ntwo words\n\"three\"\nlast-without-newline");
    cli_args a;
    cli_args_init(&a, CLI_MODE_RUN);
    a.items_file = path;
    item_list list;
    ck_assert_int_eq(item_list_load(&a, &list), CLI_EXIT_OK);
    ck_assert_int_eq(list.n, 4);
    ck_assert_str_eq(list.items[0], "one");
    ck_assert_str_eq(list.items[1], "two words");
    ck_assert_str_eq(list.items[2], "\"three\"");
    ck_assert_str_eq(list.items[3], "last-without-newline");
    item_list_free(&list);
    unlink(path);
    free(path);
}
END_TEST

START_TEST(field_is_deterministic_per_seed)
{
    field_params p = {160, 120, 3, 42};
    ck_assert_ptr_null(field_params_problem(&p));
    field_summary a, b, c;
    ck_assert_int_eq(field_process(&p, &a), 0);
    ck_assert_int_eq(field_process(&p, &b), 0);
    ck_assert_int_eq(memcmp(&a, &b, sizeof a), 0);
    p.seed = 43;
    ck_assert_int_eq(field_process(&p, &c), 0);
    ck_assert(c.centroid_checksum != a.centroid_checksum);
    /* Nuclei are found: about one per 4000 px, and brighter than the
     * background (offset ~90). */
    ck_assert_int_ge(a.objects, 1);
    ck_assert(a.mean_area > 1.0);
    ck_assert(a.mean_intensity0 > a.threshold * 0.5);
    ck_assert_int_eq(a.foreground_pixels, (int64_t)(a.mean_area * (double)a.objects + 0.5));
    field_params bad = {4, 120, 3, 1};
    ck_assert_ptr_nonnull(field_params_problem(&bad));
    ck_assert_int_eq(field_process(&bad, &a), -1);
}
END_TEST

/* The GPU check compares the measured VRAM peak with these bytes. */
START_TEST(gpu_layout_sizes_every_device_buffer)
{
    field_params p = {512, 256, 3, 7};
    const int64_t plane = 512 * 256;
    field_gpu_layout l;
    ck_assert_int_eq(field_gpu_layout_of(&p, &l), 0);
    ck_assert_uint_eq(l.raw, (size_t)(plane * 3 * 2));
    ck_assert_uint_eq(l.img, (size_t)(plane * 3 * 4));
    ck_assert_uint_eq(l.smoothed, (size_t)(plane * 3 * 4));
    ck_assert_uint_eq(l.scratch, (size_t)(plane * 4));
    ck_assert_uint_eq(l.mask, (size_t)plane);
    ck_assert_uint_eq(l.hist, 256 * sizeof(unsigned));
    ck_assert_uint_eq(l.lohi, 2 * sizeof(unsigned));
    ck_assert_int_eq(field_gpu_device_bytes(&p), plane * 3 * 10 + plane * 5 + 1024 + 8);

    field_params bad = {512, 4, 3, 7};
    l.raw = 1;
    ck_assert_int_eq(field_gpu_layout_of(&bad, &l), -1);
    ck_assert_uint_eq(l.raw, 0);
    ck_assert_int_eq(field_gpu_device_bytes(&bad), -1);
    ck_assert_int_eq(field_gpu_device_bytes(NULL), -1);
}
END_TEST

START_TEST(labelling_uses_8_connectivity)
{
    /* Two diagonal-touching pixels are one object; a U shape merges late
     * (its arms get two provisional labels); an isolated pixel is a third. */
    const char *rows[] = {
        "X......X.X",
        ".X.....X.X",
        ".......XXX",
        "X.........",
    };
    uint8_t mask[40];
    int32_t labels[40];
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 10; x++)
            mask[y * 10 + x] = rows[y][x] == 'X';
    ck_assert_int_eq(field_label(mask, 10, 4, labels), 3);
    ck_assert_int_eq(labels[0], labels[11]); /* diagonal pair */
    ck_assert_int_eq(labels[7], labels[9]);  /* both arms of the U */
    ck_assert_int_ne(labels[0], labels[7]);
    ck_assert_int_ne(labels[30], labels[0]);
    ck_assert_int_eq(labels[1], 0);
}
END_TEST

START_TEST(otsu_splits_two_populations)
{
    float v[200];
    for (int i = 0; i < 200; i++)
        v[i] = i < 150 ? 100.0f + (float)(i % 10) : 1000.0f + (float)(i % 7);
    double t = field_otsu_threshold(v, 200);
    ck_assert(t > 109.0 && t < 1000.0);
    float flat[3] = {5, 5, 5};
    ck_assert(field_otsu_threshold(flat, 3) == 5.0);
}
END_TEST

/* sb_group_locate on recorded /proc texts. */
static int locate_with(sb_group *g, const char *proc_cgroup, const char *mountinfo, char *why,
                       size_t cap)
{
    sb_probe_env env = sb_probe_env_live();
    env.proc_self_cgroup = proc_cgroup;
    env.mountinfo = mountinfo;
    return sb_group_locate(g, &env, why, cap);
}

START_TEST(cgroup_is_found_from_recorded_proc_texts)
{
    char *cg1 = write_temp("12:pids:/\n4:memory:/job/42\n0::/\n");
    char *mi1 =
        write_temp("31 23 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n"
                   "35 31 0:32 / /sys/fs/cgroup/cpu rw shared:5 - cgroup cgroup rw,cpu\n"
                   "36 31 0:33 /job /mnt/mem\\040cg rw shared:6 - cgroup cgroup rw,memory\n");
    sb_group cg;
    char why[256];
    ck_assert_int_eq(locate_with(&cg, cg1, mi1, why, sizeof why), 0);
    ck_assert_int_eq(cg.version, 1);
    ck_assert_str_eq(cg.parent, "/mnt/mem cg/42");

    char *cg2 = write_temp("0::/user.slice/app.scope\n");
    char *mi2 = write_temp("40 31 0:40 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
    ck_assert_int_eq(locate_with(&cg, cg2, mi2, why, sizeof why), 0);
    ck_assert_int_eq(cg.version, 2);
    ck_assert_str_eq(cg.parent, "/sys/fs/cgroup/user.slice/app.scope");

    /* A hybrid system falls back to the unified hierarchy (cg_create then
     * checks that memory.peak exists there). */
    ck_assert_int_eq(locate_with(&cg, cg1, mi2, why, sizeof why), 0);
    ck_assert_int_eq(cg.version, 2);
    ck_assert_str_eq(cg.parent, "/sys/fs/cgroup");
    /* Memory controller not mounted at all: a reason, no directory. */
    char *mi3 = write_temp("35 31 0:32 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n");
    ck_assert_int_eq(locate_with(&cg, cg1, mi3, why, sizeof why), -1);
    unlink(mi3);
    free(mi3);
    ck_assert_ptr_nonnull(strstr(why, "no mounted memory cgroup"));
    ck_assert_int_eq(locate_with(&cg, "/nonexistent", mi2, why, sizeof why), -1);
    char *files[] = {cg1, mi1, cg2, mi2};
    for (int i = 0; i < 4; i++) {
        unlink(files[i]);
        free(files[i]);
    }
}
END_TEST

START_TEST(real_child_cgroup_measures_and_is_removed)
{
    sb_group cg;
    char why[600];
    char name[64];
    snprintf(name, sizeof name, "spacrbench-parts-%ld", (long)getpid());
    if (sb_group_locate(&cg, NULL, why, sizeof why) != 0 ||
        sb_group_create(&cg, name, why, sizeof why) != 0) {
        printf("SKIP real_child_cgroup: %s\n", why);
        return;
    }
    char dir[SB_GROUP_PATH_MAX];
    snprintf(dir, sizeof dir, "%s", cg.dir);
    int go[2];
    ck_assert_int_eq(pipe(go), 0);
    pid_t pid = fork();
    if (pid == 0) {
        char b;
        close(go[1]);
        if (read(go[0], &b, 1) != 1)
            _exit(1);
        execl(HELPER_ALLOC_TOUCH, HELPER_ALLOC_TOUCH, "48", "10", (char *)NULL);
        _exit(2);
    }
    close(go[0]);
    ck_assert_int_eq(sb_group_attach(&cg, pid), 0);
    ck_assert_int_eq(write(go[1], "x", 1), 1);
    close(go[1]);
    int status;
    pid_t waited = waitpid(pid, &status, 0);
    int64_t peak = sb_group_peak(&cg);
    int left = -1;
    int removed = sb_group_remove(&cg, &left); /* before any assertion can leave it behind */
    ck_assert_int_eq(waited, pid);
    ck_assert_int_eq(WEXITSTATUS(status), 0);
    ck_assert_int_eq(removed, 0);
    ck_assert_int_eq(left, 0);
    printf("48 MiB helper in its own cgroup: peak %.1f MiB\n", (double)peak / 1048576.0);
    ck_assert_int_ge(peak, INT64_C(48) << 20);
    ck_assert_int_le(peak, (int64_t)(48 * 1.1 * 1048576));
    ck_assert_int_eq(access(dir, F_OK), -1);
    ck_assert_str_eq(cg.dir, "");
}
END_TEST

START_TEST(tree_sampler_sees_a_grandchild)
{
    tree_sampler t;
    tree_sampler_init(&t, getpid());
    pid_t child = fork();
    if (child == 0) {
        /* The child forks the allocating grandchild and waits for it. */
        pid_t g = fork();
        if (g == 0) {
            execl(HELPER_ALLOC_TOUCH, HELPER_ALLOC_TOUCH, "40", "400", (char *)NULL);
            _exit(2);
        }
        int st;
        waitpid(g, &st, 0);
        _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 3);
    }
    /* Sample until a descendant other than the child (the grandchild) is
     * seen holding its 40 MiB (bounded: 300 samples, 5 ms apart). */
    int64_t grandchild = 0;
    for (int i = 0; i < 300 && grandchild < (INT64_C(40) << 20); i++) {
        ck_assert_int_ge(tree_sample(&t), 0);
        for (size_t k = 0; k < t.count; k++)
            if (t.procs[k].pid != child && t.procs[k].hwm_bytes > grandchild)
                grandchild = t.procs[k].hwm_bytes;
        struct timespec pause = {0, 5000000};
        nanosleep(&pause, NULL);
    }
    int status;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    ck_assert_int_eq(WEXITSTATUS(status), 0);
    ck_assert_int_ge(grandchild, INT64_C(40) << 20);
    ck_assert_uint_ge(tree_others(&t, child), 1);
    /* The tree's peak holds the grandchild's on top of the child's. */
    ck_assert_int_ge(tree_peak(&t, child, 0), grandchild);
    /* The child's own ru_maxrss is taken when larger than its samples. */
    ck_assert_int_ge(tree_peak(&t, child, INT64_C(1) << 40), INT64_C(1) << 40);
    tree_sampler_free(&t);
}
END_TEST

/* A script that runs three 40 MiB steps one after another needs 40 MiB,
 * not 120: the peak adds up processes alive together, never a sequence
 * (GNU time says about 40 MiB for the same script). */
START_TEST(tree_sampler_never_adds_processes_that_ran_in_turn)
{
    tree_sampler t;
    tree_sampler_init(&t, getpid());
    pid_t child = fork();
    if (child == 0) {
        for (int step = 0; step < 3; step++) {
            pid_t g = fork();
            if (g == 0) {
                execl(HELPER_ALLOC_TOUCH, HELPER_ALLOC_TOUCH, "40", "150", (char *)NULL);
                _exit(2);
            }
            int st;
            waitpid(g, &st, 0);
            if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
                _exit(3);
        }
        _exit(0);
    }
    int status = 0, done = 0;
    for (int i = 0; i < 2000 && !done; i++) { /* bounded: 10 s at 5 ms */
        ck_assert_int_ge(tree_sample(&t), 0);
        done = waitpid(child, &status, WNOHANG) == child;
        struct timespec pause = {0, 5000000};
        nanosleep(&pause, NULL);
    }
    ck_assert_msg(done, "the three steps did not end in 10 s");
    ck_assert_int_eq(WEXITSTATUS(status), 0);
    int64_t every_pid = 0, parent = 0, largest_step = 0; /* every_pid: a per-process sum */
    for (size_t k = 0; k < t.count; k++) {
        every_pid += t.procs[k].hwm_bytes;
        if (t.procs[k].pid == child)
            parent = t.procs[k].hwm_bytes;
        else if (t.procs[k].hwm_bytes > largest_step)
            largest_step = t.procs[k].hwm_bytes;
    }
    int64_t peak = tree_peak(&t, child, 0);
    printf("three 40 MiB steps in turn: tree peak %.1f MiB (every process summed: %.1f MiB)\n",
           (double)peak / 1048576.0, (double)every_pid / 1048576.0);
    ck_assert_int_ge(every_pid - parent, INT64_C(120) << 20); /* all three steps were seen */
    ck_assert_int_ge(peak, INT64_C(40) << 20);
    /* At most the waiting parent and one step at a time, never the steps
     * added up (under valgrind each step is far larger than 40 MiB, so the
     * bound is taken from what was sampled, not from 40 MiB). */
    ck_assert_int_le(peak, parent + largest_step);
    tree_sampler_free(&t);
}
END_TEST

/* Processes alive before an item (leftovers of earlier ones) and their
 * children are left out of the samples once excluded. */
START_TEST(tree_sampler_skips_excluded_processes)
{
    int hold[2];
    ck_assert_int_eq(pipe(hold), 0);
    pid_t old = fork();
    if (old == 0) {
        /* The old process has a child of its own; both wait for EOF. */
        close(hold[1]);
        pid_t kid = fork();
        char b;
        while (read(hold[0], &b, 1) > 0)
            ;
        if (kid > 0)
            waitpid(kid, NULL, 0);
        _exit(0);
    }
    tree_sampler t;
    tree_sampler_init(&t, getpid());
    /* Wait (bounded) until both old processes are visible. */
    int seen = 0;
    for (int i = 0; i < 400 && seen < 2; i++) {
        tree_sampler_reset(&t);
        seen = tree_sample(&t);
        struct timespec pause = {0, 5000000};
        nanosleep(&pause, NULL);
    }
    ck_assert_int_ge(seen, 2);
    ck_assert_int_ge(tree_sampler_exclude_current(&t), 2);
    pid_t fresh = fork();
    if (fresh == 0) {
        close(hold[1]);
        char b;
        while (read(hold[0], &b, 1) > 0)
            ;
        _exit(0);
    }
    close(hold[0]);
    tree_sampler_reset(&t);
    int now = tree_sample(&t);
    ck_assert_int_eq(now, 1);
    ck_assert_uint_eq(t.count, 1);
    ck_assert_int_eq(t.procs[0].pid, fresh);
    close(hold[1]);
    ck_assert_int_eq(waitpid(fresh, NULL, 0), fresh);
    ck_assert_int_eq(waitpid(old, NULL, 0), old);
    tree_sampler_free(&t);
}
END_TEST

START_TEST(atomic_write_replaces_whole_file)
{
    char *path = write_temp("old contents that are longer");
    ck_assert_int_eq(cli_write_file_atomic("--report", path, "new", 3), 0);
    FILE *f = fopen(path, "r");
    char buf[64] = "";
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    ck_assert_int_eq(n, 3);
    ck_assert_str_eq(buf, "new");
    ck_assert_int_eq(cli_write_file_atomic("--report", "/nonexistent-dir/x", "a", 1), -1);
    unlink(path);
    free(path);
}
END_TEST

/* util's one atomic writer (cli_file.c and the array's files use it):
 * the temporary sits beside the target with the mode asked (less the umask,
 * or exactly), a discarded one leaves nothing, a committed one replaces the
 * target whole, a zeroed one is left alone, and a directory that refuses
 * says why. */
START_TEST(the_atomic_writer_leaves_whole_files_or_nothing)
{
    char dir[] = "/tmp/spacrbench-atomic-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char target[128];
    snprintf(target, sizeof target, "%s/report.json", dir);
    mode_t mask = umask(022);
    sb_atomic_file a;
    for (int exact = 0; exact < 2; exact++) {
        ck_assert_int_eq(sb_atomic_open(&a, target, exact ? 0604 : 0666, exact), 0);
        ck_assert_int_eq(strncmp(a.tmp, dir, strlen(dir)), 0);
        ck_assert_int_eq(strncmp(a.tmp + strlen(dir), "/.sb", 4), 0);
        ck_assert_uint_eq(strlen(a.tmp), strlen(dir) + strlen("/.sbXXXXXX"));
        struct stat st;
        ck_assert_int_eq(lstat(a.tmp, &st), 0);
        ck_assert_int_eq(st.st_mode & 0777, exact ? 0604 : 0644);
        ck_assert_int_eq(sb_atomic_write(&a, "whole", 5), 0);
        ck_assert_int_eq(sb_atomic_close(&a), 0);
        char tmp[128];
        snprintf(tmp, sizeof tmp, "%s", a.tmp);
        if (!exact) { /* discarded: nothing left, the target untouched */
            sb_atomic_discard(&a);
            ck_assert_int_eq(access(tmp, F_OK), -1);
            ck_assert_int_eq(access(target, F_OK), -1);
            continue;
        }
        ck_assert_int_eq(sb_atomic_commit(&a), 0);
        sb_atomic_discard(&a);
        ck_assert_int_eq(access(tmp, F_OK), -1);
        FILE *f = fopen(target, "r");
        char buf[16] = "";
        ck_assert_uint_eq(fread(buf, 1, sizeof buf - 1, f), 5);
        fclose(f);
        ck_assert_str_eq(buf, "whole");
    }
    umask(mask);
    memset(&a, 0, sizeof a);
    sb_atomic_discard(&a); /* never opened: fd 0 (stdin) is not closed */
    ck_assert_int_ne(fcntl(0, F_GETFD), -1);
    char inside[160];
    snprintf(inside, sizeof inside, "%s/no/such/dir/x", dir);
    ck_assert_int_eq(sb_atomic_open(&a, inside, 0666, 0), -1);
    ck_assert_int_eq(errno, ENOENT);
    unlink(target);
    ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* An already serialised value (a library *_to_json text) is spliced as is,
 * with the separators and key the writer owes it; NULL is null. */
START_TEST(json_raw_splices_a_serialised_value)
{
    json_writer w;
    json_init(&w, 0);
    json_begin_object(&w, NULL);
    json_int(&w, "a", 1);
    json_raw(&w, "m", "{\"x\":null,\"y\":[1,2]}");
    json_raw(&w, "n", NULL);
    json_begin_array(&w, "l");
    json_raw(&w, NULL, "true");
    json_raw(&w, NULL, "{}");
    json_end_array(&w);
    json_end_object(&w);
    ck_assert_str_eq(json_result(&w),
                     "{\"a\":1,\"m\":{\"x\":null,\"y\":[1,2]},\"n\":null,\"l\":[true,{}]}");
    json_free(&w);
}
END_TEST

/* Parse argv (NULL-terminated) in mode; returns the exit code. */
static int parse(cli_args *a, cli_mode mode, char **argv)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    cli_args_init(a, mode);
    return cli_args_parse(a, argc, argv);
}

START_TEST(arguments_parse_in_one_pass)
{
    cli_args a;
    char *run[] = {"run",         "x", "--cores", "3",   "y",      "--reserve=1G", "-q",
                   "--no-cgroup", "z", "--",      "cmd", "--json", "{}",           NULL};
    ck_assert_int_eq(parse(&a, CLI_MODE_RUN, run), CLI_EXIT_OK);
    ck_assert_uint_eq(a.n_items, 3);
    ck_assert_str_eq(a.items[0], "x");
    ck_assert_str_eq(a.items[1], "y");
    ck_assert_str_eq(a.items[2], "z");
    ck_assert_int_eq(a.common.rec.cores, 3);
    ck_assert_int_eq(a.common.rec.reserve_bytes, INT64_C(1) << 30);
    ck_assert_int_eq(a.common.quiet, 1);
    ck_assert_int_eq(a.no_cgroup, 1);
    ck_assert_int_eq(a.common.json, 0); /* after "--": the command's */
    ck_assert_uint_eq(a.cmd_len, 3);
    ck_assert_str_eq(a.cmd[1], "--json");
    ck_assert_int_eq(a.warmup, 0); /* run's default */
    cli_args_free(&a);
    /* Twice in one process: getopt's state is reset. */
    char *demo[] = {"spacrbench", "--size", "64x32", "--warmup", "2", "--fields", "5", NULL};
    ck_assert_int_eq(parse(&a, CLI_MODE_DEMO, demo), CLI_EXIT_OK);
    ck_assert_int_eq(a.field.width * 1000 + a.field.height, 64032);
    ck_assert_int_eq(a.warmup, 2);
    ck_assert_int_eq(a.fields, 5);
    cli_args_free(&a);
    /* A run-only option in the default mode, a missing command, a missing
     * value: usage errors. */
    char *wrong_mode[] = {"spacrbench", "--no-cgroup", NULL};
    ck_assert_int_eq(parse(&a, CLI_MODE_DEMO, wrong_mode), CLI_EXIT_USAGE);
    cli_args_free(&a);
    char *no_command[] = {"run", "a", "--", NULL};
    ck_assert_int_eq(parse(&a, CLI_MODE_RUN, no_command), CLI_EXIT_USAGE);
    cli_args_free(&a);
    char *no_value[] = {"run", "a", "--items", NULL};
    ck_assert_int_eq(parse(&a, CLI_MODE_RUN, no_value), CLI_EXIT_USAGE);
    cli_args_free(&a);
    char *stray[] = {"spacrbench", "stray", NULL};
    ck_assert_int_eq(parse(&a, CLI_MODE_DEMO, stray), CLI_EXIT_USAGE);
    cli_args_free(&a);
}
END_TEST

static Suite *parts_suite(void)
{
    Suite *s = suite_create("cli_parts");
    TCase *t = tcase_create("text");
    tcase_add_test(t, json_escapes_quotes_controls_and_bad_utf8);
    tcase_add_test(t, json_numbers_nesting_and_misuse);
    tcase_add_test(t, json_raw_splices_a_serialised_value);
    tcase_add_test(t, arguments_parse_in_one_pass);
    tcase_add_test(t, byte_sizes_and_numbers_parse);
    tcase_add_test(t, command_lines_substitute_and_display);
    tcase_add_test(t, item_lists_read_one_per_line);
    tcase_add_test(t, atomic_write_replaces_whole_file);
    tcase_add_test(t, the_atomic_writer_leaves_whole_files_or_nothing);
    suite_add_tcase(s, t);
    t = tcase_create("workload");
    tcase_add_test(t, field_is_deterministic_per_seed);
    tcase_add_test(t, gpu_layout_sizes_every_device_buffer);
    tcase_add_test(t, labelling_uses_8_connectivity);
    tcase_add_test(t, otsu_splits_two_populations);
    suite_add_tcase(s, t);
    t = tcase_create("process_tree");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, cgroup_is_found_from_recorded_proc_texts);
    tcase_add_test(t, real_child_cgroup_measures_and_is_removed);
    tcase_add_test(t, tree_sampler_sees_a_grandchild);
    tcase_add_test(t, tree_sampler_never_adds_processes_that_ran_in_turn);
    tcase_add_test(t, tree_sampler_skips_excluded_processes);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(parts_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
