/* Items are arbitrary bytes chosen by whoever wrote the items file: shown
 * raw, a newline forges a report line and ESC drives the terminal. Every
 * place the command prints an item (notes, stderr lines, the command line
 * of a failure, progress lines) shows it through this one rule: \n, \t,
 * \r; other C0 control bytes and DEL as \xNN; the C1 controls U+0080..U+009F
 * (UTF-8 \xc2\x80..\xc2\x9f: U+009B is CSI to a terminal) and every byte
 * that is not part of valid UTF-8 (a raw 0x9b is CSI to an 8-bit terminal)
 * as \xNN per byte; everything else (valid UTF-8) unchanged. The JSON
 * document keeps the raw item, JSON-escaped. */
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

/* The escaped form of text, at most about max bytes: when longer, its start
 * and its end around "...", then its length in bytes ("abc...xyz (1200
 * bytes)"), never cutting a character or an escape. malloc'd; NULL when
 * out of memory. */
char *cli_escape_short(const char *text, size_t max);

#endif
