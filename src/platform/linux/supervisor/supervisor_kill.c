/* Ending ALL of a supervised group's processes (the timeout, a stop
 * signal's grace period): killing only the copies would leave their
 * children running and, with a cgroup, the cgroup busy. */
#include <signal.h>
#include <time.h>

#include "supervisor_internal.h"

#define KILL_PASSES 50 /* forks racing the kill: each pass catches the new ones */
/* Between passes: 2 ms at first, then 20 ms, so a loaded machine's slow
 * exits are awaited too (at most about 0.8 s in all). */
#define PASS_PAUSE_MS(i) ((i) < 10 ? 2L : 20L)
#define LEFTOVER_POLL_MS 10L /* how often the leftovers are counted while they may exit */

static void pause_ms(long ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

static int signal_one(pid_t pid, void *arg)
{
    int sig = *(const int *)arg;
    if (sig)
        kill(pid, sig);
    return 0;
}

/* One pass over the group's processes (sig 0: count them); how many were
 * listed, -1 when they could not be. */
static int pass(const sb_supervisor *s, int sig)
{
    if (s->use_cgroup)
        return sb_group_procs(&s->cg, signal_one, &sig);
    return tree_signal(&s->tree, sig);
}

int sb_sv_signal_all(const sb_supervisor *s, int sig)
{
    if (s->use_cgroup && sig == SIGKILL && sb_group_kill_all(&s->cg) == 0) {
        /* Wait (briefly) until the group is empty, as the passes do. */
        for (int i = 0; i < KILL_PASSES && pass(s, 0) > 0; i++)
            pause_ms(PASS_PAUSE_MS(i));
        return 1;
    }
    int total = 0;
    for (int i = 0; i < KILL_PASSES; i++) {
        int n = pass(s, sig);
        if (n < 0)
            return total ? total : -1;
        if (n == 0 || sig != SIGKILL)
            return total + n;
        total += n;
        pause_ms(PASS_PAUSE_MS(i)); /* let the killed ones leave the group */
    }
    return total;
}

int sb_sv_kill_group(const sb_supervisor *s, sb_copy *copies, int64_t k)
{
    /* The copies first: ours for sure (not yet reaped, so their pids are
     * not reused). */
    int total = 0;
    for (int64_t i = 0; i < k; i++)
        if (copies[i].pid > 0 && !copies[i].done && kill(copies[i].pid, SIGKILL) == 0)
            total++;
    int n = sb_sv_signal_all(s, SIGKILL);
    return n < 0 ? (total ? total : -1) : total + n;
}

int sb_sv_end_leftovers(const sb_supervisor *s, int sig, double kill_at)
{
    int n = pass(s, 0);
    if (n <= 0)
        return n < 0 ? -1 : 0;
    sb_sv_signal_all(s, sig);
    while ((n = pass(s, 0)) > 0 && sb_supervisor_now() < kill_at)
        pause_ms(LEFTOVER_POLL_MS);
    if (n == 0)
        return 0;
    sb_sv_signal_all(s, SIGKILL);
    return 1;
}
