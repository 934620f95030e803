/* Parsing of numbers, sizes and the shared options; see cli_options.h. */
#include "cli_options.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cli_common_init(cli_common *c)
{
    memset(c, 0, sizeof *c);
    spacrbench_recommend_options_init(&c->rec, sizeof c->rec);
}

/* Length of the run of decimal digits at text. */
static size_t digits_at(const char *text)
{
    size_t n = 0;
    while (text[n] >= '0' && text[n] <= '9')
        n++;
    return n;
}

/* Plain decimal digits only: strtoll alone would take " 4", "+4" and
 * "-0", which no documented form allows. */
int cli_parse_int(const char *text, int64_t min, int64_t max, int64_t *out)
{
    if (text == NULL || *text == '\0' || text[digits_at(text)] != '\0')
        return -1;
    char *end = NULL;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno != 0 || *end != '\0' || v < min || v > max)
        return -1;
    *out = (int64_t)v;
    return 0;
}

/* Digits with an optional fraction ("1.5"), then a documented suffix:
 * strtod alone would also take hex ("0x10"), exponents ("1e3"), "inf". */
int cli_parse_bytes(const char *text, int64_t *out)
{
    if (text == NULL)
        return -1;
    size_t len = digits_at(text);
    if (len == 0)
        return -1;
    if (text[len] == '.') {
        size_t fraction = digits_at(text + len + 1);
        if (fraction == 0)
            return -1;
        len += 1 + fraction;
    }
    char number[64];
    if (len >= sizeof number)
        return -1;
    memcpy(number, text, len);
    number[len] = '\0';
    errno = 0;
    double v = strtod(number, NULL);
    if (errno != 0 || !isfinite(v) || v < 0)
        return -1;
    double unit = 1;
    const char *s = text + len;
    switch (*s) {
    case 'k': case 'K': unit = 1024.0; s++; break;
    case 'm': case 'M': unit = 1024.0 * 1024; s++; break;
    case 'g': case 'G': unit = 1024.0 * 1024 * 1024; s++; break;
    case 't': case 'T': unit = 1024.0 * 1024 * 1024 * 1024; s++; break;
    default: break;
    }
    if (unit > 1 && *s == 'i')
        s++;
    if (*s == 'B' || *s == 'b')
        s++;
    if (*s != '\0')
        return -1;
    double bytes = ceil(v * unit);
    if (bytes >= 9.2e18)
        return -1;
    *out = (int64_t)bytes;
    return 0;
}

int cli_parse_size(const char *text, int64_t *width, int64_t *height)
{
    const char *x = text ? strchr(text, 'x') : NULL;
    if (x == NULL || x == text)
        return -1;
    char w[32];
    size_t n = (size_t)(x - text);
    if (n >= sizeof w)
        return -1;
    memcpy(w, text, n);
    w[n] = '\0';
    return cli_parse_int(w, 1, INT32_MAX, width) == 0 && cli_parse_int(x + 1, 1, INT32_MAX, height) == 0
               ? 0
               : -1;
}

int cli_usage_error(const char *option, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "spacrbench: %s: ", option);
    vfprintf(stderr, fmt, ap);
    fputs("\n(see spacrbench --help)\n", stderr);
    va_end(ap);
    return CLI_EXIT_USAGE;
}

int cli_is_option(const char *arg, const char *name)
{
    size_t n = strlen(name);
    return strncmp(arg, name, n) == 0 && (arg[n] == '\0' || arg[n] == '=');
}

const char *cli_option_value(int argc, char **argv, int *i, const char *name)
{
    const char *eq = strchr(argv[*i], '=');
    if (eq != NULL)
        return eq + 1;
    if (*i + 1 >= argc) {
        cli_usage_error(name, "needs a value");
        return NULL;
    }
    return argv[++*i];
}

int cli_parse_common(int argc, char **argv, int *i, cli_common *c)
{
    const char *arg = argv[*i];
    const char *v;
    if (strcmp(arg, "--json") == 0) {
        c->json = 1;
        return 1;
    }
    if (strcmp(arg, "--quiet") == 0 || strcmp(arg, "-q") == 0) {
        c->quiet = 1;
        return 1;
    }
    if (cli_is_option(arg, "--cores")) {
        if ((v = cli_option_value(argc, argv, i, "--cores")) == NULL)
            return -CLI_EXIT_USAGE;
        if (cli_parse_int(v, 1, INT32_MAX, &c->rec.cores) != 0)
            return -cli_usage_error("--cores", "expected a whole number >= 1, got '%s'", v);
        return 1;
    }
    if (cli_is_option(arg, "--maximum")) {
        if ((v = cli_option_value(argc, argv, i, "--maximum")) == NULL)
            return -CLI_EXIT_USAGE;
        if (cli_parse_int(v, 1, INT32_MAX, &c->rec.maximum) != 0)
            return -cli_usage_error("--maximum", "expected a whole number >= 1, got '%s'", v);
        return 1;
    }
    if (cli_is_option(arg, "--reserve")) {
        if ((v = cli_option_value(argc, argv, i, "--reserve")) == NULL)
            return -CLI_EXIT_USAGE;
        if (cli_parse_bytes(v, &c->rec.reserve_bytes) != 0)
            return -cli_usage_error("--reserve",
                                    "expected bytes such as 2G, 512M or 1048576, got '%s'", v);
        return 1;
    }
    if (cli_is_option(arg, "--report")) {
        if ((v = cli_option_value(argc, argv, i, "--report")) == NULL)
            return -CLI_EXIT_USAGE;
        if (*v == '\0')
            return -cli_usage_error("--report", "needs a file name");
        c->report_path = v;
        return 1;
    }
    if (cli_is_option(arg, "--emit")) {
        if ((v = cli_option_value(argc, argv, i, "--emit")) == NULL)
            return -CLI_EXIT_USAGE;
        if (strcmp(v, "slurm") == 0)
            c->emit = CLI_EMIT_SLURM;
        else if (strcmp(v, "dask") == 0)
            c->emit = CLI_EMIT_DASK;
        else
            return -cli_usage_error("--emit", "expected 'slurm' or 'dask', got '%s'", v);
        return 1;
    }
    return 0;
}
