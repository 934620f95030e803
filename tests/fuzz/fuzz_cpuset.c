/* sb_parse_cpuset: "0-3,8,10-11". */
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int64_t count = -1;
    int rc = sb_parse_cpuset((const char *)data, size, &count);
    FUZZ_REQUIRE(rc == SB_PARSE_OK || rc == SB_PARSE_BAD);
    if (rc == SB_PARSE_OK)
        FUZZ_REQUIRE(count >= 0 && count <= SB_MAX_CPUS);
    return 0;
}
