/* The parsers of option values: numbers, byte sizes, durations, WxH, start
 * methods, worker-count lists. Each returns 0 or -1; the option table's
 * handlers word the error. */
#ifndef SPACRBENCH_CLI_VALUES_H
#define SPACRBENCH_CLI_VALUES_H

#include <stddef.h>
#include <stdint.h>

/* spacrbench_parse_size's rule ("2G", "512M", "1.5GiB", "4GB" = 4e9). 0 or
 * -1 (the library's last error message says why). */
int cli_parse_bytes(const char *text, int64_t *out);
/* A whole number in [min, max]. 0 or -1. */
int cli_parse_int(const char *text, int64_t min, int64_t max, int64_t *out);
/* The longest --timeout, in seconds (about 115 days), and as text. */
#define CLI_DURATION_MAX      1e7
#define CLI_DURATION_MAX_TEXT "10000000"

/* sb_parse_duration's forms ("10", "1.5", "90s", "1h30m", "1:30:00",
 * "2-00:00:00"): seconds > 0, at most CLI_DURATION_MAX. 0 or -1. */
int cli_parse_duration(const char *text, double *seconds);
/* "10ms", "0.5ms", "250us", "1s", "1.5" (seconds): a sampling period in
 * whole microseconds from 1 to max_us. 0 or -1. */
int cli_parse_interval(const char *text, int64_t max_us, int64_t *us);
/* "2048x1024". 0 or -1. */
int cli_parse_size(const char *text, int64_t *width, int64_t *height);

/* "fork", "spawn" or "forkserver" (spacrbench_start_method). 0 or -1. */
int cli_parse_start_method(const char *text, int32_t *out);
/* "1,2,4": at most cap distinct whole numbers from 1 to max. Returns how
 * many, or -1 with why ("expected ...") filled in. */
int cli_parse_count_list(const char *text, int64_t max, int64_t *out, size_t cap, char *why,
                         size_t why_cap);

#endif
