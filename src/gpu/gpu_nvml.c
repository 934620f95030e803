/* Peak GPU memory of this process through NVML, without side effects.
 *
 * NVML is loaded at run time (no link-time dependency) and only
 * queried: nothing here creates a CUDA context, which would itself occupy
 * hundreds of MB of VRAM and be reported as the work's. The per-process
 * lists (nvmlDeviceGet{Compute,Graphics}RunningProcesses) give this
 * process's instantaneous usedGpuMemory per device, context included; the
 * runner's sampler calls sb_gpu_sample periodically to find the peak. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "nvml_types.h"
#include "util.h"

/* The driver installs nvml.dll in System32 on Windows; macOS has none. */
#if defined(_WIN32)
#define SB_NVML_DEFAULT_LIBRARY "nvml.dll"
#elif defined(__APPLE__)
#define SB_NVML_DEFAULT_LIBRARY "libnvidia-ml.dylib"
#else
#define SB_NVML_DEFAULT_LIBRARY "libnvidia-ml.so.1"
#endif
#define SB_GPU_MAX_PIDS       32
#define SB_GPU_FIRST_CAPACITY 64u
#define SB_GPU_GROW_TRIES     4
/* Far above any real process count per device; a larger count from NVML
 * is treated as a fault rather than a reason to allocate gigabytes. */
#define SB_GPU_MAX_ENTRIES 65536u

/* NVML PIDs that are no process here. The driver reports PIDs as the
 * initial PID namespace sees them; where this process cannot see that
 * namespace and the usual signs of a container are absent (a sandbox such
 * as gVisor, whose own kernel shows no nested namespace), this process's
 * entries come under PIDs it cannot recognise, and a sum over its own PIDs
 * would be a false 0. The tracker notices such a sandbox: a PID that NVML
 * lists in two samples running (so not a process that just exited) and
 * that names no process here, while no PID being measured was ever listed
 * (once one is, NVML's PIDs are proven to be ours, and checking stops). */
#define SB_FOREIGN_MAX 8 /* unseen PIDs kept per sample: plenty to confirm one */

typedef struct sb_foreign_pids {
    int proven;             /* a measured PID was listed: NVML's PIDs are ours */
    unsigned int confirmed; /* listed twice running, no process here; 0: none */
    unsigned int prev[SB_FOREIGN_MAX], cur[SB_FOREIGN_MAX];
    size_t n_prev, n_cur;
} sb_foreign_pids;

/* Entries still need checking (neither proven nor confirmed). */
static int foreign_watching(const sb_foreign_pids *f) { return !f->proven && f->confirmed == 0; }

static void foreign_other_listed(sb_foreign_pids *f, unsigned int pid)
{
    /* PID 0 is no process anywhere (some setups list it): no evidence. */
    if (!foreign_watching(f) || pid == 0 || f->n_cur == SB_FOREIGN_MAX)
        return;
    if (!sb_gpu_pid_exists_here(pid))
        f->cur[f->n_cur++] = pid;
}

/* A complete sample ended: a PID unseen here in this sample and the last
 * one is confirmed. A failed sample does not call this (nor move on). */
static void foreign_sample_ends(sb_foreign_pids *f)
{
    if (!foreign_watching(f))
        return;
    for (size_t i = 0; i < f->n_cur && !f->confirmed; i++)
        for (size_t j = 0; j < f->n_prev; j++)
            if (f->cur[i] == f->prev[j]) {
                f->confirmed = f->cur[i];
                break;
            }
    for (size_t i = 0; i < f->n_cur; i++)
        f->prev[i] = f->cur[i];
    f->n_prev = f->n_cur;
}

/* One process list: compute (CUDA) or graphics (OpenGL/Vulkan) contexts. */
typedef struct sb_process_query {
    sb_nvml_processes_fn fn; /* NULL when NVML has none */
    int version;             /* 3, 2 or 1 */
    size_t stride;           /* bytes per entry this query writes */
} sb_process_query;

typedef struct sb_gpu_device {
    sb_nvml_device handle;
    unsigned int nvml_index;
    char name[SB_NVML_NAME_BUFFER_SIZE];
    int64_t total_bytes; /* -1 if NVML could not tell */
    int64_t peak_bytes;
    int64_t sample_bytes; /* this process's use in the sample being taken */
} sb_gpu_device;

struct sb_gpu {
    void *lib;
    int initialized;
    sb_nvml_shutdown_fn shutdown;
    sb_nvml_error_string_fn error_string;
    sb_nvml_memory_fn memory_info;
    sb_process_query compute;
    sb_process_query graphics;

    sb_gpu_device *devices;
    size_t n_devices;

    unsigned int pids[SB_GPU_MAX_PIDS];
    size_t n_pids;
    /* The PIDs whose entries the sample being taken adds up. */
    const unsigned int *match;
    size_t n_match;

    /* Reused process-list buffer, sized in the largest entry layout any
     * driver writes, so a layout mistake can misread but never overflow. */
    sb_nvml_process_v3_cc *entries;
    unsigned int capacity;

    int64_t failed_samples;
    char last_error[256];
    sb_foreign_pids foreign; /* NVML's PIDs, proven ours or shown not to be */
};

static const char *nvml_text(const sb_gpu *gpu, sb_nvml_return rc, char *buf, size_t cap)
{
    const char *s = gpu->error_string ? gpu->error_string(rc) : NULL;
    if (s && *s)
        snprintf(buf, cap, "%s (NVML error %d)", s, rc);
    else
        snprintf(buf, cap, "NVML error %d", rc);
    return buf;
}

/* Bytes per entry of a query version; _v3 depends on the driver release. */
static size_t entry_stride(void *lib, int version)
{
    if (version == 1)
        return sizeof(sb_nvml_process_v1);
    if (version == 3 && sb_dl_symbol(lib, "nvmlDeviceGetConfComputeMemSizeInfo") &&
        !sb_dl_symbol(lib, "nvmlDeviceGetRunningProcessDetailList"))
        return sizeof(sb_nvml_process_v3_cc);
    return sizeof(sb_nvml_process_v2);
}

/* The newest per-process query this NVML has: _v3, then _v2, then v1. */
static sb_process_query find_process_query(void *lib, const char *base)
{
    static const char *const suffixes[] = {"_v3", "_v2", ""};
    static const int versions[] = {3, 2, 1};
    sb_process_query q = {NULL, 0, 0};
    for (size_t i = 0; i < 3; i++) {
        char name[96];
        snprintf(name, sizeof name, "%s%s", base, suffixes[i]);
        void *fn = sb_dl_symbol(lib, name);
        if (fn) {
            /* POSIX guarantees object and function pointers convert. */
            memcpy(&q.fn, &fn, sizeof q.fn);
            q.version = versions[i];
            q.stride = entry_stride(lib, q.version);
            return q;
        }
    }
    return q;
}

/* Resolve a required symbol inside load_symbols (uses its why; returns
 * -1 from it when the symbol is missing). */
#define SB_LOAD(gpu, var, name)                                                                    \
    do {                                                                                           \
        void *sym_ = sb_dl_symbol((gpu)->lib, name);                                               \
        if (!sym_) {                                                                               \
            snprintf(why, why_cap, "NVML lacks %s: driver too old?", name);                        \
            return -1;                                                                             \
        }                                                                                          \
        memcpy(&(var), &sym_, sizeof(var));                                                        \
    } while (0)

static int grow_entries(sb_gpu *gpu, unsigned int wanted)
{
    if (wanted <= gpu->capacity)
        return 0;
    sb_nvml_process_v3_cc *p = realloc(gpu->entries, (size_t)wanted * sizeof *p);
    if (!p)
        return -1;
    gpu->entries = p;
    gpu->capacity = wanted;
    return 0;
}

/* Whether an NVML entry belongs to the sample being taken: this process
 * (NVML lists processes by the PID of the outermost namespace it sees, and
 * sb_gpu_open only measures where that PID is visible here: NSpid's first
 * entry; inner-namespace PIDs could equal some other host process's), or
 * one of the set given to sb_gpu_sample_pids. A linear scan: a process
 * tree holds a few PIDs, a device lists a few processes. */
static int is_matched_pid(const sb_gpu *gpu, unsigned int pid)
{
    for (size_t i = 0; i < gpu->n_match; i++)
        if (gpu->match[i] == pid)
            return 1;
    return 0;
}

/* This process's memory on one device from one list. Returns 0 and *bytes
 * (0 when not listed), or -1 with gpu->last_error set. Entries of this
 * process are summed: under MIG one process can hold contexts in several
 * instances of the same device, each listed once. */
static int query_list(sb_gpu *gpu, const sb_gpu_device *dev, const sb_process_query *q,
                      const char *what, int64_t *bytes)
{
    char text[160];
    unsigned int count = 0;
    sb_nvml_return rc = SB_NVML_ERROR_INSUFFICIENT_SIZE;
    for (int tries = 0; tries < SB_GPU_GROW_TRIES; tries++) {
        count = gpu->capacity;
        rc = q->fn(dev->handle, &count, gpu->entries);
        if (rc != SB_NVML_ERROR_INSUFFICIENT_SIZE)
            break;
        /* The list grew since NVML told us its size: leave some room. */
        unsigned int wanted = count > gpu->capacity ? count : gpu->capacity;
        wanted = wanted < SB_GPU_MAX_ENTRIES / 2 ? wanted * 2 : SB_GPU_MAX_ENTRIES;
        if (wanted <= gpu->capacity)
            break; /* at the cap: report the INSUFFICIENT_SIZE below */
        if (grow_entries(gpu, wanted) != 0) {
            snprintf(gpu->last_error, sizeof gpu->last_error,
                     "out of memory for %u NVML process entries", wanted);
            return -1;
        }
    }
    if (rc != SB_NVML_SUCCESS) {
        snprintf(gpu->last_error, sizeof gpu->last_error, "%s processes of GPU %u: %s", what,
                 dev->nvml_index, nvml_text(gpu, rc, text, sizeof text));
        return -1;
    }
    if (count > gpu->capacity)
        count = gpu->capacity; /* never trust a count beyond our buffer */

    int64_t sum = 0;
    const unsigned char *base = (const unsigned char *)gpu->entries;
    size_t stride = q->stride;
    for (unsigned int i = 0; i < count; i++) {
        /* Every layout starts with the same two fields. */
        sb_nvml_process_v1 e;
        memcpy(&e, base + (size_t)i * stride, sizeof e);
        if (!is_matched_pid(gpu, e.pid)) {
            foreign_other_listed(&gpu->foreign, e.pid);
            continue;
        }
        gpu->foreign.proven = 1; /* a measured PID: NVML's PIDs are ours */
        if (e.usedGpuMemory == SB_NVML_VALUE_NOT_AVAILABLE || e.usedGpuMemory > INT64_MAX / 2) {
            snprintf(gpu->last_error, sizeof gpu->last_error,
                     "NVML does not report this process's memory on GPU %u "
                     "(NVML_VALUE_NOT_AVAILABLE)",
                     dev->nvml_index);
            return -1;
        }
        /* Saturate: absurd figures from a driver must not wrap around. */
        int64_t used = (int64_t)e.usedGpuMemory;
        sum = sum > INT64_MAX - used ? INT64_MAX : sum + used;
    }
    *bytes = sum;
    return 0;
}

/* This process's memory on one device: the larger of its compute and
 * graphics entries (a process with both kinds of context is listed in
 * both with the same figure, so they are not added). */
static int device_usage(sb_gpu *gpu, const sb_gpu_device *dev, int64_t *bytes)
{
    int64_t compute = 0, graphics = 0;
    if (query_list(gpu, dev, &gpu->compute, "compute", &compute) != 0)
        return -1;
    if (gpu->graphics.fn) {
        char saved[sizeof gpu->last_error];
        memcpy(saved, gpu->last_error, sizeof saved);
        if (query_list(gpu, dev, &gpu->graphics, "graphics", &graphics) != 0) {
            /* Graphics lists are optional (not supported on many compute
             * GPUs): a failure there leaves the compute figure standing. */
            memcpy(gpu->last_error, saved, sizeof saved);
            graphics = 0;
        }
    }
    *bytes = compute > graphics ? compute : graphics;
    return 0;
}

static int64_t sample_matched(sb_gpu *gpu)
{
    int64_t total = 0;
    gpu->foreign.n_cur = 0;
    for (size_t i = 0; i < gpu->n_devices; i++) {
        sb_gpu_device *dev = &gpu->devices[i];
        if (device_usage(gpu, dev, &dev->sample_bytes) != 0) {
            gpu->failed_samples++;
            return -1; /* a partial sum would understate the peak */
        }
        total = total > INT64_MAX - dev->sample_bytes ? INT64_MAX : total + dev->sample_bytes;
    }
    foreign_sample_ends(&gpu->foreign);
    /* Only a complete sample updates the per-device peaks, so they agree
     * with the peak of the sum that the runner keeps. */
    for (size_t i = 0; i < gpu->n_devices; i++) {
        sb_gpu_device *dev = &gpu->devices[i];
        if (dev->sample_bytes > dev->peak_bytes)
            dev->peak_bytes = dev->sample_bytes;
    }
    return total;
}

int64_t sb_gpu_sample(sb_gpu *gpu)
{
    if (!gpu)
        return -1;
    gpu->match = gpu->pids;
    gpu->n_match = gpu->n_pids > 0 ? 1 : 0;
    return sample_matched(gpu);
}

int64_t sb_gpu_sample_pids(sb_gpu *gpu, const unsigned int *pids, size_t n)
{
    if (!gpu || (!pids && n > 0))
        return -1;
    gpu->match = pids;
    gpu->n_match = n;
    int64_t total = sample_matched(gpu);
    gpu->match = NULL; /* the caller's array is not ours to keep */
    gpu->n_match = 0;
    return total;
}

int sb_gpu_pids_unverified(const sb_gpu *gpu, char *why, size_t why_cap)
{
    if (!gpu || gpu->foreign.proven || gpu->foreign.confirmed == 0)
        return 0;
    if (why && why_cap > 0)
        snprintf(why, why_cap,
                 "NVML lists PID %u, which is no process here: the driver's PIDs are those of "
                 "a PID namespace this process cannot see (a sandbox such as gVisor), so its "
                 "own entries cannot be found",
                 gpu->foreign.confirmed);
    return 1;
}

int sb_gpu_pids_are_host(const sb_gpu *gpu) { return gpu && gpu->n_pids == 1; }

size_t sb_gpu_count(const sb_gpu *gpu) { return gpu ? gpu->n_devices : 0; }

int sb_gpu_fill_info(sb_gpu *gpu, size_t i, spacrbench_gpu_info *out)
{
    if (!gpu || !out || i >= gpu->n_devices)
        return -1;
    const sb_gpu_device *dev = &gpu->devices[i];
    memset(out, 0, sizeof *out);
    out->size = sizeof *out;
    out->index = dev->nvml_index;
    snprintf(out->name, sizeof out->name, "%s", dev->name);
    out->total_bytes = dev->total_bytes;
    out->free_bytes = -1;
    sb_nvml_memory mem;
    if (gpu->memory_info(dev->handle, &mem) == SB_NVML_SUCCESS && mem.free <= INT64_MAX) {
        out->free_bytes = (int64_t)mem.free;
        if (mem.total <= INT64_MAX)
            out->total_bytes = (int64_t)mem.total;
    }
    out->process_peak_bytes = dev->peak_bytes;
    return 0;
}

const char *sb_gpu_last_error(const sb_gpu *gpu) { return gpu ? gpu->last_error : ""; }
int64_t sb_gpu_failed_samples(const sb_gpu *gpu) { return gpu ? gpu->failed_samples : 0; }
int sb_gpu_process_api_version(const sb_gpu *gpu) { return gpu ? gpu->compute.version : 0; }

size_t sb_gpu_process_entry_size(const sb_gpu *gpu) { return gpu ? gpu->compute.stride : 0; }

void sb_gpu_close(sb_gpu *gpu)
{
    if (!gpu)
        return;
    if (gpu->initialized && gpu->shutdown)
        gpu->shutdown(); /* NVML counts inits: other users keep theirs */
    if (gpu->lib)
        sb_dl_close(gpu->lib);
    free(gpu->devices);
    free(gpu->entries);
    free(gpu);
}

/* Ask a device's compute list for its size only (documented: *count = 0,
 * infos may be NULL): tells whether per-process figures exist at all,
 * before the run rather than as failed samples during it. */
static int probe_device(sb_gpu *gpu, const sb_gpu_device *dev, char *why, size_t why_cap)
{
    char text[160];
    unsigned int count = 0;
    sb_nvml_return rc = gpu->compute.fn(dev->handle, &count, NULL);
    if (rc == SB_NVML_SUCCESS || rc == SB_NVML_ERROR_INSUFFICIENT_SIZE)
        return 0;
    snprintf(why, why_cap, "per-process GPU memory unavailable on GPU %u (%s): %s", dev->nvml_index,
             dev->name, nvml_text(gpu, rc, text, sizeof text));
    return -1;
}

static int open_devices(sb_gpu *gpu, sb_nvml_count_fn get_count, sb_nvml_handle_fn get_handle,
                        sb_nvml_name_fn get_name, char *why, size_t why_cap)
{
    char text[160];
    unsigned int n = 0;
    sb_nvml_return rc = get_count(&n);
    if (rc != SB_NVML_SUCCESS) {
        snprintf(why, why_cap, "NVML device count failed: %s",
                 nvml_text(gpu, rc, text, sizeof text));
        return -1;
    }
    if (n == 0) {
        snprintf(why, why_cap, "no GPU devices");
        return -1;
    }
    if (n > 4096) {
        snprintf(why, why_cap, "NVML reports an implausible %u GPU devices", n);
        return -1;
    }
    gpu->devices = calloc(n, sizeof *gpu->devices);
    if (!gpu->devices) {
        snprintf(why, why_cap, "out of memory");
        return -1;
    }
    sb_nvml_return first_skip = SB_NVML_SUCCESS;
    for (unsigned int i = 0; i < n; i++) {
        sb_gpu_device *dev = &gpu->devices[gpu->n_devices];
        rc = get_handle(i, &dev->handle);
        if (rc != SB_NVML_SUCCESS) {
            /* A device this process may not open (no permission, not in
             * its cgroup) is one it cannot use either: skip it. */
            if (first_skip == SB_NVML_SUCCESS)
                first_skip = rc;
            continue;
        }
        dev->nvml_index = i;
        if (!get_name || get_name(dev->handle, dev->name, sizeof dev->name) != SB_NVML_SUCCESS)
            snprintf(dev->name, sizeof dev->name, "GPU %u", i);
        dev->name[sizeof dev->name - 1] = '\0';
        sb_nvml_memory mem;
        dev->total_bytes = -1;
        if (gpu->memory_info(dev->handle, &mem) == SB_NVML_SUCCESS && mem.total <= INT64_MAX)
            dev->total_bytes = (int64_t)mem.total;
        if (probe_device(gpu, dev, why, why_cap) != 0)
            return -1;
        gpu->n_devices++;
    }
    if (gpu->n_devices == 0) {
        snprintf(why, why_cap, "no usable GPU devices: %u found, none could be opened (%s)", n,
                 nvml_text(gpu, first_skip, text, sizeof text));
        return -1;
    }
    return 0;
}

/* NVML's entry points that only sb_gpu_open uses; the ones every sample
 * uses live in sb_gpu. */
typedef struct nvml_entry {
    sb_nvml_init_fn init;
    sb_nvml_count_fn get_count;
    sb_nvml_handle_fn get_handle;
    sb_nvml_name_fn get_name; /* NULL: a device is named "GPU <index>" */
} nvml_entry;

/* The library SPACRBENCH_NVML_LIBRARY names, else the driver's own. */
static int load_library(sb_gpu *gpu, char *why, size_t why_cap)
{
    /* secure_getenv: a setuid or file-capability program linking us must
     * not load a library named by an unprivileged caller's environment. */
    const char *path = sb_secure_getenv("SPACRBENCH_NVML_LIBRARY");
    if (!path || !*path)
        path = SB_NVML_DEFAULT_LIBRARY;
    char err[256];
    gpu->lib = sb_dl_open(path, err, sizeof err);
    if (gpu->lib)
        return 0;
    if (strcmp(path, SB_NVML_DEFAULT_LIBRARY) == 0)
        snprintf(why, why_cap, "no NVIDIA driver: %s not found", path);
    else
        snprintf(why, why_cap, "cannot load NVML from SPACRBENCH_NVML_LIBRARY=%s: %s", path, err);
    return -1;
}

/* Every symbol the queries need (an old driver lacks some); the error
 * strings and device names are optional. */
static int load_symbols(sb_gpu *gpu, nvml_entry *e, char *why, size_t why_cap)
{
    SB_LOAD(gpu, e->init, "nvmlInit_v2");
    SB_LOAD(gpu, gpu->shutdown, "nvmlShutdown");
    SB_LOAD(gpu, e->get_count, "nvmlDeviceGetCount_v2");
    SB_LOAD(gpu, e->get_handle, "nvmlDeviceGetHandleByIndex_v2");
    SB_LOAD(gpu, gpu->memory_info, "nvmlDeviceGetMemoryInfo");
    void *sym = sb_dl_symbol(gpu->lib, "nvmlErrorString");
    memcpy(&gpu->error_string, &sym, sizeof gpu->error_string);
    sym = sb_dl_symbol(gpu->lib, "nvmlDeviceGetName");
    memcpy(&e->get_name, &sym, sizeof e->get_name);
    gpu->compute = find_process_query(gpu->lib, "nvmlDeviceGetComputeRunningProcesses");
    gpu->graphics = find_process_query(gpu->lib, "nvmlDeviceGetGraphicsRunningProcesses");
    if (!gpu->compute.fn) {
        snprintf(why, why_cap, "NVML lacks nvmlDeviceGetComputeRunningProcesses: driver too old?");
        return -1;
    }
    return 0;
}

/* Init NVML (sb_gpu_close shuts it down again), then the devices, the
 * process-list buffer and the PIDs this process has in NVML's lists. */
static int start_nvml(sb_gpu *gpu, const nvml_entry *e, char *why, size_t why_cap)
{
    sb_nvml_return rc = e->init();
    if (rc != SB_NVML_SUCCESS) {
        char text[160];
        snprintf(why, why_cap, "NVML init failed: %s", nvml_text(gpu, rc, text, sizeof text));
        return -1;
    }
    gpu->initialized = 1;
    if (open_devices(gpu, e->get_count, e->get_handle, e->get_name, why, why_cap) != 0)
        return -1;
    if (grow_entries(gpu, SB_GPU_FIRST_CAPACITY) != 0) {
        snprintf(why, why_cap, "out of memory");
        return -1;
    }
    gpu->n_pids = sb_gpu_own_pids(gpu->pids, SB_GPU_MAX_PIDS);
    if (!sb_gpu_host_pid_visible_here(gpu->n_pids)) {
        /* NVML would list this process under a host PID it cannot see:
         * its entries could not be told from other containers', and
         * reporting 0 would be a false "used none". */
        snprintf(why, why_cap,
                 "container PID namespace hides the host PIDs NVML reports "
                 "(run with --pid=host to measure VRAM)");
        return -1;
    }
    return 0;
}

sb_gpu *sb_gpu_open(char *why, size_t why_cap)
{
    char scratch[8];
    if (!why || why_cap == 0) {
        why = scratch;
        why_cap = sizeof scratch;
    }
    why[0] = '\0';
    sb_gpu *gpu = calloc(1, sizeof *gpu);
    if (!gpu) {
        snprintf(why, why_cap, "out of memory");
        return NULL;
    }
    nvml_entry e = {NULL, NULL, NULL, NULL};
    if (load_library(gpu, why, why_cap) != 0 || load_symbols(gpu, &e, why, why_cap) != 0 ||
        start_nvml(gpu, &e, why, why_cap) != 0) {
        sb_gpu_close(gpu);
        return NULL;
    }
    return gpu;
}
