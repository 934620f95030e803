/* Ending ALL of a supervised group's processes (the timeout, a stop
 * signal's grace period): killing only the copies would leave their
 * children running and, with a cgroup, the cgroup busy. No pause in
 * steps: each pass waits for what it signalled by pidfd (child.h). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup.h"
#include "child.h"
#include "proc_tree.h"
#include "supervisor_internal.h"

#define KILL_PASSES 50   /* forks racing the kill: each pass catches the new ones */
#define KILL_WAIT_S 0.8  /* how long the killed may take to exit, in all */
#define PASS_PIDS   1024 /* processes a pass waits for */

/* The processes one pass signalled. */
typedef struct pass_pids {
    int sig;
    pid_t pid[PASS_PIDS];
    size_t n;
} pass_pids;

/* Signal one listed process (sig 0: only list it) and keep its pid; 0 when
 * it was signalled. */
static int signal_one(pid_t pid, void *arg)
{
    pass_pids *p = arg;
    if (p->sig && kill(pid, p->sig) != 0)
        return -1;
    if (p->n < PASS_PIDS)
        p->pid[p->n++] = pid;
    return 0;
}

static int signal_listed(pid_t pid, void *arg)
{
    signal_one(pid, arg);
    return 0; /* go on listing */
}

/* One pass over the group's processes (sig 0: list them); how many were
 * listed, -1 when they could not be. */
static int pass(const sb_supervisor *s, pass_pids *p)
{
    p->n = 0;
    if (s->use_cgroup)
        return sb_group_procs(&s->cg, signal_listed, p);
    return tree_signal_each(&s->tree, p->sig, signal_one, p);
}

int sb_sv_signal_all(const sb_supervisor *s, int sig)
{
    pass_pids *p = malloc(sizeof *p);
    if (!p)
        return -1;
    double deadline = sb_now() + KILL_WAIT_S;
    int total = 0;
    if (s->use_cgroup && sig == SIGKILL && sb_group_kill_all(&s->cg) == 0) {
        /* Wait (briefly) until the group is empty, as the passes do. */
        p->sig = 0;
        if (pass(s, p) > 0)
            sb_wait_exited(p->pid, p->n, deadline);
        free(p);
        return 1;
    }
    for (int i = 0; i < KILL_PASSES; i++) {
        p->sig = sig;
        int n = pass(s, p);
        if (n < 0) {
            total = total ? total : -1;
            break;
        }
        total += n;
        if (n == 0 || sig != SIGKILL)
            break;
        /* Let the killed ones leave the group before the next pass. */
        sb_wait_exited(p->pid, p->n, deadline);
    }
    free(p);
    return total;
}

int sb_sv_kill_group(const sb_supervisor *s, sb_copy *copies, int64_t k)
{
    /* The copies first: ours for sure (not yet reaped, so their pids are
     * not reused). Then wait for them to exit: a dying copy hands its
     * children to us (the subreaper) only as it exits, and a tree walked
     * meanwhile finds them under neither, so the pass would see none and
     * stop, leaving them running. */
    int total = 0;
    pid_t killed[PASS_PIDS];
    size_t n_killed = 0;
    for (int64_t i = 0; i < k; i++)
        if (copies[i].pid > 0 && !copies[i].done && kill(copies[i].pid, SIGKILL) == 0) {
            total++;
            if (n_killed < PASS_PIDS)
                killed[n_killed++] = copies[i].pid;
        }
    if (n_killed && !s->use_cgroup)
        sb_wait_exited(killed, n_killed, sb_now() + KILL_WAIT_S);
    int n = sb_sv_signal_all(s, SIGKILL);
    return n < 0 ? (total ? total : -1) : total + n;
}

int sb_sv_end_leftovers(const sb_supervisor *s, int sig, double kill_at)
{
    pass_pids *p = malloc(sizeof *p);
    if (!p)
        return -1;
    p->sig = 0;
    int n = pass(s, p);
    if (n > 0) {
        sb_sv_signal_all(s, sig);
        /* Until they exit or the grace is over, whichever is first. */
        p->sig = 0;
        if (pass(s, p) > 0)
            sb_wait_exited(p->pid, p->n, kill_at);
        n = pass(s, p);
        if (n > 0)
            sb_sv_signal_all(s, SIGKILL);
    }
    free(p);
    return n < 0 ? -1 : n > 0;
}

/* "comm (pid N)" of one process, its name's unprintable bytes as '?' (a
 * process names itself: it must not drive the terminal). */
static void name_one(pid_t pid, char *out, size_t cap)
{
    char path[64], comm[64] = "?";
    size_t len = 0;
    snprintf(path, sizeof path, "/proc/%ld/comm", (long)pid);
    if (sb_cg_read_small(path, comm, sizeof comm, &len) != 0)
        snprintf(comm, sizeof comm, "?");
    comm[strcspn(comm, "\n")] = '\0';
    for (char *c = comm; *c; c++)
        if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
            *c = '?';
    snprintf(out, cap, "%s (pid %ld)", comm, (long)pid);
}

int sb_sv_leftovers(const sb_supervisor *s, char *names, size_t cap)
{
    pass_pids *p = malloc(sizeof *p);
    if (!p)
        return -1;
    p->sig = 0;
    int n = pass(s, p), alive = 0;
    size_t used = 0;
    if (names && cap)
        names[0] = '\0';
    for (size_t i = 0; n > 0 && i < p->n; i++) {
        char state = sb_proc_state("/proc", p->pid[i]);
        if (!state || state == 'Z') /* a zombie is reaped by the wait loop */
            continue;
        if (names && used < cap) {
            char one[96];
            name_one(p->pid[i], one, sizeof one);
            /* Whole names only: the rest is counted. */
            if (used + strlen(one) + 12 < cap)
                used += (size_t)snprintf(names + used, cap - used, "%s%s", alive ? ", " : "", one);
            else
                used = cap; /* full */
        }
        alive++;
    }
    if (names && used == cap && cap > 4) {
        size_t end = strlen(names);
        snprintf(names + end, cap - end, ", ...");
    }
    free(p);
    return n < 0 ? -1 : alive;
}
