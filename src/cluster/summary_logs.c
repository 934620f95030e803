/* The tasks' SLURM logs: a task killed before its report (its time
 * limit, an oom-kill of the step, a preemption) leaves only its log. Its
 * first line (SB_SLURM_LOG_HEADER) says which array and what the
 * submission asked; SLURM's last lines say how it ended. Only a few KiB
 * of head and tail are read, without blocking, regular files only. A log
 * is this array's when its first line names this array's key (without
 * that line: when its job is one of this array's reports'). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cluster.h"
#include "internal.h"

#define HEAD_BYTES 4096
#define TAIL_BYTES 8192
#define SAID_MAX   300

static int log_order(const void *a, const void *b)
{
    const sum_log *x = a, *y = b;
    if (x->index != y->index)
        return x->index < y->index ? -1 : 1;
    return x->job < y->job ? -1 : x->job > y->job;
}

/* A whole number at *p (at most 18 digits), -1 when none; *p moves past it. */
static int64_t number_at(const char **p)
{
    int64_t v = 0;
    int d = 0;
    for (; **p >= '0' && **p <= '9' && d < 18; (*p)++, d++)
        v = v * 10 + (**p - '0');
    return d ? v : -1;
}

static int skip(const char **p, const char *text)
{
    size_t n = strlen(text);
    if (strncmp(*p, text, n) != 0)
        return -1;
    *p += n;
    return 0;
}

/* The script's first line: "array job J task I: key K, --mem M MiB,
 * --time T min, item --timeout S s", for this log's own job and task. */
static void header_line(sum_log *l, const char *line)
{
    const char *p = line + strlen(SB_SLURM_LOG_HEADER);
    if (number_at(&p) != l->job || skip(&p, " task ") != 0 || number_at(&p) != l->index ||
        skip(&p, ": key ") != 0 || strspn(p, "0123456789abcdef") < 16)
        return;
    memcpy(l->key, p, 16);
    l->key[16] = '\0';
    p += 16;
    l->header = 1;
    if (skip(&p, ", --mem ") == 0) {
        int64_t mib = number_at(&p);
        if (mib > 0 && mib < (INT64_C(1) << 40))
            l->mem_bytes = mib << 20;
        while (*p && *p != ',')
            p++;
    }
    if (skip(&p, ", --time ") == 0) {
        int64_t minutes = number_at(&p);
        if (minutes > 0 && minutes < (INT64_C(1) << 30))
            l->time_minutes = minutes;
        while (*p && *p != ',')
            p++;
    }
    if (skip(&p, ", item --timeout ") == 0) {
        char *end;
        double t = strtod(p, &end);
        if (end != p && t >= 0 && t <= SUM_SECONDS_MAX)
            l->item_timeout = t;
    }
}

/* What the script said when it stopped before anything ran ("spacrbench
 * job: task N: ...; nothing was run"), or spacrbench when it refused the
 * command line the script built (its usage error, then "(see spacrbench
 * run --help)"). */
static void setup_line(sum_log *l, const char *head)
{
    const char *stop = NULL, *error = NULL;
    const size_t tail = sizeof SB_SLURM_NOTHING_RUN - 1;
    for (const char *p = head; p && *p && !stop;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (strncmp(p, "spacrbench job: task ", 21) == 0 && n >= tail &&
            memcmp(p + n - tail, SB_SLURM_NOTHING_RUN, tail) == 0)
            stop = p;
        else if (strncmp(p, "spacrbench: ", 12) == 0)
            error = p;
        else if (strncmp(p, "(see spacrbench run --help)", 27) == 0 && error)
            stop = error;
        p = nl ? nl + 1 : NULL;
    }
    if (!stop)
        return;
    size_t n = strcspn(stop, "\n");
    l->setup = 1;
    l->said = strndup(stop, n < SAID_MAX ? n : SAID_MAX);
}

static void scan(sum_log *l, char *text)
{
    if (strstr(text, "DUE TO TIME LIMIT"))
        l->timeout = 1;
    if (strstr(text, "DUE TO PREEMPTION"))
        l->preempted = 1;
    if (strstr(text, "oom-kill") || strstr(text, "oom_kill") || strstr(text, "Out Of Memory"))
        l->oom = 1;
}

/* The log's head (its first line, a stop) and tail (how SLURM ended it). */
static void read_one(int dir, sum_log *l)
{
    char name[64], head[HEAD_BYTES + 1], tail[TAIL_BYTES + 1];
    snprintf(name, sizeof name, "slurm-%" PRId64 "_%" PRId64 ".out", l->job, l->index);
    l->mem_bytes = l->time_minutes = -1;
    l->item_timeout = -1;
    int fd = openat(dir, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return;
    struct stat st;
    ssize_t h = 0, t = 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        h = pread(fd, head, HEAD_BYTES, 0);
        if (st.st_size > HEAD_BYTES)
            t = pread(fd, tail, TAIL_BYTES,
                      st.st_size > TAIL_BYTES + HEAD_BYTES ? st.st_size - TAIL_BYTES : HEAD_BYTES);
    }
    close(fd);
    head[h > 0 ? h : 0] = '\0';
    tail[t > 0 ? t : 0] = '\0';
    for (ssize_t i = 0; i < h; i++) /* a NUL in the log must not end the search */
        if (!head[i])
            head[i] = ' ';
    for (ssize_t i = 0; i < t; i++)
        if (!tail[i])
            tail[i] = ' ';
    if (strncmp(head, SB_SLURM_LOG_HEADER, strlen(SB_SLURM_LOG_HEADER)) == 0)
        header_line(l, head);
    setup_line(l, head);
    scan(l, head);
    scan(l, tail);
}

int sum_read_logs(spacrbench_summary *s)
{
    if (s->n_logs == 0)
        return 0;
    qsort(s->logs, s->n_logs, sizeof *s->logs, log_order);
    sum_count_sort(s, s->n_logs);
    /* This array's reports' jobs, sorted: a log without the script's first
     * line is this array's when its job is one of them. */
    size_t n_jobs;
    int64_t *jobs = sum_report_jobs(s, 1u << SUM_FOREIGN | 1u << SUM_UNREADABLE, &n_jobs);
    if (!jobs)
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory");
    s->work += 2 * s->n_logs + n_jobs;
    int dir = open(s->directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    for (size_t i = 0; i < s->n_logs; i++) {
        sum_log *l = &s->logs[i];
        if (dir >= 0)
            read_one(dir, l);
        int known_job = bsearch(&l->job, jobs, n_jobs, sizeof *jobs, sum_job_order) != NULL;
        l->ours = l->header && s->job_key[0] ? strcmp(l->key, s->job_key) == 0 : known_job;
    }
    if (dir >= 0)
        close(dir);
    free(jobs);
    return 0;
}

size_t sum_logs_of(const spacrbench_summary *s, int64_t index, size_t *first)
{
    size_t lo = 0, hi = s->n_logs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->logs[mid].index < index)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t end = lo;
    while (end < s->n_logs && s->logs[end].index == index)
        end++;
    *first = lo;
    return end - lo;
}
