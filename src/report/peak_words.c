/* The report's words for how a peak was obtained. A peak that hugetlb
 * pages could escape (in neither RSS nor VmHWM) is never called exact. */
#include "report.h"

#include "platform_words.h"

const char *sb_peak_method_words(int method, int hugetlb_uncovered)
{
    if (hugetlb_uncovered &&
        (method == SPACRBENCH_PEAK_HWM_RESET || method == SPACRBENCH_PEAK_HWM_WINDOW))
        return "exact for ordinary pages; hugetlb pages not covered, see the notes";
    /* `spacrbench run`: the cgroup does not charge hugetlb pages; the tree's
     * sampled HugetlbPages are added, between samples nothing is. */
    if (hugetlb_uncovered && method == SPACRBENCH_PEAK_CGROUP)
        return "cgroup peak of the process tree, exact for ordinary pages; hugetlb pages "
               "sampled, not covered between samples, see the notes";
    if (hugetlb_uncovered && method == SPACRBENCH_PEAK_CHILD_RUSAGE)
        return "child's high-water mark; hugetlb pages sampled, not covered between samples, "
               "see the notes";
    switch (method) {
    case SPACRBENCH_PEAK_HWM_RESET:
    case SPACRBENCH_PEAK_HWM_WINDOW:
        return SB_WORDS_EXACT_PEAK;
    case SPACRBENCH_PEAK_SAMPLED:
        return "sampled";
    case SPACRBENCH_PEAK_CGROUP:
        return "exact, cgroup peak of the process tree";
    case SPACRBENCH_PEAK_CHILD_RUSAGE:
        return "child's high-water mark";
    case SPACRBENCH_PEAK_SUPPLIED:
        return "supplied";
    default:
        return "not measured";
    }
}

const char *spacrbench_measurement_peak_words(const spacrbench_measurement *m)
{
    if (!m)
        return "not measured";
    return sb_peak_method_words(m->fig.peak_method, m->hugetlb_uncovered);
}

/* Not "exact": for one process it is the kernel's mark (ru_maxrss, GNU
 * time's %M), for a tree a sum of marks sampled while its processes were
 * alive together (mprof's --include-children; shared pages in each), where
 * GNU time's %M is its largest process's alone. */
const char *sb_tree_rss_words(int hugetlb_uncovered)
{
    return hugetlb_uncovered ? "the process tree's summed RSS; hugetlb pages sampled, not "
                               "covered between samples"
                             : "the process tree's summed RSS";
}

const char *sb_charge_words(int hugetlb_uncovered)
{
    return hugetlb_uncovered ? "exact for ordinary pages; hugetlb pages sampled, not covered "
                               "between samples, see the notes"
                             : "exact, as --mem counts it";
}
