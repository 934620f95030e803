/* The one rule for text that reaches a terminal (the report's item
 * labels, the command's messages): which bytes are valid UTF-8. */
#ifndef SPACRBENCH_UTIL_UTF8_H
#define SPACRBENCH_UTIL_UTF8_H

#include <stddef.h>

/* Length of the valid UTF-8 sequence at p (1..4), or 0 when the byte at
 * p does not start one (a stray continuation byte, an overlong form, a
 * surrogate, a sequence cut short by the NUL that ends the string, or a
 * byte no UTF-8 text holds). p points into a NUL-terminated string. */
size_t sb_utf8_length(const unsigned char *p);

/* Whether the valid sequence of n bytes at p is a C1 control
 * (U+0080..U+009F; U+009B is CSI to a terminal). */
int sb_utf8_is_c1(const unsigned char *p, size_t n);

/* The columns a terminal gives the valid sequence of n bytes at p: 2 for
 * East Asian wide and fullwidth characters and emoji, 0 for combining
 * marks and zero-width characters, else 1. */
int sb_utf8_columns(const unsigned char *p, size_t n);
/* The columns of the first `bytes` bytes of s (a byte that is not UTF-8
 * counts one). */
size_t sb_utf8_width(const char *s, size_t bytes);

#endif
