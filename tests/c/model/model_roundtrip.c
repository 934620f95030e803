/* Every value the project writes for a task reads back through the
 * project's own parser (model.h): the job script is emitted by the library
 * with an item --timeout (fractions, the smallest and the largest the
 * parser takes, values --timeout 1.5m or 0.1h give, random ones), an
 * --sbatch --time in each form sbatch takes, --no-cgroup or not; bash runs
 * it for a task; what it hands spacrbench (every option, the exported
 * key and --time, the item) is parsed by the command's parser
 * (cli_args_parse, item_list_load) and must be what was written. Then the
 * task's report goes through summarize, and the line summarize prints for
 * the item --timeout is run as printed: its SPACRBENCH_ITEM_TIMEOUT must
 * pass the script's own check and read back as twice the timeout, its
 * --time agree with the SPACRBENCH_TIME_LIMIT_MINUTES it exports. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model.h"
#include "spacrbench.h"
#include "util.h"

typedef struct trip {
    const model_options *o;
    char dir[512], items[600], script[600], capture[600], log[600];
    char *why;
    size_t cap;
    int checked;
} trip;

static int bad(trip *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(trip *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->why, t->cap, fmt, ap);
    va_end(ap);
    return -1;
}

static const char *const k_command[] = {"python3", "seg ment.py", "--in={}", "it's"};

static int emit(trip *t, double timeout, int no_cgroup, const char *directive)
{
    spacrbench_figures f = {.size = sizeof f};
    f.items = 2;
    f.seconds = f.cpu_seconds = 2;
    f.peak_rss_bytes = INT64_C(300) << 20;
    f.peak_vram_bytes = SPACRBENCH_NOT_MEASURED;
    f.peak_method = SPACRBENCH_PEAK_CGROUP;
    f.stopped_item = -1;
    spacrbench_measurement *m = NULL;
    if (spacrbench_measurement_create(&f, &m) != 0)
        abort();
    spacrbench_schedule s = {.size = sizeof s};
    s.cpus_per_task = s.array_concurrency = s.n_workers = s.threads_per_worker = 1;
    s.mem_per_task_bytes = s.memory_limit_bytes = INT64_C(600) << 20;
    spacrbench_slurm_job j;
    spacrbench_slurm_job_init(&j, sizeof j);
    const char *dirs[] = {directive};
    j.items_file = t->items;
    j.n_items = 2;
    j.output_dir = t->dir;
    j.command = k_command;
    j.command_len = 4;
    j.spacrbench = t->o->self;
    j.directives = dirs;
    j.n_directives = directive ? 1 : 0;
    spacrbench_slurm_tasks k;
    spacrbench_slurm_tasks_init(&k, sizeof k);
    k.item_timeout_seconds = timeout;
    k.no_cgroup = no_cgroup;
    int rc = spacrbench_slurm_write_array(m, &s, &j, &k);
    spacrbench_measurement_free(m);
    return rc == 0 ? 0
                   : bad(t, "emit (--timeout %.17g): %s", timeout, spacrbench_last_error_message());
}

static void clear_dir(const trip *t)
{
    model_remove_tree(t->dir);
    mkdir(t->dir, 0700);
}

/* The job's minutes and key, from its manifest. */
static int manifest(trip *t, int64_t *minutes, char key[17])
{
    char path[700];
    snprintf(path, sizeof path, "%s/spacrbench-array.json", t->dir);
    char *text = model_read_file(path, NULL);
    const char *m = text ? strstr(text, "\"time_minutes\": ") : NULL;
    const char *k = text ? strstr(text, "\"array_key\": \"") : NULL;
    if (!m || !k) {
        free(text);
        return bad(t, "the manifest has no time or key");
    }
    *minutes = strtoll(m + 16, NULL, 10);
    snprintf(key, 17, "%.16s", k + 14);
    free(text);
    return 0;
}

/* Task 1 of the array under bash; what it handed spacrbench. */
static int run_task_1(trip *t, const char *item_timeout_export, const char *time_export, capture *c)
{
    setenv("SLURM_JOB_ID", "5001", 1);
    setenv("SLURM_ARRAY_JOB_ID", "5000", 1);
    setenv("SLURM_ARRAY_TASK_ID", "1", 1);
    setenv("SLURM_MEM_PER_NODE", "600", 1);
    setenv("SLURM_CPUS_PER_TASK", "1", 1);
    unsetenv("SPACRBENCH_ARRAY_KEY");
    if (item_timeout_export)
        setenv("SPACRBENCH_ITEM_TIMEOUT", item_timeout_export, 1);
    else
        unsetenv("SPACRBENCH_ITEM_TIMEOUT");
    if (time_export)
        setenv("SPACRBENCH_TIME_LIMIT_MINUTES", time_export, 1);
    else
        unsetenv("SPACRBENCH_TIME_LIMIT_MINUTES");
    unlink(t->log);
    int rc = model_run_script(t->script, t->log, t->capture, c);
    unsetenv("SPACRBENCH_ITEM_TIMEOUT");
    if (!c->ran)
        return bad(t, "the script stopped (exit %d): %s", rc, c->log ? c->log : "");
    return 0;
}

/* Every option the script passed, read back by the command's parser. */
static int check_options(trip *t, const capture *c, double want_timeout, int no_cgroup,
                         int64_t minutes, const char *key)
{
    char perr[512];
    double got = model_task_timeout((int)c->argc, c->argv, perr, sizeof perr);
    if (got < 0)
        return bad(t, "the command's parser refuses the script's --timeout for %.17g: %s",
                   want_timeout, perr);
    if (fabs(got - want_timeout) > 1e-9)
        return bad(t, "--timeout %.17g was written, %.17g reads back", want_timeout, got);
    char report[700];
    snprintf(report, sizeof report, "%s/task-1.json", t->dir);
    int json = 0, has_report = 0, cgroup = 0;
    size_t dashes = 0;
    for (size_t i = 1; i < c->argc && !dashes; i++) {
        json |= strcmp(c->argv[i], "--json") == 0;
        cgroup |= strcmp(c->argv[i], "--no-cgroup") == 0;
        has_report |= i + 1 < c->argc && strcmp(c->argv[i], "--report") == 0 &&
                      strcmp(c->argv[i + 1], report) == 0;
        if (strcmp(c->argv[i], "--") == 0)
            dashes = i;
    }
    if (!json || !has_report || cgroup != no_cgroup || !dashes || c->argc - dashes - 1 != 4)
        return bad(t,
                   "the options (--json, --report, --no-cgroup %d, the command) are not "
                   "what was written",
                   no_cgroup);
    for (size_t i = 0; i < 4; i++)
        if (strcmp(c->argv[dashes + 1 + i], k_command[i]) != 0)
            return bad(t, "command word %zu is '%s', not '%s'", i, c->argv[dashes + 1 + i],
                       k_command[i]);
    if (strcmp(c->items, "it's\n") != 0)
        return bad(t, "the item reached --items as '%s'", c->items);
    char m[32];
    snprintf(m, sizeof m, "%" PRId64, minutes);
    if (!c->key || strcmp(c->key, key) != 0 || !c->time_var || strcmp(c->time_var, m) != 0)
        return bad(t, "the key %s and --time %s exported are not the script's %s and %s",
                   c->key ? c->key : "-", c->time_var ? c->time_var : "-", key, m);
    t->checked++;
    return 0;
}

/* The report of a task whose item outran its --timeout, then summarize's
 * line for it; that line run as printed. */
static int check_offer(trip *t, const capture *c, double timeout)
{
    setenv("SPACRBENCH_ARRAY_KEY", c->key, 1);
    setenv("SPACRBENCH_TIME_LIMIT_MINUTES", c->time_var, 1);
    char item[700];
    snprintf(item, sizeof item, "%s/item", t->dir);
    model_write_file(item, "it's\n", 5);
    char **argv = model_alloc((c->argc + 1) * sizeof *argv);
    for (size_t i = 0; i < c->argc; i++)
        argv[i] = i > 0 && strcmp(c->argv[i - 1], "--items") == 0 ? item : c->argv[i];
    task_plan p = {FATE_RUN, 10, 4 * timeout, 4 * timeout, 0, 0, 0, 0};
    task_result r;
    model_task_run((int)c->argc, argv, &p, t->log, &r);
    free(argv);
    unlink(item);
    if (!r.reported || strcmp(r.outcome, "timeout") != 0)
        return bad(t, "the report says %s, not the item timeout", r.outcome);
    spacrbench_summary *s = NULL;
    if (spacrbench_summarize(t->dir, NULL, &s) != 0)
        return bad(t, "summarize: %s", spacrbench_last_error_message());
    int n = spacrbench_summary_json(s, NULL, 0);
    char *doc_text = model_alloc((size_t)n + 1);
    spacrbench_summary_json(s, doc_text, (size_t)n + 1);
    spacrbench_summary_free(s);
    json_doc doc;
    int rc = json_parse(&doc, doc_text, (size_t)n, NULL);
    const json_node *needs = rc == 0 ? json_get(&doc, json_root(&doc), "needs_you") : NULL;
    const json_node *g = needs ? json_child(&doc, needs, 0) : NULL;
    const json_node *cmds = g ? json_get(&doc, g, "commands") : NULL;
    const json_node *line = cmds ? json_child(&doc, cmds, 0) : NULL;
    char **words = NULL;
    size_t n_words = 0;
    char why[256];
    if (!line || model_shell_words(line->text, &words, &n_words, why, sizeof why) != 0) {
        json_doc_free(&doc);
        free(doc_text);
        return bad(t, "no item --timeout line that runs as printed");
    }
    char *export = NULL, *minutes = NULL;
    int64_t time = -1;
    for (size_t i = 0; i < n_words; i++) {
        if (strncmp(words[i], "--time=", 7) == 0)
            time = model_time_minutes(words[i] + 7);
        char *e = strstr(words[i], "SPACRBENCH_ITEM_TIMEOUT=");
        char *m = strstr(words[i], "SPACRBENCH_TIME_LIMIT_MINUTES=");
        if (strncmp(words[i], "--export=", 9) == 0 && e)
            export = strndup(e + 24, strcspn(e + 24, ","));
        if (strncmp(words[i], "--export=", 9) == 0 && m)
            minutes = strndup(m + 30, strcspn(m + 30, ","));
    }
    model_words_free(words, n_words);
    json_doc_free(&doc);
    free(doc_text);
    char m[32];
    snprintf(m, sizeof m, "%" PRId64, time);
    rc = 0;
    if (!export || !minutes || strcmp(minutes, m) != 0)
        rc = bad(t, "the line's --time (%" PRId64 " min) and its exports (%s, %s) disagree", time,
                 minutes ? minutes : "-", export ? export : "-");
    capture again = {0};
    if (rc == 0)
        rc = run_task_1(t, export, minutes, &again);
    char perr[512];
    double got = rc == 0 ? model_task_timeout((int)again.argc, again.argv, perr, sizeof perr) : 0;
    double want = 2 * timeout <= 1e7 ? 2 * timeout : 0;
    if (rc == 0 && (got < 0 || fabs(got - want) > 2e-9))
        rc = bad(t, "SPACRBENCH_ITEM_TIMEOUT=%s (twice %.17g) reads back as %.17g%s%s", export,
                 timeout, got, got < 0 ? ": " : "", got < 0 ? perr : "");
    if (rc == 0 && (!again.time_var || strcmp(again.time_var, minutes) != 0))
        rc = bad(t, "the resubmission's tasks record --time %s, the line asks %s",
                 again.time_var ? again.time_var : "-", minutes);
    if (rc == 0)
        t->checked++;
    capture_free(&again);
    free(export);
    free(minutes);
    unsetenv("SPACRBENCH_ARRAY_KEY");
    unsetenv("SPACRBENCH_TIME_LIMIT_MINUTES");
    return rc;
}

int model_round_trip(const model_options *o, int *checked, char *why, size_t cap)
{
    trip t = {.o = o, .why = why, .cap = cap};
    snprintf(t.dir, sizeof t.dir, "%s/sb-roundtrip-%ld", o->tmp, (long)getpid());
    snprintf(t.items, sizeof t.items, "%s.items", t.dir);
    snprintf(t.script, sizeof t.script, "%s/spacrbench-job.sh", t.dir);
    snprintf(t.capture, sizeof t.capture, "%s.capture", t.dir);
    snprintf(t.log, sizeof t.log, "%s/slurm-5000_1.out", t.dir);
    mkdir(t.dir, 0700);
    model_write_file(t.items, "a b\nit's\n", 9);
    /* What --timeout 1.5m, 0.1h, 2.5, 0.000000001 give, fractions the
     * parser's 9 digits cannot hold, both ends, random ones. */
    double values[64] = {0.1,      1.1,  0.3,         3.3,      10.2,
                         1e-9,     2e-9, 1e7,         1.5 * 60, 0.1 * 3600,
                         1.0 / 3,  2.5,  0.123456789, 86400.5,  9999999.999999999,
                         4999999.5};
    size_t n = 16;
    model_rng r = {UINT64_C(0x5eed)};
    while (n < sizeof values / sizeof values[0]) /* log-uniform in [1e-9, 1e7] */
        values[n++] = pow(10, -9 + 16 * model_unit(&r));
    static const char *const times[] = {"--time=90", "-t 1:30:00", "--time 0-1:30", "-t90",
                                        "--partition=short --time=01:30:00"};
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        clear_dir(&t);
        const char *directive = i % 3 == 0 ? times[(i / 3) % 5] : NULL;
        int no_cgroup = (int)(i % 2);
        int64_t minutes = 0;
        char key[17] = "";
        capture c = {0};
        rc = emit(&t, values[i], no_cgroup, directive);
        if (rc == 0)
            rc = manifest(&t, &minutes, key);
        if (rc == 0 && directive && minutes != 90)
            rc = bad(&t, "--sbatch '%s' gave the manifest %" PRId64 " minutes", directive, minutes);
        if (rc == 0)
            rc = run_task_1(&t, NULL, NULL, &c);
        if (rc == 0)
            rc = check_options(&t, &c, values[i], no_cgroup, minutes, key);
        if (rc == 0)
            rc = check_offer(&t, &c, values[i]);
        capture_free(&c);
    }
    model_remove_tree(t.dir);
    unlink(t.items);
    unlink(t.capture);
    *checked = t.checked;
    return rc;
}
