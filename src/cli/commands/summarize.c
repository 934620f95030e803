/* `spacrbench summarize DIR [--job JOB_SCRIPT] [--json]`: what the tasks of
 * a job script really used against what they asked for, and the ONE
 * command line that reruns the tasks that need it. The reading, the rule
 * and the rendering are the library's (spacrbench_summarize, which
 * Python's spacrbench.summarize calls too): no Python needed. Exit 0
 * when every task is ok, 3 when some task needs a resubmission, 1 when
 * nothing can be read, 2 for bad arguments. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_options.h"
#include "commands.h"
#include "spacrbench.h"

#define SUMMARIZE_USAGE "usage: spacrbench summarize DIR [--job JOB_SCRIPT] [--json]"

static int usage(const char *why)
{
    fprintf(stderr, "spacrbench: summarize: %s\n%s\n", why, SUMMARIZE_USAGE);
    return CLI_EXIT_USAGE;
}

int summarize_main(int argc, char **argv)
{
    const char *dir = NULL, *job = NULL;
    int json = 0, options_done = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!options_done && (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)) {
            printf("%s\n", SUMMARIZE_USAGE);
            return CLI_EXIT_OK;
        }
        if (!options_done && strcmp(a, "--") == 0)
            options_done = 1;
        else if (!options_done && strcmp(a, "--json") == 0)
            json = 1;
        else if (!options_done && strcmp(a, "--job") == 0) {
            if (i + 1 >= argc || !*argv[i + 1])
                return usage("--job needs the job script");
            job = argv[++i];
        } else if (!options_done && strncmp(a, "--job=", 6) == 0) {
            if (!a[6])
                return usage("--job needs the job script");
            job = a + 6;
        } else if (!options_done && a[0] == '-' && a[1])
            return usage("unknown option");
        else if (dir)
            return usage("one directory only");
        else
            dir = a;
    }
    if (!dir)
        return usage("the directory of the task reports is missing");
    spacrbench_summary *s = NULL;
    if (spacrbench_summarize(dir, job, &s) != 0) {
        fprintf(stderr, "spacrbench: summarize: %s\n", spacrbench_last_error_message());
        return CLI_EXIT_ERROR;
    }
    int n = json ? spacrbench_summary_json(s, NULL, 0) : spacrbench_summary_text(s, NULL, 0);
    char *text = n >= 0 ? malloc((size_t)n + 2) : NULL;
    int status = spacrbench_summary_status(s);
    int ok = text && (json ? spacrbench_summary_json(s, text, (size_t)n + 1)
                           : spacrbench_summary_text(s, text, (size_t)n + 1)) == n;
    if (ok && json)
        text[n++] = '\n';
    ok = ok && fwrite(text, 1, (size_t)n, stdout) == (size_t)n && fflush(stdout) == 0;
    free(text);
    spacrbench_summary_free(s);
    if (!ok) {
        fprintf(stderr, "spacrbench: summarize: cannot write the summary to stdout\n");
        return CLI_EXIT_ERROR;
    }
    return status == 3 ? CLI_EXIT_STOPPED : CLI_EXIT_OK;
}
