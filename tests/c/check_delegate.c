/* Where a user without root gets a cgroup (group_delegate.c): the choice
 * on recorded cgroup v2 trees (directories and files made here, owned by
 * the user the test plays), and, where this process runs in a real cgroup
 * v2 it may delegate to itself (the qemu stage runs it so, as an
 * unprivileged user), the leaf move itself: the group measures its
 * process exactly and everything is as before afterwards. Elsewhere the
 * real case prints "SKIP: ..." and passes. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "os.h"
#include "sb_test_memory.h"

static void skip(const char *test, const char *why)
{
    printf("SKIP: check_delegate %s: %s\n", test, why);
    fprintf(stderr, "SKIP: check_delegate %s: %s\n", test, why);
    fflush(stdout);
}

static char mount_dir[256];
static uid_t user; /* the user the recorded tree belongs to */

static void put(const char *dir, const char *file, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    if (geteuid() == 0)
        ck_assert_int_eq(chown(path, user, user), 0);
}

/* One recorded cgroup below the mount: rel ("" the mount itself). */
static void level(const char *rel, const char *procs, const char *controllers, const char *subtree,
                  int is_root)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s%s%s", mount_dir, rel[0] ? "/" : "", rel);
    if (rel[0])
        ck_assert_int_eq(mkdir(dir, 0755), 0);
    if (geteuid() == 0)
        ck_assert_int_eq(chown(dir, user, user), 0);
    put(dir, "cgroup.procs", procs);
    put(dir, "cgroup.controllers", controllers);
    put(dir, "cgroup.subtree_control", subtree);
    put(dir, "memory.max", "max\n");
    if (!is_root)
        put(dir, "cgroup.events", "populated 1\nfrozen 0\n");
}

static void tree_begin(void)
{
    char tmpl[] = "/tmp/sbdeleg-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(tmpl));
    snprintf(mount_dir, sizeof mount_dir, "%s", tmpl);
    /* As root the tree is handed to a made-up user; otherwise it is ours. */
    user = geteuid() == 0 ? 4242 : geteuid();
}

static void tree_end(void)
{
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", mount_dir);
    ck_assert_int_eq(system(cmd), 0);
}

static sb_group choose(const char *own_rel, uid_t uid)
{
    sb_group g;
    memset(&g, 0, sizeof g);
    g.version = 2;
    snprintf(g.own, sizeof g.own, "%s%s%s", mount_dir, own_rel[0] ? "/" : "", own_rel);
    sb_group_choose(&g, mount_dir, uid, getpid());
    printf("%s as uid %ld: %s\n", own_rel, (long)uid, g.found);
    ck_assert_uint_lt(strlen(g.found), 260); /* one short note */
    return g;
}

static const char *rel_of(const sb_group *g) { return g->parent + strlen(mount_dir); }

static char self_line[32], self_and_other[64];

static void pids_of_test(void)
{
    snprintf(self_line, sizeof self_line, "%ld\n", (long)getpid());
    /* pid 1 is never this process's descendant. */
    snprintf(self_and_other, sizeof self_and_other, "%ld\n1\n", (long)getpid());
}

/* systemd's user@UID.service: delegated, empty, memory enabled; the
 * terminal's scope below it holds the shell too. */
START_TEST(a_delegated_level_above_a_busy_scope)
{
    tree_begin();
    pids_of_test();
    level("", "", "cpu memory pids\n", "cpu memory pids\n", 1);
    level("user.service", "", "cpu memory pids\n", "memory pids\n", 0);
    level("user.service/app.slice", "", "memory pids\n", "memory pids\n", 0);
    level("user.service/app.slice/term.scope", self_and_other, "memory pids\n", "", 0);
    sb_group g = choose("user.service/app.slice/term.scope", user);
    ck_assert_int_eq(g.place, SB_GROUP_ABOVE);
    ck_assert_str_eq(rel_of(&g), "/user.service/app.slice");
    ck_assert_ptr_nonnull(strstr(g.found, "delegated to uid"));
    ck_assert_ptr_nonnull(strstr(g.found, "holds 1 other process"));
    /* Acquiring needs nothing: the groups go there as they are. */
    char why[400];
    ck_assert_int_eq(sb_group_delegate_acquire(&g, why, sizeof why), 0);
    ck_assert_int_eq(g.holds_leaf, 0);

    /* A level that holds processes is passed over, not taken. */
    put(g.parent, "cgroup.procs", "1\n");
    g = choose("user.service/app.slice/term.scope", user);
    ck_assert_int_eq(g.place, SB_GROUP_ABOVE);
    ck_assert_str_eq(rel_of(&g), "/user.service");

    /* The levels are another user's: nothing is usable, and it says so. */
    g = choose("user.service/app.slice/term.scope", user + 1);
    ck_assert_int_eq(g.place, SB_GROUP_NONE);
    ck_assert_ptr_nonnull(strstr(g.found, "is not writable for uid"));
    ck_assert_ptr_nonnull(strstr(g.found, "nothing above it is delegated"));
    ck_assert_int_eq(sb_group_delegate_acquire(&g, why, sizeof why), -1);
    ck_assert_str_eq(why, g.found);
    ck_assert_int_eq(sb_group_create(&g, "never", why, sizeof why), -1);
    ck_assert_str_eq(why, g.found);
    tree_end();
}
END_TEST

/* A limit between the process and the delegated level: groups above it
 * would escape it, so none is made there. */
START_TEST(a_limit_in_between_is_never_escaped)
{
    tree_begin();
    pids_of_test();
    level("", "", "cpu memory pids\n", "cpu memory pids\n", 1);
    level("user.service", "", "cpu memory pids\n", "memory pids\n", 0);
    level("user.service/job.scope", self_and_other, "memory pids\n", "", 0);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/user.service/job.scope", mount_dir);
    put(dir, "memory.max", "536870912\n");
    sb_group g = choose("user.service/job.scope", user);
    ck_assert_int_eq(g.place, SB_GROUP_NONE);
    ck_assert_ptr_nonnull(strstr(g.found, "would escape its memory.max"));
    put(dir, "memory.max", "max\n");
    put(dir, "cpu.max", "100000 100000\n");
    g = choose("user.service/job.scope", user);
    ck_assert_int_eq(g.place, SB_GROUP_NONE);
    ck_assert_ptr_nonnull(strstr(g.found, "cpu.max"));
    put(dir, "cpu.max", "max 100000\n");
    g = choose("user.service/job.scope", user);
    ck_assert_int_eq(g.place, SB_GROUP_ABOVE);
    tree_end();
}
END_TEST

/* The process's own cgroup is the user's, has memory, holds only it
 * (`systemd-run --user --scope`, a container's init): it moves into a
 * leaf there. Root never looks above its own cgroup. */
START_TEST(its_own_cgroup_once_it_moves_into_a_leaf)
{
    tree_begin();
    pids_of_test();
    level("", "", "cpu memory pids\n", "cpu memory pids\n", 1);
    level("user.service", "", "memory pids\n", "memory pids\n", 0);
    level("user.service/run.scope", self_line, "memory pids\n", "", 0);
    sb_group g = choose("user.service/run.scope", user);
    ck_assert_int_eq(g.place, SB_GROUP_LEAF);
    ck_assert_str_eq(rel_of(&g), "/user.service/run.scope");
    ck_assert_ptr_nonnull(strstr(g.found, "moved into a leaf"));

    /* While it sits in its leaf, /proc/self/cgroup names the leaf: the
     * choice is the same cgroup. */
    char leaf[1024], tag[48];
    sb_group_owner_tag(tag, sizeof tag); /* the owner by identity, as every group's name */
    snprintf(leaf, sizeof leaf, "user.service/run.scope/spacrbench-leaf-%s-0", tag);
    level(leaf, self_line, "memory pids\n", "", 0);
    g = choose(leaf, user);
    ck_assert_int_eq(g.place, SB_GROUP_LEAF);
    ck_assert_str_eq(rel_of(&g), "/user.service/run.scope");

    /* Without the memory controller there (the level above does not
     * enable it), or with someone else's process in it: not this way. */
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/user.service/run.scope", mount_dir);
    put(dir, "cgroup.controllers", "pids\n");
    g = choose("user.service/run.scope", user);
    ck_assert_int_ne(g.place, SB_GROUP_LEAF);
    ck_assert_ptr_nonnull(strstr(g.found, "has no memory controller"));
    put(dir, "cgroup.controllers", "memory pids\n");
    put(dir, "cgroup.procs", self_and_other);
    g = choose("user.service/run.scope", 0);
    ck_assert_int_eq(g.place, SB_GROUP_NONE);
    ck_assert_ptr_nonnull(strstr(g.found, "holds 1 other process"));
    ck_assert_ptr_null(strstr(g.found, "delegated"));
    tree_end();
}
END_TEST

/* v1, the v2 root and a cgroup that already enables memory take groups
 * as they are; a long path is shortened in the note. */
START_TEST(places_that_need_nothing_and_short_paths)
{
    tree_begin();
    pids_of_test();
    level("", self_line, "cpu memory pids\n", "", 1);
    sb_group g = choose("", 0);
    ck_assert_int_eq(g.place, SB_GROUP_OWN);
    ck_assert_ptr_nonnull(strstr(g.found, "hierarchy's root"));
    memset(&g, 0, sizeof g);
    g.version = 1;
    snprintf(g.own, sizeof g.own, "%s", mount_dir);
    sb_group_choose(&g, mount_dir, user, getpid());
    ck_assert_int_eq(g.place, SB_GROUP_OWN);
    ck_assert_ptr_nonnull(strstr(g.found, "cgroup v1 memory"));
    const char *deep = "a-very-long-slice-name.slice/another-long-unit-name-1234567890.scope";
    char rel[512];
    snprintf(rel, sizeof rel, "a-very-long-slice-name.slice");
    level(rel, "", "memory\n", "memory\n", 0);
    level(deep, "", "memory\n", "memory\n", 0);
    g = choose(deep, user);
    ck_assert_int_eq(g.place, SB_GROUP_OWN); /* memory already enabled, no process */
    ck_assert_ptr_null(strstr(g.found, mount_dir));
    ck_assert_ptr_nonnull(strstr(g.found, "..."));
    char out[64];
    sb_group_short_path("/sys/fs/cgroup/short", out, sizeof out);
    ck_assert_str_eq(out, "/sys/fs/cgroup/short");
    sb_group_short_path("/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/app.slice",
                        out, sizeof out);
    ck_assert_str_eq(out, ".../user-1000.slice/user@1000.service/app.slice");
    ck_assert_uint_le(strlen(out), 52);
    tree_end();
}
END_TEST

/* The real thing, where this process's own cgroup v2 can be delegated to
 * itself (the qemu stage, as an unprivileged user in a cgroup of its own):
 * move into the leaf, measure a child exactly, and leave everything as it
 * was. */
START_TEST(a_real_leaf_measures_and_is_undone)
{
    sb_group g;
    char why[600];
    if (sb_group_locate(&g, NULL, why, sizeof why) != 0) {
        skip("a_real_leaf_measures_and_is_undone", why);
        return;
    }
    if (g.place != SB_GROUP_LEAF) {
        skip("a_real_leaf_measures_and_is_undone", g.found);
        return;
    }
    char subtree[256] = "", path[SB_GROUP_PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/cgroup.subtree_control", g.own);
    size_t len = 0;
    ck_assert_int_eq(sb_cg_read_small(path, subtree, sizeof subtree, &len), 0);
    ck_assert_int_eq(sb_group_delegate_acquire(&g, why, sizeof why), 0);
    /* A second group of the same process shares the leaf. */
    sb_group second;
    ck_assert_int_eq(sb_group_locate(&second, NULL, why, sizeof why), 0);
    ck_assert_int_eq(second.place, SB_GROUP_LEAF);
    ck_assert_str_eq(second.parent, g.parent);
    ck_assert_int_eq(sb_group_delegate_acquire(&second, why, sizeof why), 0);
    char name[64];
    snprintf(name, sizeof name, "spacrbench-test-deleg-%ld", (long)getpid());
    ck_assert_msg(sb_group_create(&g, name, why, sizeof why) == 0, "%s", why);
    int go[2];
    ck_assert_int_eq(pipe(go), 0);
    pid_t pid = fork();
    if (pid == 0) {
        char b;
        close(go[1]);
        if (read(go[0], &b, 1) != 1)
            _exit(1);
        void *p = sb_test_touch_alloc(48 * SB_MIB);
        _exit(p ? 0 : 2);
    }
    close(go[0]);
    ck_assert_int_eq(sb_group_attach(&g, pid), 0);
    ck_assert_int_eq(write(go[1], "x", 1), 1);
    close(go[1]);
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    int64_t peak = sb_group_peak(&g);
    int left = -1;
    ck_assert_int_eq(sb_group_remove(&g, &left), 0);
    sb_group_delegate_release(&second); /* the leaf stays: g still holds it */
    char cg[512] = "";
    ck_assert_int_eq(sb_cg_read_small("/proc/self/cgroup", cg, sizeof cg, &len), 0);
    ck_assert_ptr_nonnull(strstr(cg, "spacrbench-leaf-"));
    sb_group_delegate_release(&g);
    printf("check_delegate: 48 MiB child in a group of a delegated leaf: peak %.1f MiB\n",
           (double)peak / SB_MIB);
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    ck_assert_int_ge(peak, (int64_t)(48 * SB_MIB));
    ck_assert_int_le(peak, (int64_t)(48 * SB_MIB * (100 + SB_TEST_RSS_OVERHEAD_PERCENT) / 100));
    /* As before: back in its own cgroup, its controllers as they were. */
    ck_assert_int_eq(sb_cg_read_small("/proc/self/cgroup", cg, sizeof cg, &len), 0);
    ck_assert_ptr_null(strstr(cg, "spacrbench-leaf-"));
    char after[256] = "";
    ck_assert_int_eq(sb_cg_read_small(path, after, sizeof after, &len), 0);
    ck_assert_str_eq(after, subtree);
    char tag[48];
    sb_group_owner_tag(tag, sizeof tag);
    snprintf(path, sizeof path, "%s/spacrbench-leaf-%s-0", g.own, tag);
    ck_assert_int_eq(access(path, F_OK), -1);
}
END_TEST

static Suite *delegate_suite(void)
{
    Suite *s = suite_create("delegate");
    TCase *t = tcase_create("choose");
    tcase_add_test(t, a_delegated_level_above_a_busy_scope);
    tcase_add_test(t, a_limit_in_between_is_never_escaped);
    tcase_add_test(t, its_own_cgroup_once_it_moves_into_a_leaf);
    tcase_add_test(t, places_that_need_nothing_and_short_paths);
    suite_add_tcase(s, t);
    TCase *r = tcase_create("real");
    tcase_add_test(r, a_real_leaf_measures_and_is_undone);
    suite_add_tcase(s, r);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(delegate_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
