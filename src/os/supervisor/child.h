/* The OS primitives for every child the project starts (the command's
 * copies, the scaling check's forked workers, the plot helper): the one
 * fork (signals blocked across it, handlers reset, dying with the parent,
 * the OOM killer's first choice where asked), the one wait4, and waiting
 * without polling: pidfds (Linux >= 5.3) in ppoll, else a SIGCHLD
 * signalfd. Nothing here decides anything. Not installed. */
#ifndef SPACRBENCH_CHILD_H
#define SPACRBENCH_CHILD_H

#include <signal.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "write_all.h" /* sb_write_all: the pipes to and from children */

#define SB_CHILD_DEFAULT_HANDLERS 1u /* every handled signal back to SIG_DFL (ignored stay) */
#define SB_CHILD_DIE_WITH_PARENT  2u /* PR_SET_PDEATHSIG(SIGKILL); ends at once if orphaned */
#define SB_CHILD_OOM_FIRST        4u /* oom_score_adj 1000: a job-wide OOM kill picks it */

/* The child's code; it must not return (it _exit()s). Only
 * async-signal-safe calls before an exec: the parent may have threads. */
typedef void (*sb_child_main)(void *arg);

/* Fork a child that runs main(arg). Every signal is blocked across the
 * fork, so no handler of the caller runs in the child before flags are
 * applied; the child then gets the caller's mask back. The child's pid, or
 * -1 (errno set). */
pid_t sb_child_start(unsigned flags, sb_child_main main, void *arg);

/* What sb_child_start does in the child before main, for a child started
 * otherwise (a Python pool's worker): flags, parent the expected parent.
 * Async-signal-safe. */
void sb_child_begin(unsigned flags, pid_t parent);

/* Exit code of an orphaned child (SB_CHILD_DIE_WITH_PARENT). */
#define SB_CHILD_ORPHANED 125

/* The one wait4 of the project: pid (-1: any child), options (WNOHANG),
 * EINTR retried; status and ru may be NULL. The pid, 0 (WNOHANG: none
 * has exited), or -1 (errno set, ECHILD when there is none). */
pid_t sb_child_wait(pid_t pid, int options, int *status, struct rusage *ru);

/* Run argv (PATH searched) to its end: its exit status, 128 + the signal
 * that ended it, or -1 with errno set when it could not be started. Its
 * stdout goes to stderr where asked (stdout carries spacrbench's JSON). */
int sb_child_run(char *const argv[], int stdout_to_stderr);

/* A pidfd of pid, or -1 (errno set; ENOSYS before Linux 5.3). */
int sb_pidfd_open(pid_t pid);

/* Waits on a set of children: a pidfd each where the kernel has them (all
 * or none), else a SIGCHLD signalfd (then SIGCHLD must be blocked in the
 * waiting thread). */
typedef struct sb_waiter {
    int *pidfd; /* n entries, NULL: the signalfd (or nothing) */
    struct pollfd *fds;
    size_t n;
    int sfd;
} sb_waiter;

void sb_waiter_open(sb_waiter *w, const pid_t *pids, size_t n);
void sb_waiter_close(sb_waiter *w);
/* Whether pidfds wake it (else SIGCHLD, or at most every fallback). */
int sb_waiter_by_pidfd(const sb_waiter *w);

/* Sleep until child i (live[i] non-zero; live NULL: all) may have exited,
 * fd (when >= 0) is readable or hung up, a signal mask leaves open arrives
 * (mask NULL: the current one), or `wait` seconds pass (< 0: no limit; with
 * neither pidfds nor a signalfd, at most SB_WAITER_FALLBACK_S). */
#define SB_WAITER_FALLBACK_S 0.1
void sb_waiter_sleep(sb_waiter *w, const int *live, int fd, double wait, const sigset_t *mask);

/* Wait until every process of pids (children or not) has exited, or until
 * `deadline` (sb_now() seconds): pidfds in ppoll, no sleeping in steps
 * (without pidfds, one pause of at most 20 ms). How many still run. */
size_t sb_wait_exited(const pid_t *pids, size_t n, double deadline);

#endif
