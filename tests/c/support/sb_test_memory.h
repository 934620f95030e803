/* Test helpers that use real memory: allocations whose pages are touched,
 * so they count in RSS. */
#ifndef SB_TEST_MEMORY_H
#define SB_TEST_MEMORY_H

#include <stddef.h>

#define SB_MIB ((size_t)1024 * 1024)

/* Map and touch n bytes (every page written), return the mapping. */
void *sb_test_touch_alloc(size_t n);
/* Unmap what sb_test_touch_alloc returned, giving the pages back at once. */
void sb_test_touch_free(void *p, size_t n);

#endif
