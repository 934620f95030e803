/* The forked scaling check, on the platforms without it (Linux's is
 * scale_fork.c): each entry point says SPACRBENCH_EUNSUPPORTED and names
 * the platform; nothing is allocated. See docs/platforms.md. */
#include "internal.h"
#include "os.h"
#include "scale.h"

int sb_scale_fork_executor(const sb_scale_work *w, spacrbench_scale_executor *ex, void **state)
{
    (void)w, (void)ex;
    *state = NULL;
    return sb_fail(
        SPACRBENCH_EUNSUPPORTED,
        "the scaling check forks workers into a cgroup, on Linux only; not on " SB_PLATFORM_NAME
        " (measure one worker with spacrbench_benchmark)");
}

void sb_scale_fork_executor_free(void *state) { (void)state; }

int spacrbench_scale_worker_begin(int64_t parent_pid)
{
    sb_clear_error();
    (void)parent_pid;
    return sb_fail(SPACRBENCH_EUNSUPPORTED,
                   "a scaling worker's setup (PR_SET_PDEATHSIG) is Linux's; not " SB_PLATFORM_NAME);
}
