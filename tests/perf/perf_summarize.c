/* summarize's cost on the directories of issue 32, printed, never
 * asserted (check_summarize asserts by counting steps):
 *   N reports of an array (job 100) and a log of a newer job (200) for
 *   every task, or for N more tasks (which left no report), no manifest:
 *   at N and 2N, and their ratio (a scan of the reports per log made the
 *   second quadratic: 3.6 s at 30,000);
 *   --job with #SBATCH --array=0-4194303:2 and no report: time, the
 *   process's peak RSS and the text's size (it took 5.7 s, 1.5 GB and
 *   printed 414 MB).
 * Usage: perf_summarize [N] (default 30000). Public API only, so the same
 * file measures an older library. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "spacrbench.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void put(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
}

static void clean(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
}

/* n reports of job 100 and a log of job 200 for each task (beyond: for
 * tasks n..2n-1 instead): the seconds summarize takes (the best of 3). */
static double reports_and_newer_logs(const char *base, int n, int beyond)
{
    char dir[400], name[64], text[1400];
    snprintf(dir, sizeof dir, "%s/logs-%d", base, n);
    mkdir(dir, 0700);
    for (int i = 0; i < n; i++) {
        snprintf(name, sizeof name, "task-%d.json", i);
        snprintf(text, sizeof text,
                 "{\"mode\": \"run\", \"job\": {\"SLURM_ARRAY_JOB_ID\": \"100\", "
                 "\"SLURM_ARRAY_TASK_ID\": \"%d\", \"SLURM_MEM_PER_NODE\": \"512\"}, "
                 "\"measurement\": {\"peak_rss_bytes\": 41943040, \"seconds\": 1, "
                 "\"cpu_seconds\": 0.9, \"stopped\": false, \"records\": [{\"item\": \"i%d\"}]}, "
                 "\"task\": {\"outcome\": \"ok\", \"elapsed_seconds\": 1, \"array_job_id\": "
                 "\"100\", \"array_task_id\": %d, \"array_key\": \"a1b2c3d4e5f60718\", \"array\": "
                 "{\"min\": 0, \"max\": %d, \"step\": 1, \"count\": %d}, \"requested\": "
                 "{\"mem_bytes\": 536870912, \"cpus\": 1, \"time_minutes\": 5}}}\n",
                 i, i, i, n - 1, n);
        put(dir, name, text);
        int task = beyond ? n + i : i;
        snprintf(name, sizeof name, "slurm-200_%d.out", task);
        snprintf(text, sizeof text,
                 "spacrbench job: array job 200 task %d: key a1b2c3d4e5f60718, --mem 512 MiB, "
                 "--time 5 min, item --timeout 0 s\n",
                 task);
        put(dir, name, text);
    }
    double best = 1e9;
    for (int k = 0; k < 3; k++) {
        spacrbench_summary *s = NULL;
        double t0 = now();
        int rc = spacrbench_summarize(dir, NULL, &s);
        double took = now() - t0;
        if (rc != 0) {
            fprintf(stderr, "summarize: %s\n", spacrbench_last_error_message());
            exit(1);
        }
        spacrbench_summary_free(s);
        best = took < best ? took : best;
    }
    clean(dir);
    return best;
}

static void stepped_array(const char *base)
{
    char dir[400], job[500];
    snprintf(dir, sizeof dir, "%s/stepped", base);
    mkdir(dir, 0700);
    put(dir, "job.sh", "#!/bin/bash\n#SBATCH --array=0-4194303:2\nset -e\n");
    snprintf(job, sizeof job, "%s/job.sh", dir);
    struct rusage before, after;
    getrusage(RUSAGE_SELF, &before);
    spacrbench_summary *s = NULL;
    double t0 = now();
    if (spacrbench_summarize(dir, job, &s) != 0) {
        fprintf(stderr, "summarize: %s\n", spacrbench_last_error_message());
        exit(1);
    }
    double took = now() - t0;
    int text = spacrbench_summary_text(s, NULL, 0);
    spacrbench_summary_free(s);
    getrusage(RUSAGE_SELF, &after);
    printf("--array=0-4194303:2, no report: %.3f s, peak RSS %ld MiB (before: %ld MiB), text %d "
           "bytes\n",
           took, after.ru_maxrss / 1024, before.ru_maxrss / 1024, text);
    clean(dir);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 30000;
    char base[256];
    snprintf(base, sizeof base, "%s/sb-perf-summarize-%ld",
             access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", (long)getpid());
    mkdir(base, 0700);
    for (int beyond = 0; beyond < 2; beyond++) {
        double one = reports_and_newer_logs(base, n, beyond);
        double two = reports_and_newer_logs(base, 2 * n, beyond);
        printf("%d reports + %d logs of a newer job (%s): %.3f s; %d + %d: %.3f s (ratio %.2f; "
               "linear is 2, a scan per log 4)\n",
               n, n, beyond ? "of tasks without a report" : "of the same tasks", one, 2 * n, 2 * n,
               two, two / one);
    }
    stepped_array(base);
    clean(base);
    return 0;
}
