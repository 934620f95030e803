/* mmap/munmap rather than malloc/free: the pages leave RSS the moment they
 * are unmapped, so a "spike" is as short as the test makes it. */
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sb_test_memory.h"

void *sb_test_touch_alloc(size_t n)
{
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        abort();
    long page = sysconf(_SC_PAGESIZE);
    volatile unsigned char *bytes = p;
    for (size_t i = 0; i < n; i += (size_t)page)
        bytes[i] = (unsigned char)(i >> 12);
    return p;
}

void sb_test_touch_free(void *p, size_t n) { munmap(p, n); }
