/* `spacrbench run --sample K` (issue 30), the real binary: it runs only
 * the K items chosen across the items' file sizes (the largest always),
 * predicts the rest, recommends and hands off for the plate's largest
 * item, prints the plate's section, and says so when the items name no
 * files. The command of each item is the alloc_touch helper taking the
 * item's file size in KiB as MiB: a 120 KiB field needs 120 MiB. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_test_support.h"

#define N_FIELDS 10

/* A plate of N_FIELDS files in a new directory: fields 4-6 are a dense
 * well (120 KiB, the rest 20 KiB); the items file lists them. */
static char *make_plate(char *dir, size_t cap)
{
    snprintf(dir, cap, "/tmp/sbtest-plate-%ld-XXXXXX", (long)getpid());
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char *list = calloc(1, 64 * 1024);
    ck_assert_ptr_nonnull(list);
    for (int i = 0; i < N_FIELDS; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/field_%02d.tif", dir, i);
        FILE *f = fopen(path, "wb");
        ck_assert_ptr_nonnull(f);
        size_t size = (i >= 4 && i <= 6 ? 120 : 20) * 1024 + (size_t)i * 7;
        for (size_t b = 0; b < size; b++)
            fputc((int)(b * 31 + (size_t)i) & 0xff, f);
        fclose(f);
        strcat(list, path);
        strcat(list, "\n");
    }
    char items[600];
    snprintf(items, sizeof items, "%s/items.txt", dir);
    FILE *f = fopen(items, "w");
    ck_assert_ptr_nonnull(f);
    fputs(list, f);
    fclose(f);
    free(list);
    return strdup(items);
}

static void remove_plate(const char *dir)
{
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

/* The command: alloc_touch with the item's size in KiB as MiB. */
#define BY_SIZE                                                                                    \
    "sh", "-c", "exec \"$0\" $(( $(stat -c %s \"$1\") / 1024 )) 20", HELPER_ALLOC_TOUCH, "{}"

static int count_of(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

START_TEST(sample_runs_the_chosen_items_and_advises_for_the_largest)
{
    char dir[256];
    char *items = make_plate(dir, sizeof dir);
    char *argv[] = {SPACRBENCH_CLI, "run", "-q", "--items", items,
                    "--sample",     "3",   "--", BY_SIZE,   NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    /* Three items ran: the smallest, one between, and the largest (field 6). */
    ck_assert_int_eq(count_of(r.out, "\n  item 3 "), 1);
    ck_assert_int_eq(count_of(r.out, "\n  item 4 "), 0);
    ck_assert_ptr_nonnull(strstr(r.out, "field_06.tif\n"));
    ck_assert_ptr_nonnull(strstr(r.out, "field_00.tif\n"));
    ck_assert_ptr_nonnull(
        strstr(r.out, "\nplate\n  items               10, 3 measured (0 warm-up) across the "
                      "file size\n"));
    ck_assert_ptr_nonnull(strstr(r.out, " largest     120 KiB  "));
    ck_assert_ptr_nonnull(strstr(r.out, "\n  largest predicted   0.1"));
    ck_assert_ptr_nonnull(strstr(r.out, "\n  plate time          ETA 0 h 0"));
    ck_assert_ptr_nonnull(strstr(r.out, "; the plate's largest field (120 KiB, 6.0x the plate's "
                                        "median) is predicted to need 0.1"));
    /* The plate's run carries no "use --sample" note; a plain one does. */
    ck_assert_ptr_null(strstr(r.out, "--sample K measures items"));
    cli_result_free(&r);
    char first[700];
    snprintf(first, sizeof first, "%s/field_00.tif", dir);
    char dense[700];
    snprintf(dense, sizeof dense, "%s/field_05.tif", dir);
    char *plain[] = {SPACRBENCH_CLI, "run", "-q", first, dense, "--", BY_SIZE, NULL};
    cli_run(plain, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "the measured items' footprints differ by "));
    ck_assert_ptr_nonnull(strstr(r.out, "spacrbench run --items FILE --sample K measures items "
                                        "chosen across the plate"));
    ck_assert_ptr_null(strstr(r.out, "\nplate\n"));
    cli_result_free(&r);
    remove_plate(dir);
    free(items);
}
END_TEST

/* "#SBATCH --mem=NNNM" of a script: NNN. */
static long mem_mib(const char *script)
{
    const char *at = strstr(script, "#SBATCH --mem=");
    return at ? strtol(at + strlen("#SBATCH --mem="), NULL, 10) : -1;
}

START_TEST(emit_slurm_sizes_the_whole_plate_for_its_largest_item)
{
    char dir[256];
    char *items = make_plate(dir, sizeof dir);
    char out[400], first_out[400], first_items[400];
    snprintf(out, sizeof out, "%s/job", dir);
    snprintf(first_out, sizeof first_out, "%s/job3", dir);
    ck_assert_int_eq(mkdir(out, 0755), 0);
    ck_assert_int_eq(mkdir(first_out, 0755), 0);
    char *argv[] = {
        SPACRBENCH_CLI,   "run", "-q", "--items", items, "--sample", "3", "--emit", "slurm",
        "--slurm-output", out,   "--", BY_SIZE,   NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "#SBATCH --array=0-9\n")); /* the whole plate */
    ck_assert_ptr_nonnull(strstr(r.out, "--mem is built from the plate's predicted largest item"));
    long plate_mem = mem_mib(r.out);
    cli_result_free(&r);
    /* The first three fields alone (as a user would measure them). */
    snprintf(first_items, sizeof first_items, "%s/first3.txt", dir);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "head -3 '%s' > '%s'", items, first_items);
    ck_assert_int_eq(system(cmd), 0);
    char *three[] = {SPACRBENCH_CLI,   "run",     "-q", "--items", first_items, "--emit", "slurm",
                     "--slurm-output", first_out, "--", BY_SIZE,   NULL};
    cli_run(three, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    long three_mem = mem_mib(r.out);
    cli_result_free(&r);
    /* peak + max(25 %, 256 MiB): the dense field's 120 MiB against 20. */
    ck_assert_msg(plate_mem >= 120 + 256 && three_mem < 120 + 256 && three_mem > 20 + 256,
                  "plate --mem %ldM, first three %ldM", plate_mem, three_mem);
    remove_plate(dir);
    free(items);
}
END_TEST

START_TEST(items_that_name_no_files_are_evenly_spaced_and_said_so)
{
    char *argv[] = {SPACRBENCH_CLI, "run", "-q",  "--sample", "2",    "A01", "A02",
                    "A03",          "A04", "A05", "--",       "true", "{}",  NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    ck_assert_msg(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "--sample: item 1 (A01) names no regular file, so the "
                                        "items have no file size to choose by: evenly spaced"));
    ck_assert_ptr_nonnull(strstr(r.out, "5, 2 measured (0 warm-up), evenly spaced\n"));
    ck_assert_ptr_nonnull(strstr(r.out, "the plate's largest item cannot be predicted"));
    ck_assert_ptr_nonnull(strstr(r.out, ": A01\n"));
    ck_assert_ptr_nonnull(strstr(r.out, ": A05\n"));
    cli_result_free(&r);
}
END_TEST

START_TEST(sample_must_be_a_count)
{
    char *zero[] = {SPACRBENCH_CLI, "run", "--sample", "0", "a", "--", "true", NULL};
    cli_expect_usage_error(zero, "spacrbench: --sample:", 0);
    char *word[] = {SPACRBENCH_CLI, "run", "--sample", "five", "a", "--", "true", NULL};
    cli_expect_usage_error(word, "spacrbench: --sample:", 1);
}
END_TEST

static Suite *plate_suite(void)
{
    Suite *s = suite_create("cli_plate");
    TCase *tc = tcase_create("sample");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, sample_runs_the_chosen_items_and_advises_for_the_largest);
    tcase_add_test(tc, emit_slurm_sizes_the_whole_plate_for_its_largest_item);
    tcase_add_test(tc, items_that_name_no_files_are_evenly_spaced_and_said_so);
    tcase_add_test(tc, sample_must_be_a_count);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(plate_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
