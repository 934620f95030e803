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
#include <sys/stat.h>
#include <unistd.h>

#include "json_reader.h"
#include "spacrbench.h"

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

static void report(const char *dir, const rep *r)
{
    char name[64], status[16], sig[16], fpeak[32];
    snprintf(name, sizeof name, "task-%d.json", r->index);
    snprintf(status, sizeof status, r->exit_status >= 0 ? "%d" : "null", r->exit_status);
    snprintf(sig, sizeof sig, r->signal > 0 ? "%d" : "null", r->signal);
    int ok = strcmp(r->outcome, "ok") == 0;
    snprintf(fpeak, sizeof fpeak, ok ? "null" : "%lld", r->peak);
    put(dir, name,
        "{\"mode\": \"run\", \"job\": {\"SLURM_JOB_ID\": \"%s%d\", \"SLURM_ARRAY_JOB_ID\": "
        "\"%s\", \"SLURM_ARRAY_TASK_ID\": \"%d\", \"SLURM_MEM_PER_NODE\": \"257\"},\n"
        " \"measurement\": {\"peak_rss_bytes\": %lld, \"seconds\": %g, \"cpu_seconds\": %g, "
        "\"oom_limit_bytes\": %lld, \"stopped\": %s, \"records\": [{\"item\": \"i%d\"}]},\n"
        " \"task\": {\"outcome\": \"%s\", \"exit_status\": %s, \"signal\": %s, "
        "\"oom_limit_bytes\": %lld, \"timeout_seconds\": null, \"item_index\": 0, \"item\": "
        "\"i%d\", \"failed_item_peak_bytes\": %s, \"items\": 1, \"completed\": %d, "
        "\"elapsed_seconds\": %g, \"array_job_id\": \"%s\", \"array_task_id\": %d, \"job_id\": "
        "\"x\", \"array\": {\"min\": %d, \"max\": %d, \"step\": 1, \"count\": %d}, "
        "\"requested\": {\"mem_bytes\": %lld, \"cpus\": 1, \"time_minutes\": %d}}}\n",
        r->job, r->index, r->job, r->index, ok ? r->peak : 0, r->seconds, r->seconds * 0.9, r->oom,
        ok ? "false" : "true", r->index, r->outcome, status, sig, r->oom, r->index, fpeak, ok,
        r->seconds, r->job, r->index, r->min, r->max, r->max - r->min + 1, (long long)(257 * MIB),
        r->time_minutes ? r->time_minutes : 5);
}

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
    /* Twice the OOM limit (514 MiB) is below the exit-3 task's 600 MiB: 600 + 256. */
    HAS(r.text, "sbatch --array=2-3 --mem=856M --cpus-per-task=1 --time=00:05:00 "
                "--export=ALL,SPACRBENCH_TIME_LIMIT_MINUTES=5 ");
    HAS(r.text, "/spacrbench-job.sh\n");
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
    HAS(r.text, "--array=1-3,7 ");
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

/* A manifest written by another array into the directory (its key is not
 * the one the reports' or the given script's): its 8 tasks and 257 MiB are
 * not used, and the text says so; with --job the script's own #SBATCH
 * requests stand in for them. The right key: the manifest is used. */
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
    HAS(r.text, "spacrbench-array.json belongs to another array (key aaaaaaaaaaaaaaaa; the "
                "reports' job script has key bbbbbbbbbbbbbbbb)");
    HAS(r.text, "1 task(s), 1 ok");
    LACKS(r.text, "257.0 MiB");
    HAS(r.text, "0 missing");
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
