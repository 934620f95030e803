/* sb_parse_int64: control files holding one number (usage, cfs quota). */
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int64_t v = 0;
    int rc = sb_parse_int64((const char *)data, size, &v);
    FUZZ_REQUIRE_RESULT(rc);
    FUZZ_REQUIRE(rc == SB_PARSE_OK || rc == SB_PARSE_BAD);
    return 0;
}
