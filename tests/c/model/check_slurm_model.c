/* The model of SLURM for summarize (model.h): thousands of random
 * multi-submission histories played against the real job script and the
 * real spacrbench_summarize, every invariant checked after every step.
 * A broken one fails the suite with the history that broke it and its
 * seed; SB_MODEL_SEED=<seed> replays that one history step by step.
 * SB_MODEL_HISTORIES=<n> plays another number (CI: the default below);
 * SB_MODEL_ALL=1 plays them all and prints each one that broke;
 * SB_MODEL_JOBS=<n> workers play them (default 2).
 *
 * The same binary is the fake `spacrbench` the job script execs: with
 * SBMODEL_CAPTURE set, main() records the command line and the item the
 * script built (model_task_capture). */
#include <check.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "model.h"

#define DEFAULT_HISTORIES 2000
#define DEFAULT_BASE      UINT64_C(20260101)

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static char g_self[PATH_MAX];

typedef struct worker_result {
    model_stats st;
    int64_t failures;
    uint64_t first_failed;
} worker_result;

static void add_stats(model_stats *to, const model_stats *from)
{
    to->histories += from->histories;
    to->submissions += from->submissions;
    to->tasks += from->tasks;
    to->real_scripts += from->real_scripts;
    to->summarizes += from->summarizes;
    to->ended_ok += from->ended_ok;
    to->ended_named += from->ended_named;
    to->refused_emits += from->refused_emits;
}

static model_options options(int verbose)
{
    /* tmpfs where there is one: every report is written through an fsync. */
    const char *tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
    model_options o = {g_self, tmp && *tmp ? tmp : "/tmp", verbose};
    return o;
}

START_TEST(random_histories_keep_every_invariant)
{
    const char *replay = getenv("SB_MODEL_SEED");
    const char *count = getenv("SB_MODEL_HISTORIES");
    int all = getenv("SB_MODEL_ALL") != NULL;
    static char why[1 << 20];
    model_stats st = {0};
    if (replay) {
        model_options o = options(1);
        uint64_t seed = strtoull(replay, NULL, 10);
        int rc = model_history(seed, &o, &st, why, sizeof why);
        if (rc != 0)
            printf("%s\n", why), fflush(stdout);
        ck_assert_msg(rc == 0, "seed %" PRIu64 " broke an invariant (above)", seed);
        return;
    }
    long n = count ? strtol(count, NULL, 10) : DEFAULT_HISTORIES;
    model_options o = options(0);
    double start = now();
    /* Two workers (the seeds alternate between them): a CI machine has
     * two cores. SB_MODEL_JOBS=1 plays them in this process. */
    const char *jobs_env = getenv("SB_MODEL_JOBS");
    long jobs = jobs_env ? strtol(jobs_env, NULL, 10) : 2;
    if (jobs < 1 || n < 50)
        jobs = 1;
    int64_t failures = 0;
    uint64_t first_failed = UINT64_MAX;
    static char first_why[1 << 20];
    pid_t pids[8];
    int reads[8];
    if (jobs > 8)
        jobs = 8;
    for (long w = 0; w < jobs; w++) {
        int fds[2] = {-1, -1};
        pid_t pid = jobs > 1 && pipe(fds) == 0 ? fork() : 0;
        ck_assert_int_ge(pid, 0);
        if (pid > 0) { /* the parent: each worker's figures come through its pipe */
            close(fds[1]);
            pids[w] = pid;
            reads[w] = fds[0];
            continue;
        }
        worker_result res = {0};
        res.first_failed = UINT64_MAX;
        for (long k = w; k < n; k += jobs) {
            uint64_t seed = DEFAULT_BASE + (uint64_t)k;
            if (model_history(seed, &o, &res.st, why, sizeof why) != 0) {
                if (!res.failures++) {
                    res.first_failed = seed;
                    snprintf(first_why, sizeof first_why, "%s", why);
                }
                if (all) {
                    char *nl = strchr(why, '\n');
                    printf("seed %" PRIu64 ": %.*s\n", seed,
                           nl ? (int)(nl - why) : (int)strlen(why), why);
                    fflush(stdout);
                } else
                    break;
            }
        }
        if (jobs == 1) {
            add_stats(&st, &res.st);
            failures = res.failures;
            first_failed = res.first_failed;
            break;
        }
        /* A worker: its figures and its first failure to the parent. */
        close(fds[0]);
        FILE *out = fdopen(fds[1], "w");
        fwrite(&res, sizeof res, 1, out);
        if (res.failures)
            fputs(first_why, out);
        fclose(out);
        _exit(0);
    }
    for (long w = 0; jobs > 1 && w < jobs; w++) {
        worker_result res;
        FILE *in = fdopen(reads[w], "r");
        ck_assert_ptr_nonnull(in);
        size_t got = fread(&res, 1, sizeof res, in);
        if (got == sizeof res) {
            size_t len = fread(why, 1, sizeof why - 1, in);
            why[len] = '\0';
        }
        fclose(in);
        int status;
        waitpid(pids[w], &status, 0);
        ck_assert_msg(got == sizeof res && WIFEXITED(status) && WEXITSTATUS(status) == 0,
                      "model worker %ld ended with status %d", w, status);
        add_stats(&st, &res.st);
        failures += res.failures;
        if (res.failures && res.first_failed < first_failed) {
            first_failed = res.first_failed;
            snprintf(first_why, sizeof first_why, "%s", why);
        }
    }
    double took = now() - start;
    printf("model: %" PRId64 " histories, %" PRId64 " submissions, %" PRId64 " tasks (%" PRId64
           " through the real script under bash), %" PRId64
           " summarize calls in %.1f s: %.0f histories/s; ended all ok %" PRId64
           ", with a named reason %" PRId64 ", emits refused as they must be %" PRId64
           "; broken: %" PRId64 "\n",
           st.histories, st.submissions, st.tasks, st.real_scripts, st.summarizes, took,
           (double)st.histories / took, st.ended_ok, st.ended_named, st.refused_emits, failures);
    if (failures) /* the whole history, on stdout: Check's messages are short */
        printf("seed %" PRIu64 " broke an invariant:\n%s\n", first_failed, first_why),
            fflush(stdout);
    char *nl = strchr(first_why, '\n');
    ck_assert_msg(failures == 0,
                  "seed %" PRIu64 " broke an invariant (replay: SB_MODEL_SEED=%" PRIu64 "): %.*s",
                  first_failed, first_failed, nl ? (int)(nl - first_why) : 300, first_why);
}
END_TEST

/* Every value the project writes for a task reads back through its own
 * parser (model_roundtrip.c). */
START_TEST(every_value_written_for_a_task_reads_back)
{
    model_options o = options(0);
    static char why[1 << 16];
    int checked = 0;
    int rc = model_round_trip(&o, &checked, why, sizeof why);
    printf("round trip: %d checks over 64 item --timeout values, --time forms and options\n",
           checked);
    ck_assert_msg(rc == 0, "%s", why);
    ck_assert_int_ge(checked, 2 * 64);
}
END_TEST

int main(int argc, char **argv)
{
    if (getenv("SBMODEL_CAPTURE"))
        return model_task_capture(argc, argv);
    if (!realpath("/proc/self/exe", g_self)) {
        perror("realpath /proc/self/exe");
        return 1;
    }
    Suite *s = suite_create("slurm_model");
    TCase *t = tcase_create("histories");
    tcase_set_timeout(t, 600);
    tcase_add_test(t, random_histories_keep_every_invariant);
    suite_add_tcase(s, t);
    t = tcase_create("round_trip");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, every_value_written_for_a_task_reads_back);
    suite_add_tcase(s, t);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
