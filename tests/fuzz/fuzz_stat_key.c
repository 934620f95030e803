/* sb_parse_stat_key: memory.stat lookups. */
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int64_t v = 0;
    FUZZ_REQUIRE_RESULT(sb_parse_stat_key((const char *)data, size, "inactive_file", &v));
    FUZZ_REQUIRE_RESULT(sb_parse_stat_key((const char *)data, size, "total_inactive_file", &v));
    return 0;
}
