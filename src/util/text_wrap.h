/* A report line that fits a terminal: wrapped at spaces to a width, the
 * rest indented under the value column. The report, the item lines and the
 * command's own lines share it. */
#ifndef SPACRBENCH_UTIL_TEXT_WRAP_H
#define SPACRBENCH_UTIL_TEXT_WRAP_H

#include <stddef.h>

#include "text_buffer.h"

/* Columns a report line holds, and where its value column starts. */
#define SB_WRAP_WIDTH  79
#define SB_WRAP_INDENT 22

/* Append line (no line break in it) to t: as it is when it fits width
 * columns (UTF-8 characters), else broken at spaces into lines of at most
 * width, every one after the first starting with indent spaces. The first
 * keep bytes are never broken (upstream's words: a line that must start
 * with them whole). A detail in parentheses that then fits the second line
 * whole starts it; else each line is filled. A word longer than a line
 * stands alone on its line. No line break after the last line. */
void sb_text_wrapped(sb_text *t, const char *line, size_t keep, size_t width, size_t indent);

#endif
