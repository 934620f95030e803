/* Test helpers that use real memory: allocations whose pages are touched,
 * so they count in RSS. */
#ifndef SB_TEST_MEMORY_H
#define SB_TEST_MEMORY_H

#include <stddef.h>

#define SB_MIB ((size_t)1024 * 1024)

/* ThreadSanitizer maps shadow memory for every page the program touches,
 * so RSS grows by several times an allocation: upper bounds on a measured
 * footprint allow for it. */
#if defined(__SANITIZE_THREAD__)
#define SB_TEST_RSS_OVERHEAD_PERCENT 400
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SB_TEST_RSS_OVERHEAD_PERCENT 400
#endif
#endif
#ifndef SB_TEST_RSS_OVERHEAD_PERCENT
#define SB_TEST_RSS_OVERHEAD_PERCENT 20
#endif

/* Map and touch n bytes (every page written), return the mapping. */
void *sb_test_touch_alloc(size_t n);
/* Unmap what sb_test_touch_alloc returned, giving the pages back at once. */
void sb_test_touch_free(void *p, size_t n);

#endif
