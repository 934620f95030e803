/* spacrbench_summarize and the JSON reader under it: the decisions (every
 * peak counts, an OOM-killed task asks twice its limit, the newest
 * submission wins, TIMEOUT and a larger next --time, only the tasks that
 * need it rerun) and hostile directories, each ending in a named error or
 * an "unreadable" task: a FIFO, a link to /dev/zero, JSON nested 100,000
 * deep, a non-UTF-8 directory name, a stray task-4194303.json, 10^6
 * missing tasks, "measurement": null, seconds 1e308, Infinity,
 * task-final.json. (tests/slurm runs it against a real SLURM.) */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cluster.h"
#include "spacrbench.h"
#include "util.h"

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#if !defined(RUNNING_ON_VALGRIND)
#define RUNNING_ON_VALGRIND 0
#endif
/* CPU times of a sanitizer's build are its own (quarantine, shadow). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif
#if !defined(SANITIZED)
#define SANITIZED 0
#endif

#define MIB INT64_C(1048576)

static int g_dirs;

/* A fresh directory /tmp/sb-sum-<pid>-<n>[suffix]. */
static char *temp_dir(const char *suffix)
{
    char *d = malloc(256);
    snprintf(d, 256, "/tmp/sb-sum-%ld-%d%s", (long)getpid(), g_dirs++, suffix ? suffix : "");
    ck_assert_msg(mkdir(d, 0700) == 0, "mkdir %s: %s", d, strerror(errno));
    return d;
}

static void remove_dir(char *d)
{
    DIR *dir = opendir(d);
    ck_assert_ptr_nonnull(dir);
    struct dirent *e;
    char path[512];
    while ((e = readdir(dir)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", d, e->d_name);
        ck_assert_msg(unlink(path) == 0, "unlink %s: %s", path, strerror(errno));
    }
    closedir(dir);
    ck_assert_int_eq(rmdir(d), 0);
    free(d);
}

__attribute__((format(printf, 3, 4))) static void put(const char *dir, const char *name,
                                                      const char *fmt, ...);
static void put(const char *dir, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void put(const char *dir, const char *name, const char *fmt, ...)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    ck_assert_int_eq(fclose(f), 0);
}

/* A task report as `spacrbench run --report` writes it (the fields
 * summarize reads). */
typedef struct rep {
    int index;
    const char *job;     /* array job id */
    const char *outcome; /* "ok", "oom", "exit", "interrupted", ... */
    long long peak;      /* measurement.peak_rss_bytes */
    long long oom;       /* oom limit, 0 none */
    int exit_status, signal;
    double seconds;
    int min, max;     /* the submission's range */
    int time_minutes; /* requested */
} rep;

/* What the newer reports add: the script's key (task.array_key, NULL
 * none), the item --timeout that ended it (outcome "timeout", 0 none),
 * what it asked (SLURM_MEM_PER_NODE, 0: 257 MiB). */
typedef struct rep_more {
    const char *key;
    double timeout;
    int mem_mib;
} rep_more;

static void report_more(const char *dir, const rep *r, const rep_more *x)
{
    char name[64], status[16], sig[16], fpeak[32], key[40], timeout[32];
    snprintf(name, sizeof name, "task-%d.json", r->index);
    snprintf(status, sizeof status, r->exit_status >= 0 ? "%d" : "null", r->exit_status);
    snprintf(sig, sizeof sig, r->signal > 0 ? "%d" : "null", r->signal);
    snprintf(key, sizeof key, x->key ? "\"%s\"" : "null", x->key);
    snprintf(timeout, sizeof timeout, x->timeout > 0 ? "%g" : "null", x->timeout);
    int ok = strcmp(r->outcome, "ok") == 0;
    int mem = x->mem_mib ? x->mem_mib : 257;
    snprintf(fpeak, sizeof fpeak, ok ? "null" : "%lld", r->peak);
    put(dir, name,
        "{\"mode\": \"run\", \"job\": {\"SLURM_JOB_ID\": \"%s%d\", \"SLURM_ARRAY_JOB_ID\": "
        "\"%s\", \"SLURM_ARRAY_TASK_ID\": \"%d\", \"SLURM_MEM_PER_NODE\": \"%d\"},\n"
        " \"measurement\": {\"peak_rss_bytes\": %lld, \"seconds\": %g, \"cpu_seconds\": %g, "
        "\"oom_limit_bytes\": %lld, \"stopped\": %s, \"records\": [{\"item\": \"i%d\"}]},\n"
        " \"task\": {\"outcome\": \"%s\", \"exit_status\": %s, \"signal\": %s, "
        "\"oom_limit_bytes\": %lld, \"timeout_seconds\": %s, \"item_index\": 0, \"item\": "
        "\"i%d\", \"failed_item_peak_bytes\": %s, \"items\": 1, \"completed\": %d, "
        "\"elapsed_seconds\": %g, \"array_job_id\": \"%s\", \"array_task_id\": %d, \"job_id\": "
        "\"x\", \"array_key\": %s, \"array\": {\"min\": %d, \"max\": %d, \"step\": 1, "
        "\"count\": %d}, \"requested\": {\"mem_bytes\": %lld, \"cpus\": 1, \"time_minutes\": "
        "%d}}}\n",
        r->job, r->index, r->job, r->index, mem, ok ? r->peak : 0, r->seconds, r->seconds * 0.9,
        r->oom, ok ? "false" : "true", r->index, r->outcome, status, sig, r->oom, timeout, r->index,
        fpeak, ok, r->seconds, r->job, r->index, key, r->min, r->max, r->max - r->min + 1,
        (long long)mem * MIB, r->time_minutes ? r->time_minutes : 5);
}

static void report(const char *dir, const rep *r) { report_more(dir, r, &(rep_more){NULL, 0, 0}); }

static void manifest(const char *dir, int tasks)
{
    put(dir, "spacrbench-array.json",
        "{\"tasks\": %d, \"script\": \"%s/spacrbench-job.sh\", \"requested\": {\"mem_bytes\": "
        "%lld, \"cpus\": 1, \"time_minutes\": 5}, \"item_timeout_seconds\": 0}\n",
        tasks, dir, (long long)(257 * MIB));
}

typedef struct result {
    int rc, status;
    char *text, *json;
} result;

static result summarize(const char *dir, const char *job)
{
    result r = {0};
    spacrbench_summary *s = NULL;
    r.rc = spacrbench_summarize(dir, job, &s);
    if (r.rc != 0) {
        r.text = strdup(spacrbench_last_error_message());
        return r;
    }
    int n = spacrbench_summary_text(s, NULL, 0);
    ck_assert_int_ge(n, 0);
    r.text = malloc((size_t)n + 1);
    ck_assert_int_eq(spacrbench_summary_text(s, r.text, (size_t)n + 1), n);
    n = spacrbench_summary_json(s, NULL, 0);
    r.json = malloc((size_t)n + 1);
    ck_assert_int_eq(spacrbench_summary_json(s, r.json, (size_t)n + 1), n);
    r.status = spacrbench_summary_status(s);
    spacrbench_summary_free(s);
    /* Our own JSON reads back with the strict reader (UTF-8, no NaN). */
    json_doc doc;
    ck_assert_msg(json_parse(&doc, r.json, strlen(r.json), NULL) == 0, "%s in\n%s", doc.error,
                  r.json);
    json_doc_free(&doc);
    return r;
}

static void result_free(result *r)
{
    free(r->text);
    free(r->json);
}

#define HAS(text, want)   ck_assert_msg(strstr(text, want) != NULL, "'%s' not in\n%s", want, text)
#define LACKS(text, want) ck_assert_msg(strstr(text, want) == NULL, "'%s' in\n%s", want, text)

START_TEST(a_failed_task_keeps_its_peak_and_only_it_reruns)
{
    char *d = temp_dir(NULL);
    manifest(d, 4);
    report(d, &(rep){0, "1000", "ok", 40 * MIB, 0, 0, 0, 1.0, 0, 3, 0});
    report(d, &(rep){1, "1000", "ok", 50 * MIB, 0, 0, 0, 1.0, 0, 3, 0});
    report(d, &(rep){2, "1000", "exit", 600 * MIB, 0, 3, 0, 2.0, 0, 3, 0});
    report(d, &(rep){3, "1000", "oom", 257 * MIB, 257 * MIB, -1, 9, 0.5, 0, 3, 0});
    result r = summarize(d, NULL);
    ck_assert_int_eq(r.rc, 0);
    ck_assert_int_eq(r.status, 3);
    HAS(r.text, "exited with status 3");
    HAS(r.text, ">=600.0 MiB"); /* the failed task's peak, a lower bound */
    HAS(r.text, "OOM-killed (limit 257.0 MiB)");
    /* Twice the OOM limit (514 MiB) is below the exit-3 task's 600 MiB: 600 + 256. The
     * OOM-killed task reruns; the one whose command exited 3 would exit 3 again: it
     * needs the user, with its own line for once the command is fixed. */
    HAS(r.text, "\n  sbatch --array=3 --mem=856M --cpus-per-task=1 --time=00:05:00 "
                "--export=ALL,SPACRBENCH_TIME_LIMIT_MINUTES=5 ");
    HAS(r.text, "/spacrbench-job.sh\n");
    HAS(r.text, "needs you: 1 task(s)");
    HAS(r.text, "the command failed: task(s) 2: ");
    HAS(r.text, "\n    sbatch --array=2 --mem=856M ");
    HAS(r.json, "\"reason\": \"command_failed\"");
    HAS(r.json, "\"out_of_memory\": 1");
    result_free(&r);
    remove_dir(d);
}
END_TEST

START_TEST(an_oom_killed_task_asks_twice_its_limit)
{
    char *d = temp_dir(NULL);
    manifest(d, 2);
    report(d, &(rep){0, "7", "ok", 40 * MIB, 0, 0, 0, 1.0, 0, 1, 0});
    report(d, &(rep){1, "7", "oom", 257 * MIB, 257 * MIB, -1, 9, 0.5, 0, 1, 0});
    result r = summarize(d, NULL);
    HAS(r.text, "sbatch --array=1 --mem=770M "); /* 514 MiB + 256 MiB */
    result_free(&r);
    remove_dir(d);
}
END_TEST

START_TEST(the_newest_submission_wins)
{
    char *d = temp_dir(NULL);
    manifest(d, 4);
    /* Job 1000 ran 0-3; job 2000 reran 0-3 and task 1 was cancelled. */
    report(d, &(rep){0, "2000", "ok", 40 * MIB, 0, 0, 0, 1.0, 0, 3, 0});
    report(d, &(rep){1, "1000", "ok", 40 * MIB, 0, 0, 0, 1.0, 0, 3, 0});
    report(d, &(rep){2, "2000", "ok", 40 * MIB, 0, 0, 0, 1.0, 0, 3, 0});
    report(d, &(rep){3, "2000", "ok", 40 * MIB, 0, 0, 0, 1.0, 0, 3, 0});
    result r = summarize(d, NULL);
    ck_assert_int_eq(r.status, 3);
    HAS(r.text, "missing (a report from job 1000");
    HAS(r.text, "sbatch --array=1 ");
    HAS(r.text, "newest submission: array job 2000");
    result_free(&r);
    /* A resubmission of task 1 alone (job 3000, range 1-1) leaves the
     * others' job-2000 reports standing: 4 of 4 ok. */
    report(d, &(rep){1, "3000", "ok", 40 * MIB, 0, 0, 0, 1.0, 1, 1, 0});
    r = summarize(d, NULL);
    ck_assert_int_eq(r.status, 0);
    HAS(r.text, ": 4 task(s), 4 ok, 0 failed");
    HAS(r.text, "nothing to resubmit");
    result_free(&r);
    remove_dir(d);
}
END_TEST

START_TEST(a_task_at_its_time_limit_is_timeout_and_the_next_time_is_larger)
{
    char *d = temp_dir(NULL);
    manifest(d, 2);
    report(d, &(rep){0, "55", "ok", 40 * MIB, 0, 0, 0, 10.0, 0, 1, 1});
    /* SIGTERM from SLURM at the limit; its log says so. */
    report(d, &(rep){1, "55", "interrupted", 40 * MIB, 0, -1, 15, 59.0, 0, 1, 1});
    put(d, "slurm-55_1.out",
        "spacrbench: interrupted\nslurmstepd: error: *** JOB 56 ON n1 "
        "CANCELLED AT 2026-12-01T10:00:00 DUE TO TIME LIMIT ***\n");
    result r = summarize(d, NULL);
    HAS(r.text, "TIMEOUT (SLURM's --time of 1 min)");
    HAS(r.text, "1 failed (0 out of memory, 1 TIMEOUT)");
    /* The limit (60 s) counts as the elapsed time: 2 x 60 s < 5 min, so the floor. */
    HAS(r.text, "--array=1 ");
    HAS(r.text, "--time=00:05:00");
    HAS(r.json, "\"timeout\": 1");
    result_free(&r);
    /* A 5-minute limit hit: the next --time is 10 minutes. */
    report(d, &(rep){1, "55", "interrupted", 40 * MIB, 0, -1, 15, 300.0, 0, 1, 5});
    r = summarize(d, NULL);
    HAS(r.text, "TIMEOUT (SLURM's --time of 5 min)");
    HAS(r.text, "--time=00:10:00");
    result_free(&r);
    remove_dir(d);
}
END_TEST

/* A task SIGKILLed at its limit leaves no report, only its SLURM log:
 * missing, named TIMEOUT from the log, and the next --time is larger;
 * without a manifest, the logs of the reports' array job extend the array. */
START_TEST(a_missing_task_s_log_says_why)
{
    char *d = temp_dir(NULL);
    report(d, &(rep){0, "55", "ok", 40 * MIB, 0, 0, 0, 10.0, 0, 2, 5});
    put(d, "slurm-55_1.out",
        "slurmstepd: error: *** JOB 57 ON n1 CANCELLED AT "
        "2026-12-01T10:00:00 DUE TO TIME LIMIT ***\n");
    put(d, "slurm-55_2.out", "started\n");
    put(d, "slurm-12_9.out", "another array job's log\n");
    result r = summarize(d, NULL);
    HAS(r.text, "tasks 0-2, ");
    HAS(r.text, "its SLURM log slurm-55_1.out says TIMEOUT");
    HAS(r.text, "1 TIMEOUT");
    HAS(r.text, "--array=1-2 ");
    result_free(&r);
    manifest(d, 3); /* --time 5: the next one is 10 minutes */
    r = summarize(d, NULL);
    HAS(r.text, "--time=00:10:00");
    HAS(r.json, "\"missing_logs\": [");
    result_free(&r);
    remove_dir(d);
}
END_TEST

START_TEST(hostile_files_are_unreadable_tasks)
{
    char *d = temp_dir(NULL);
    manifest(d, 8);
    char path[512];
    snprintf(path, sizeof path, "%s/task-1.json", d);
    ck_assert_int_eq(mkfifo(path, 0600), 0); /* no writer: a read would block */
    snprintf(path, sizeof path, "%s/task-2.json", d);
    ck_assert_int_eq(symlink("/dev/zero", path), 0);
    put(d, "task-3.json", "{\"mode\": \"run\", \"measurement\": null}");
    put(d, "task-4.json",
        "{\"mode\": \"run\", \"measurement\": {\"seconds\": 1e308, \"peak_rss_bytes\": 1}}");
    put(d, "task-5.json",
        "{\"mode\": \"run\", \"measurement\": {\"seconds\": Infinity, \"peak_rss_bytes\": 1}}");
    put(d, "task-6.json", "{\"mode\": \"run\", \"measurement\": {\"seconds\": 1e400}}");
    put(d, "task-final.json", "{}");
    put(d, "task-07.json", "{}");
    report(d, &(rep){0, "9", "ok", 40 * MIB, 0, 0, 0, 1e308 / 1e300, 0, 7, 0});
    report(d, &(rep){7, "9", "ok", 40 * MIB, 0, 0, 0, 1.0, 0, 7, 0});
    result r = summarize(d, NULL);
    ck_assert_int_eq(r.rc, 0);
    HAS(r.text, "unreadable report task-1.json: a FIFO, not a regular file");
    HAS(r.text, "unreadable report task-2.json: a character device, not a regular file");
    HAS(r.text, "unreadable report task-3.json: \"measurement\" is null, not an object");
    HAS(r.text, "unreadable report task-4.json: \"measurement.seconds\" is 1e+308, not a "
                "number of seconds");
    HAS(r.text, "unreadable report task-5.json: not JSON");
    HAS(r.text, "unreadable report task-6.json: not JSON: a number beyond a double");
    HAS(r.text, "ignored: task-final.json");
    HAS(r.text, "ignored: task-07.json");
    HAS(r.text, "--array=1-6 ");
    LACKS(r.json, "Infinity");
    LACKS(r.json, "inf");
    LACKS(r.json, "NaN");
    result_free(&r);
    remove_dir(d);
}
END_TEST

/* A report is read by its records' tables (src/records/): what summarize
 * uses is checked and named in its words; the measurement's other members
 * (a later version's peak method, its lists) are passed over. */
START_TEST(what_summarize_uses_of_a_report_is_checked_by_its_tables)
{
    char *d = temp_dir(NULL);
    manifest(d, 6);
    const char *m = "\"measurement\": {\"peak_rss_bytes\": 1048576, \"seconds\": 1.0";
    put(d, "task-0.json",
        "{\"mode\": \"run\", %s, \"peak_method\": \"from_a_later_version\", \"gpus\": 7}}", m);
    put(d, "task-1.json",
        "{\"mode\": \"run\", %s}, \"task\": {\"outcome\": \"ok\", \"signal\": \"x\"}}", m);
    put(d, "task-2.json", "{\"mode\": \"run\", %s, \"stopped\": 1}}", m);
    put(d, "task-3.json", "{\"mode\": \"run\", %s}, \"task\": {\"exit_status\": 0}}", m);
    put(d, "task-4.json",
        "{\"mode\": \"run\", %s}, \"task\": {\"outcome\": \"ok\", \"array\": {\"min\": 5000000}}}",
        m);
    put(d, "task-5.json",
        "{\"mode\": \"run\", %s}, \"job\": {\"SLURM_JOB_ID\": \"1\", \"SLURM_MEM_PER_NODE\": "
        "\"12x\"}}",
        m);
    result r = summarize(d, NULL);
    ck_assert_int_eq(r.rc, 0);
    LACKS(r.text, "task-0.json");
    HAS(r.text, "unreadable report task-1.json: \"task.signal\" is text, not a whole number from 1 "
                "to 128");
    HAS(r.text, "unreadable report task-2.json: \"measurement.stopped\" is a number, not true or "
                "false");
    HAS(r.text, "unreadable report task-3.json: \"task.outcome\" is not one of ok, exit, signal, "
                "oom, timeout, not_started, interrupted");
    HAS(r.text, "unreadable report task-4.json: \"task.array.min\" is out of range, not a whole "
                "number from 0 to 4194304");
    HAS(r.text, "unreadable report task-5.json: \"job.SLURM_MEM_PER_NODE\" is not a whole number");
    result_free(&r);
    remove_dir(d);
}
END_TEST

START_TEST(a_manifest_nested_100000_deep_is_named)
{
    char *d = temp_dir(NULL);
    char path[512];
    snprintf(path, sizeof path, "%s/spacrbench-array.json", d);
    FILE *f = fopen(path, "w");
    for (int i = 0; i < 100000; i++)
        fputc('[', f);
    for (int i = 0; i < 100000; i++)
        fputc(']', f);
    fclose(f);
    report(d, &(rep){0, "9", "ok", 40 * MIB, 0, 0, 0, 1.0, 0, 0, 0});
    result r = summarize(d, NULL);
    ck_assert_int_eq(r.rc, 0);
    HAS(r.text, "spacrbench-array.json cannot be used (not JSON: nested deeper than 64");
    result_free(&r);
    remove_dir(d);
}
END_TEST

START_TEST(a_non_utf8_directory_name_stays_valid_output)
{
    char *d = temp_dir("-\xff\xfe");
    manifest(d, 1);
    report(d, &(rep){0, "9", "ok", 40 * MIB, 0, 0, 0, 1.0, 0, 0, 0});
    result r = summarize(d, NULL); /* its JSON parsed back as strict UTF-8 */
    ck_assert_int_eq(r.rc, 0);
    ck_assert_int_eq(r.status, 0);
    HAS(r.json, "\xef\xbf\xbd"); /* U+FFFD */
    result_free(&r);
    remove_dir(d);
}
END_TEST

START_TEST(a_million_missing_tasks_are_one_range)
{
    char *d = temp_dir(NULL);
    manifest(d, 1000000);
    report(d, &(rep){0, "9", "ok", 40 * MIB, 0, 0, 0, 1.0, 0, 999999, 0});
    result r = summarize(d, NULL);
    ck_assert_int_eq(r.rc, 0);
    HAS(r.text, "1-999999  ");
    HAS(r.text, "999999 missing (no report");
    HAS(r.text, "sbatch --array=1-999999 ");
    ck_assert_int_lt((int)strlen(r.text), 4096);
    ck_assert_int_lt((int)strlen(r.json), 8192);
    result_free(&r);
    remove_dir(d);
    /* A stray task-4194303.json without a manifest: the array as far as
     * the directory shows, one range again. */
    d = temp_dir(NULL);
    report(d, &(rep){4194303, "9", "ok", 40 * MIB, 0, 0, 0, 1.0, 0, 0, 0});
    r = summarize(d, NULL);
    ck_assert_int_eq(r.rc, 0);
    HAS(r.text, "0-4194302  ");
    ck_assert_int_lt((int)strlen(r.text), 4096);
    result_free(&r);
    remove_dir(d);
}
END_TEST

START_TEST(the_job_script_array_and_errors)
{
    char *d = temp_dir(NULL);
    report(d, &(rep){0, "9", "ok", 40 * MIB, 0, 0, 0, 1.0, 0, 0, 0});
    put(d, "job.sh",
        "#!/bin/bash\n#SBATCH --mem=1G\n#SBATCH --array=0-3,7%%2\necho\n"
        "#SBATCH --array=0-99\n");
    char job[512];
    snprintf(job, sizeof job, "%s/job.sh", d);
    result r = summarize(d, job);
    ck_assert_int_eq(r.rc, 0);
    HAS(r.text, "tasks 0-3,7, from the #SBATCH --array line of");
    HAS(r.text, "(at most 2 at once: %2)");
    HAS(r.text, "--array=1-3,7%2 "); /* the script's throttle, kept */
    HAS(r.json, "\"array\": \"1-3,7\"");
    result_free(&r);
    put(d, "job.sh", "#!/bin/bash\n#SBATCH --array=5-1\n");
    r = summarize(d, job);
    ck_assert_int_eq(r.rc, SPACRBENCH_EINVAL);
    HAS(r.text, "is not a list of task indices");
    result_free(&r);
    remove_dir(d);
    spacrbench_summary *s = NULL;
    ck_assert_int_eq(spacrbench_summarize("/nonexistent-sb", NULL, &s), SPACRBENCH_EINVAL);
    ck_assert_ptr_null(s);
    HAS(spacrbench_last_error_message(), "/nonexistent-sb");
    d = temp_dir(NULL);
    ck_assert_int_eq(spacrbench_summarize(d, NULL, &s), SPACRBENCH_EINVAL);
    HAS(spacrbench_last_error_message(), "no task reports");
    ck_assert_int_eq(spacrbench_summarize(NULL, NULL, &s), SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_summarize(d, NULL, NULL), SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_summary_status(NULL), SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_summary_text(NULL, NULL, 0), SPACRBENCH_EINVAL);
    spacrbench_summary_free(NULL);
    remove_dir(d);
}
END_TEST

/* Keys: the manifest is the newest emit into the directory (an emit never
 * replaces another array's files), so a report of another key is another
 * array's: shown, not counted, its 40 MiB in no figure. With --job, the
 * script's key decides: the manifest of another key is another array's,
 * its 8 tasks and 257 MiB not used, the script's own #SBATCH requests
 * stand in for them. */
static void keyed_report(const char *dir, const char *key)
{
    put(dir, "task-0.json",
        "{\"mode\": \"run\", \"measurement\": {\"peak_rss_bytes\": %lld, \"seconds\": 1, "
        "\"cpu_seconds\": 1, \"oom_limit_bytes\": 0, \"stopped\": false, \"records\": "
        "[{\"item\": \"a\"}]},\n \"task\": {\"outcome\": \"ok\", \"exit_status\": 0, "
        "\"signal\": null, \"oom_limit_bytes\": null, \"timeout_seconds\": null, \"item_index\": "
        "null, \"item\": \"a\", \"failed_item_peak_bytes\": null, \"items\": 1, \"completed\": 1, "
        "\"elapsed_seconds\": 1, \"array_job_id\": null, \"array_task_id\": 0, \"job_id\": null, "
        "\"array_key\": \"%s\", \"array\": {\"min\": null, \"max\": null, \"step\": null, "
        "\"count\": null}, \"requested\": {\"mem_bytes\": null, \"cpus\": null, "
        "\"time_minutes\": 5}}}\n",
        (long long)(40 * MIB), key);
}

START_TEST(another_arrays_manifest_is_not_used)
{
    char *d = temp_dir(NULL);
    put(d, "spacrbench-array.json",
        "{\"tasks\": 8, \"script\": \"%s/spacrbench-job.sh\", \"array_key\": "
        "\"aaaaaaaaaaaaaaaa\", \"requested\": {\"mem_bytes\": %lld, \"cpus\": 1, "
        "\"time_minutes\": 5}, \"item_timeout_seconds\": 0}\n",
        d, (long long)(257 * MIB));
    keyed_report(d, "bbbbbbbbbbbbbbbb");
    result r = summarize(d, NULL);
    ck_assert_int_eq(r.rc, 0);
    HAS(r.text, "another array's report (key bbbbbbbbbbbbbbbb; this array's key "
                "aaaaaaaaaaaaaaaa): not counted");
    HAS(r.text, "8 task(s), 0 ok, 0 failed (0 out of memory, 0 TIMEOUT), 8 missing; 1 "
                "report(s) of another array, not counted");
    HAS(r.text, "sbatch --array=0-7 --mem=257M "); /* the array's own request, not 40 MiB's */
    /* The array's rows first, in order; the report not counted after them
     * (it sat between task 0's place and the "0-7" row, which it split). */
    const char *range = strstr(r.text, "    0-7  -");
    const char *foreign = strstr(r.text, "      0  a ");
    ck_assert_msg(range && foreign && range < foreign, "%s", r.text);
    HAS(r.json, "\"foreign\": 1");
    HAS(r.json, "\"state\": \"foreign\"");
    ck_assert_int_eq(r.status, 3);
    result_free(&r);

    put(d, "job.sh",
        "#!/bin/bash\n#SBATCH --mem=294M\n#SBATCH --time=00:07:00\n#SBATCH --array=0-2\n"
        "set -euo pipefail\narray_key='bbbbbbbbbbbbbbbb'\n");
    char job[512];
    snprintf(job, sizeof job, "%s/job.sh", d);
    r = summarize(d, job);
    ck_assert_int_eq(r.rc, 0);
    HAS(r.text, "tasks 0-2, from the #SBATCH --array line of");
    HAS(r.text, "belongs to another array (key aaaaaaaaaaaaaaaa; ");
    HAS(r.text, "294.0 MiB");
    LACKS(r.text, "257.0 MiB");
    result_free(&r);

    /* The manifest of this very job: used as before. */
    keyed_report(d, "aaaaaaaaaaaaaaaa");
    r = summarize(d, NULL);
    ck_assert_int_eq(r.rc, 0);
    HAS(r.text, "tasks 0-7, from ");
    HAS(r.text, "257.0 MiB");
    LACKS(r.text, "another array");
    result_free(&r);
    remove_dir(d);
}
END_TEST

/* ---- the resubmission loop (issue 32) ---- */

#define KEY   "a1b2c3d4e5f60718"
#define OTHER "0000000000000bad"

static void keyed_manifest(const char *dir, int tasks, const char *key, int limit,
                           double item_timeout)
{
    put(dir, "spacrbench-array.json",
        "{\"tasks\": %d, \"script\": \"%s/spacrbench-job.sh\", \"array_key\": \"%s\", "
        "\"requested\": {\"mem_bytes\": %lld, \"cpus\": 1, \"time_minutes\": 5}, "
        "\"array_limit\": %d, \"item_timeout_seconds\": %g}\n",
        tasks, dir, key, (long long)(257 * MIB), limit, item_timeout);
}

/* A task's SLURM log: the job script's first line, then what followed. */
static void task_log(const char *dir, int job, int index, const char *key, int mem_mib, int minutes,
                     const char *tail)
{
    char name[64];
    snprintf(name, sizeof name, "slurm-%d_%d.out", job, index);
    put(dir, name,
        "spacrbench job: array job %d task %d: key %s, --mem %d MiB, --time %d min, item "
        "--timeout 0 s\n%s",
        job, index, key, mem_mib, minutes, tail ? tail : "");
}

#define OOM_KILL "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=9.batch.\n"
#define TIME_LIMIT                                                                                 \
    "slurmstepd: error: *** JOB 9 ON n1 CANCELLED AT 2026-01-01T00:00:00 DUE TO TIME LIMIT ***\n"

/* The loop: task 3, OOM-killed at 257M in job 8, was resubmitted
 * at 864M (job 9) and OOM-killed again before its report. Its log (newer
 * than every report) says so: the next --mem doubles from 864M, not from
 * the manifest's 257M, and job 8's report is stale. */
START_TEST(the_doubling_starts_from_what_the_failed_submission_asked)
{
    char *d = temp_dir(NULL);
    keyed_manifest(d, 4, KEY, 0, 0);
    for (int i = 0; i < 3; i++)
        report_more(d, &(rep){i, "8", "ok", 40 * MIB, 0, 0, 0, 1.0, 0, 3, 0},
                    &(rep_more){KEY, 0, 0});
    report_more(d, &(rep){3, "8", "oom", 257 * MIB, 257 * MIB, -1, 9, 0.5, 0, 3, 0},
                &(rep_more){KEY, 0, 0});
    task_log(d, 9, 3, KEY, 864, 5, OOM_KILL);
    result r = summarize(d, NULL);
    ck_assert_int_eq(r.rc, 0);
    HAS(r.text, "missing (a report from job 8; job 9, a newer submission, ran this task and "
                "left none: its log says OOM-killed)");
    HAS(r.text, "newest submission: array job 9");
    /* 2 x 864 = 1728 MiB + 25% = 2160M, strictly more than 864M. */
    HAS(r.text, "\n  sbatch --array=3 --mem=2160M ");
    result_free(&r);
    /* The same with its time limit: job 9 asked 20 minutes; the next asks 40. */
    task_log(d, 9, 3, KEY, 864, 20, TIME_LIMIT);
    r = summarize(d, NULL);
    HAS(r.text, "its log says TIMEOUT");
    HAS(r.text, " --time=00:40:00 --export=ALL,SPACRBENCH_TIME_LIMIT_MINUTES=40 ");
    result_free(&r);
    remove_dir(d);
}
END_TEST

/* Another array's reports and logs in the directory (the docs' own recipe:
 * a new array emitted where an older one ran): none enters a count, --mem
 * or --time, whatever they say; items that never ran are missing. */
START_TEST(another_arrays_reports_and_logs_never_count)
{
    char *d = temp_dir(NULL);
    keyed_manifest(d, 4, KEY, 0, 0);
    for (int i = 0; i < 6; i++) {
        report_more(d, &(rep){i, "7", "ok", INT64_C(900) << 30, 0, 0, 0, 1e6, 0, 5, 0},
                    &(rep_more){OTHER, 0, 0});
        task_log(d, 7, i, OTHER, 999999, 99999, OOM_KILL TIME_LIMIT);
    }
    result r = summarize(d, NULL);
    ck_assert_int_eq(r.rc, 0);
    HAS(r.text, ": 4 task(s), 0 ok, 0 failed (0 out of memory, 0 TIMEOUT), 4 missing; 6 "
                "report(s) of another array, not counted");
    HAS(r.text, "\n  sbatch --array=0-3 --mem=257M --cpus-per-task=1 --time=00:05:00 ");
    HAS(r.text, "at least 5 min; SPACRBENCH_TIME_LIMIT_MINUTES tells each task its --time, for "
                "its report's time use):\n");
    LACKS(r.text, "all 4 task(s) ok");
    ck_assert_int_eq(r.status, 3);
    result_free(&r);
    /* Our own tasks ran: their figures alone. */
    for (int i = 0; i < 4; i++)
        report_more(d, &(rep){i, "20", "ok", 50 * MIB, 0, 0, 0, 2.0, 0, 3, 0},
                    &(rep_more){KEY, 0, 0});
    r = summarize(d, NULL);
    HAS(r.text, ": 4 task(s), 4 ok, 0 failed");
    HAS(r.text, "; 2 report(s) of another array, not counted");
    HAS(r.text, "nothing to resubmit; for a next array like this one: --mem=306M ");
    /* The variable beside --time says what it is for. */
    HAS(r.text, "SPACRBENCH_TIME_LIMIT_MINUTES=5 (SPACRBENCH_TIME_LIMIT_MINUTES tells each task "
                "its --time, for its report's time use)\n");
    result_free(&r);
    remove_dir(d);
}
END_TEST

/* --array-limit's %K stays on every line; a stepped set stays a range. */
START_TEST(the_throttle_is_kept_and_steps_stay_ranges)
{
    char *d = temp_dir(NULL);
    keyed_manifest(d, 20, KEY, 3, 0);
    for (int i = 1; i < 20; i += 2)
        report_more(d, &(rep){i, "8", "ok", 40 * MIB, 0, 0, 0, 1.0, 0, 19, 0},
                    &(rep_more){KEY, 0, 0});
    result r = summarize(d, NULL);
    HAS(r.text, "(at most 3 at once: %3)");
    HAS(r.text, "\n  sbatch --array=0-18:2%3 --mem=");
    HAS(r.json, "\"array\": \"0-18:2\"");
    result_free(&r);
    remove_dir(d);
}
END_TEST

/* The tasks of --array=0-4194303:2 (2^21 of them, none reported): one
 * range all along, in bounded steps, and a short text. */
START_TEST(every_other_of_four_million_tasks_is_one_range)
{
    char *d = temp_dir(NULL);
    put(d, "job.sh", "#!/bin/bash\n#SBATCH --array=0-4194303:2\nset -e\n");
    char job[512];
    snprintf(job, sizeof job, "%s/job.sh", d);
    spacrbench_summary *s = NULL;
    ck_assert_int_eq(spacrbench_summarize(d, job, &s), 0);
    ck_assert_msg(s->work < 1000, "%llu steps for one range", (unsigned long long)s->work);
    ck_assert_int_eq(s->n_missing, 2097152);
    ck_assert_int_lt((int)strlen(s->text), 4096);
    ck_assert_int_lt((int)strlen(s->json), 8192);
    HAS(s->text, "\n  sbatch --array=0-4194302:2 --cpus-per-task=1 "); /* the script's own --mem */
    HAS(s->text, "2097152 missing (no report");
    spacrbench_summary_free(s);
    remove_dir(d);
}
END_TEST

/* One --array of a line, "1,4-9,10-20:5%2" (the %K dropped), into seen[]. */
static void mark_array(const char *line, char *seen, int64_t max)
{
    const char *p = strstr(line, "--array=");
    ck_assert_ptr_nonnull(p);
    for (p += 8; *p && *p != ' ' && *p != '%';) {
        char *end;
        long long a = strtoll(p, &end, 10), b = a, step = 1;
        if (*end == '-')
            b = strtoll(end + 1, &end, 10);
        if (*end == ':')
            step = strtoll(end + 1, &end, 10);
        ck_assert(a >= 0 && b < max && step >= 1);
        for (long long k = a; k <= b; k += step)
            seen[k]++;
        p = *end == ',' ? end + 1 : end;
    }
}

/* 21,000 missing tasks at irregular gaps: an --array of about 150 KB,
 * over the 128 KiB Linux takes as one argument: split over lines, each
 * argument within MAX_ARG_STRLEN, together every task once. */
START_TEST(a_rerun_beyond_one_argument_is_split_over_lines)
{
    char *d = temp_dir(NULL);
    enum { N = 21000, MAX = 100 * N };
    char *want = calloc(MAX, 1);
    FILE *f = NULL;
    char job[512];
    snprintf(job, sizeof job, "%s/job.sh", d);
    ck_assert_ptr_nonnull(f = fopen(job, "w"));
    fputs("#!/bin/bash\n#SBATCH --array=", f);
    uint32_t x = 12345;
    for (int k = 0, at = 0; k < N; k++) {
        x = x * 1103515245u + 12345u; /* gaps of 2 to 98: no two steps alike for long */
        at += 2 + (int)((x >> 16) % 97);
        want[at] = 1;
        fprintf(f, "%s%d", k ? "," : "", at);
    }
    fputs("%4\nset -e\n", f);
    ck_assert_int_eq(fclose(f), 0);
    spacrbench_summary *s = NULL;
    ck_assert_int_eq(spacrbench_summarize(d, job, &s), 0);
    ck_assert_int_ge((int)s->n_lines, 2);
    char *seen = calloc(MAX, 1);
    for (size_t i = 0; i < s->n_lines; i++) {
        const char *line = s->lines[i];
        /* Every argument within MAX_ARG_STRLEN (the line's words are plain). */
        for (const char *w = line; *w;) {
            size_t n = strcspn(w, " ");
            ck_assert_msg(n <= 131071, "an argument of %zu bytes", n);
            w += n + (w[n] == ' ');
        }
        ck_assert_ptr_nonnull(strstr(line, "%4 --cpus-per-task=")); /* each keeps the throttle */
        HAS(s->text, line);
        mark_array(line, seen, MAX);
    }
    for (int k = 0; k < MAX; k++)
        if (seen[k] != want[k]) /* (one assertion, not two million: valgrind runs it) */
            ck_assert_msg(0, "task %d is in %d line(s), %d expected", k, seen[k], want[k]);
    HAS(s->text, "split over several lines, each its own job");
    free(seen);
    free(want);
    spacrbench_summary_free(s);
    remove_dir(d);
}
END_TEST

/* The user CPU seconds of this thread (no file system time in them). */
static double user_seconds(void)
{
    struct rusage ru;
    ck_assert_int_eq(getrusage(RUSAGE_THREAD, &ru), 0);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6;
}

/* n of this array's reports (job 100) and a log of a newer job (200) for
 * every task (the directory without a manifest): each report is
 * stale. The steps summarize takes at n, and its best user CPU time of 3. */
static uint64_t steps_for(int n, double *user)
{
    char *d = temp_dir(NULL);
    for (int i = 0; i < n; i++) {
        report_more(d, &(rep){i, "100", "ok", 40 * MIB, 0, 0, 0, 1.0, 0, n - 1, 0},
                    &(rep_more){KEY, 0, 0});
        task_log(d, 200, i, KEY, 512, 5, NULL);
    }
    uint64_t steps = 0;
    *user = 1e9;
    for (int k = 0; k < (RUNNING_ON_VALGRIND ? 1 : 3); k++) {
        spacrbench_summary *s = NULL;
        double t0 = user_seconds();
        ck_assert_int_eq(spacrbench_summarize(d, NULL, &s), 0);
        double took = user_seconds() - t0;
        *user = took < *user ? took : *user;
        ck_assert_int_eq(s->n_stale, n);
        char want[64];
        snprintf(want, sizeof want, "sbatch --array=0-%d ", n - 1);
        HAS(s->text, want);
        steps = s->work;
        spacrbench_summary_free(s);
    }
    remove_dir(d);
    return steps;
}

/* Linear in the directory: twice the reports and logs take at most 2.3
 * times the steps summarize counts (the sorts' n log n; a scan per log
 * would be 4 times), and, for what no counter sees, at most 3 times its
 * user CPU time (a lookup that walked every request per task, which the
 * counter missed, made it 4). */
START_TEST(summarize_is_linear_in_the_directory)
{
    /* Under valgrind: fewer files; there and in a sanitizer's build, no CPU
     * time (it is theirs). */
    int n = RUNNING_ON_VALGRIND ? 400 : 4000;
    double user_small, user_large;
    uint64_t small = steps_for(n, &user_small), large = steps_for(2 * n, &user_large);
    printf("summarize: %llu steps and %.3f s of user CPU for %d reports + %d newer logs, "
           "%llu and %.3f s for %d + %d (ratios %.2f and %.2f)\n",
           (unsigned long long)small, user_small, n, n, (unsigned long long)large, user_large,
           2 * n, 2 * n, (double)large / (double)small, user_large / user_small);
    ck_assert_uint_ge(small, 2 * (uint64_t)n);
    ck_assert_msg((double)large <= 2.3 * (double)small, "%llu steps, then %llu",
                  (unsigned long long)small, (unsigned long long)large);
    if (!RUNNING_ON_VALGRIND && !SANITIZED)
        ck_assert_msg(user_large <= 3 * user_small, "%.3f s of user CPU, then %.3f s", user_small,
                      user_large);
}
END_TEST

/* The script's own item --timeout ended the item: rerunning as is would
 * end it the same way. Named, with the override the script reads (twice
 * the timeout that ended it), not in the next submission. */
START_TEST(an_item_timeout_needs_the_user_with_the_override)
{
    char *d = temp_dir(NULL);
    keyed_manifest(d, 2, KEY, 0, 10.2);
    report_more(d, &(rep){0, "8", "ok", 40 * MIB, 0, 0, 0, 1.0, 0, 1, 0}, &(rep_more){KEY, 0, 0});
    report_more(d, &(rep){1, "8", "timeout", 40 * MIB, 0, -1, 9, 10.2, 0, 1, 0},
                &(rep_more){KEY, 10.2, 0});
    result r = summarize(d, NULL);
    ck_assert_int_eq(r.status, 3);
    HAS(r.text, "item timeout (the script's item --timeout of 10.2 s ended it)");
    HAS(r.text, "the item --timeout: task(s) 1: the job script's own item --timeout (10.2 s)");
    HAS(r.text, "\n    sbatch --array=1 --mem=");
    HAS(r.text, ",SPACRBENCH_ITEM_TIMEOUT=20.4 ");
    LACKS(r.text, "next submission:");
    HAS(r.json, "\"reason\": \"item_timeout\"");
    result_free(&r);
    /* Given 20.4 by that line (its log says so) and ended by it again: 40.8. */
    task_log(d, 9, 1, KEY, 257, 5, NULL);
    put(d, "slurm-9_1.out",
        "spacrbench job: array job 9 task 1: key " KEY ", --mem 257 MiB, --time 5 min, item "
        "--timeout 20.4 s\n");
    report_more(d, &(rep){1, "9", "timeout", 40 * MIB, 0, -1, 9, 20.4, 1, 1, 0},
                &(rep_more){KEY, 20.4, 0});
    r = summarize(d, NULL);
    HAS(r.text, ",SPACRBENCH_ITEM_TIMEOUT=40.8 ");
    result_free(&r);
    remove_dir(d);
}
END_TEST

/* The command's own failure (its exit, a crash) and a task that stopped
 * before anything ran need the user; a preempted task reruns. */
START_TEST(what_a_resubmission_does_not_fix_is_named)
{
    char *d = temp_dir(NULL);
    keyed_manifest(d, 4, KEY, 0, 0);
    report_more(d, &(rep){0, "8", "signal", 40 * MIB, 0, -1, 11, 1.0, 0, 3, 0},
                &(rep_more){KEY, 0, 0});
    report_more(d, &(rep){1, "8", "signal", 40 * MIB, 0, -1, 15, 1.0, 0, 3, 0},
                &(rep_more){KEY, 0, 0});
    task_log(d, 8, 1, KEY, 257, 5,
             "slurmstepd: error: *** JOB 9 ON n1 CANCELLED AT 2026-01-01 DUE TO PREEMPTION ***\n");
    task_log(d, 8, 2, KEY, 257, 5,
             "spacrbench job: task 2: /data/items.txt holds 12 bytes, 10 when this job was "
             "written: it changed since; emit the job again; nothing was run\n");
    report_more(d, &(rep){3, "8", "ok", 40 * MIB, 0, 0, 0, 1.0, 0, 3, 0}, &(rep_more){KEY, 0, 0});
    result r = summarize(d, NULL);
    HAS(r.text, "preempted (the SLURM log says so)");
    HAS(r.text, "\n  sbatch --array=1 --mem=");
    HAS(r.text, "the command failed: task(s) 0: ");
    HAS(r.text, "\n    sbatch --array=0 --mem=");
    HAS(r.text, "the job's files: task(s) 2: the task stopped before anything ran");
    HAS(r.text, "says nothing was run: spacrbench job: task 2: /data/items.txt holds 12 bytes");
    HAS(r.json, "\"reason\": \"job_files\"");
    HAS(r.json, "\"preempted\": 1");
    result_free(&r);
    remove_dir(d);
}
END_TEST

/* Text from files summarize did not write reaches the terminal escaped: a
 * manifest's script path with an escape sequence is not printed into a
 * command line; another array's key and an array job id with control
 * characters are shown escaped. */
START_TEST(control_characters_never_reach_the_terminal)
{
    char *d = temp_dir(NULL);
    put(d, "spacrbench-array.json",
        "{\"tasks\": 2, \"script\": \"/tmp/a\\u001b[2Jb/spacrbench-job.sh\", \"array_key\": "
        "\"%s\", \"requested\": {\"mem_bytes\": %lld, \"cpus\": 1, \"time_minutes\": 5}}\n",
        KEY, (long long)(257 * MIB));
    report_more(d, &(rep){0, "12\\u001b[31m", "ok", 40 * MIB, 0, 0, 0, 1.0, 0, 1, 0},
                &(rep_more){"\\u001b]0;title\\u0007", 0, 0});
    result r = summarize(d, NULL);
    ck_assert_int_eq(r.rc, 0);
    LACKS(r.text, "\x1b");
    LACKS(r.text, "\x07");
    HAS(r.text, "sbatch --array=0-1 ");
    HAS(r.text, " JOB_SCRIPT\n");
    HAS(r.text, "the script's path holds control characters, so it is not printed");
    HAS(r.text, "another array's report (key \\x1b]0;title\\x07;");
    result_free(&r);
    remove_dir(d);
}
END_TEST

/* ---- the reader itself ---- */

static int parses(const char *text, char *error, size_t cap)
{
    json_doc doc;
    json_limits lim = {8, 1000, 0};
    int rc = json_parse(&doc, text, strlen(text), &lim);
    snprintf(error, cap, "%s", doc.error);
    json_doc_free(&doc);
    return rc;
}

START_TEST(the_reader_is_strict_and_bounded)
{
    char err[200];
    const char *good[] = {"{}",
                          "[]",
                          "0",
                          "-0.5e-3",
                          "\"a\\u00e9\\ud83d\\ude00\"",
                          "null",
                          " {\"a\": [1, 2, {\"b\": true}], \"c\": false} ",
                          "[[[[[[[1]]]]]]]"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        ck_assert_msg(parses(good[i], err, sizeof err) == 0, "%s: %s", good[i], err);
    struct {
        const char *text, *why;
    } bad[] = {
        {"", "ends early"},
        {"[1,]", "unexpected character"},
        {"{\"a\":1,}", "quoted name"},
        {"NaN", "unexpected character"},
        {"Infinity", "unexpected character"},
        {"-Infinity", "malformed number"},
        {"1e400", "beyond a double"},
        {"01", "text after"},
        {"\"\\ud800\"", "lone high surrogate"},
        {"\"\\udc00\"", "lone low surrogate"},
        {"\"\\u0000\"", "\\u0000"},
        {"\"\xff\"", "invalid UTF-8"},
        {"\"\xc0\xaf\"", "invalid UTF-8"},
        {"\"\xed\xa0\x80\"", "invalid UTF-8"},
        {"\"a\tb\"", "control character"},
        {"[[[[[[[[[1]]]]]]]]]", "nested deeper than 8"},
        {"{\"a\" 1}", "without ':'"},
        {"[1 2]", "without ','"},
        {"\"abc", "unterminated"},
        {"tru", "unexpected character"},
        {"1 2", "text after"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_msg(parses(bad[i].text, err, sizeof err) == -1, "%s parsed", bad[i].text);
        ck_assert_msg(strstr(err, bad[i].why) != NULL, "%s: '%s' not in '%s'", bad[i].text,
                      bad[i].why, err);
    }
    /* The node limit. */
    char many[4000] = "[";
    for (int i = 0; i < 1500; i++)
        strcat(many, i ? ",1" : "1");
    strcat(many, "]");
    ck_assert_int_eq(parses(many, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "more than 1000 values"));
    /* Lookups. */
    json_doc doc;
    const char *t = "{\"a\": 1, \"b\": [true, \"x\"], \"a\": 9007199254740993}";
    ck_assert_int_eq(json_parse(&doc, t, strlen(t), NULL), 0);
    const json_node *root = json_root(&doc);
    const json_node *a = json_get(&doc, root, "a");
    ck_assert(a->is_integer);
    ck_assert_int_eq(a->integer, INT64_C(9007199254740993)); /* the last one, exactly */
    const json_node *b = json_get(&doc, root, "b");
    ck_assert_int_eq((int)b->count, 2);
    ck_assert_str_eq(json_child(&doc, b, 1)->text, "x");
    ck_assert_ptr_null(json_child(&doc, b, 2));
    ck_assert_ptr_null(json_get(&doc, b, "a"));
    ck_assert_ptr_null(json_get(&doc, root, "zz"));
    json_doc_free(&doc);
}
END_TEST

static Suite *summarize_suite(void)
{
    Suite *s = suite_create("summarize");
    TCase *t = tcase_create("decide");
    tcase_add_test(t, a_failed_task_keeps_its_peak_and_only_it_reruns);
    tcase_add_test(t, an_oom_killed_task_asks_twice_its_limit);
    tcase_add_test(t, the_newest_submission_wins);
    tcase_add_test(t, a_task_at_its_time_limit_is_timeout_and_the_next_time_is_larger);
    tcase_add_test(t, the_job_script_array_and_errors);
    tcase_add_test(t, a_missing_task_s_log_says_why);
    tcase_add_test(t, another_arrays_manifest_is_not_used);
    suite_add_tcase(s, t);
    t = tcase_create("hostile");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, hostile_files_are_unreadable_tasks);
    tcase_add_test(t, what_summarize_uses_of_a_report_is_checked_by_its_tables);
    tcase_add_test(t, a_manifest_nested_100000_deep_is_named);
    tcase_add_test(t, a_non_utf8_directory_name_stays_valid_output);
    tcase_add_test(t, a_million_missing_tasks_are_one_range);
    suite_add_tcase(s, t);
    t = tcase_create("loop");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, the_doubling_starts_from_what_the_failed_submission_asked);
    tcase_add_test(t, another_arrays_reports_and_logs_never_count);
    tcase_add_test(t, the_throttle_is_kept_and_steps_stay_ranges);
    tcase_add_test(t, every_other_of_four_million_tasks_is_one_range);
    tcase_add_test(t, a_rerun_beyond_one_argument_is_split_over_lines);
    tcase_add_test(t, summarize_is_linear_in_the_directory);
    tcase_add_test(t, an_item_timeout_needs_the_user_with_the_override);
    tcase_add_test(t, what_a_resubmission_does_not_fix_is_named);
    tcase_add_test(t, control_characters_never_reach_the_terminal);
    suite_add_tcase(s, t);
    t = tcase_create("reader");
    tcase_add_test(t, the_reader_is_strict_and_bounded);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *r = srunner_create(summarize_suite());
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
