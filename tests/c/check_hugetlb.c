/* hugetlb pages (MAP_HUGETLB) are in neither RSS nor VmHWM: a serial run
 * adds the HugetlbPages it sees at an item's end to the peak, and where the
 * system can hand such pages out, no report calls the peak exact. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core.h"
#include "sb_test_sysctl.h"
#include "sb_test_text.h"
#include "spacrbench.h"

#define MIB          INT64_C(1048576)
#define NR_HUGEPAGES "/proc/sys/vm/nr_hugepages"

static char *report_of(const spacrbench_measurement *m)
{
    int need = spacrbench_format_report(m, NULL, NULL, 0);
    ck_assert_int_gt(need, 0);
    char *text = malloc((size_t)need + 1);
    ck_assert_ptr_nonnull(text);
    ck_assert_int_eq(spacrbench_format_report(m, NULL, text, (size_t)need + 1), need);
    char *flat = sb_test_unwrap(text); /* its sentences, whatever the wrapping */
    ck_assert_ptr_nonnull(flat);
    free(text);
    return flat;
}

START_TEST(an_uncovered_peak_is_not_called_exact)
{
    spacrbench_figures f;
    memset(&f, 0, sizeof f);
    f.size = sizeof f;
    f.items = 1;
    f.seconds = 1.0;
    f.peak_rss_bytes = 10 * MIB;
    f.peak_vram_bytes = -1;
    spacrbench_measurement *m = NULL;
    ck_assert_int_eq(spacrbench_measurement_create(&f, &m), 0);
    m->fig.peak_method = SPACRBENCH_PEAK_HWM_RESET;
    char *text = report_of(m);
    ck_assert_msg(strstr(text, "(10.0 MiB, exact, kernel high-water mark)"), "%s", text);
    free(text);
    m->hugetlb_uncovered = 1;
    text = report_of(m);
    ck_assert_msg(strstr(text, "peak RSS            0.01 GiB (10.0 MiB, exact for ordinary "
                               "pages; hugetlb pages not covered, see the notes)"),
                  "%s", text);
    ck_assert_msg(!strstr(text, "exact, kernel"), "%s", text);
    free(text);
    spacrbench_measurement_free(m);
}
END_TEST

#define HUGE_BYTES ((size_t)8 << 20)

/* Maps 8 MiB of hugetlb pages, touches them and keeps them mapped past
 * the item's end (the run reads HugetlbPages there). */
static int map_hugetlb(void *item, void *payload)
{
    (void)item;
    void *p = mmap(NULL, HUGE_BYTES, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
    if (p == MAP_FAILED)
        return 1;
    memset(p, 1, HUGE_BYTES);
    *(void **)payload = p;
    return 0;
}

START_TEST(a_real_hugetlb_mapping_counts_and_is_not_exact)
{
    long before = sb_test_read_long(NR_HUGEPAGES);
    /* Reserving pages is a system setting: done only by root, for this
     * test alone, and restored on every path below. */
    if (geteuid() != 0 || before < 0 || sb_test_write_long(NR_HUGEPAGES, before + 8) != 0) {
        fprintf(stderr, "SKIP a_real_hugetlb_mapping_counts_and_is_not_exact: cannot reserve "
                        "hugetlb pages here (needs root and a writable " NR_HUGEPAGES ")\n");
        return;
    }
    void *mapped = NULL;
    void *items[2] = {NULL, NULL};
    spacrbench_options o;
    spacrbench_options_init(&o, sizeof o);
    o.warmup = 0;
    o.flags |= SPACRBENCH_FLAG_NO_GPU;
    spacrbench_measurement *m = NULL;
    int rc = spacrbench_benchmark(map_hugetlb, items, 1, &mapped, &o, &m);
    int work = spacrbench_last_work_result();
    if (mapped)
        munmap(mapped, HUGE_BYTES);
    sb_test_write_long(NR_HUGEPAGES, before);
    if (rc == SPACRBENCH_EUSER && work == 1) {
        spacrbench_measurement_free(m);
        fprintf(stderr, "SKIP a_real_hugetlb_mapping_counts_and_is_not_exact: the kernel "
                        "gave no hugetlb pages (mmap MAP_HUGETLB failed)\n");
        return;
    }
    ck_assert_int_eq(rc, 0);
    spacrbench_figures f = {.size = sizeof f};
    ck_assert_int_eq(spacrbench_measurement_figures(m, &f), 0);
    ck_assert_int_ge(f.peak_rss_bytes, (int64_t)HUGE_BYTES);
    int noted = 0;
    for (size_t i = 0; i < (size_t)f.note_count; i++)
        noted |= strstr(spacrbench_measurement_note(m, i), "hugetlb pages (MAP_HUGETLB)") != NULL;
    ck_assert_msg(noted, "no hugetlb note");
    char *text = report_of(m);
    ck_assert_msg(strstr(text, "hugetlb pages not covered"), "%s", text);
    ck_assert_msg(!strstr(text, "exact, kernel"), "%s", text);
    free(text);
    spacrbench_measurement_free(m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("hugetlb");
    TCase *tc = tcase_create("peak");
    tcase_add_test(tc, an_uncovered_peak_is_not_called_exact);
    tcase_add_test(tc, a_real_hugetlb_mapping_counts_and_is_not_exact);
    suite_add_tcase(s, tc);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
