/* How a scaling count's group peak was measured, in one wording whoever
 * measured it: the library's spacrbench_group (process_group.c: C's fork
 * executor and Python's pool) and the command's supervisor
 * (cli/run_scale.c). Text only, from the facts each caller has, so
 * util/: both reach it. Not installed. */
#ifndef SPACRBENCH_GROUP_WORDS_H
#define SPACRBENCH_GROUP_WORDS_H

#include <stddef.h>

/* A memory cgroup of its own per count (cgroup v1 or v2, found: which
 * and where it was made, and why there): "group peak: a memory cgroup of
 * its own per count (memory.peak), exact, page cache included; ...". */
void sb_group_words_cgroup(char *buf, size_t cap, int version, const char *found);

/* Without one: "group peak: SUM; CAVEAT; no cgroup of its own because
 * WHY", where sum says what was summed and how it was sampled, caveat
 * how far the figure may be off. */
void sb_group_words_sampled(char *buf, size_t cap, const char *sum, const char *caveat,
                            const char *why);

#endif
