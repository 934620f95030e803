/* The fallback samplers' parts: the cost policy (os.h) on
 * given costs, the budget watched without a cgroup, the tree listing (os.h) on real processes (a
 * grandchild, and a child forked by a thread, which only that thread's
 * children file lists) and on recorded /proc trees with and without
 * children files, and the PSS tracker (os.h) against the PSS the
 * kernel reports for forked workers that share copy-on-write pages. */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "os.h"
#include "sb_test_memory.h"
#include "util.h"

/* ---- the cost policy ---- */

START_TEST(a_sample_costing_more_than_the_share_stretches_the_gap)
{
    sb_sample_budget b;
    sb_sample_budget_init(&b, 0.005, SB_SAMPLE_BUDGET_SHARE);
    /* Free samples keep the floor. */
    ck_assert(fabs(sb_sample_budget_next(&b, 10.0, 0) - 10.005) < 1e-9);
    /* 100 us at 0.5 % of a core: the next one 20 ms later. */
    ck_assert(fabs(sb_sample_budget_next(&b, 10.005, 100e-6) - 10.025) < 1e-9);
    ck_assert(fabs(sb_sample_budget_next(&b, 10.025, 10e-6) - 10.030) < 1e-9);
    ck_assert_int_eq(b.samples, 3);
    ck_assert_int_eq(b.gaps, 2);
    ck_assert(fabs(sb_sample_budget_mean(&b) - 0.0125) < 1e-9);
    ck_assert(fabs(b.longest_s - 0.020) < 1e-9);
    ck_assert(fabs(sb_sample_budget_miss_ms(&b) - 20) < 1e-9);
    /* A new series (the next item): the pause before it is not a gap. */
    sb_sample_budget_series(&b);
    sb_sample_budget_next(&b, 99.0, 0);
    ck_assert_int_eq(b.gaps, 2);
    char text[256];
    sb_sample_budget_describe(&b, text, sizeof text);
    ck_assert_msg(strstr(text, "4 times, every 12.5 ms on average, at most 20.0 ms apart"), "%s",
                  text);
    ck_assert_msg(strstr(text, "5 ms at least") && strstr(text, "0.5 % of a core"), "%s", text);
}
END_TEST

START_TEST(a_part_of_the_budget_and_no_gap_yet)
{
    sb_sample_budget b;
    sb_sample_budget_init(&b, 0.020, SB_SAMPLE_BUDGET_SHARE * 0.4);
    ck_assert(fabs(b.share - 0.002) < 1e-12);
    /* 100 us at 0.2 %: 50 ms. */
    ck_assert(fabs(sb_sample_budget_next(&b, 1.0, 100e-6) - 1.05) < 1e-9);
    char text[256];
    sb_sample_budget_describe(&b, text, sizeof text);
    ck_assert_msg(strstr(text, "1 time (20 ms at least"), "%s", text);
    /* No gap yet: the one planned (50 ms) bounds what may be missed. */
    ck_assert(fabs(sb_sample_budget_miss_ms(&b) - 50) < 1e-9);
    /* Out of range: the whole budget, never more. */
    sb_sample_budget_init(&b, 0, 5);
    ck_assert(fabs(b.share - SB_SAMPLE_BUDGET_SHARE) < 1e-12);
    ck_assert(b.floor_s > 0);
    sb_sample_budget_describe(&b, text, sizeof text);
    ck_assert_msg(strncmp(text, "never (", 7) == 0, "%s", text);
}
END_TEST

/* ---- the tree ---- */

static int sorted_has(const sb_pid_list *l, pid_t pid)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->pid[i] == pid)
            return 1;
    return 0;
}

static int hold_fd = -1, tell_fd = -1;

/* A thread forks, says the pid, and stays alive (a thread that ends hands
 * its children to another thread): the child is listed only in this
 * thread's children file. */
static void *fork_from_thread(void *arg)
{
    (void)arg;
    pid_t kid = fork();
    if (kid == 0) {
        char b;
        while (read(hold_fd, &b, 1) > 0)
            ;
        _exit(0);
    }
    if (write(tell_fd, &kid, sizeof kid) != (ssize_t)sizeof kid)
        return NULL;
    char b;
    while (read(hold_fd, &b, 1) > 0)
        ;
    return NULL;
}

static int skip_pid(pid_t pid, const void *arg) { return pid == *(const pid_t *)arg; }

/* SPACRBENCH_SAMPLER_BUDGET raises (or lowers) every sampler's share alike;
 * what is no percentage of one core leaves the default. */
START_TEST(a_budget_the_user_sets_scales_every_part)
{
    static const struct {
        const char *text;
        double whole;
    } cases[] = {{"5", 0.05},    {"5%", 0.05},   {"100", 1.0},   {"0.1", 0.001},
                 {"0", 0.005},   {"-3", 0.005},  {"101", 0.005}, {"five", 0.005},
                 {"5 %", 0.005}, {"nan", 0.005}, {"", 0.005}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        setenv("SPACRBENCH_SAMPLER_BUDGET", cases[i].text, 1);
        ck_assert_msg(fabs(sb_sample_budget_whole() - cases[i].whole) < 1e-12, "'%s': %g",
                      cases[i].text, sb_sample_budget_whole());
        sb_sample_budget b;
        sb_sample_budget_init(&b, 0.01, SB_SAMPLE_BUDGET_SHARE * 0.4); /* a 0.4 part */
        ck_assert(fabs(b.share - cases[i].whole * 0.4) < 1e-12);
    }
    unsetenv("SPACRBENCH_SAMPLER_BUDGET");
    ck_assert(sb_sample_budget_whole() == SB_SAMPLE_BUDGET_SHARE);
}
END_TEST

/* The budget watched without a cgroup (the supervisor's and the library
 * group's one rule): a sum over a watched limit ends the group, once. */
START_TEST(a_watched_budget_ends_the_group_once)
{
    ck_assert_int_eq(sb_budget_watch_over(100, 0, 101), 1);
    ck_assert_int_eq(sb_budget_watch_over(100, 0, 100), 0);   /* at the budget: fits */
    ck_assert_int_eq(sb_budget_watch_over(100, 120, 130), 0); /* ended already */
    ck_assert_int_eq(sb_budget_watch_over(0, 0, 1 << 30), 0); /* nothing watched */
    ck_assert_int_eq(sb_budget_watch_over(-1, 0, 1 << 30), 0);
}
END_TEST

START_TEST(the_tree_is_read_from_the_tree_itself)
{
    int hold[2];
    ck_assert_int_eq(pipe(hold), 0);
    int ready[2];
    ck_assert_int_eq(pipe(ready), 0);
    pid_t child = fork();
    if (child == 0) {
        close(hold[1]);
        close(ready[0]);
        hold_fd = hold[0];
        pid_t grand = fork();
        if (grand == 0) {
            char b;
            while (read(hold[0], &b, 1) > 0)
                ;
            _exit(0);
        }
        int told[2];
        if (pipe(told) != 0)
            _exit(2);
        tell_fd = told[1];
        pthread_t t;
        if (pthread_create(&t, NULL, fork_from_thread, NULL) != 0)
            _exit(2);
        pid_t both[2] = {grand, -1};
        if (read(told[0], &both[1], sizeof both[1]) != (ssize_t)sizeof both[1])
            _exit(3);
        pid_t by_thread = both[1];
        if (write(ready[1], both, sizeof both) != (ssize_t)sizeof both)
            _exit(3);
        char b;
        while (read(hold[0], &b, 1) > 0)
            ;
        pthread_join(t, NULL);
        waitpid(grand, NULL, 0);
        waitpid(by_thread, NULL, 0);
        _exit(0);
    }
    close(ready[1]);
    close(hold[0]);
    pid_t kids[2];
    ck_assert_int_eq(read(ready[0], kids, sizeof kids), (ssize_t)sizeof kids);
    close(ready[0]);
    pid_t self = getpid();
    sb_pid_list l = {0};
    ck_assert_int_eq(sb_proc_tree_descendants("/proc", &self, 1, NULL, NULL, &l), 0);
    ck_assert_uint_eq(l.n, 3);
    ck_assert(sorted_has(&l, child) && sorted_has(&l, kids[0]) && sorted_has(&l, kids[1]));
    /* A skipped process takes its subtree with it. */
    ck_assert_int_eq(sb_proc_tree_descendants("/proc", &self, 1, skip_pid, &child, &l), 0);
    ck_assert_uint_eq(l.n, 0);
    /* From the child down: the other two. */
    ck_assert_int_eq(sb_proc_tree_descendants("/proc", &child, 1, NULL, NULL, &l), 0);
    ck_assert_uint_eq(l.n, 2);
    ck_assert_int_eq(sb_proc_state("/proc", child) != 0, 1);
    close(hold[1]);
    int st;
    ck_assert_int_eq(waitpid(child, &st, 0), child);
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    ck_assert_int_eq(sb_proc_state("/proc", child), 0);
    sb_pid_list_free(&l);
}
END_TEST

static char *fake_root;

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    int len = snprintf(path, sizeof path, "%s/%s", dir, name);
    ck_assert(len > 0 && (size_t)len < sizeof path);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

/* A recorded process: PID's stat names PPID; with_children: its one
 * thread's children file lists kids. */
static void fake_proc(long pid, long ppid, int with_children, const char *kids)
{
    char dir[512], text[128];
    snprintf(dir, sizeof dir, "%s/%ld", fake_root, pid);
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    snprintf(text, sizeof text, "%ld (a) b) S %ld 1 1 0\n", pid, ppid);
    write_file(dir, "stat", text);
    snprintf(dir, sizeof dir, "%s/%ld/task", fake_root, pid);
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    snprintf(dir, sizeof dir, "%s/%ld/task/%ld", fake_root, pid, pid);
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    if (with_children)
        write_file(dir, "children", kids);
}

static void remove_tree(const char *path)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    ck_assert_int_eq(system(cmd), 0);
}

/* 10 -> 11 -> 13, 10 -> 12; 20 is someone else's. Grandchild listed
 * before its parent in the scan (13 < ... order does not matter). */
static void fake_tree(int with_children)
{
    char tmpl[] = "/tmp/sbproc-XXXXXX";
    fake_root = strdup(mkdtemp(tmpl));
    fake_proc(10, 1, with_children, "11 12 ");
    fake_proc(11, 10, with_children, "13\n");
    fake_proc(12, 10, with_children, "");
    fake_proc(13, 11, with_children, "");
    fake_proc(20, 1, with_children, "");
}

START_TEST(recorded_trees_with_and_without_children_files)
{
    for (int with = 1; with >= 0; with--) {
        fake_tree(with);
        pid_t root = 10;
        sb_pid_list l = {0};
        ck_assert_int_eq(sb_proc_tree_descendants(fake_root, &root, 1, NULL, NULL, &l), 0);
        ck_assert_msg(l.n == 3, "%s children files: %zu found", with ? "with" : "without", l.n);
        ck_assert(sorted_has(&l, 11) && sorted_has(&l, 12) && sorted_has(&l, 13));
        ck_assert(!sorted_has(&l, 20) && !sorted_has(&l, 10));
        pid_t eleven = 11;
        ck_assert_int_eq(sb_proc_tree_descendants(fake_root, &root, 1, skip_pid, &eleven, &l), 0);
        ck_assert_uint_eq(l.n, 1);
        ck_assert_int_eq(l.pid[0], 12);
        ck_assert_int_eq(sb_proc_state(fake_root, 13), 'S');
        sb_pid_list_free(&l);
        remove_tree(fake_root);
        free(fake_root);
    }
}
END_TEST

/* ---- PSS at statm's price ---- */

/* PSS straight from the kernel (smaps_rollup), in bytes. */
static int64_t kernel_pss(pid_t pid)
{
    char path[64], text[4096];
    size_t len = 0;
    int64_t v = -1;
    snprintf(path, sizeof path, "/proc/%ld/smaps_rollup", (long)pid);
    if (sb_cg_read_small(path, text, sizeof text, &len) != 0 ||
        sb_parse_meminfo(text, len, "Pss", &v) != SB_PARSE_OK)
        return -1;
    return v;
}

static int64_t kernel_rss(pid_t pid)
{
    char path[64], text[4096];
    size_t len = 0;
    int64_t v = -1;
    snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
    if (sb_cg_read_small(path, text, sizeof text, &len) != 0 ||
        sb_parse_meminfo(text, len, "VmRSS", &v) != SB_PARSE_OK)
        return -1;
    return v;
}

/* Two forked workers share the parent's 64 MiB (copy-on-write, never
 * written): their PSS is a third of it each, their RSS all of it. Then
 * worker 0 touches 32 MiB of its own: the tracker sees it at statm's
 * price, without reading smaps_rollup again. */
START_TEST(forked_workers_are_counted_by_their_pss)
{
    size_t shared = 64 * SB_MIB, own = 32 * SB_MIB;
    char *pages = sb_test_touch_alloc(shared);
    ck_assert_ptr_nonnull(pages);
    int go[2][2], done[2];
    ck_assert_int_eq(pipe(done), 0);
    pid_t w[2];
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(pipe(go[i]), 0);
        w[i] = fork();
        if (w[i] == 0) {
            close(go[i][1]);
            for (int j = 0; j < i; j++)
                close(go[j][1]); /* else worker j never sees its EOF */
            char b;
            void *mine = NULL;
            /* Each byte read: touch 32 MiB more, say so; EOF: leave. */
            while (read(go[i][0], &b, 1) == 1) {
                mine = sb_test_touch_alloc(own);
                if (!mine || write(done[1], "x", 1) != 1)
                    _exit(2);
            }
            _exit(0);
        }
        close(go[i][0]);
    }
    usleep(50000);
    sb_pss_tracker t;
    sb_pss_tracker_init(&t, 0.1, SB_SAMPLE_BUDGET_SHARE * 0.4);
    int64_t sum = sb_pss_tracker_sample(&t, w, 2, 1.0, 1);
    int64_t pss = kernel_pss(w[0]) + kernel_pss(w[1]);
    int64_t rss = (kernel_rss(w[0]) + kernel_rss(w[1]));
    printf("2 workers sharing 64 MiB: tracker %.1f MiB, kernel PSS %.1f MiB, RSS %.1f MiB\n",
           (double)sum / SB_MIB, (double)pss / SB_MIB, (double)rss / SB_MIB);
    int64_t reads = t.smaps_reads;
    ck_assert_int_eq(reads, 2);
    ck_assert(sum > 0 && rss >= (int64_t)(2 * shared));
    /* Read the same moment as the kernel's figure: within 2 MiB of it,
     * and well below the RSS sum that counts the shared pages twice. */
    ck_assert_msg(llabs((long long)(sum - pss)) < (long long)(2 * SB_MIB), "%lld vs %lld",
                  (long long)sum, (long long)pss);
    ck_assert_int_lt(sum, rss - (int64_t)(shared / 2));
    /* Worker 0 touches 32 MiB of its own. */
    ck_assert_int_eq(write(go[0][1], "x", 1), 1);
    char b;
    ck_assert_int_eq(read(done[0], &b, 1), 1);
    int64_t grown = sb_pss_tracker_sample(&t, w, 2, 1.01, 1); /* the full read is not due */
    ck_assert_int_eq(t.smaps_reads, reads);                   /* statm only */
    int64_t now_pss = kernel_pss(w[0]) + kernel_pss(w[1]);
    printf("worker 0 touched 32 MiB more: tracker %.1f MiB (statm only), kernel PSS %.1f MiB\n",
           (double)grown / SB_MIB, (double)now_pss / SB_MIB);
    ck_assert_int_ge(grown, sum + (int64_t)(own - 2 * SB_MIB));
    ck_assert_msg(llabs((long long)(grown - now_pss)) < (long long)(2 * SB_MIB), "%lld vs %lld",
                  (long long)grown, (long long)now_pss);
    /* Due again (when the budget says: later under valgrind, where a read
     * costs more): both read afresh. */
    sb_pss_tracker_sample(&t, w, 2, t.refresh_due + 0.001, 1);
    ck_assert_int_eq(t.smaps_reads, reads + 2);
    for (int i = 0; i < 2; i++) {
        close(go[i][1]);
        ck_assert_int_eq(waitpid(w[i], NULL, 0), w[i]);
    }
    /* Gone: nothing to sum. */
    ck_assert_int_eq(sb_pss_tracker_sample(&t, w, 2, t.refresh_due + 1, 1), 0);
    sb_pss_tracker_free(&t);
    close(done[0]);
    close(done[1]);
    sb_test_touch_free(pages, shared);
}
END_TEST

static Suite *sampling_suite(void)
{
    Suite *s = suite_create("sampling");
    TCase *b = tcase_create("budget");
    tcase_add_test(b, a_sample_costing_more_than_the_share_stretches_the_gap);
    tcase_add_test(b, a_part_of_the_budget_and_no_gap_yet);
    tcase_add_test(b, a_budget_the_user_sets_scales_every_part);
    tcase_add_test(b, a_watched_budget_ends_the_group_once);
    suite_add_tcase(s, b);
    TCase *t = tcase_create("tree");
    tcase_add_test(t, the_tree_is_read_from_the_tree_itself);
    tcase_add_test(t, recorded_trees_with_and_without_children_files);
    suite_add_tcase(s, t);
    TCase *p = tcase_create("pss");
    tcase_set_timeout(p, 60);
    tcase_add_test(p, forked_workers_are_counted_by_their_pss);
    suite_add_tcase(s, p);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(sampling_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
