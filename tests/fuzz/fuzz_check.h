/* Shared by the fuzz targets: an invariant that must hold whatever the
 * input; a violation crashes so libFuzzer records the input. */
#ifndef SPACRBENCH_FUZZ_CHECK_H
#define SPACRBENCH_FUZZ_CHECK_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define FUZZ_REQUIRE(cond)                                                                         \
    do {                                                                                           \
        if (!(cond))                                                                               \
            abort();                                                                               \
    } while (0)

/* Every parser answers one of the documented results. */
#define FUZZ_REQUIRE_RESULT(rc) FUZZ_REQUIRE((rc) >= SB_PARSE_BAD && (rc) <= SB_PARSE_NOT_VISIBLE)

/* A parsed path is NUL-terminated within its buffer. */
#define FUZZ_REQUIRE_STRING(buf) FUZZ_REQUIRE(memchr((buf), '\0', sizeof(buf)) != NULL)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
