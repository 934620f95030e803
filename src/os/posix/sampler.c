/* The sampler thread of Linux and macOS: a condition variable on the
 * monotonic clock, so a stop never waits out a whole interval. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__APPLE__)
#include <mach/mach.h>
#endif

#include "internal.h"
#include "os.h"

struct sb_sampler {
    sb_sampler_config cfg;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int stopping; /* under lock */
    sb_sampler_peaks peaks;
};

void sb_window_raise(int64_t *slot, int64_t value)
{
    int64_t seen = __atomic_load_n(slot, __ATOMIC_RELAXED);
    while (value > seen && !__atomic_compare_exchange_n(slot, &seen, value, 1, __ATOMIC_RELAXED,
                                                        __ATOMIC_RELAXED)) {
    }
}

int64_t sb_window_take(int64_t *slot) { return __atomic_exchange_n(slot, -1, __ATOMIC_RELAXED); }

static void advance(struct timespec *t, int64_t us)
{
    t->tv_sec += (time_t)(us / 1000000);
    t->tv_nsec += (long)(us % 1000000) * 1000L;
    if (t->tv_nsec >= 1000000000L) {
        t->tv_sec++;
        t->tv_nsec -= 1000000000L;
    }
}

/* s->lock held: ETIMEDOUT, or 0 on a wake-up. */
static int wait_until(sb_sampler *s, const struct timespec *deadline)
{
#if defined(__APPLE__)
    /* No pthread_condattr_setclock: a relative wait, which a wall-clock
     * step cannot stretch. */
    struct timespec now, left;
    clock_gettime(CLOCK_MONOTONIC, &now);
    left.tv_sec = deadline->tv_sec - now.tv_sec;
    left.tv_nsec = deadline->tv_nsec - now.tv_nsec;
    if (left.tv_nsec < 0) {
        left.tv_sec--;
        left.tv_nsec += 1000000000L;
    }
    if (left.tv_sec < 0)
        return ETIMEDOUT;
    return pthread_cond_timedwait_relative_np(&s->wake, &s->lock, &left);
#else
    return pthread_cond_timedwait(&s->wake, &s->lock, deadline);
#endif
}

static void *sampler_main(void *arg)
{
    sb_sampler *s = arg;
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    pthread_mutex_lock(&s->lock);
    while (!s->stopping) {
        pthread_mutex_unlock(&s->lock);
        sb_sampler_sample(&s->cfg, &s->peaks);
        advance(&next, s->cfg.interval_us);
        /* After a stall start afresh, not with back-to-back samples. */
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec > next.tv_sec || (now.tv_sec == next.tv_sec && now.tv_nsec > next.tv_nsec)) {
            next = now;
            advance(&next, s->cfg.interval_us);
        }
        pthread_mutex_lock(&s->lock);
        /* Absolute deadlines keep the period steady. */
        while (!s->stopping && wait_until(s, &next) != ETIMEDOUT) {
        }
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

int sb_thread_start(pthread_t *thread, pthread_cond_t *wake, void *(*main)(void *), void *arg)
{
#if defined(__APPLE__)
    int rc = pthread_cond_init(wake, NULL); /* relative waits: see wait_until */
#else
    pthread_condattr_t attr;
    int rc = pthread_condattr_init(&attr);
    if (rc == 0) {
        rc = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
        if (rc == 0)
            rc = pthread_cond_init(wake, &attr);
        pthread_condattr_destroy(&attr);
    }
#endif
    if (rc != 0)
        return -rc;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = pthread_create(thread, NULL, main, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0)
        pthread_cond_destroy(wake);
    return rc;
}

int sb_sampler_start(sb_sampler **out, const sb_sampler_config *cfg)
{
    *out = NULL;
    sb_sampler *s = calloc(1, sizeof *s);
    if (!s)
        return sb_fail(SPACRBENCH_ENOMEM, "cannot allocate the sampler");
    s->cfg = *cfg;
    sb_sampler_peaks_init(&s->peaks);
    pthread_mutex_init(&s->lock, NULL);
    int rc = sb_thread_start(&s->thread, &s->wake, sampler_main, s);
    if (rc != 0) {
        pthread_mutex_destroy(&s->lock);
        free(s);
        return rc < 0 ? sb_fail(SPACRBENCH_ETHREAD, "cannot create the sampler's condition: %s",
                                strerror(-rc))
                      : sb_fail(SPACRBENCH_ETHREAD, "cannot start the sampler thread: %s",
                                strerror(rc));
    }
    *out = s;
    return SPACRBENCH_OK;
}

void sb_sampler_take_window(sb_sampler *s, int64_t *rss, int64_t *vram)
{
    sb_sampler_peaks_take(&s->peaks, rss, vram);
}

double sb_sampler_cpu_seconds(const sb_sampler *s)
{
#if defined(__APPLE__)
    /* No pthread_getcpuclockid; the port needs no deallocation. */
    thread_basic_info_data_t info;
    mach_msg_type_number_t count = THREAD_BASIC_INFO_COUNT;
    if (thread_info(pthread_mach_thread_np(s->thread), THREAD_BASIC_INFO, (thread_info_t)&info,
                    &count) != KERN_SUCCESS)
        return 0.0;
    return (double)(info.user_time.seconds + info.system_time.seconds) +
           (double)(info.user_time.microseconds + info.system_time.microseconds) / 1e6;
#else
    clockid_t clock;
    struct timespec ts;
    if (pthread_getcpuclockid(s->thread, &clock) != 0 || clock_gettime(clock, &ts) != 0)
        return 0.0;
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
#endif
}

void sb_sampler_stop(sb_sampler *s, int64_t *rss_peak, int64_t *vram_peak)
{
    pthread_mutex_lock(&s->lock);
    s->stopping = 1;
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->lock);
    pthread_join(s->thread, NULL);
    if (rss_peak)
        *rss_peak = s->peaks.life_rss;
    if (vram_peak)
        *vram_peak = s->peaks.life_vram;
    pthread_cond_destroy(&s->wake);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

void sb_sampler_forget(sb_sampler *s) { free(s); }
