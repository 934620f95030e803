/* sb_parse_memory_limit: memory.max, memory.high, limit_in_bytes. */
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int64_t v = 0;
    int rc = sb_parse_memory_limit((const char *)data, size, &v);
    FUZZ_REQUIRE(rc == SB_PARSE_OK || rc == SB_PARSE_BAD);
    /* A limit is "none" or a real size below the v1 sentinel. */
    if (rc == SB_PARSE_OK)
        FUZZ_REQUIRE(v == SB_UNLIMITED || (v >= 0 && v < SB_V1_UNLIMITED_FLOOR));
    return 0;
}
