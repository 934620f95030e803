/* sb_locate_cgroup over a whole mountinfo text. The first line of the
 * input, when it starts with '/', is the cgroup path to map; the first
 * byte's low bit picks v1 (memory) or v2. */
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    char path[256] = "/";
    const char *nl = size ? memchr(text, '\n', size) : NULL;
    size_t first = nl ? (size_t)(nl - text) : 0;
    if (first > 0 && first < sizeof path && text[0] == '/' && memchr(text, '\0', first) == NULL) {
        memcpy(path, text, first);
        path[first] = '\0';
    }
    sb_cgroup_query q = {size && (data[0] & 1) ? 1 : 2, "memory", path};
    sb_cgroup_location loc;
    int rc = sb_locate_cgroup(text, size, &q, &loc);
    FUZZ_REQUIRE_RESULT(rc);
    if (rc == SB_PARSE_OK) {
        FUZZ_REQUIRE_STRING(loc.dir);
        FUZZ_REQUIRE_STRING(loc.mount_point);
        /* The directory lies at or below the mount point. */
        FUZZ_REQUIRE(strncmp(loc.dir, loc.mount_point, strlen(loc.mount_point)) == 0);
    }
    return 0;
}
