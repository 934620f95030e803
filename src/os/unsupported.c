/* What only Linux measures (the peak reset, process groups): elsewhere
 * SPACRBENCH_EUNSUPPORTED, naming the platform. */
#include "internal.h"
#include "os.h"

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

#define NOT_HERE "process groups are not available on " SB_PLATFORM_NAME

int spacrbench_group_open(uint32_t flags, spacrbench_group **out)
{
    sb_clear_error();
    (void)flags;
    if (!out)
        return sb_fail(SPACRBENCH_EINVAL, "out must not be NULL");
    *out = NULL;
    return sb_fail(
        SPACRBENCH_EUNSUPPORTED,
        "process groups are measured on Linux only (cgroups, /proc); not on " SB_PLATFORM_NAME);
}

int spacrbench_group_add_process(spacrbench_group *g, int64_t pid)
{
    sb_clear_error();
    (void)pid;
    return sb_fail(g ? SPACRBENCH_EUNSUPPORTED : SPACRBENCH_EINVAL,
                   g ? NOT_HERE : "group must not be NULL");
}

int spacrbench_group_peak(spacrbench_group *g, int64_t *bytes, int32_t *method)
{
    sb_clear_error();
    (void)method;
    if (!g || !bytes)
        return sb_fail(SPACRBENCH_EINVAL, "%s must not be NULL", g ? "bytes" : "group");
    return sb_fail(SPACRBENCH_EUNSUPPORTED, NOT_HERE);
}

int spacrbench_group_set_limit(spacrbench_group *g, int64_t bytes)
{
    sb_clear_error();
    (void)g, (void)bytes;
    return sb_fail(SPACRBENCH_EUNSUPPORTED, NOT_HERE);
}

/* No group can exist here: nothing to close, note, kill or watch. */
const char *spacrbench_group_note(const spacrbench_group *g) { return (void)g, ""; }

const char *spacrbench_group_sampling_note(spacrbench_group *g) { return (void)g, ""; }

int spacrbench_group_close(spacrbench_group *g) { return (void)g, sb_clear_error(), SPACRBENCH_OK; }

int64_t spacrbench_group_oom_kills(const spacrbench_group *g) { return (void)g, -1; }

int sb_process_group_kill_all(spacrbench_group *g) { return (void)g, 0; }

int sb_process_group_watch(spacrbench_group *g, int64_t bytes) { return (void)g, (void)bytes, -1; }

int64_t sb_process_group_watch_ended(spacrbench_group *g) { return (void)g, 0; }
