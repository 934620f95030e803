/* See slurm_options.h. */
#include "slurm_options.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli_options.h"

static int has_control(const char *text)
{
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return 1;
    return 0;
}

int cli_slurm_option(cli_slurm *s, int which, const char *name, const char *value)
{
    if (!s->first_given)
        s->first_given = which == 'o'   ? "--slurm-output"
                         : which == 'j' ? "--job-name"
                         : which == 's' ? "--sbatch"
                         : which == 'l' ? "--array-limit"
                                        : "--slurm-from-path";
    if (which == 'p') {
        s->from_path = 1;
        return CLI_EXIT_OK;
    }
    if (!value || !*value || has_control(value))
        return cli_usage_error(name, "needs a non-empty value on one line");
    switch (which) {
    case 'o':
        s->output_dir = value;
        break;
    case 'l': {
        char *end = NULL;
        errno = 0;
        long long n = strtoll(value, &end, 10);
        if (errno || *end || n < 1 || n > 1000000 || *value == '+' || *value == ' ')
            return cli_usage_error(name,
                                   "expected the most tasks to run at once on the whole "
                                   "cluster, 1 to 1000000, got '%s'",
                                   value);
        s->array_limit = n;
        break;
    }
    case 'j':
        if (strpbrk(value, " \t'\"\\"))
            return cli_usage_error(name, "no whitespace, quotes or backslash, got '%s'", value);
        s->job_name = value;
        break;
    default: /* 's': "--partition=short", with or without its "#SBATCH " */
        if (strncmp(value, "#SBATCH", 7) == 0)
            value += 7 + strspn(value + 7, " \t");
        if (*value != '-')
            return cli_usage_error(name,
                                   "expected an sbatch option such as --partition=short, "
                                   "got '%s'",
                                   value);
        if (strncmp(value, "--array", 7) == 0 || strncmp(value, "-a", 2) == 0)
            return cli_usage_error(name,
                                   "'%s': the script sets --array from the items (one task "
                                   "per item); to run at most N tasks at once give "
                                   "--array-limit N",
                                   value);
        s->sbatch[s->n_sbatch++] = value;
        break;
    }
    return CLI_EXIT_OK;
}

int cli_slurm_check(const cli_slurm *s, int emit_slurm, const char *items_file)
{
    if (s->first_given && !emit_slurm)
        return cli_usage_error(s->first_given, "shapes the job script: needs --emit slurm");
    if (!emit_slurm)
        return CLI_EXIT_OK;
    if (!items_file || strcmp(items_file, "-") == 0)
        return cli_usage_error("--emit slurm",
                               "the job script needs the items in a file (--items FILE): each "
                               "array task reads its item from it");
    return CLI_EXIT_OK;
}
