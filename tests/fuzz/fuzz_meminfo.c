/* sb_parse_meminfo: /proc/meminfo. */
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int64_t bytes = -1;
    int rc = sb_parse_meminfo((const char *)data, size, "MemAvailable", &bytes);
    FUZZ_REQUIRE_RESULT(rc);
    if (rc == SB_PARSE_OK)
        FUZZ_REQUIRE(bytes >= 0);
    return 0;
}
