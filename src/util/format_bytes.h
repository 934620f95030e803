/* A size as every front end writes it: "512 B", "12.3 MiB", "1.50 GiB";
 * "not measured" for a negative one. */
#ifndef SPACRBENCH_UTIL_FORMAT_BYTES_H
#define SPACRBENCH_UTIL_FORMAT_BYTES_H

#include <stddef.h>
#include <stdint.h>

void sb_format_bytes(char *buf, size_t cap, int64_t bytes);

#endif
