/* sb_parse_cpu_max: v2 cpu.max "QUOTA PERIOD". */
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int64_t quota = 0, period = 0;
    int rc = sb_parse_cpu_max((const char *)data, size, &quota, &period);
    FUZZ_REQUIRE(rc == SB_PARSE_OK || rc == SB_PARSE_BAD);
    if (rc == SB_PARSE_OK)
        FUZZ_REQUIRE((quota == SB_UNLIMITED || quota > 0) && period > 0);
    return 0;
}
