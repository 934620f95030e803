/* The Windows build's tests, run under Wine or on Windows by
 * tests/windows/run.sh. Without arguments it runs every case in a child
 * process of its own (a fresh peak working set; the job and the affinity
 * a case sets stay with that child); `check_windows CASE` runs one.
 * Output is TAP-like: "ok - ...", "not ok - ...", "ok - ... # SKIP why";
 * the exit status is non-zero when a check failed. Linked with the static
 * internal archive, so the pure rules of os.h's Windows part are reachable. */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "os.h"
#include "spacrbench.h"

#define MIB         ((int64_t)1 << 20)
#define GIB         ((int64_t)1 << 30)
#define SPIKE_BYTES (256 * MIB)

static int g_failed;

static void report(int ok, const char *fmt, ...) __attribute__((format(gnu_printf, 2, 3)));
static void report(int ok, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("%s - ", ok ? "ok" : "not ok");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
    if (!ok)
        g_failed = 1;
}

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (cond)                                                                                  \
            report(1, __VA_ARGS__);                                                                \
        else {                                                                                     \
            report(0, __VA_ARGS__);                                                                \
            printf("#   failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__);                         \
        }                                                                                          \
    } while (0)

static void skip(const char *what, const char *why)
{
    printf("ok - %s # SKIP %s\n", what, why);
    fflush(stdout);
}

static double mib(int64_t bytes) { return (double)bytes / (double)MIB; }

/* ---- spike: the peak method on Windows ---------------------------------- */

/* Commit, touch every page and release: the working set rises by bytes. */
static void touch_and_release(int64_t bytes, DWORD hold_ms)
{
    unsigned char *p = VirtualAlloc(NULL, (SIZE_T)bytes, MEM_COMMIT | MEM_RESERVE, PAGE_READWRITE);
    if (!p)
        return;
    for (int64_t off = 0; off < bytes; off += 4096)
        p[off] = (unsigned char)(off >> 12);
    if (hold_ms)
        Sleep(hold_ms);
    VirtualFree(p, 0, MEM_RELEASE);
}

static int spike_work(void *item, void *payload)
{
    (void)payload;
    if (*(int *)item == 2)
        touch_and_release(SPIKE_BYTES, 0);
    else
        Sleep(2);
    return 0;
}

/* Long enough that a sampler thread starved by a loaded machine (Wine's
 * scheduling on 2 busy cores) still sees it, every 1 ms. */
#define HELD_MS 250

static int held_work(void *item, void *payload)
{
    (void)item, (void)payload;
    touch_and_release(SPIKE_BYTES, HELD_MS);
    return 0;
}

static int has_note(const spacrbench_measurement *m, const char *a, const char *b)
{
    spacrbench_figures f = {.size = sizeof f};
    spacrbench_measurement_figures(m, &f);
    for (int64_t i = 0; i < f.note_count; i++) {
        const char *n = spacrbench_measurement_note(m, (size_t)i);
        if (n && strstr(n, a) && (!b || strstr(n, b)))
            return 1;
    }
    return 0;
}

static void print_notes(const spacrbench_measurement *m)
{
    spacrbench_figures f = {.size = sizeof f};
    spacrbench_measurement_figures(m, &f);
    for (int64_t i = 0; i < f.note_count; i++)
        printf("#   note: %s\n", spacrbench_measurement_note(m, (size_t)i));
}

static void case_spike(void)
{
    static int values[5] = {0, 1, 2, 3, 4};
    void *ptrs[5];
    for (int i = 0; i < 5; i++)
        ptrs[i] = &values[i];

    /* A short spike in a fresh process: the lifetime peak working set rises
     * during the run, so the run's peak is exact (the window rule). */
    spacrbench_measurement *m = NULL;
    int rc = spacrbench_benchmark(spike_work, ptrs, 5, NULL, NULL, &m);
    CHECK(rc == 0, "spike: spacrbench_benchmark returns 0 (got %d: %s)", rc,
          rc ? spacrbench_last_error_message() : "ok");
    if (rc != 0)
        return;
    spacrbench_figures f = {.size = sizeof f};
    spacrbench_measurement_figures(m, &f);
    int64_t work = spacrbench_measurement_work_rss_bytes(m);
    printf("# spike: touched %.1f MiB; measured peak %.1f MiB, baseline %.1f MiB, work %.1f MiB, "
           "method %s\n",
           mib(SPIKE_BYTES), mib(f.peak_rss_bytes), mib(f.baseline_rss_bytes), mib(work),
           spacrbench_peak_method_name(f.peak_method));
    /* Not asserted: the item's own window is sampled, and a spike this
     * short can fall between samples; the run's figure above is exact. */
    spacrbench_item_record spike_item = {.size = sizeof spike_item};
    spacrbench_measurement_record(m, 2, &spike_item);
    printf("# spike: item 2's own peak (sampled every %.1f ms): %.1f MiB\n",
           (double)f.sample_interval_us / 1000.0, mib(spike_item.peak_rss_bytes));
    print_notes(m);
    CHECK(f.peak_method == SPACRBENCH_PEAK_HWM_WINDOW, "spike: peak method is hwm_window (got %s)",
          spacrbench_peak_method_name(f.peak_method));
    CHECK(f.peak_rss_bytes >= SPIKE_BYTES, "spike: run peak %.1f MiB >= touched %.1f MiB",
          mib(f.peak_rss_bytes), mib(SPIKE_BYTES));
    CHECK(work >= SPIKE_BYTES * 98 / 100, "spike: peak above baseline %.1f MiB >= 98%% of touched",
          mib(work));
    CHECK(
        has_note(m, "exact", "the peak working set cannot be reset on Windows, but the mark rose"),
        "spike: the note names the window rule and Windows' reason");
    CHECK(!has_note(m, "clear_refs", NULL) && !has_note(m, "VmHWM", NULL),
          "spike: no Linux wording in the notes");
    spacrbench_measurement_free(m);

    /* Now the lifetime peak is already higher than anything to come: only
     * the sampler can see a held spike. Each item's record must show it. */
    touch_and_release(2 * SPIKE_BYTES, 0);
    spacrbench_options o;
    spacrbench_options_init(&o, sizeof o);
    o.sample_interval_us = 1000;
    m = NULL;
    rc = spacrbench_benchmark(held_work, ptrs, 3, NULL, &o, &m);
    CHECK(rc == 0, "held spike: spacrbench_benchmark returns 0 (got %d: %s)", rc,
          rc ? spacrbench_last_error_message() : "ok");
    if (rc != 0)
        return;
    spacrbench_measurement_figures(m, &f);
    printf("# held spike: touched %.1f MiB for %d ms per item; method %s, baseline %.1f MiB\n",
           mib(SPIKE_BYTES), HELD_MS, spacrbench_peak_method_name(f.peak_method),
           mib(f.baseline_rss_bytes));
    print_notes(m);
    CHECK(f.peak_method == SPACRBENCH_PEAK_SAMPLED, "held spike: peak method is sampled (got %s)",
          spacrbench_peak_method_name(f.peak_method));
    CHECK(has_note(m, "sampled every 1.0 ms", "the peak working set cannot be reset on Windows"),
          "held spike: the note says sampled and why");
    for (size_t i = 0; i < 3; i++) {
        spacrbench_item_record r = {.size = sizeof r};
        spacrbench_measurement_record(m, i, &r);
        printf("# held spike: item %zu peak %.1f MiB (%.1f MiB above the baseline)\n", i,
               mib(r.peak_rss_bytes), mib(r.peak_rss_bytes - f.baseline_rss_bytes));
        CHECK(r.peak_rss_bytes >= SPIKE_BYTES &&
                  r.peak_rss_bytes - f.baseline_rss_bytes >= SPIKE_BYTES * 98 / 100,
              "held spike: item %zu peak %.1f MiB >= touched %.1f MiB", i, mib(r.peak_rss_bytes),
              mib(SPIKE_BYTES));
    }
    spacrbench_measurement_free(m);
}

/* ---- job: a Job Object's memory limit and CPU rate, for real ------------- */

static void case_job(void)
{
    const int64_t limit = 2 * GIB;
    HANDLE job = CreateJobObjectW(NULL, NULL);
    CHECK(job != NULL, "job: CreateJobObject");
    if (!job)
        return;
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION set;
    memset(&set, 0, sizeof set);
    set.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_JOB_MEMORY;
    set.JobMemoryLimit = (SIZE_T)limit;
    BOOL set_ok = SetInformationJobObject(job, JobObjectExtendedLimitInformation, &set, sizeof set);
    DWORD set_err = set_ok ? 0 : GetLastError();
    BOOL joined = AssignProcessToJobObject(job, GetCurrentProcess());
    DWORD join_err = joined ? 0 : GetLastError();
    CHECK(set_ok && joined,
          "job: JobMemoryLimit %.0f MiB set (error %lu), process assigned (error %lu)", mib(limit),
          (unsigned long)set_err, (unsigned long)join_err);
    if (!set_ok || !joined)
        return;

    /* What the platform says back about the job we just made and joined. */
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION got;
    memset(&got, 0, sizeof got);
    BOOL q =
        QueryInformationJobObject(NULL, JobObjectExtendedLimitInformation, &got, sizeof got, NULL);
    DWORD q_err = q ? 0 : GetLastError();
    BOOL in_job = FALSE;
    IsProcessInJob(GetCurrentProcess(), NULL, &in_job);
    spacrbench_machine mach = {.size = sizeof mach};
    CHECK(spacrbench_discover(&mach) == 0, "job: spacrbench_discover returns 0");
    printf("# job: limit set %.0f MiB; platform query ok=%d error=%lu LimitFlags=0x%lx "
           "JobMemoryLimit=%.0f MiB; IsProcessInJob=%d; discovered %.1f MiB from %s (%s)\n",
           mib(limit), (int)q, (unsigned long)q_err,
           (unsigned long)got.BasicLimitInformation.LimitFlags, mib((int64_t)got.JobMemoryLimit),
           (int)in_job, mib(mach.available_bytes), spacrbench_source_name(mach.memory_source),
           mach.memory_cgroup);
    if (!q || !(got.BasicLimitInformation.LimitFlags & JOB_OBJECT_LIMIT_JOB_MEMORY)) {
        char why[400];
        snprintf(why, sizeof why,
                 "the platform returned no JobMemoryLimit for a job this test created and "
                 "joined (QueryInformationJobObject: ok=%d, error %lu, LimitFlags 0x%lx; Wine 8 "
                 "stubs job limits), so discovery cannot see it",
                 (int)q, (unsigned long)q_err, (unsigned long)got.BasicLimitInformation.LimitFlags);
        skip("job: memory limit discovered from the job object", why);
    } else {
        CHECK(mach.memory_source == SPACRBENCH_SOURCE_JOB_OBJECT,
              "job: memory source is job_object (got %s)",
              spacrbench_source_name(mach.memory_source));
        CHECK(mach.memory_limit_bytes == limit, "job: memory limit %.0f MiB",
              mib(mach.memory_limit_bytes));
        CHECK(mach.available_bytes > 0 && mach.available_bytes <= limit,
              "job: available %.1f MiB within the limit", mib(mach.available_bytes));
        CHECK(strstr(mach.memory_cgroup, "job object") != NULL, "job: described as '%s'",
              mach.memory_cgroup);
    }

    /* A hard CPU rate cap of half the machine. */
    JOBOBJECT_CPU_RATE_CONTROL_INFORMATION rate;
    memset(&rate, 0, sizeof rate);
    rate.ControlFlags = JOB_OBJECT_CPU_RATE_CONTROL_ENABLE | JOB_OBJECT_CPU_RATE_CONTROL_HARD_CAP;
    rate.CpuRate = 5000;
    BOOL rate_ok =
        SetInformationJobObject(job, JobObjectCpuRateControlInformation, &rate, sizeof rate);
    DWORD rate_err = rate_ok ? 0 : GetLastError();
    JOBOBJECT_CPU_RATE_CONTROL_INFORMATION rate_got;
    memset(&rate_got, 0, sizeof rate_got);
    BOOL rq = QueryInformationJobObject(NULL, JobObjectCpuRateControlInformation, &rate_got,
                                        sizeof rate_got, NULL);
    DWORD rq_err = rq ? 0 : GetLastError();
    spacrbench_discover(&mach);
    int64_t all = (int64_t)GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
    printf("# job: CpuRate 5000/10000 of %lld processors: set ok=%d error=%lu; query ok=%d "
           "error=%lu flags=0x%lx rate=%lu; discovered %lld cores from %s\n",
           (long long)all, (int)rate_ok, (unsigned long)rate_err, (int)rq, (unsigned long)rq_err,
           (unsigned long)rate_got.ControlFlags, (unsigned long)rate_got.CpuRate,
           (long long)mach.cores, spacrbench_source_name(mach.cores_source));
    if (!rate_ok || !rq || rate_got.CpuRate != 5000) {
        char why[300];
        snprintf(why, sizeof why,
                 "the platform did not keep or report the CPU rate cap this test set (set "
                 "error %lu, query ok=%d error %lu)",
                 (unsigned long)rate_err, (int)rq, (unsigned long)rq_err);
        skip("job: CPU rate cap discovered from the job object", why);
    } else {
        int64_t want = (all + 1) / 2;
        CHECK(mach.cores == (want < mach.affinity_cores ? want : mach.affinity_cores),
              "job: %lld usable cores under a 50%% cap", (long long)mach.cores);
    }
}

/* ---- rule: the pure job-object rules, on filled-in structures ------------ */

static void case_rule(void)
{
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION info;
    sb_probe p;

    memset(&info, 0, sizeof info);
    memset(&p, 0, sizeof p);
    info.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_JOB_MEMORY;
    info.JobMemoryLimit = (SIZE_T)(4 * GIB);
    sb_win_job_memory(&info, 1 * GIB, &p);
    CHECK(p.memory_source == SPACRBENCH_SOURCE_JOB_OBJECT && p.memory_limit_bytes == 4 * GIB &&
              p.memory_headroom_bytes == 3 * GIB &&
              strcmp(p.memory_dir, "job object (JobMemoryLimit)") == 0,
          "rule: JobMemoryLimit 4 GiB, 1 GiB committed -> 3 GiB headroom");

    sb_win_job_memory(&info, 5 * GIB, &p);
    CHECK(p.memory_headroom_bytes == 0, "rule: over the limit -> no headroom, not negative");

    info.PeakJobMemoryUsed = (SIZE_T)(3 * GIB / 2);
    sb_win_job_memory(&info, -1, &p);
    CHECK(p.memory_headroom_bytes == 4 * GIB - 3 * GIB / 2 && strstr(p.memory_dir, "peak"),
          "rule: committed unknown -> limit less the job's peak, and said so");

    memset(&info, 0, sizeof info);
    info.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_PROCESS_MEMORY;
    info.ProcessMemoryLimit = (SIZE_T)GIB;
    sb_win_job_memory(&info, 0, &p);
    CHECK(p.memory_source == SPACRBENCH_SOURCE_UNKNOWN && p.memory_headroom_bytes == -1,
          "rule: a per-process limit alone is no bound on the total");

    /* Through discover.c's combining rule, as sb_probe_machine feeds it. */
    memset(&info, 0, sizeof info);
    info.BasicLimitInformation.LimitFlags =
        JOB_OBJECT_LIMIT_JOB_MEMORY | JOB_OBJECT_LIMIT_PROCESS_MEMORY;
    info.JobMemoryLimit = (SIZE_T)(4 * GIB);
    memset(&p, 0, sizeof p);
    p.host_available_bytes = 8 * GIB;
    p.affinity_cores = 8;
    sb_win_job_memory(&info, 1 * GIB, &p);
    JOBOBJECT_CPU_RATE_CONTROL_INFORMATION rate;
    memset(&rate, 0, sizeof rate);
    rate.ControlFlags = JOB_OBJECT_CPU_RATE_CONTROL_ENABLE | JOB_OBJECT_CPU_RATE_CONTROL_HARD_CAP;
    rate.CpuRate = 2500;
    p.quota_cores = sb_win_job_cpu_rate_cores(&rate, 8);
    p.quota_source = SPACRBENCH_SOURCE_JOB_OBJECT;
    spacrbench_machine m;
    sb_machine_from_probe(&p, &m);
    CHECK(m.available_bytes == 3 * GIB && m.memory_source == SPACRBENCH_SOURCE_JOB_OBJECT &&
              m.memory_limit_bytes == 4 * GIB &&
              strcmp(m.memory_cgroup, "job object (JobMemoryLimit)") == 0,
          "rule: the job's 3 GiB headroom beats the host's 8 GiB (%s)", m.memory_cgroup);
    CHECK(fabs(m.cpu_quota_cores - 2.0) < 1e-9 && m.cores == 2 &&
              m.cores_source == SPACRBENCH_SOURCE_JOB_OBJECT,
          "rule: CpuRate 2500 of 8 processors -> 2 cores from the job object");

    p.host_available_bytes = 2 * GIB;
    sb_machine_from_probe(&p, &m);
    CHECK(m.available_bytes == 2 * GIB && m.memory_source == SPACRBENCH_SOURCE_HOST,
          "rule: a host with less than the job's headroom wins");

    rate.ControlFlags = JOB_OBJECT_CPU_RATE_CONTROL_ENABLE;
    CHECK(sb_win_job_cpu_rate_cores(&rate, 8) < 0, "rule: a soft CPU rate is no cap");
    rate.ControlFlags = JOB_OBJECT_CPU_RATE_CONTROL_ENABLE |
                        JOB_OBJECT_CPU_RATE_CONTROL_WEIGHT_BASED |
                        JOB_OBJECT_CPU_RATE_CONTROL_HARD_CAP;
    CHECK(sb_win_job_cpu_rate_cores(&rate, 8) < 0, "rule: a weight is no cap");
    rate.ControlFlags = JOB_OBJECT_CPU_RATE_CONTROL_ENABLE | JOB_OBJECT_CPU_RATE_CONTROL_HARD_CAP;
    rate.CpuRate = 1;
    CHECK(fabs(sb_win_job_cpu_rate_cores(&rate, 64) - 0.0064) < 1e-12,
          "rule: CpuRate is in 1/100 %% of all processors");
    CHECK(sb_win_mask_cores(0x5) == 2 && sb_win_mask_cores(UINT64_MAX) == 64,
          "rule: affinity mask popcount");
}

/* ---- affinity: one CPU, for real ------------------------------------------ */

static void case_affinity(void)
{
    DWORD_PTR mine = 0, sys = 0;
    GetProcessAffinityMask(GetCurrentProcess(), &mine, &sys);
    DWORD_PTR one = mine & (~mine + 1); /* the lowest CPU we may use */
    BOOL set = SetProcessAffinityMask(GetCurrentProcess(), one);
    CHECK(set, "affinity: SetProcessAffinityMask(0x%llx) (error %lu)", (unsigned long long)one,
          set ? 0UL : (unsigned long)GetLastError());
    spacrbench_machine m = {.size = sizeof m};
    spacrbench_discover(&m);
    int64_t cores = spacrbench_usable_cores();
    printf("# affinity: mask 0x%llx of 0x%llx -> usable cores %lld (%s), affinity cores %lld\n",
           (unsigned long long)one, (unsigned long long)sys, (long long)cores,
           spacrbench_source_name(m.cores_source), (long long)m.affinity_cores);
    CHECK(cores == 1, "affinity: spacrbench_usable_cores() == 1 (got %lld)", (long long)cores);
    CHECK(m.cores_source == SPACRBENCH_SOURCE_AFFINITY && m.affinity_cores == 1,
          "affinity: source is affinity (got %s)", spacrbench_source_name(m.cores_source));
}

/* ---- discover: sanity against the platform's own totals -------------------- */

static void case_discover(void)
{
    MEMORYSTATUSEX ms;
    ms.dwLength = sizeof ms;
    GlobalMemoryStatusEx(&ms);
    spacrbench_machine m = {.size = sizeof m};
    CHECK(spacrbench_discover(&m) == 0, "discover: returns 0");
    int64_t all = (int64_t)GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
    printf("# discover: available %.1f MiB (%s) of %.1f MiB physical; cores %lld (%s) of %lld\n",
           mib(m.available_bytes), spacrbench_source_name(m.memory_source),
           mib((int64_t)ms.ullTotalPhys), (long long)m.cores,
           spacrbench_source_name(m.cores_source), (long long)all);
    CHECK(m.available_bytes > 0 && m.available_bytes <= (int64_t)ms.ullTotalPhys,
          "discover: 0 < available <= total physical");
    CHECK(m.memory_source == SPACRBENCH_SOURCE_HOST, "discover: memory source host (no job)");
    CHECK(spacrbench_available_memory_bytes() > 0, "discover: spacrbench_available_memory_bytes");
    CHECK(m.cores >= 1 && m.cores <= all, "discover: 1 <= cores <= %lld", (long long)all);
}

/* ---- unsupported: what only Linux measures -------------------------------- */

static int idle_work(void *item, void *payload)
{
    (void)item, (void)payload;
    return 0;
}

static void case_unsupported(void)
{
    static int v[2];
    void *ptrs[2] = {&v[0], &v[1]};
    spacrbench_scale_result *r = NULL;
    int rc = spacrbench_scale(idle_work, ptrs, 2, NULL, NULL, &r);
    const char *msg = spacrbench_last_error_message();
    printf("# unsupported: spacrbench_scale -> %d: %s\n", rc, msg);
    CHECK(rc == SPACRBENCH_EUNSUPPORTED && strstr(msg, "Windows"),
          "unsupported: spacrbench_scale says EUNSUPPORTED, naming Windows");
    spacrbench_group *g = NULL;
    rc = spacrbench_group_open(0, &g);
    msg = spacrbench_last_error_message();
    printf("# unsupported: spacrbench_group_open -> %d: %s\n", rc, msg);
    CHECK(rc == SPACRBENCH_EUNSUPPORTED && g == NULL && strstr(msg, "Windows"),
          "unsupported: spacrbench_group_open says EUNSUPPORTED, naming Windows");
}

static const struct {
    const char *name;
    void (*run)(void);
} k_cases[] = {{"spike", case_spike},       {"job", case_job},
               {"rule", case_rule},         {"affinity", case_affinity},
               {"discover", case_discover}, {"unsupported", case_unsupported}};
#define N_CASES (sizeof k_cases / sizeof k_cases[0])

/* Run one case in a child process; its exit status is the case's. */
static int run_child(const char *name)
{
    char self[MAX_PATH], cmd[MAX_PATH + 64];
    if (!GetModuleFileNameA(NULL, self, sizeof self))
        return 1;
    snprintf(cmd, sizeof cmd, "\"%s\" %s", self, name);
    STARTUPINFOA si;
    PROCESS_INFORMATION pi;
    memset(&si, 0, sizeof si);
    si.cb = sizeof si;
    fflush(stdout);
    if (!CreateProcessA(self, cmd, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi)) {
        report(0, "%s: cannot start a child (error %lu)", name, (unsigned long)GetLastError());
        return 1;
    }
    WaitForSingleObject(pi.hProcess, INFINITE);
    DWORD code = 1;
    GetExitCodeProcess(pi.hProcess, &code);
    CloseHandle(pi.hProcess);
    CloseHandle(pi.hThread);
    return code != 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc > 1) {
        for (size_t i = 0; i < N_CASES; i++)
            if (strcmp(argv[1], k_cases[i].name) == 0) {
                k_cases[i].run();
                return g_failed;
            }
        fprintf(stderr, "check_windows: no case '%s'\n", argv[1]);
        return 2;
    }
    int failed = 0;
    for (size_t i = 0; i < N_CASES; i++) {
        printf("# case %s\n", k_cases[i].name);
        if (run_child(k_cases[i].name)) {
            printf("# case %s FAILED\n", k_cases[i].name);
            failed++;
        }
    }
    printf("# %d of %d cases failed\n", failed, (int)N_CASES);
    return failed != 0;
}
