/* One benchmark at a time per process (peaks are per process), and what to
 * do when a run was abandoned: the work left it by longjmp or a C++
 * exception, so the call that took the lock is no longer on the stack and
 * never will unlock it. The run's state lives on the heap so a later call
 * can release its sampler thread, files and memory. The lock is a C11
 * atomic flag (only try-lock and unlock are needed), so it is the same on
 * every platform. A process forked while another thread of its parent held
 * the lock inherits it held by a thread it does not have: the first call
 * in the child takes it over (no atfork handler is needed). */
#include <stdatomic.h>
#include <stdlib.h>

#include "core.h"

static atomic_flag run_lock = ATOMIC_FLAG_INIT;
static sb_run *active;                     /* under run_lock */
static _Thread_local char thread_marker;   /* its address names a thread */
static _Atomic(const char *) owner_thread; /* &thread_marker of the holder */
static _Atomic(uintptr_t) owner_frame;     /* a stack address of the holder's call */
static _Atomic(int64_t) owner_pid;         /* the holder's process; 0 while changing hands */

/* The lock was taken in the parent by a thread this forked child does not
 * have: only the forking thread lives on, and it is not the holder, so no
 * frame of that run exists here. */
static int held_by_a_thread_left_in_the_parent(void)
{
    int64_t pid = atomic_load(&owner_pid);
    return pid != 0 && pid != sb_self_pid() && atomic_load(&owner_thread) != &thread_marker;
}

int sb_run_lock_acquire(const void *frame, int *took_over)
{
    *took_over = 0;
    if (!atomic_flag_test_and_set_explicit(&run_lock, memory_order_acquire))
        goto mine;
    if (held_by_a_thread_left_in_the_parent()) {
        if (active) { /* the parent's run: its sampler thread is not here */
            sb_run_forget_in_child(active);
            free(active);
            active = NULL;
        }
        goto mine;
    }
    /* Held by this very thread, and the call holding it is not below us on
     * the stack (stacks grow down on every platform we build for): that
     * call is gone. A call from inside the work is deeper, so it stays
     * EBUSY like a call from another thread. */
    if (atomic_load(&owner_thread) != &thread_marker ||
        (uintptr_t)frame < atomic_load(&owner_frame))
        return sb_fail(SPACRBENCH_EBUSY, "another spacrbench_benchmark is running in this "
                                         "process; peaks are per process, so runs must not "
                                         "overlap");
    if (active) {
        sb_run_release(active);
        free(active);
        active = NULL;
    }
    *took_over = 1;
mine:
    atomic_store(&owner_thread, &thread_marker);
    atomic_store(&owner_frame, (uintptr_t)frame);
    atomic_store(&owner_pid, sb_self_pid());
    return SPACRBENCH_OK;
}

void sb_run_lock_publish(sb_run *st) { active = st; }

void sb_run_lock_release(void)
{
    active = NULL;
    atomic_store(&owner_pid, 0);
    atomic_store(&owner_thread, NULL);
    atomic_store(&owner_frame, 0);
    atomic_flag_clear_explicit(&run_lock, memory_order_release);
}
