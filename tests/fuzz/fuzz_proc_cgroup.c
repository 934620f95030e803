/* sb_parse_proc_cgroup_v1 / _v2: /proc/self/cgroup. */
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[256];
    const char *text = (const char *)data;
    static const char *const controllers[] = {"memory", "cpu", "cpuset", "name=systemd"};
    for (size_t i = 0; i < sizeof controllers / sizeof controllers[0]; i++) {
        int rc = sb_parse_proc_cgroup_v1(text, size, controllers[i], path, sizeof path);
        FUZZ_REQUIRE_RESULT(rc);
        if (rc == SB_PARSE_OK)
            FUZZ_REQUIRE(path[0] == '/' && memchr(path, '\0', sizeof path) != NULL);
    }
    int rc = sb_parse_proc_cgroup_v2(text, size, path, sizeof path);
    FUZZ_REQUIRE_RESULT(rc);
    if (rc == SB_PARSE_OK)
        FUZZ_REQUIRE(path[0] == '/' && memchr(path, '\0', sizeof path) != NULL);
    return 0;
}
