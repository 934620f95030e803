/* How a peak was obtained, in the words the report uses (the JSON keeps the
 * names of spacrbench_peak_method_name()). One source for the report, the
 * Markdown export and spacrbench_measurement_peak_words(). Not installed. */
#ifndef SPACRBENCH_OUTPUT_PEAK_WORDS_H
#define SPACRBENCH_OUTPUT_PEAK_WORDS_H

/* method: a spacrbench_peak_method; hugetlb_uncovered: the run used hugetlb
 * pages the peak cannot see (then a kernel mark is never called exact).
 * Never NULL. */
const char *sb_peak_method_words(int method, int hugetlb_uncovered);

/* The two figures of an item run as its own processes (spacrbench_memory_
 * figures), in the report's words. */
const char *sb_tree_rss_words(int hugetlb_uncovered);
const char *sb_charge_words(int hugetlb_uncovered);

#endif
