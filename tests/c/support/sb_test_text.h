/* The report as a test reads a sentence in it: each line the library
 * wrapped at 79 columns (util.h) joined again. */
#ifndef SB_TEST_TEXT_H
#define SB_TEST_TEXT_H

#include <stddef.h>

/* text with every line break followed by the 22 spaces of the value
 * column (and not more: a table's own indentation stays) made one space;
 * malloc'd, NULL when out of memory. */
char *sb_test_unwrap(const char *text);

/* Columns of the n bytes at p (UTF-8 characters). */
size_t sb_test_columns(const char *p, size_t n);

/* The first line of text wider than width columns that starts with none
 * of the prefixes in allowed (NULL-terminated, or NULL), its length in
 * *len; NULL when every line fits. */
const char *sb_test_wide_line(const char *text, size_t width, const char *const *allowed,
                              size_t *len);

#endif
