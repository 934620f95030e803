/* The one growing array: room for need elements, the capacity doubling so
 * that appends stay amortised O(1), with the size overflow checked here. */
#ifndef SPACRBENCH_GROW_H
#define SPACRBENCH_GROW_H

#include <stddef.h>

/* arrayp is the address of the array's pointer (any element type), *cap its
 * capacity in elements. 0, or -1 (nothing changed) when need * elem could
 * not be held or memory ran out. */
int sb_grow(void *arrayp, size_t *cap, size_t need, size_t elem);

#endif
