/* The group peak's words; see group_words.h. */
#include "group_words.h"

#include <stdio.h>

void sb_group_words_cgroup(char *buf, size_t cap, int version, const char *found)
{
    snprintf(buf, cap,
             "group peak: a memory cgroup of its own per count (%s), exact, page cache "
             "included; memory a process used before it joined is not counted; %s",
             version == 1 ? "memory.max_usage_in_bytes" : "memory.peak", found);
}

void sb_group_words_sampled(char *buf, size_t cap, const char *sum, const char *caveat,
                            const char *why)
{
    snprintf(buf, cap, "group peak: %s; %s; no cgroup of its own because %s", sum, caveat, why);
}
