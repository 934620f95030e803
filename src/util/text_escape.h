/* The one escaping of text that reaches a terminal, for the library (the
 * report's item labels, summarize's lines) and the command (notes, stderr
 * lines, the command line of a failure, progress lines): an item is
 * arbitrary bytes chosen by whoever wrote the items file, and shown raw, a
 * newline forges a report line and ESC drives the terminal. \n, \t, \r as
 * themselves escaped; other C0 control bytes and DEL as \xNN; the C1
 * controls U+0080..U+009F (UTF-8 \xc2\x80..\xc2\x9f: U+009B is CSI) and
 * every byte that is not part of valid UTF-8 (a lone 0x9b is CSI to an
 * 8-bit terminal) as \xNN per byte; everything else (valid UTF-8)
 * unchanged. JSON documents keep the raw text, JSON-escaped. */
#ifndef SPACRBENCH_UTIL_TEXT_ESCAPE_H
#define SPACRBENCH_UTIL_TEXT_ESCAPE_H

#include <stddef.h>

#include "text_buffer.h"

/* Bytes the escaped form of text needs, NUL excluded. */
size_t sb_escaped_length(const char *text);

/* Write the escaped form of text at out (room for sb_escaped_length + 1);
 * returns a pointer to the terminating NUL. */
char *sb_escape_into(char *out, const char *text);

/* The escaped form of text, malloc'd; NULL when out of memory. */
char *sb_escape_text(const char *text);

/* The escaped form of text, at most about max bytes: when longer, its start
 * and its end around "...", then its length in bytes ("abc...xyz (1200
 * bytes)"), never cutting a character or an escape. malloc'd; NULL when
 * out of memory. */
char *sb_escape_short(const char *text, size_t max);

/* Append text escaped (NULL: nothing), so a label stays on one line and
 * emits no terminal escapes. */
void sb_text_label(sb_text *t, const char *text);

#endif
