/* Shared by the supervisor's files (supervisor.c starts and measures,
 * supervisor_wait.c waits and samples, supervisor_kill.c ends a group). */
#ifndef SPACRBENCH_SUPERVISOR_INTERNAL_H
#define SPACRBENCH_SUPERVISOR_INTERNAL_H

#include "supervisor.h"

/* Send sig to every process of the group (its cgroup, else the watched
 * descendants): with a cgroup and SIGKILL, v2 cgroup.kill where the kernel
 * has it, else each pid, in passes until none is left (a fork can race one
 * pass). How many were signalled (at least), -1 when they could not be
 * listed. */
int sb_sv_signal_all(const sb_supervisor *s, int sig);

/* SIGKILL the unreaped copies, then everything else in the group. */
int sb_sv_kill_group(const sb_supervisor *s, sb_copy *copies, int64_t k);

/* After stop signal sig, once every copy has exited: pass sig on to what
 * they left (their parent, which might have ended them, is gone), wait
 * until kill_at (sb_now() time), then SIGKILL those still there. 1 when
 * it had to SIGKILL, 0 when none was left by then, -1 unknown. */
int sb_sv_end_leftovers(const sb_supervisor *s, int sig, double kill_at);

/* The group's live (not zombie) processes: how many, -1 when they could
 * not be listed; names (may be NULL) gets "comm (pid N), ..." cut to cap. */
int sb_sv_leftovers(const sb_supervisor *s, char *names, size_t cap);

/* One sample of the group: its tree's RSS (rss: with a cgroup, the
 * VmHWM of its processes; scan_tree: without one, the whole process
 * table) and its VRAM. The CPU seconds the RSS part took; *listed (may be
 * NULL) is 0 when the group's processes could not be listed. */
double sb_sv_sample(sb_supervisor *s, const sb_copy *copies, int64_t k, int scan_tree, int rss,
                    int *listed);

/* Reap what has exited (WNOHANG): the copies (their status, time, CPU and
 * ru_maxrss) and the tree's orphans (o->orphan_maxrss, o->orphan_cpu). How many copies,
 * -1 when this process has no child at all. */
int64_t sb_sv_reap(const sb_supervisor *s, sb_copy *copies, int64_t k, double t0, sb_outcome *o);

/* Reap every released copy (copies[0..o->started)), applying the timeout
 * (per line: lines x timeout for the group) and the grace kill after a
 * stop signal, sampling meanwhile; then wait for what the copies left
 * running until the tree has ended (killed, and named in o->leftovers, at
 * the timeout). */
void sb_sv_wait(sb_supervisor *s, const sb_launch *l, sb_copy *copies, double t0, sb_outcome *o);

#endif
