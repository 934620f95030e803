/* The growing array; see grow.h. */
#include "util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int sb_grow(void *arrayp, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    /* A count no allocation could hold (SIZE_MAX items, say) must fail, not
     * wrap around to a small buffer. */
    if (need > SIZE_MAX / 2 / elem)
        return -1;
    size_t want = *cap ? *cap : 16;
    while (want < need)
        want *= 2;
    void *data;
    /* Copied, not cast: the pointer is a T *, never a void *. */
    memcpy(&data, arrayp, sizeof data);
    void *grown = realloc(data, want * elem);
    if (!grown)
        return -1;
    memcpy(arrayp, &grown, sizeof grown);
    *cap = want;
    return 0;
}
