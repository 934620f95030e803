/* For front ends that measure processes themselves (`spacrbench run`):
 * hugetlb pages escape their peak too, so they say so here, and the report
 * never calls such a peak exact (peak_words.c reads the flag). */
#include "core.h"
#include "proc.h"

int spacrbench_measurement_note_hugetlb(spacrbench_measurement *m, int64_t seen_bytes,
                                        double interval_seconds)
{
    SB_REFUSE(!m, "measurement must not be NULL");
    if (seen_bytes < -1 || !(interval_seconds > 0) || interval_seconds > 3600)
        return sb_fail(SPACRBENCH_EINVAL, "seen_bytes must be >= -1 and interval_seconds in "
                                          "(0, 3600]");
#if defined(__linux__)
    int possible = sb_hugetlb_pages_possible() > 0;
#else
    int possible = 0; /* hugetlb pages are Linux's */
#endif
    if (m->hugetlb_uncovered || (seen_bytes <= 0 && !possible))
        return SPACRBENCH_OK; /* said once; nothing to say where none can be mapped */
    m->hugetlb_uncovered = 1;
    char seen[32] = "none";
    if (seen_bytes > 0)
        sb_format_bytes(seen, sizeof seen, seen_bytes);
    return sb_measurement_notef(m,
                                "hugetlb pages (MAP_HUGETLB) are in neither RSS, VmHWM nor a "
                                "memory cgroup's charge, and this system has some to hand out: "
                                "the peak adds the largest HugetlbPages of the process tree "
                                "sampled every %g ms (%s); pages mapped and freed between "
                                "samples are not covered, so the peak is not exact",
                                interval_seconds * 1e3, seen);
}
