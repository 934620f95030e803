/* Cgroups left behind by a spacrbench that was killed (SIGKILL, OOM, a
 * node reboot of the job step...): `spacrbench-run-PID-...` under our own
 * memory cgroup whose PID is no longer a running spacrbench. Nothing else
 * would ever notice them, and one may still hold the command it measured. */
#ifndef SPACRBENCH_CLI_RUN_STALE_H
#define SPACRBENCH_CLI_RUN_STALE_H

#include "group.h"

/* Look for such cgroups beside where this run makes its own (g located),
 * say so on stderr, and remove the EMPTY ones; non-empty ones are named
 * with their processes' pids and left alone (never killed: we cannot know
 * what they are doing now). Cgroups of live spacrbench processes are not
 * touched. Returns the note for the report (malloc'd), NULL when none was
 * found (or out of memory). */
char *run_stale_cleanup(const sb_group *g);

#endif
