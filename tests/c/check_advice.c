/* The advice rule (issue "Advice you can trust"): cores per worker from a
 * real multi-threaded work, the reserve that fits a cgroup limit, the start
 * method, and the proof with REAL v1 memory cgroups: the recommended number
 * of workers of a real 250 MiB work, started at once inside a 1 GiB and a
 * 4 GiB cgroup, all complete with no OOM kill. Where cgroups cannot be
 * made the test prints "SKIP: ..." and passes. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sb_test_memory.h"
#include "sb_test_text.h"
#include "spacrbench.h"

#define MIB INT64_C(1048576)
#define GIB (1024 * MIB)

static void skip(const char *test, const char *why)
{
    printf("SKIP: check_advice %s: %s\n", test, why);
    fprintf(stderr, "SKIP: check_advice %s: %s\n", test, why);
}

/* A measurement made through the builder: one measured item with these
 * figures (peak and baseline in bytes). */
static spacrbench_measurement *built(int64_t peak, int64_t baseline, double seconds, double cpu)
{
    spacrbench_run_plan plan;
    spacrbench_run_plan_init(&plan, sizeof plan);
    plan.items = 1;
    plan.warmup = 0;
    plan.peak_method = SPACRBENCH_PEAK_SUPPLIED;
    plan.baseline_rss_bytes = baseline;
    spacrbench_measurement *m = NULL;
    ck_assert_int_eq(spacrbench_measurement_begin(&plan, &m), 0);
    spacrbench_item_figures f;
    spacrbench_item_figures_init(&f, sizeof f);
    f.seconds = seconds;
    f.cpu_seconds = cpu;
    f.peak_rss_bytes = peak;
    ck_assert_int_eq(spacrbench_measurement_add_item(m, &f), 0);
    ck_assert_int_eq(spacrbench_measurement_end(m), 0);
    return m;
}

static spacrbench_recommendation recommend_on(const spacrbench_measurement *m,
                                              const spacrbench_recommend_options *o,
                                              const spacrbench_machine *mc)
{
    spacrbench_recommendation r;
    memset(&r, 0, sizeof r);
    r.size = sizeof r;
    ck_assert_msg(spacrbench_recommend_on(m, o, mc, &r) == 0, "%s",
                  spacrbench_last_error_message());
    return r;
}

static spacrbench_machine snapshot(int64_t cores, int64_t available, int source, int64_t limit)
{
    spacrbench_machine mc;
    memset(&mc, 0, sizeof mc);
    mc.size = sizeof mc;
    mc.cores = cores;
    mc.affinity_cores = cores;
    mc.cores_source = SPACRBENCH_SOURCE_AFFINITY;
    mc.available_bytes = available;
    mc.host_available_bytes = 64 * GIB;
    mc.memory_source = source;
    mc.memory_limit_bytes = limit;
    mc.cpu_quota_cores = -1;
    if (limit > 0)
        snprintf(mc.memory_cgroup, sizeof mc.memory_cgroup, "/sys/fs/cgroup/memory/slurm/job_7");
    return mc;
}

/* ---------------------------------------------------------- cores per worker */

static void *burn(void *arg)
{
    double until = *(const double *)arg;
    struct timespec ts;
    volatile double x = 0;
    do {
        for (int i = 0; i < 100000; i++)
            x += i * 0.5;
        clock_gettime(CLOCK_MONOTONIC, &ts);
    } while ((double)ts.tv_sec + (double)ts.tv_nsec * 1e-9 < until);
    (void)x; /* read once: clang's -Wunused-but-set-variable */
    return NULL;
}

/* Keeps two threads busy for 150 ms (the caller's and one more). */
static int two_busy_threads(void *item, void *payload)
{
    (void)item;
    (void)payload;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double until = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9 + 0.15;
    pthread_t t;
    if (pthread_create(&t, NULL, burn, &until) != 0)
        return 1;
    burn(&until);
    pthread_join(t, NULL);
    return 0;
}

START_TEST(two_busy_threads_need_two_cores_per_worker)
{
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (online < 2) {
        skip("two_busy_threads", "fewer than 2 CPUs online: two threads cannot both run");
        return;
    }
    void *items[3] = {NULL, NULL, NULL};
    spacrbench_options opts;
    spacrbench_options_init(&opts, sizeof opts);
    opts.warmup = 1;
    opts.flags = SPACRBENCH_FLAG_NO_GPU;
    spacrbench_measurement *m = NULL;
    ck_assert_int_eq(spacrbench_benchmark(two_busy_threads, items, 3, NULL, &opts, &m), 0);
    spacrbench_recommend_options o;
    spacrbench_recommend_options_init(&o, sizeof o);
    o.cores = 2;
    o.available_bytes = 64 * GIB;
    spacrbench_recommendation r = recommend_on(m, &o, NULL);
    printf("two busy threads: parallelism %.2f, %lld core(s) per worker, %lld worker(s): %s\n",
           r.cpu_parallelism, (long long)r.cores_per_worker, (long long)r.workers, r.reason);
    if (r.cpu_parallelism < 1.5) {
        /* Other processes took a core: the work really kept fewer busy, and
         * the rule must say so rather than 2. */
        ck_assert_int_eq(r.cores_per_worker, 1);
        char why[160];
        snprintf(why, sizeof why, "the machine is busy: the two threads got only %.2f cores",
                 r.cpu_parallelism);
        skip("two_busy_threads", why);
        spacrbench_measurement_free(m);
        return;
    }
    ck_assert_int_eq(r.cores_per_worker, 2);
    ck_assert_int_eq(r.threads_per_worker, 2);
    ck_assert_int_eq(r.workers, 1);
    ck_assert_int_eq(r.bound, SPACRBENCH_BOUND_CORES);
    /* Upstream's words first, ours after them. */
    ck_assert_msg(strncmp(r.reason, "core-bound: 2 core(s), and memory would allow ", 46) == 0,
                  "%s", r.reason);
    ck_assert_ptr_nonnull(strstr(r.reason, "cores busy, so 1 worker(s)"));
    spacrbench_schedule s = {.size = sizeof s};
    ck_assert_int_eq(spacrbench_schedule_compute(m, &r, &s), 0);
    ck_assert_int_eq(s.cpus_per_task, 2); /* the hand-off uses the same figure */
    spacrbench_measurement_free(m);
}
END_TEST

START_TEST(parallelism_rounds_to_whole_cores)
{
    /* {cpu seconds per wall second, cores, cores per worker, workers} */
    const double cases[][4] = {{1.0, 16, 1, 16}, {1.4, 16, 1, 16}, {1.6, 16, 2, 8},
                               {3.6, 16, 4, 4},  {3.6, 3, 4, 1},   {0.2, 16, 1, 16}};
    spacrbench_recommend_options o;
    spacrbench_recommend_options_init(&o, sizeof o);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        spacrbench_measurement *m = built(200 * MIB, 0, 2.0, 2.0 * cases[i][0]);
        spacrbench_machine mc =
            snapshot((int64_t)cases[i][1], 64 * GIB, SPACRBENCH_SOURCE_HOST, -1);
        spacrbench_recommendation r = recommend_on(m, &o, &mc);
        ck_assert_msg(r.cores_per_worker == (int64_t)cases[i][2] &&
                          r.workers == (int64_t)cases[i][3],
                      "case %zu: %lld per worker, %lld workers (%s)", i,
                      (long long)r.cores_per_worker, (long long)r.workers, r.reason);
        spacrbench_measurement_free(m);
    }
    /* More busy cores than the machine has: one worker, with every usable
     * core as its threads; the report, the recommendation and the hand-off
     * give the same thread count. */
    for (int64_t cores = 2; cores <= 5; cores++) {
        spacrbench_measurement *busy = built(200 * MIB, 0, 2.0, 2.0 * 3.6);
        spacrbench_machine small = snapshot(cores, 64 * GIB, SPACRBENCH_SOURCE_HOST, -1);
        spacrbench_recommendation rb = recommend_on(busy, &o, &small);
        int64_t want = cores < 4 ? cores : 4;
        ck_assert_int_eq(rb.cores_per_worker, 4);
        ck_assert_int_eq(rb.threads_per_worker, want);
        spacrbench_schedule s = {.size = sizeof s};
        ck_assert_int_eq(spacrbench_schedule_compute(busy, &rb, &s), 0);
        ck_assert_int_eq(s.cpus_per_task, want);
        ck_assert_int_eq(s.threads_per_worker, want);
        char report[4096], line[128];
        ck_assert_int_gt(spacrbench_format_report(busy, &rb, report, sizeof report), 0);
        snprintf(line, sizeof line, "%lld thread(s) per worker%s)", (long long)want,
                 cores < 4 ? ": all the usable cores" : "");
        char *flat = sb_test_unwrap(report);
        ck_assert_msg(flat && strstr(flat, line) != NULL, "no '%s' in:\n%s", line, report);
        free(flat);
        spacrbench_measurement_free(busy);
    }
    /* Unknown CPU time (a hand-made measurement): one core each, and the
     * reason is upstream's sentence alone. */
    spacrbench_measurement *m = built(200 * MIB, 0, 2.0, NAN);
    spacrbench_machine mc = snapshot(16, 64 * GIB, SPACRBENCH_SOURCE_HOST, -1);
    spacrbench_recommendation r = recommend_on(m, &o, &mc);
    ck_assert_double_lt(r.cpu_parallelism, 0);
    ck_assert_int_eq(r.cores_per_worker, 1);
    ck_assert_str_eq(r.reason, "core-bound: 16 core(s), and memory would allow 317");
    spacrbench_measurement_free(m);
}
END_TEST

/* ------------------------------------------------------------------ reserve */

START_TEST(reserve_fits_where_it_runs)
{
    spacrbench_measurement *m = built(300 * MIB, 0, 1.0, 1.0);
    spacrbench_recommend_options o;
    spacrbench_recommend_options_init(&o, sizeof o);
    o.cores = 64;
    /* A 1 GiB SLURM job with 1000 MiB of headroom: 10% of the limit is kept,
     * not the host's 2 GiB (which would leave "0 B free"). */
    spacrbench_machine job = snapshot(64, 1000 * MIB, SPACRBENCH_SOURCE_CGROUP_V1, GIB);
    spacrbench_recommendation r = recommend_on(m, &o, &job);
    ck_assert_int_eq(r.reserve_rule, SPACRBENCH_RESERVE_LIMIT);
    ck_assert_int_eq(r.reserve_bytes, GIB / 10);
    ck_assert_int_eq(r.workers, 2); /* (1000 MiB - 102.4 MiB) / 300 MiB */
    ck_assert_int_eq(r.bound, SPACRBENCH_BOUND_MEMORY);
    /* A small limit keeps at least 64 MiB; a huge one at most 2 GiB. */
    spacrbench_machine tiny = snapshot(64, 200 * MIB, SPACRBENCH_SOURCE_CGROUP_V2, 256 * MIB);
    ck_assert_int_eq(recommend_on(m, &o, &tiny).reserve_bytes, 64 * MIB);
    spacrbench_machine big = snapshot(64, 500 * GIB, SPACRBENCH_SOURCE_CGROUP_V2, 512 * GIB);
    ck_assert_int_eq(recommend_on(m, &o, &big).reserve_bytes, 2 * GIB);
    /* The host keeps 2 GiB for the OS and desktop. */
    spacrbench_machine host = snapshot(64, 16 * GIB, SPACRBENCH_SOURCE_HOST, -1);
    r = recommend_on(m, &o, &host);
    ck_assert_int_eq(r.reserve_rule, SPACRBENCH_RESERVE_HOST);
    ck_assert_int_eq(r.reserve_bytes, 2 * GIB);
    /* An explicit reserve always wins, even inside a job. */
    o.reserve_bytes = 500 * MIB;
    r = recommend_on(m, &o, &job);
    ck_assert_int_eq(r.reserve_rule, SPACRBENCH_RESERVE_CALLER);
    ck_assert_int_eq(r.reserve_bytes, 500 * MIB);
    ck_assert_int_eq(r.workers, 1);
    spacrbench_measurement_free(m);
}
END_TEST

/* ------------------------------------------------------------ start method */

/* Windows' Job Object and macOS' sysctl sources (their probes run only
 * there; the words and the limit's reserve rule are the portable core's). */
START_TEST(job_object_and_sysctl_sources_are_named)
{
    spacrbench_measurement *m = built(1 * GIB + 100 * MIB, 100 * MIB, 1.0, 1.0); /* 1 GiB */
    spacrbench_machine mc = snapshot(8, 3 * GIB, SPACRBENCH_SOURCE_JOB_OBJECT, 4 * GIB);
    snprintf(mc.memory_cgroup, sizeof mc.memory_cgroup, "job object (JobMemoryLimit)");
    mc.cores_source = SPACRBENCH_SOURCE_JOB_OBJECT;
    mc.cpu_quota_cores = 2.5;
    snprintf(mc.cores_cgroup, sizeof mc.cores_cgroup, "job object (CpuRate 3125/10000)");
    spacrbench_recommend_options o;
    spacrbench_recommend_options_init(&o, sizeof o);
    spacrbench_recommendation r = recommend_on(m, &o, &mc);
    ck_assert_str_eq(r.memory_where, "job object (JobMemoryLimit), limit 4.00 GiB");
    ck_assert_str_eq(r.cores_where, "job object (CpuRate 3125/10000), CPU rate cap 2.50 cores");
    /* The OS lives outside a job's limit, as outside a cgroup's: 10% of it. */
    ck_assert_int_eq(r.reserve_rule, SPACRBENCH_RESERVE_LIMIT);
    ck_assert_int_eq(r.reserve_bytes, 4 * GIB / 10);
    ck_assert_msg(strstr(r.reason, "; memory from job object (JobMemoryLimit)"), "%s", r.reason);
    ck_assert_str_eq(spacrbench_source_name(SPACRBENCH_SOURCE_JOB_OBJECT), "job_object");

    mc = snapshot(10, 64 * GIB, SPACRBENCH_SOURCE_HOST, -1);
    mc.cores_source = SPACRBENCH_SOURCE_SYSCTL;
    r = recommend_on(m, &o, &mc);
    ck_assert_str_eq(r.cores_where, "sysctl hw.activecpu");
    ck_assert_str_eq(spacrbench_source_name(SPACRBENCH_SOURCE_SYSCTL), "sysctl");
    spacrbench_measurement_free(m);
}
END_TEST

START_TEST(spawn_workers_pay_the_baseline)
{
    spacrbench_measurement *m = built(400 * MIB, 300 * MIB, 1.0, 1.0); /* 100 MiB of work */
    spacrbench_machine mc = snapshot(64, 2 * GIB + 1000 * MIB, SPACRBENCH_SOURCE_HOST, -1);
    spacrbench_recommend_options o;
    spacrbench_recommend_options_init(&o, sizeof o);
    spacrbench_recommendation fork_r = recommend_on(m, &o, &mc);
    ck_assert_int_eq(fork_r.start_method, SPACRBENCH_START_FORK);
    ck_assert_int_eq(fork_r.per_worker_bytes, 100 * MIB);
    ck_assert_int_eq(fork_r.workers, 10);
    o.start_method = SPACRBENCH_START_SPAWN;
    spacrbench_recommendation spawn_r = recommend_on(m, &o, &mc);
    ck_assert_int_eq(spawn_r.baseline_bytes, 300 * MIB);
    ck_assert_int_eq(spawn_r.per_worker_bytes, 400 * MIB);
    ck_assert_int_eq(spawn_r.workers, 2);
    ck_assert_msg(strncmp(spawn_r.reason, "memory-bound: ", 14) == 0 &&
                      strstr(spawn_r.reason, "spawn workers each also load the 300.0 MiB baseline"),
                  "%s", spawn_r.reason);
    o.start_method = SPACRBENCH_START_FORKSERVER;
    ck_assert_int_eq(recommend_on(m, &o, &mc).workers, 2);
    char report[4096];
    ck_assert_int_gt(spacrbench_format_report(m, &spawn_r, report, sizeof report), 0);
    ck_assert_ptr_nonnull(strstr(report, "start method        spawn"));
    o.start_method = 7;
    spacrbench_recommendation r = {.size = sizeof r};
    ck_assert_int_eq(spacrbench_recommend_on(m, &o, &mc, &r), SPACRBENCH_EINVAL);
    ck_assert_ptr_nonnull(strstr(spacrbench_last_error_message(), "start_method"));
    spacrbench_measurement_free(m);
}
END_TEST

/* ------------------------------------------------ real cgroups, real workers */

static int write_file(const char *dir, const char *name, const char *text)
{
    char path[1500];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    close(fd);
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

static int64_t read_key(const char *dir, const char *name, const char *key)
{
    char path[1500], line[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "re");
    long long v = -1;
    size_t klen = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, key, klen) == 0 && line[klen] == ' ')
            v = atoll(line + klen + 1);
    if (f)
        fclose(f);
    return v;
}

/* This process's v1 memory cgroup directory. */
static int own_memory_cgroup(char *out, size_t cap)
{
    FILE *f = fopen("/proc/self/cgroup", "re");
    char line[1024];
    int rc = -1;
    while (f && fgets(line, sizeof line, f)) {
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2 || strncmp(c1 + 1, "memory:", 7) != 0)
            continue;
        c2[strcspn(c2, "\n")] = '\0';
        snprintf(out, cap, "/sys/fs/cgroup/memory%s", strcmp(c2 + 1, "/") == 0 ? "" : c2 + 1);
        struct stat st;
        rc = stat(out, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -1;
    }
    if (f)
        fclose(f);
    return rc;
}

/* The real work: 250 MiB touched, held for a moment, given back. Under
 * ThreadSanitizer every touched page also gets shadow memory (the process
 * really needs several times as much), so the work is smaller there to keep
 * "more than one worker fits in 1 GiB" a question worth asking. */
#if SB_TEST_RSS_OVERHEAD_PERCENT > 100
#define WORK_BYTES ((size_t)80 * SB_MIB)
#else
#define WORK_BYTES ((size_t)250 * SB_MIB)
#endif

static int work_250(void *item, void *payload)
{
    (void)item;
    (void)payload;
    void *p = sb_test_touch_alloc(WORK_BYTES);
    struct timespec pause = {0, 50 * 1000 * 1000};
    nanosleep(&pause, NULL);
    sb_test_touch_free(p, WORK_BYTES);
    return 0;
}

typedef struct cgroup_outcome {
    int joined;
    int64_t workers; /* recommended */
    int64_t reserve;
    int32_t reserve_rule;
    int32_t memory_source;
    int completed; /* workers that exited 0 */
    int killed;    /* workers killed by a signal */
    char reason[512];
} cgroup_outcome;

/* In a child that joined dir: measure, recommend (memory decides: the
 * cores are not the question here), then start that many workers at once,
 * released together through a pipe, each running the same work. */
static void measure_and_start(const char *dir, int fd)
{
    cgroup_outcome out;
    memset(&out, 0, sizeof out);
    char me[32];
    snprintf(me, sizeof me, "%ld", (long)getpid());
    out.joined = write_file(dir, "cgroup.procs", me) == 0;
    void *items[2] = {NULL, NULL};
    spacrbench_options opts;
    spacrbench_options_init(&opts, sizeof opts);
    opts.warmup = 0;
    opts.flags = SPACRBENCH_FLAG_NO_GPU;
    spacrbench_measurement *m = NULL;
    if (out.joined && spacrbench_benchmark(work_250, items, 2, NULL, &opts, &m) == 0) {
        spacrbench_recommend_options o;
        spacrbench_recommend_options_init(&o, sizeof o);
        o.cores = 64;
        spacrbench_recommendation r = {.size = sizeof r};
        if (spacrbench_recommend(m, &o, &r) == 0) {
            out.workers = r.workers;
            out.reserve = r.reserve_bytes;
            out.reserve_rule = r.reserve_rule;
            out.memory_source = r.memory_source;
            snprintf(out.reason, sizeof out.reason, "%s", r.reason);
        }
        spacrbench_measurement_free(m);
    }
    int go[2];
    pid_t pids[64];
    int started = 0;
    if (out.workers > 0 && out.workers <= 64 && pipe(go) == 0) {
        for (; started < out.workers; started++) {
            pid_t pid = fork();
            if (pid == 0) {
                char b;
                close(go[1]);
                if (read(go[0], &b, 1) < 0)
                    _exit(2);
                _exit(work_250(NULL, NULL));
            }
            if (pid < 0)
                break;
            pids[started] = pid;
        }
        close(go[0]);
        close(go[1]); /* EOF releases them all at once */
        for (int i = 0; i < started; i++) {
            int status = 0;
            while (waitpid(pids[i], &status, 0) < 0 && errno == EINTR) {
            }
            out.completed += WIFEXITED(status) && WEXITSTATUS(status) == 0;
            out.killed += WIFSIGNALED(status);
        }
    }
    ssize_t w = write(fd, &out, sizeof out);
    _exit(w == (ssize_t)sizeof out ? 0 : 1);
}

static void recommended_workers_fit(const char *name, int64_t limit)
{
    char own[1024], dir[1200], text[32];
    if (own_memory_cgroup(own, sizeof own) != 0) {
        skip(name, "no v1 memory cgroup of ours under /sys/fs/cgroup/memory");
        return;
    }
    snprintf(dir, sizeof dir, "%s/sbtest-advice-%ld-%s", own, (long)getpid(), name);
    snprintf(text, sizeof text, "%lld", (long long)limit);
    if (mkdir(dir, 0755) != 0 || write_file(dir, "memory.limit_in_bytes", text) != 0) {
        char why[1400];
        snprintf(why, sizeof why, "cannot create a limited cgroup %s: %s", dir, strerror(errno));
        rmdir(dir);
        skip(name, why);
        return;
    }
    /* No swap inside the test cgroup: an overcommit must show as an OOM
     * kill, not as silent swapping. */
    write_file(dir, "memory.swappiness", "0");
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        measure_and_start(dir, fds[1]);
    }
    close(fds[1]);
    cgroup_outcome out;
    memset(&out, 0, sizeof out);
    ssize_t got = read(fds[0], &out, sizeof out);
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    int64_t oom_kills = read_key(dir, "memory.oom_control", "oom_kill");
    for (int tries = 0; tries < 100 && rmdir(dir) != 0 && errno == EBUSY; tries++)
        usleep(10000);
    ck_assert_int_eq(got, (ssize_t)sizeof out);
    if (!out.joined) {
        skip(name, "could not move a child into the test cgroup");
        return;
    }
    printf("%s: %lld worker(s) of %zu MiB recommended (reserve %lld MiB, rule %s): %d "
           "completed, %d killed, oom_kill %lld; %s\n",
           name, (long long)out.workers, WORK_BYTES / SB_MIB, (long long)(out.reserve / MIB),
           spacrbench_reserve_rule_name(out.reserve_rule), out.completed, out.killed,
           (long long)oom_kills, out.reason);
    ck_assert_int_eq(out.memory_source, SPACRBENCH_SOURCE_CGROUP_V1);
    ck_assert_int_eq(out.reserve_rule, SPACRBENCH_RESERVE_LIMIT);
    ck_assert_int_gt(out.workers, 1);
    ck_assert_int_eq(out.completed, out.workers);
    ck_assert_int_eq(out.killed, 0);
    ck_assert_int_le(oom_kills, 0);
}

START_TEST(recommended_workers_fit_in_1_gib) { recommended_workers_fit("cgroup_1g", GIB); }
END_TEST

START_TEST(recommended_workers_fit_in_4_gib) { recommended_workers_fit("cgroup_4g", 4 * GIB); }
END_TEST

static Suite *advice_suite(void)
{
    Suite *s = suite_create("advice");
    TCase *rule = tcase_create("rule");
    tcase_add_test(rule, parallelism_rounds_to_whole_cores);
    tcase_add_test(rule, reserve_fits_where_it_runs);
    tcase_add_test(rule, spawn_workers_pay_the_baseline);
    tcase_add_test(rule, job_object_and_sysctl_sources_are_named);
    suite_add_tcase(s, rule);
    TCase *real = tcase_create("real");
    tcase_set_timeout(real, 120);
    tcase_add_test(real, two_busy_threads_need_two_cores_per_worker);
    tcase_add_test(real, recommended_workers_fit_in_1_gib);
    tcase_add_test(real, recommended_workers_fit_in_4_gib);
    suite_add_tcase(s, real);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(advice_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
