/* --plot through the Python helper (see cli.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "supervisor.h"
#include "util.h"

/* What a refusal says: before the run a usage error (exit 2, where the
 * help is), when drawing an error (exit 1). */
static int refuse(int before_run, const char *fmt, ...) CLI_PRINTF(2, 3);
static int refuse(int before_run, const char *fmt, ...)
{
    char what[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return before_run ? cli_usage_error(NULL, "%s", what) : cli_error(CLI_EXIT_ERROR, "%s", what);
}

/* 0 when python has the spacrbench package (found: find_spec does not
 * run it) and a matplotlib that imports (an installed but broken one would
 * fail only after the run), else an exit code after the message. */
static int check_python(const char *python, int stdout_is_output, int before_run)
{
    char *const argv[] = {(char *)python, "-c",
                          "import importlib.util as u, sys\n"
                          "if not u.find_spec('spacrbench'): sys.exit(4)\n"
                          "try:\n"
                          "    import matplotlib.figure\n"
                          "except Exception as e:\n"
                          "    print('matplotlib:', type(e).__name__, e, file=sys.stderr)\n"
                          "    sys.exit(5)\n",
                          NULL};
    /* Its exit status (a signal as 128 + N), -1 when it could not be
     * started (errno set); its stdout goes to stderr when stdout carries
     * spacrbench's JSON. */
    fflush(NULL);
    int st = sb_child_run(argv, stdout_is_output);
    if (st == 0)
        return 0;
    if (st < 0)
        return refuse(before_run,
                      "--plot needs Python 3: '%s' cannot be run (%s); install python3 or set "
                      "SPACRBENCH_PYTHON to one with spacrbench[plot]",
                      python, strerror(errno));
    if (st == 4 || st == 5)
        return refuse(before_run,
                      "--plot needs %s in '%s'%s; install it:\n"
                      "  " CLI_PLOT_INSTALL "\n"
                      "  or name a Python that has it in SPACRBENCH_PYTHON",
                      st == 4 ? "the spacrbench package" : "matplotlib", python,
                      st == 4 ? "" : " (missing, or it does not import: above)");
    return refuse(before_run, "--plot: '%s' does not run Python 3 (exit %d)", python, st);
}

static const char *plot_python(void)
{
    const char *python = getenv("SPACRBENCH_PYTHON");
    return python && *python ? python : "python3";
}

int run_plot_ready(void)
{
    return check_python(plot_python(), 0, 1) != 0 ? CLI_EXIT_USAGE : CLI_EXIT_OK;
}

int run_plot_document(const char *json, const char *path, int stdout_is_output)
{
    const char *python = plot_python();
    if (check_python(python, stdout_is_output, 0) != 0)
        return CLI_EXIT_ERROR;
    /* The JSON in a private temporary file. */
    const char *dir = getenv("TMPDIR");
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s/spacrbench-scale-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = json ? mkstemp(tmp) : -1;
    int ok = fd >= 0 && sb_write_all(fd, json, strlen(json)) == 0;
    if (fd >= 0 && close(fd) != 0)
        ok = 0;
    if (!ok) {
        cli_error(CLI_EXIT_ERROR, "--plot: cannot write the scaling JSON to %s: %s", tmp,
                  json ? strerror(errno) : "out of memory");
        if (fd >= 0)
            unlink(tmp);
        return CLI_EXIT_ERROR;
    }
    char *const argv[] = {(char *)python, "-m", "spacrbench._plot_cli", tmp, (char *)path, NULL};
    fflush(NULL);
    int st = sb_child_run(argv, stdout_is_output);
    unlink(tmp);
    if (st == 0)
        return CLI_EXIT_OK;
    /* 3: the helper already said that matplotlib is missing. */
    if (st != 3)
        cli_error(CLI_EXIT_ERROR, "--plot: %s -m spacrbench._plot_cli failed (%s %d)", python,
                  st < 0 ? "cannot start:" : "exit", st < 0 ? errno : st);
    return CLI_EXIT_ERROR;
}

static int scale_json_into(char *buf, size_t cap, const void *r)
{
    return spacrbench_scale_to_json(r, buf, cap);
}

int run_plot(const spacrbench_scale_result *r, const char *path, int stdout_is_output)
{
    sb_text t = {0};
    char *json = sb_text_append(&t, scale_json_into, r) >= 0 ? sb_text_take(&t) : NULL;
    sb_text_free(&t);
    int rc = run_plot_document(json, path, stdout_is_output);
    free(json);
    return rc;
}
