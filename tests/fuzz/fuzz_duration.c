/* sb_parse_duration and sb_parse_slurm_time: durations people write
 * (--timeout, SLURM's --time). A duration parsed is a number >= 0. */
#include <math.h>

#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    double seconds = -1;
    int rc = sb_parse_duration((const char *)data, size, &seconds);
    FUZZ_REQUIRE(rc == SB_PARSE_OK || rc == SB_PARSE_BAD);
    FUZZ_REQUIRE(rc != SB_PARSE_OK || (isfinite(seconds) && seconds >= 0));
    int64_t whole = -1;
    rc = sb_parse_slurm_time((const char *)data, size, &whole);
    FUZZ_REQUIRE(rc == SB_PARSE_OK || rc == SB_PARSE_BAD);
    FUZZ_REQUIRE(rc != SB_PARSE_OK || whole >= 0);
    return 0;
}
