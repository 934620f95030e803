/* A byte size as people write it, the one rule of the command's size
 * options, spacrbench_parse_size and Python's reserve_bytes="4G":
 *   digits with an optional fraction ("1.5"), then an optional unit:
 *   K M G T P E alone, with "i" or with "iB": powers of 1024 (SLURM's --mem,
 *   the command so far); with "B": powers of 1000 (Dask's parse_bytes);
 *   "B" alone or nothing: bytes. Letters in either case ("4gb" = "4GB").
 * Bounded (at most SB_SIZE_TEXT_MAX bytes read), no blanks, signs, hex or
 * exponents; a fraction rounds up to whole bytes. Pure: no allocation, no
 * global state. */
#ifndef SPACRBENCH_PARSE_SIZE_H
#define SPACRBENCH_PARSE_SIZE_H

#include <stdint.h>

#define SB_SIZE_TEXT_MAX 64

/* NULL with *bytes set, or what is wrong (a static sentence that does not
 * quote the text), *bytes untouched. */
const char *sb_parse_size_text(const char *text, int64_t *bytes);

#endif
