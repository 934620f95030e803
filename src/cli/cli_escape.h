/* Items are arbitrary bytes chosen by whoever wrote the items file: shown
 * raw, a newline forges a report line and ESC drives the terminal. Every
 * place the command prints an item (notes, stderr lines, the command line
 * of a failure) shows it through this one rule, the library's label rule:
 * \n, \t, \r, other control bytes and DEL as \xNN; everything else (UTF-8
 * included) unchanged. The JSON document keeps the raw item, JSON-escaped. */
#ifndef SPACRBENCH_CLI_ESCAPE_H
#define SPACRBENCH_CLI_ESCAPE_H

#include <stddef.h>

/* Bytes the escaped form of text needs, NUL excluded. */
size_t cli_escaped_length(const char *text);

/* Write the escaped form of text at out (room for cli_escaped_length + 1);
 * returns a pointer to the terminating NUL. */
char *cli_escape_into(char *out, const char *text);

/* The escaped form of text, malloc'd; NULL when out of memory. */
char *cli_escape_label(const char *text);

#endif
