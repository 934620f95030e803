/* What only the Linux build measures, on the platforms without it: a
 * process group's peak (cgroups or /proc PSS; the forked scaling check's
 * entry points are scale/scale_fork_none.c). Each says so with
 * SPACRBENCH_EUNSUPPORTED and a message that names the platform; nothing
 * is allocated. See docs/platforms.md. */
#if !defined(__linux__)

#include "internal.h"
#include "platform_words.h"
#include "process_group.h"

int spacrbench_group_open(uint32_t flags, spacrbench_group **out)
{
    sb_clear_error();
    if (!out)
        return sb_fail(SPACRBENCH_EINVAL, "out must not be NULL");
    *out = NULL;
    (void)flags;
    return sb_fail(
        SPACRBENCH_EUNSUPPORTED,
        "process groups are measured on Linux only (cgroups, /proc); not on " SB_PLATFORM_NAME);
}

int spacrbench_group_add_process(spacrbench_group *g, int64_t pid)
{
    sb_clear_error();
    (void)pid;
    return sb_fail(g ? SPACRBENCH_EUNSUPPORTED : SPACRBENCH_EINVAL,
                   g ? "process groups are not available on " SB_PLATFORM_NAME
                     : "group must not be NULL");
}

int spacrbench_group_peak(spacrbench_group *g, int64_t *bytes, int32_t *method)
{
    sb_clear_error();
    (void)method;
    if (!g || !bytes)
        return sb_fail(SPACRBENCH_EINVAL, "%s must not be NULL", g ? "bytes" : "group");
    return sb_fail(SPACRBENCH_EUNSUPPORTED,
                   "process groups are not available on " SB_PLATFORM_NAME);
}

const char *spacrbench_group_note(const spacrbench_group *g)
{
    (void)g;
    return "";
}

const char *spacrbench_group_sampling_note(spacrbench_group *g)
{
    (void)g;
    return "";
}

int spacrbench_group_close(spacrbench_group *g)
{
    sb_clear_error();
    (void)g; /* no group can exist here */
    return SPACRBENCH_OK;
}

int spacrbench_group_set_limit(spacrbench_group *g, int64_t bytes)
{
    sb_clear_error();
    (void)g, (void)bytes;
    return sb_fail(SPACRBENCH_EUNSUPPORTED,
                   "process groups are not available on " SB_PLATFORM_NAME);
}

int64_t spacrbench_group_oom_kills(const spacrbench_group *g)
{
    (void)g;
    return -1;
}

int sb_process_group_kill_all(spacrbench_group *g)
{
    (void)g; /* no group can exist here */
    return 0;
}

int sb_process_group_watch(spacrbench_group *g, int64_t bytes)
{
    (void)g, (void)bytes;
    return -1;
}

int64_t sb_process_group_watch_ended(spacrbench_group *g)
{
    (void)g;
    return 0;
}

#else
typedef int sb_unsupported_is_empty_on_linux; /* ISO C forbids an empty unit */
#endif
