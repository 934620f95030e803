/* sb_heap_release (proc.h): hand the allocator's free memory back to the
 * system. glibc keeps freed blocks: after a large block is freed it raises
 * its mmap threshold, so the next blocks of that size come from the heap
 * and stay resident once freed; the next item (or the next benchmark in
 * the same process) then reuses them without its RSS growing, and its
 * footprint above the baseline reads as 0. malloc_trim(0) returns the
 * free pages (the heap's top and, since glibc 2.8, whole free pages inside
 * it), so what an item touches is counted as a fresh worker would need it.
 * Other C libraries (musl, macOS, Windows' UCRT) return large blocks when
 * they are freed: nothing to do there. */
#include "proc.h" /* first: its <stdint.h> says whether this is glibc */

#if defined(__GLIBC__)
#include <malloc.h>
#endif

int sb_heap_release(void)
{
#if defined(__GLIBC__)
    return malloc_trim(0);
#else
    return 0;
#endif
}
