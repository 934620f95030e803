/* Size-versioned structs: accept older (smaller) callers, reject newer
 * (larger) ones that set fields this library does not know. */
#include <string.h>

#include "internal.h"

/* How much a struct may grow in later versions: far more than any will. */
#define SB_STRUCT_GROWTH_MAX ((size_t)64 * 1024)

/* The caller's struct's size field into *theirs, refused when too small to
 * be one or so much larger than ours that it is a bad size, not a newer
 * library's struct (read no further than the caller's memory). */
static int size_of(const void *s, size_t our_size, const char *name, size_t *theirs)
{
    memcpy(theirs, s, sizeof *theirs);
    if (*theirs < sizeof(size_t))
        return sb_fail(SPACRBENCH_EINVAL, "%s.size is %zu; set it to sizeof(%s)", name, *theirs,
                       name);
    if (*theirs > our_size + SB_STRUCT_GROWTH_MAX)
        return sb_fail(SPACRBENCH_EINVAL,
                       "%s.size is %zu; this library's is %zu, so that size "
                       "cannot be a %s (set it to sizeof(%s))",
                       name, *theirs, our_size, name, name);
    return SPACRBENCH_OK;
}

int sb_struct_in(void *ours, size_t our_size, const void *src, const char *name)
{
    size_t theirs;
    int rc = size_of(src, our_size, name, &theirs);
    if (rc)
        return rc;
    if (theirs > our_size) {
        const unsigned char *tail = (const unsigned char *)src + our_size;
        for (size_t i = 0; i < theirs - our_size; i++)
            if (tail[i] != 0)
                return sb_fail(SPACRBENCH_EUNKNOWN_FIELDS,
                               "%s.size is %zu but this library (%s) knows %zu bytes, and "
                               "byte %zu beyond them is set",
                               name, theirs, SPACRBENCH_VERSION_STRING, our_size, our_size + i);
    }
    size_t n = theirs < our_size ? theirs : our_size;
    /* Keep our own size field: it describes the struct we now hold. */
    memcpy((unsigned char *)ours + sizeof(size_t), (const unsigned char *)src + sizeof(size_t),
           n - sizeof(size_t));
    return SPACRBENCH_OK;
}

int sb_struct_in_versions(void *ours, size_t our_size, const void *src, const char *name,
                          const size_t *older, size_t n)
{
    size_t theirs;
    memcpy(&theirs, src, sizeof theirs);
    int known = theirs >= our_size;
    for (size_t i = 0; i < n && !known; i++)
        known = theirs == older[i];
    if (!known)
        return sb_fail(SPACRBENCH_EINVAL,
                       "%s.size is %zu, which cuts through a field: no version of %s has "
                       "that size (set it to sizeof(%s))",
                       name, theirs, name, name);
    return sb_struct_in(ours, our_size, src, name);
}

int sb_struct_init(void *dst, size_t size, const void *defaults, size_t default_size,
                   const char *arg, const char *name)
{
    if (!dst)
        return sb_fail(SPACRBENCH_EINVAL, "%s must not be NULL", arg);
    if (size < sizeof(size_t))
        return sb_fail(SPACRBENCH_EINVAL, "size %zu is too small for %s", size, name);
    memset(dst, 0, size);
    memcpy(dst, defaults, size < default_size ? size : default_size);
    memcpy(dst, &size, sizeof size);
    return SPACRBENCH_OK;
}

int sb_struct_out(void *dst, const void *ours, size_t our_size, const char *name)
{
    size_t theirs;
    int rc = size_of(dst, our_size, name, &theirs);
    if (rc)
        return rc;
    size_t n = theirs < our_size ? theirs : our_size;
    memcpy((unsigned char *)dst + sizeof(size_t), (const unsigned char *)ours + sizeof(size_t),
           n - sizeof(size_t));
    if (theirs > our_size)
        memset((unsigned char *)dst + our_size, 0, theirs - our_size);
    return SPACRBENCH_OK;
}

int sb_recommendation_in(spacrbench_recommendation *r, const spacrbench_recommendation *rec)
{
    /* Fields an older, shorter struct lacks read as "absent", not 0. */
    memset(r, 0, sizeof *r);
    r->size = sizeof *r;
    r->memory_limit_bytes = r->per_worker_bytes = r->memory_workers = -1;
    r->per_worker_vram_bytes = r->free_vram_bytes = r->vram_workers = -1;
    r->cpu_parallelism = -1.0;
    r->cores_per_worker = r->threads_per_worker = 1;
    int rc = sb_struct_in(r, sizeof *r, rec, "spacrbench_recommendation");
    if (rc)
        return rc;
    r->reason[sizeof r->reason - 1] = '\0';
    r->memory_where[sizeof r->memory_where - 1] = '\0';
    r->cores_where[sizeof r->cores_where - 1] = '\0';
    if (r->core_workers < 1)
        r->core_workers = r->cores > 0 ? r->cores : 1;
    return SPACRBENCH_OK;
}
