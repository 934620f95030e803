/* The peak reset on platforms that have none (Windows, macOS): both calls
 * fail, so the runner applies its window rule and the sampler, and its
 * note gives the platform's sb_proc_no_reset_reason(). */
#include "proc.h"

int sb_proc_reset_hwm(const sb_proc *p)
{
    (void)p;
    return -1;
}

int sb_proc_reset_hwm_verified(sb_proc *p)
{
    (void)p;
    return -1;
}
