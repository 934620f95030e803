/* What one array task runs, in the model (model.h). The job script is the
 * real one and runs under bash for a sampled task of a submission; the
 * `spacrbench` it execs is this program, which records the command line
 * the script built and the item the script handed to --items
 * (model_task_capture). Every task's `spacrbench run ...` is then played
 * here (model_task_run): its options parsed by the command's own parser
 * (cli_args_parse, item_list_load), the item's end decided by the plan
 * (the cluster's truth: an OOM kill, a SIGTERM, its own exit, the item
 * --timeout it was given), and the report written by the command's own
 * code (slurm_env_describe, task_record_describe, cli_json_document,
 * cli_write_file_atomic): what summarize reads is what `run --report`
 * writes. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "model.h"

int model_task_capture(int argc, char **argv)
{
    const char *out = getenv("SBMODEL_CAPTURE");
    mtext t = {0};
    mt_printf(&t, "%s", "");
    const char *items = NULL;
    for (int i = 1; i < argc; i++) {
        mt_printf(&t, "%s", argv[i]);
        t.n++; /* keep the NUL: one argument each */
        mt_printf(&t, "%s", "");
        if (strcmp(argv[i], "--items") == 0 && i + 1 < argc)
            items = argv[i + 1];
    }
    t.n++; /* an empty argument ends them; the variables the script exported follow */
    mt_printf(&t, "%s", "");
    static const char *const vars[] = {"SPACRBENCH_ARRAY_KEY", "SPACRBENCH_TIME_LIMIT_MINUTES"};
    for (size_t v = 0; v < sizeof vars / sizeof vars[0]; v++) {
        const char *value = getenv(vars[v]);
        mt_printf(&t, "%s=%s", vars[v], value ? value : "");
        t.n++;
        mt_printf(&t, "%s", "");
    }
    t.n++; /* then the item list */
    mt_printf(&t, "%s", "");
    char *list = items ? model_read_file(items, NULL) : NULL;
    if (list)
        mt_printf(&t, "%s", list);
    free(list);
    model_write_file(out, t.s, t.n);
    mt_free(&t);
    return 0;
}

void capture_free(capture *c)
{
    model_words_free(c->argv, c->argc);
    free(c->key);
    free(c->time_var);
    free(c->items);
    free(c->log);
    memset(c, 0, sizeof *c);
}

int model_run_script(const char *script, const char *log, const char *capture_file, capture *c)
{
    memset(c, 0, sizeof *c);
    unlink(capture_file);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        abort();
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (fd < 0 || null < 0)
            _exit(120);
        dup2(null, 0);
        dup2(fd, 1);
        dup2(fd, 2);
        setenv("SBMODEL_CAPTURE", capture_file, 1);
        execl("/bin/bash", "bash", script, (char *)NULL);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    c->log = model_read_file(log, NULL);
    size_t len = 0;
    char *cap = model_read_file(capture_file, &len);
    if (!cap) /* the script stopped before the exec */
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
    c->ran = 1;
    size_t at = 0, cap_args = 8;
    c->argv = model_alloc(cap_args * sizeof *c->argv); /* argv[0] is "run" */
    while (at < len && cap[at]) {
        if (c->argc + 1 >= cap_args) {
            cap_args *= 2;
            c->argv = realloc(c->argv, cap_args * sizeof *c->argv);
            if (!c->argv)
                abort();
        }
        c->argv[c->argc++] = model_strdup(cap + at);
        at += strlen(cap + at) + 1;
    }
    at++;
    while (at < len && cap[at]) { /* the exported variables */
        const char *v = cap + at;
        if (strncmp(v, "SPACRBENCH_ARRAY_KEY=", 21) == 0)
            c->key = model_strdup(v + 21);
        else if (strncmp(v, "SPACRBENCH_TIME_LIMIT_MINUTES=", 30) == 0)
            c->time_var = model_strdup(v + 30);
        at += strlen(v) + 1;
    }
    at++;
    c->items = model_strdup(at < len ? cap + at : "");
    free(cap);
    return 0;
}

typedef struct describe_arg {
    const cli_args *a;
    const task_end *end;
} describe_arg;

static void describe(json_writer *w, const void *arg, const spacrbench_measurement *m)
{
    (void)m;
    const describe_arg *d = arg;
    json_begin_array(w, "command");
    for (size_t i = 0; i < d->a->cmd_len; i++)
        json_string(w, NULL, d->a->cmd[i]);
    json_end_array(w);
    slurm_env_describe(w);
    task_record_describe(w, d->end);
}

/* How the item ends, by the plan and the --timeout it was given. */
static void item_end(const task_plan *p, double timeout, task_end *e, double *seconds)
{
    double at = p->fate == FATE_RUN ? p->runtime : p->at;
    if (timeout > 0 && timeout < at) { /* spacrbench's --timeout first */
        e->failed = 1;
        e->timed_out = 1;
        e->timeout_seconds = timeout;
        e->wait_status = SIGKILL;
        e->failed_seconds = timeout;
        e->failed_peak = p->need_mib << 20;
        *seconds = timeout;
        return;
    }
    *seconds = at;
    switch (p->fate) {
    case FATE_OOM:
        e->failed = 1;
        e->oom_killed = 1;
        e->oom_limit_bytes = p->limit_mib << 20;
        e->wait_status = SIGKILL;
        e->failed_peak = p->limit_mib << 20;
        break;
    case FATE_OOM9:
        e->failed = 1;
        e->wait_status = SIGKILL;
        e->failed_peak = p->limit_mib << 20;
        break;
    case FATE_TERM:
        e->failed = 1;
        e->wait_status = SIGTERM;
        e->interrupted_by = SIGTERM;
        e->failed_peak = p->need_mib << 20;
        break;
    case FATE_RUN:
        if (p->not_started) {
            e->failed = 1;
            e->exec_errno = ENOENT;
        } else if (p->crash_signal) {
            e->failed = 1;
            e->wait_status = p->crash_signal;
            e->failed_peak = p->need_mib << 20;
        } else if (p->exit_status) {
            e->failed = 1;
            e->wait_status = p->exit_status << 8;
            e->failed_peak = p->need_mib << 20;
        }
        break;
    }
    e->failed_seconds = at;
}

spacrbench_measurement *model_measurement_begin(int64_t items)
{
    spacrbench_run_plan plan;
    spacrbench_run_plan_init(&plan, sizeof plan);
    plan.items = items;
    plan.peak_method = SPACRBENCH_PEAK_CGROUP;
    plan.records = 1;
    spacrbench_measurement *m = NULL;
    if (spacrbench_measurement_begin(&plan, &m) != 0)
        abort();
    return m;
}

static spacrbench_measurement *measurement_of(const task_plan *p, const task_end *e, double seconds)
{
    spacrbench_measurement *m = model_measurement_begin(1);
    if (!e->failed) {
        spacrbench_item_figures it;
        spacrbench_item_figures_init(&it, sizeof it);
        it.seconds = seconds;
        it.cpu_seconds = seconds * 0.9;
        it.peak_rss_bytes = p->need_mib << 20;
        if (spacrbench_measurement_add_item(m, &it) != 0)
            abort();
    } else {
        if (e->oom_killed && spacrbench_measurement_mark_out_of_memory(m, e->oom_limit_bytes) != 0)
            abort();
        int result = e->exec_errno                 ? 127
                     : WIFSIGNALED(e->wait_status) ? -WTERMSIG(e->wait_status)
                                                   : WEXITSTATUS(e->wait_status);
        spacrbench_measurement_mark_stopped(m, 0, result);
    }
    if (spacrbench_measurement_end(m) != 0)
        abort();
    return m;
}

static const char *outcome_word(const task_end *e)
{
    if (!e->failed)
        return e->interrupted_by ? "interrupted" : "ok";
    return e->exec_errno                 ? "not_started"
           : e->timed_out                ? "timeout"
           : e->oom_killed               ? "oom"
           : WIFSIGNALED(e->wait_status) ? "signal"
                                         : "exit";
}

/* cli_args_parse with its stderr sent to fd (restored after). */
static int parse_quietly(int fd, int argc, char **argv, double *timeout)
{
    fflush(stderr);
    int saved = dup(2);
    if (saved < 0)
        abort();
    dup2(fd, 2);
    cli_args a;
    cli_args_init(&a, CLI_MODE_RUN);
    int rc = cli_args_parse(&a, argc, argv);
    *timeout = rc == CLI_EXIT_OK && !a.done ? a.timeout_s : -1;
    cli_args_free(&a);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    return rc;
}

double model_task_timeout(int argc, char **argv, char *why, size_t cap)
{
    static int null = -1;
    if (null < 0 && (null = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
        abort();
    double timeout;
    why[0] = '\0';
    if (parse_quietly(null, argc, argv, &timeout) == CLI_EXIT_OK)
        return timeout;
    /* Refused: once more, to keep what the parser said. */
    FILE *err = tmpfile();
    if (!err)
        abort();
    parse_quietly(fileno(err), argc, argv, &timeout);
    rewind(err);
    size_t n = fread(why, 1, cap - 1, err);
    why[n] = '\0';
    fclose(err);
    return -1;
}

void model_task_run(int argc, char **argv, const task_plan *plan, const char *log, task_result *out)
{
    memset(out, 0, sizeof *out);
    fflush(stdout);
    fflush(stderr);
    int saved_out = dup(1), saved_err = dup(2);
    int fd = open(log, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0 || saved_out < 0 || saved_err < 0)
        abort();
    dup2(fd, 1);
    dup2(fd, 2);
    close(fd);
    off_t before = lseek(1, 0, SEEK_END);
    cli_args a;
    cli_args_init(&a, CLI_MODE_RUN);
    item_list items = {0};
    int rc = cli_args_parse(&a, argc, argv);
    if (rc == CLI_EXIT_OK)
        rc = item_list_load(&a, &items);
    if (rc == CLI_EXIT_OK && items.n == 1 && a.common.report_path) {
        out->parsed = 1;
        out->item_timeout = a.timeout_s;
        task_end e = {0};
        e.items = 1;
        e.item = items.items[0];
        e.oom_limit_bytes = -1;
        e.failed_peak = -1;
        double seconds = 0;
        item_end(plan, a.timeout_s, &e, &seconds);
        e.completed = e.failed ? 0 : 1;
        spacrbench_measurement *m = measurement_of(plan, &e, seconds);
        e.elapsed_seconds = seconds;
        describe_arg d = {&a, &e};
        cli_context ctx = {.mode = "run",
                           .item_labels = (const char *const *)items.items,
                           .n_labels = e.failed ? 0 : 1,
                           .describe = describe,
                           .describe_arg = &d};
        char *doc = cli_json_document(m, NULL, NULL, NULL, "(the model's task)", &ctx);
        if (doc && cli_write_file_atomic("--report", a.common.report_path, doc, strlen(doc)) == 0)
            out->reported = 1;
        if (doc && a.common.json)
            fputs(doc, stdout);
        free(doc);
        snprintf(out->outcome, sizeof out->outcome, "%s", outcome_word(&e));
        spacrbench_measurement_free(m);
    }
    item_list_free(&items);
    cli_args_free(&a);
    fflush(stdout);
    fflush(stderr);
    if (!out->parsed) {
        /* What the command said on stderr (its usage error), from the log. */
        off_t after = lseek(1, 0, SEEK_END);
        size_t n = after > before ? (size_t)(after - before) : 0;
        if (n >= sizeof out->parse_error)
            n = sizeof out->parse_error - 1;
        ssize_t got = n ? pread(1, out->parse_error, n, before) : 0;
        out->parse_error[got > 0 ? got : 0] = '\0';
        if (!out->parse_error[0])
            snprintf(out->parse_error, sizeof out->parse_error, "(exit %d, nothing said)", rc);
    }
    dup2(saved_out, 1);
    dup2(saved_err, 2);
    close(saved_out);
    close(saved_err);
}
