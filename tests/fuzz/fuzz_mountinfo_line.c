/* sb_parse_mountinfo_line and sb_unescape_mount_path. */
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    sb_mount m;
    int rc = sb_parse_mountinfo_line(text, size, &m);
    FUZZ_REQUIRE(rc == SB_PARSE_OK || rc == SB_PARSE_BAD);
    if (rc == SB_PARSE_OK) {
        FUZZ_REQUIRE_STRING(m.root);
        FUZZ_REQUIRE_STRING(m.point);
        FUZZ_REQUIRE_STRING(m.fstype);
        FUZZ_REQUIRE_STRING(m.super_opts);
        FUZZ_REQUIRE(m.point[0] == '/');
    }
    char out[64];
    rc = sb_unescape_mount_path(text, size, out, sizeof out);
    FUZZ_REQUIRE(rc == SB_PARSE_OK || rc == SB_PARSE_BAD);
    /* Unescaping never lengthens a path. */
    if (rc == SB_PARSE_OK)
        FUZZ_REQUIRE(strlen(out) <= size);
    return 0;
}
