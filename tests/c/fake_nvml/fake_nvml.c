/* Fake libnvidia-ml.so.1: implements the NVML calls the probe makes, with
 * the documented semantics (count-only queries, INSUFFICIENT_SIZE with the
 * needed count, v1 and v2/v3 entry layouts), driven by a script described
 * in fake_nvml.h. Calls may come from the sampler thread while a test's
 * work changes the figures, hence the lock. */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_nvml.h"
#include "nvml_types.h"

#define FAKE_EXPORT      __attribute__((visibility("default")))
#define FAKE_MAX_DEVICES 8
#define FAKE_MAX_STEPS   64
#define FAKE_MAX_OTHERS  256
#define FAKE_MAX_LISTED  64 /* live PIDs taken from a pids_in directory */

enum { STEP_BYTES, STEP_NA, STEP_FAIL };

typedef struct fake_step {
    int kind;
    unsigned long long bytes;
} fake_step;

typedef struct fake_other {
    unsigned int pid;
    unsigned long long bytes;
} fake_other;

typedef struct fake_device {
    char name[SB_NVML_NAME_BUFFER_SIZE];
    unsigned long long total, free;
    fake_step steps[FAKE_MAX_STEPS];
    size_t n_steps, at;
    unsigned long long graphics_bytes;
    fake_other others[FAKE_MAX_OTHERS];
    size_t n_others;
    int handle_fail, compute_fail;
    int insufficient_pending;
    char pids_dir[256]; /* pids_in: PIDs named by the files in it */
    unsigned long long pids_bytes;
    unsigned long queries;
} fake_device;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static fake_device devices[FAKE_MAX_DEVICES];
static size_t n_devices;
static int live_inits, last_version;
static int init_fail, count_fail, graphics_fail, memory_fail, insufficient_always;
static unsigned int insufficient_count; /* 0: one more than offered */
static unsigned int own_pid;

/* ---- script ---------------------------------------------------------- */

static int parse_size(const char *s, unsigned long long *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s)
        return -1;
    unsigned shift = 0;
    switch (*end) {
    case 'K':
        shift = 10;
        end++;
        break;
    case 'M':
        shift = 20;
        end++;
        break;
    case 'G':
        shift = 30;
        end++;
        break;
    case 'T':
        shift = 40;
        end++;
        break;
    default:
        break;
    }
    if (*end)
        return -1;
    *out = v << shift;
    return 0;
}

static unsigned int outer_pid(void)
{
    char buf[4096];
    FILE *f = fopen("/proc/self/status", "r");
    unsigned int pid = (unsigned int)getpid();
    if (!f)
        return pid;
    while (fgets(buf, sizeof buf, f))
        if (strncmp(buf, "NSpid:", 6) == 0) {
            pid = (unsigned int)strtoul(buf + 6, NULL, 10);
            break;
        }
    fclose(f);
    return pid;
}

static void reset_state(void)
{
    memset(devices, 0, sizeof devices);
    n_devices = 0;
    init_fail = count_fail = graphics_fail = memory_fail = insufficient_always = 0;
    insufficient_count = 0;
    own_pid = (unsigned int)getpid();
}

static fake_device *device_arg(const char *s)
{
    char *end = NULL;
    unsigned long i = strtoul(s ? s : "", &end, 10);
    if (!s || end == s || *end || i >= n_devices)
        return NULL;
    return &devices[i];
}

/* Returns 0, or -1 on a line it does not understand (init then fails, so
 * a mistyped script cannot pass silently). */
static int parse_line(char *line)
{
    char *save = NULL;
    char *word = strtok_r(line, " \t\r\n", &save);
    if (!word || word[0] == '#')
        return 0;
    char *a = strtok_r(NULL, " \t\r\n", &save);
    if (strcmp(word, "device") == 0) {
        char *b = strtok_r(NULL, " \t\r\n", &save);
        char *name = strtok_r(NULL, "\r\n", &save);
        if (n_devices == FAKE_MAX_DEVICES || !a || !b)
            return -1;
        fake_device *d = &devices[n_devices];
        if (parse_size(a, &d->total) || parse_size(b, &d->free))
            return -1;
        snprintf(d->name, sizeof d->name, "%s", name ? name : "Fake GPU");
        d->insufficient_pending = 0;
        n_devices++;
        return 0;
    }
    if (strcmp(word, "used") == 0) {
        fake_device *d = device_arg(a);
        if (!d)
            return -1;
        d->n_steps = 0;
        for (char *s; (s = strtok_r(NULL, " \t\r\n", &save)) && d->n_steps < FAKE_MAX_STEPS;) {
            fake_step *st = &d->steps[d->n_steps++];
            if (strcmp(s, "na") == 0)
                st->kind = STEP_NA;
            else if (strcmp(s, "fail") == 0)
                st->kind = STEP_FAIL;
            else if (parse_size(s, &st->bytes) != 0)
                return -1;
        }
        return 0;
    }
    if (strcmp(word, "graphics") == 0) {
        fake_device *d = device_arg(a);
        return d ? parse_size(strtok_r(NULL, " \t\r\n", &save), &d->graphics_bytes) : -1;
    }
    if (strcmp(word, "other") == 0) {
        fake_device *d = device_arg(a);
        char *pid = strtok_r(NULL, " \t\r\n", &save), *size = strtok_r(NULL, " \t\r\n", &save);
        if (!d || !pid || !size || d->n_others == FAKE_MAX_OTHERS)
            return -1;
        fake_other *o = &d->others[d->n_others++];
        o->pid = (unsigned int)strtoul(pid, NULL, 10);
        return parse_size(size, &o->bytes);
    }
    if (strcmp(word, "others") == 0) {
        fake_device *d = device_arg(a);
        char *n = strtok_r(NULL, " \t\r\n", &save);
        if (!d || !n)
            return -1;
        for (unsigned long i = strtoul(n, NULL, 10); i > 0 && d->n_others < FAKE_MAX_OTHERS; i--) {
            fake_other *o = &d->others[d->n_others];
            o->pid = 4000000u + (unsigned int)d->n_others;
            o->bytes = 1ULL << 30;
            d->n_others++;
        }
        return 0;
    }
    if (strcmp(word, "pids_in") == 0) {
        fake_device *d = device_arg(a);
        char *dir = strtok_r(NULL, " \t\r\n", &save), *size = strtok_r(NULL, " \t\r\n", &save);
        if (!d || !dir || !size || strlen(dir) >= sizeof d->pids_dir)
            return -1;
        snprintf(d->pids_dir, sizeof d->pids_dir, "%s", dir);
        return parse_size(size, &d->pids_bytes);
    }
    if (strcmp(word, "pid") == 0) {
        if (!a)
            return -1;
        if (strcmp(a, "outer") == 0)
            own_pid = outer_pid();
        else if (strcmp(a, "getpid") != 0)
            own_pid = (unsigned int)strtoul(a, NULL, 10);
        return 0;
    }
    if (strcmp(word, "init_fail") == 0 && a)
        return init_fail = atoi(a), 0;
    if (strcmp(word, "count_fail") == 0 && a)
        return count_fail = atoi(a), 0;
    if (strcmp(word, "graphics_fail") == 0 && a)
        return graphics_fail = atoi(a), 0;
    if (strcmp(word, "handle_fail") == 0 || strcmp(word, "compute_fail") == 0) {
        fake_device *d = device_arg(a);
        char *code = strtok_r(NULL, " \t\r\n", &save);
        if (!d || !code)
            return -1;
        *(word[0] == 'h' ? &d->handle_fail : &d->compute_fail) = atoi(code);
        return 0;
    }
    if (strcmp(word, "memory_fail") == 0)
        return memory_fail = 1, 0;
    if (strcmp(word, "insufficient_first") == 0) {
        for (size_t i = 0; i < FAKE_MAX_DEVICES; i++)
            devices[i].insufficient_pending = 1;
        return 0;
    }
    if (strcmp(word, "insufficient_always") == 0) {
        insufficient_always = 1;
        insufficient_count = a ? (unsigned int)strtoul(a, NULL, 10) : 0;
        return 0;
    }
    return -1;
}

static int load_script(void)
{
    reset_state();
    const char *path = getenv("SPACRBENCH_FAKE_NVML_SCRIPT");
    if (!path || !*path) {
        snprintf(devices[0].name, sizeof devices[0].name, "Fake GPU");
        devices[0].total = devices[0].free = 16ULL << 30;
        n_devices = 1;
        return 0;
    }
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[1024];
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f))
        rc = parse_line(line);
    fclose(f);
    for (size_t i = n_devices; i < FAKE_MAX_DEVICES; i++)
        devices[i].insufficient_pending = 0;
    return rc;
}

/* The live processes named by the files of a pids_in directory, read at
 * each query (the tests' processes write their own PID there as they
 * start; a real driver lists a process only while it lives). */
static size_t listed_pids(const fake_device *d, unsigned int *pids, size_t cap)
{
    if (!d->pids_dir[0])
        return 0;
    DIR *dir = opendir(d->pids_dir);
    if (!dir)
        return 0;
    size_t n = 0;
    for (struct dirent *e; n < cap && (e = readdir(dir)) != NULL;) {
        char *end = NULL;
        unsigned long pid = strtoul(e->d_name, &end, 10);
        if (end == e->d_name || *end || pid == 0)
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno == EPERM)
            pids[n++] = (unsigned int)pid;
    }
    closedir(dir);
    return n;
}

/* ---- NVML ------------------------------------------------------------ */

FAKE_EXPORT sb_nvml_return nvmlInit_v2(void);
FAKE_EXPORT sb_nvml_return nvmlShutdown(void);
FAKE_EXPORT const char *nvmlErrorString(sb_nvml_return result);
FAKE_EXPORT sb_nvml_return nvmlDeviceGetCount_v2(unsigned int *count);
FAKE_EXPORT sb_nvml_return nvmlDeviceGetHandleByIndex_v2(unsigned int index,
                                                         sb_nvml_device *device);
FAKE_EXPORT sb_nvml_return nvmlDeviceGetName(sb_nvml_device device, char *name,
                                             unsigned int length);
#ifndef FAKE_NVML_NO_MEMORY_INFO
FAKE_EXPORT sb_nvml_return nvmlDeviceGetMemoryInfo(sb_nvml_device device, sb_nvml_memory *memory);
#endif
FAKE_EXPORT sb_nvml_return nvmlDeviceGetComputeRunningProcesses(sb_nvml_device d, unsigned int *n,
                                                                void *infos);
FAKE_EXPORT sb_nvml_return nvmlDeviceGetGraphicsRunningProcesses(sb_nvml_device d, unsigned int *n,
                                                                 void *infos);
#ifndef FAKE_NVML_V1_ONLY
FAKE_EXPORT sb_nvml_return nvmlDeviceGetComputeRunningProcesses_v2(sb_nvml_device d,
                                                                   unsigned int *n, void *infos);
FAKE_EXPORT sb_nvml_return nvmlDeviceGetGraphicsRunningProcesses_v2(sb_nvml_device d,
                                                                    unsigned int *n, void *infos);
#ifndef FAKE_NVML_NO_V3
FAKE_EXPORT sb_nvml_return nvmlDeviceGetComputeRunningProcesses_v3(sb_nvml_device d,
                                                                   unsigned int *n, void *infos);
FAKE_EXPORT sb_nvml_return nvmlDeviceGetGraphicsRunningProcesses_v3(sb_nvml_device d,
                                                                    unsigned int *n, void *infos);
#endif
#endif
FAKE_EXPORT void fake_nvml_set_used(unsigned int device, unsigned long long bytes);
FAKE_EXPORT unsigned long fake_nvml_queries(unsigned int device);
FAKE_EXPORT void fake_nvml_fail(unsigned int device, int code);
FAKE_EXPORT int fake_nvml_live_inits(void);
FAKE_EXPORT int fake_nvml_last_version(void);

sb_nvml_return nvmlInit_v2(void)
{
    sb_nvml_return rc = SB_NVML_SUCCESS;
    pthread_mutex_lock(&lock);
    if (live_inits == 0 && load_script() != 0)
        rc = SB_NVML_ERROR_UNKNOWN; /* unreadable or mistyped script */
    else if (init_fail)
        rc = init_fail;
    if (rc == SB_NVML_SUCCESS)
        live_inits++;
    pthread_mutex_unlock(&lock);
    return rc;
}

sb_nvml_return nvmlShutdown(void)
{
    pthread_mutex_lock(&lock);
    sb_nvml_return rc = live_inits > 0 ? SB_NVML_SUCCESS : 1 /* UNINITIALIZED */;
    if (live_inits > 0)
        live_inits--;
    pthread_mutex_unlock(&lock);
    return rc;
}

const char *nvmlErrorString(sb_nvml_return result)
{
    switch (result) {
    case SB_NVML_SUCCESS:
        return "Success";
    case SB_NVML_ERROR_NOT_SUPPORTED:
        return "Not Supported";
    case SB_NVML_ERROR_NO_PERMISSION:
        return "Insufficient Permissions";
    case SB_NVML_ERROR_INSUFFICIENT_SIZE:
        return "Insufficient Size";
    case SB_NVML_ERROR_DRIVER_NOT_LOADED:
        return "Driver Not Loaded";
    case SB_NVML_ERROR_GPU_IS_LOST:
        return "GPU is lost";
    default:
        return "Unknown Error";
    }
}

/* Caller holds the lock. */
static fake_device *from_handle(sb_nvml_device handle)
{
    for (size_t i = 0; i < n_devices; i++)
        if ((void *)handle == (void *)&devices[i])
            return &devices[i];
    return NULL;
}

sb_nvml_return nvmlDeviceGetCount_v2(unsigned int *count)
{
    if (!count)
        return 2; /* INVALID_ARGUMENT */
    pthread_mutex_lock(&lock);
    sb_nvml_return rc = live_inits ? count_fail : 1;
    if (rc == SB_NVML_SUCCESS)
        *count = (unsigned int)n_devices;
    pthread_mutex_unlock(&lock);
    return rc;
}

sb_nvml_return nvmlDeviceGetHandleByIndex_v2(unsigned int index, sb_nvml_device *device)
{
    if (!device)
        return 2;
    pthread_mutex_lock(&lock);
    sb_nvml_return rc = !live_inits ? 1 : index >= n_devices ? 2 : devices[index].handle_fail;
    if (rc == SB_NVML_SUCCESS)
        *device = (sb_nvml_device)(void *)&devices[index];
    pthread_mutex_unlock(&lock);
    return rc;
}

sb_nvml_return nvmlDeviceGetName(sb_nvml_device device, char *name, unsigned int length)
{
    pthread_mutex_lock(&lock);
    fake_device *d = from_handle(device);
    sb_nvml_return rc = !d || !name                 ? 2
                        : strlen(d->name) >= length ? SB_NVML_ERROR_INSUFFICIENT_SIZE
                                                    : 0;
    if (rc == SB_NVML_SUCCESS)
        memcpy(name, d->name, strlen(d->name) + 1);
    pthread_mutex_unlock(&lock);
    return rc;
}

#ifndef FAKE_NVML_NO_MEMORY_INFO
sb_nvml_return nvmlDeviceGetMemoryInfo(sb_nvml_device device, sb_nvml_memory *memory)
{
    pthread_mutex_lock(&lock);
    fake_device *d = from_handle(device);
    sb_nvml_return rc = !d || !memory ? 2 : memory_fail ? SB_NVML_ERROR_GPU_IS_LOST : 0;
    if (rc == SB_NVML_SUCCESS) {
        memory->total = d->total;
        memory->free = d->free;
        memory->used = d->total - d->free;
    }
    pthread_mutex_unlock(&lock);
    return rc;
}
#endif

static void put_entry(void *infos, unsigned int i, int version, unsigned int pid,
                      unsigned long long bytes)
{
    if (version == 1) {
        sb_nvml_process_v1 e = {pid, bytes};
        memcpy((char *)infos + (size_t)i * sizeof e, &e, sizeof e);
    } else {
#ifdef FAKE_NVML_V3_CC
        if (version == 3) {
            /* The R535.43-535.86 layout: a protected-memory figure added. */
            sb_nvml_process_v3_cc e = {pid, bytes, 0xFFFFFFFFu, 0xFFFFFFFFu, 0};
            memcpy((char *)infos + (size_t)i * sizeof e, &e, sizeof e);
            return;
        }
#endif
        /* MIG instance ids are "invalid" (0xFFFFFFFF) outside MIG mode. */
        sb_nvml_process_v2 e = {pid, bytes, 0xFFFFFFFFu, 0xFFFFFFFFu};
        memcpy((char *)infos + (size_t)i * sizeof e, &e, sizeof e);
    }
}

static sb_nvml_return list_processes(sb_nvml_device device, unsigned int *count, void *infos,
                                     int version, int graphics)
{
    pthread_mutex_lock(&lock);
    sb_nvml_return rc = SB_NVML_SUCCESS;
    fake_device *d = from_handle(device);
    if (!graphics)
        last_version = version;
    if (d && infos && !graphics)
        d->queries++;
    if (!live_inits)
        rc = 1;
    else if (!d || !count)
        rc = 2;
    else if (graphics && graphics_fail)
        rc = graphics_fail;
    else if (!graphics && d->compute_fail)
        rc = d->compute_fail;
    if (rc != SB_NVML_SUCCESS)
        goto out;

    /* What this process shows now. */
    int own_listed = 0;
    unsigned long long own_bytes = 0;
    if (graphics) {
        own_listed = d->graphics_bytes > 0;
        own_bytes = d->graphics_bytes;
    } else if (d->n_steps) {
        const fake_step *st = &d->steps[d->at];
        if (st->kind == STEP_FAIL && infos) {
            if (d->at + 1 < d->n_steps)
                d->at++;
            rc = SB_NVML_ERROR_GPU_IS_LOST;
            goto out;
        }
        own_listed = st->kind == STEP_NA || st->bytes > 0;
        own_bytes = st->kind == STEP_NA ? SB_NVML_VALUE_NOT_AVAILABLE : st->bytes;
    }
    size_t n_others = graphics ? 0 : d->n_others;
    unsigned int listed[FAKE_MAX_LISTED];
    size_t n_listed = graphics ? 0 : listed_pids(d, listed, FAKE_MAX_LISTED);
    unsigned int needed = (unsigned int)(n_others + n_listed + (own_listed ? 1 : 0));

    if (infos && !graphics && (insufficient_always || d->insufficient_pending)) {
        d->insufficient_pending = 0;
        *count = !insufficient_always ? needed + 1
                 : insufficient_count ? insufficient_count
                                      : *count + 1;
        rc = SB_NVML_ERROR_INSUFFICIENT_SIZE;
        goto out;
    }
    if (*count < needed) {
        *count = needed;
        rc = SB_NVML_ERROR_INSUFFICIENT_SIZE;
        goto out;
    }
    if (!infos) {
        rc = needed ? 2 : SB_NVML_SUCCESS;
        *count = 0;
        goto out;
    }
    unsigned int i = 0;
    /* Others first and ours last, so a reader that stops early is caught. */
    for (size_t k = 0; k < n_others; k++)
        put_entry(infos, i++, version, d->others[k].pid, d->others[k].bytes);
    for (size_t k = 0; k < n_listed; k++)
        put_entry(infos, i++, version, listed[k], d->pids_bytes);
    if (own_listed)
        put_entry(infos, i++, version, own_pid, own_bytes);
    *count = i;
    if (!graphics && d->at + 1 < d->n_steps)
        d->at++;
out:
    pthread_mutex_unlock(&lock);
    return rc;
}

sb_nvml_return nvmlDeviceGetComputeRunningProcesses(sb_nvml_device d, unsigned int *n, void *infos)
{
    return list_processes(d, n, infos, 1, 0);
}
sb_nvml_return nvmlDeviceGetGraphicsRunningProcesses(sb_nvml_device d, unsigned int *n, void *infos)
{
    return list_processes(d, n, infos, 1, 1);
}
#ifndef FAKE_NVML_V1_ONLY
sb_nvml_return nvmlDeviceGetComputeRunningProcesses_v2(sb_nvml_device d, unsigned int *n,
                                                       void *infos)
{
    return list_processes(d, n, infos, 2, 0);
}
sb_nvml_return nvmlDeviceGetGraphicsRunningProcesses_v2(sb_nvml_device d, unsigned int *n,
                                                        void *infos)
{
    return list_processes(d, n, infos, 2, 1);
}
#ifndef FAKE_NVML_NO_V3
sb_nvml_return nvmlDeviceGetComputeRunningProcesses_v3(sb_nvml_device d, unsigned int *n,
                                                       void *infos)
{
    return list_processes(d, n, infos, 3, 0);
}
sb_nvml_return nvmlDeviceGetGraphicsRunningProcesses_v3(sb_nvml_device d, unsigned int *n,
                                                        void *infos)
{
    return list_processes(d, n, infos, 3, 1);
}
#endif
#endif

#ifdef FAKE_NVML_V3_CC
/* Its presence (without nvmlDeviceGetRunningProcessDetailList) is how the
 * R535 drivers with the 32-byte _v3 entries are recognised. */
FAKE_EXPORT sb_nvml_return nvmlDeviceGetConfComputeMemSizeInfo(sb_nvml_device d, void *info);
sb_nvml_return nvmlDeviceGetConfComputeMemSizeInfo(sb_nvml_device d, void *info)
{
    (void)d;
    (void)info;
    return SB_NVML_ERROR_NOT_SUPPORTED;
}
#endif

/* ---- test controls --------------------------------------------------- */

void fake_nvml_set_used(unsigned int device, unsigned long long bytes)
{
    pthread_mutex_lock(&lock);
    if (device < n_devices) {
        fake_device *d = &devices[device];
        d->steps[0].kind = STEP_BYTES;
        d->steps[0].bytes = bytes;
        d->n_steps = 1;
        d->at = 0;
    }
    pthread_mutex_unlock(&lock);
}

unsigned long fake_nvml_queries(unsigned int device)
{
    pthread_mutex_lock(&lock);
    unsigned long q = device < n_devices ? devices[device].queries : 0;
    pthread_mutex_unlock(&lock);
    return q;
}

void fake_nvml_fail(unsigned int device, int code)
{
    pthread_mutex_lock(&lock);
    if (device < n_devices)
        devices[device].compute_fail = code;
    pthread_mutex_unlock(&lock);
}

int fake_nvml_live_inits(void)
{
    pthread_mutex_lock(&lock);
    int n = live_inits;
    pthread_mutex_unlock(&lock);
    return n;
}

int fake_nvml_last_version(void)
{
    pthread_mutex_lock(&lock);
    int v = last_version;
    pthread_mutex_unlock(&lock);
    return v;
}
