/* Where the supervisor's copies start (issue 41). A process's wait4
 * ru_maxrss keeps the high-water mark of the memory it had before exec
 * (the kernel carries the old address space's peak into it at exec), and
 * a vfork or posix_spawn child shares its parent's address space, so its
 * figure is the parent's peak: `true` forked from a spacrbench holding a
 * list of 10^6 items read 108 MiB (GNU time: 1 MiB). The launcher is
 * forked while spacrbench is still small, before the items are read, and
 * forks each copy with CLONE_PARENT: the copy is spacrbench's own child
 * (wait4, pidfd, subreaper, cgroup placement and kills as before) whose
 * memory before exec is a copy of the launcher's. Not installed. */
#ifndef SPACRBENCH_LAUNCHER_H
#define SPACRBENCH_LAUNCHER_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct sb_launcher {
    pid_t pid; /* -1: not running */
    int sock;  /* requests go out, the copies' pids come back */
} sb_launcher;

/* One copy: wait for a byte on go, run lines[0..m-1) one after another
 * as its children, then become lines[m-1] (a one-line copy IS the
 * command). A failing line ends it with that line's status (a signal as
 * 128 + its number); an exec that fails is written to err as an
 * sb_exec_failure. */
typedef struct sb_copy_spec {
    unsigned flags; /* child.h's SB_CHILD_* */
    int stdout_to_stderr;
    int64_t index; /* in the sb_exec_failure */
    int go, err;   /* the release pipe's read end, the failure pipe's write end */
    sigset_t mask; /* the copy's signal mask */
    char **const *lines;
    int64_t m; /* >= 1 */
} sb_copy_spec;

/* What a copy writes to err when its command cannot be started (one
 * write, smaller than PIPE_BUF: atomic among copies). */
typedef struct sb_exec_failure {
    int64_t copy;
    int err;
} sb_exec_failure;

/* Fork the launcher; in_child (may be NULL) runs first in every copy
 * (async-signal-safe calls only). It ends with this process (and with
 * sb_launcher_stop). 0, or -1 with errno set. */
int sb_launcher_start(sb_launcher *l, void (*in_child)(void));

/* Start one copy: its pid (a child of this process), -1 when its fork
 * failed (errno: the launcher's fork's), -2 when the launcher is gone. */
pid_t sb_launcher_fork(sb_launcher *l, const sb_copy_spec *c);

/* End the launcher and reap it. */
void sb_launcher_stop(sb_launcher *l);

#endif
