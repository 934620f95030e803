/* The generic option handlers; see cli_option.h. Each stores into the
 * cli_args field its entry names and words its error once. */
#include <stdio.h>
#include <string.h>

#include "cli_args.h"
#include "cli_help.h"

static void *field_of(cli_args *a, const cli_option *o) { return (char *)a + o->field; }

int cli_opt_flag(cli_args *a, const cli_option *o, const char *name, const char *value)
{
    (void)name, (void)value;
    *(int *)field_of(a, o) = 1;
    return CLI_EXIT_OK;
}

int cli_opt_int(cli_args *a, const cli_option *o, const char *name, const char *value)
{
    if (cli_parse_int(value, o->min, o->max, field_of(a, o)) != 0)
        return cli_usage_error(name, "expected a whole number from %lld to %lld, got '%s'",
                               (long long)o->min, (long long)o->max, value);
    return CLI_EXIT_OK;
}

int cli_opt_bytes(cli_args *a, const cli_option *o, const char *name, const char *value)
{
    if (cli_parse_bytes(value, field_of(a, o)) != 0)
        /* The parser's message quotes the value and says what is wrong. */
        return cli_usage_error(name, "%s", spacrbench_last_error_message());
    return CLI_EXIT_OK;
}

int cli_opt_string(cli_args *a, const cli_option *o, const char *name, const char *value)
{
    if (*value == '\0')
        return cli_usage_error(name, "needs a non-empty value");
    *(const char **)field_of(a, o) = value;
    return CLI_EXIT_OK;
}

int cli_opt_interval(cli_args *a, const cli_option *o, const char *name, const char *value)
{
    if (cli_parse_interval(value, o->max, field_of(a, o)) != 0)
        return cli_usage_error(name,
                               "expected a period from 1us to %llds such as 10ms, 500us or "
                               "0.5s, got '%s'",
                               (long long)(o->max / 1000000), value);
    return CLI_EXIT_OK;
}

int cli_opt_help(cli_args *a, const cli_option *o, const char *name, const char *value)
{
    (void)o, (void)name, (void)value;
    cli_print_help(stdout, a->command);
    a->done = 1;
    return CLI_EXIT_OK;
}

int cli_opt_version(cli_args *a, const cli_option *o, const char *name, const char *value)
{
    (void)o, (void)name, (void)value;
    cli_print_version(stdout);
    a->done = 1;
    return CLI_EXIT_OK;
}
