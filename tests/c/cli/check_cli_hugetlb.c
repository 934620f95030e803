/* `spacrbench run` of a command that maps hugetlb pages: they are in
 * neither RSS, VmHWM nor the item cgroup's charge, so the run adds the
 * HugetlbPages it samples in the tree and never calls that peak exact.
 * Reserving pages is a system setting: done for this suite alone (it runs
 * serially), and restored on every path. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_test_support.h"
#include "sb_test_sysctl.h"

#define NR_HUGEPAGES "/proc/sys/vm/nr_hugepages"
#define MIB          INT64_C(1048576)

START_TEST(hugetlb_pages_count_and_the_peak_is_not_exact)
{
    long before = sb_test_read_long(NR_HUGEPAGES);
    if (geteuid() != 0 || before < 0 || sb_test_write_long(NR_HUGEPAGES, before + 16) != 0) {
        printf("SKIP hugetlb_pages_count_and_the_peak_is_not_exact: cannot reserve hugetlb "
               "pages here (needs root and a writable " NR_HUGEPAGES ")\n");
        return;
    }
    char *const argv[] = {SPACRBENCH_CLI, "run", "-v",  "a", "--",
                          HELPER_HUGETLB, "16",  "400", NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    sb_test_write_long(NR_HUGEPAGES, before); /* before any assertion can leave it raised */
    if (r.exited && r.code == 3 && strstr(r.err, "exited with status 75")) {
        printf("SKIP hugetlb_pages_count_and_the_peak_is_not_exact: the kernel gave no "
               "hugetlb pages (mmap MAP_HUGETLB failed)\n");
        cli_result_free(&r);
        return;
    }
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    /* 16 MiB of hugetlb pages on top of the helper's own few hundred KiB. */
    const char *peak = strstr(r.out, "  item 1 ");
    ck_assert_ptr_nonnull(peak);
    double mib = 0;
    /* With a cgroup the item's line gives its charge (and its RSS), without
     * one its peak: hugetlb pages are added to each. */
    const char *at = strstr(peak, "charged ");
    if (!at)
        at = strstr(peak, "peak ");
    ck_assert_ptr_nonnull(at);
    ck_assert_int_eq(sscanf(strchr(at, ' '), " %lf MiB", &mib), 1);
    ck_assert_msg(mib >= 16.0 && mib < 32.0, "item peak %.1f MiB: %s", mib, r.out);
    ck_assert_msg(strstr(r.out, "hugetlb pages sampled, not covered between samples"), "%s", r.out);
    ck_assert_msg(!strstr(r.out, "exact, cgroup") && !strstr(r.out, "exact, child"), "%s", r.out);
    ck_assert_msg(strstr(r.out, "hugetlb pages (MAP_HUGETLB) are in neither RSS, VmHWM nor a "
                                "memory cgroup's charge"),
                  "%s", r.out);
    cli_result_free(&r);
}
END_TEST

START_TEST(without_hugetlb_pages_nothing_changes)
{
    if (sb_test_read_long("/proc/sys/vm/nr_hugepages") > 0 ||
        sb_test_read_long("/proc/sys/vm/nr_overcommit_hugepages") > 0) {
        printf("SKIP without_hugetlb_pages_nothing_changes: this system has hugetlb pages to "
               "hand out\n");
        return;
    }
    char *const argv[] = {SPACRBENCH_CLI, "run", "a", "--", "true", NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    ck_assert_msg(!strstr(r.out, "hugetlb"), "%s", r.out);
    cli_result_free(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cli_hugetlb");
    TCase *t = tcase_create("hugetlb");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, hugetlb_pages_count_and_the_peak_is_not_exact);
    tcase_add_test(t, without_hugetlb_pages_nothing_changes);
    suite_add_tcase(s, t);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
