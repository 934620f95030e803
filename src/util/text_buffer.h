/* The one growing text buffer, shared by the library and the command: an
 * always NUL-terminated string that printf-style appends and snprintf-style
 * formatters write into directly. A formatter is called once when its text
 * fits the room left, and a second time only after the buffer grew. */
#ifndef SPACRBENCH_TEXT_BUFFER_H
#define SPACRBENCH_TEXT_BUFFER_H

#include <stdarg.h>
#include <stddef.h>

#if defined(__MINGW32__)
#define SB_TEXT_PRINTF(f, a) __attribute__((format(gnu_printf, f, a)))
#elif defined(__GNUC__)
#define SB_TEXT_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define SB_TEXT_PRINTF(f, a)
#endif

typedef struct sb_text {
    char *data;
    size_t len;
    size_t cap;
    int failed; /* set on allocation failure; further appends are ignored */
} sb_text;

void sb_text_printf(sb_text *t, const char *fmt, ...) SB_TEXT_PRINTF(2, 3);
void sb_text_vprintf(sb_text *t, const char *fmt, va_list ap) SB_TEXT_PRINTF(2, 0);

/* An snprintf-style formatter: writes at most cap bytes (NUL included) into
 * buf and returns the full length, or a negative code. */
typedef int (*sb_text_formatter)(char *buf, size_t cap, const void *arg);

/* Append what format(arg) writes. Returns its length, or -1 (t->failed
 * set) when it failed or memory ran out. */
int sb_text_append(sb_text *t, sb_text_formatter format, const void *arg);

/* Room for need more bytes, so that formatters of up to that length are
 * called once. 0 or -1 (t->failed set). */
int sb_text_reserve(sb_text *t, size_t need);
/* Empty again, keeping the memory (for the next text of the same size). */
void sb_text_clear(sb_text *t);

/* A fresh string printed by fmt (the caller frees it), NULL when memory
 * ran out. */
char *sb_textf(const char *fmt, ...) SB_TEXT_PRINTF(1, 2);

/* The text, handed over (the caller frees it; "" when empty), or NULL if
 * anything failed; t is empty afterwards either way. */
char *sb_text_take(sb_text *t);
void sb_text_free(sb_text *t);

#endif
