/* run --emit slurm's job script, prepared before any item runs, and the
 * run document's "task" and "job" members that summarize reads (cli.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "records.h"
#include "util.h"

/* SLURM's default MaxArraySize: indexes 0 to this - 1. */
#define CLI_SLURM_DEFAULT_MAX_ARRAY_SIZE 1001
#define CLI_SLURM_MANIFEST               "spacrbench-array.json"

/* mkdir -p, remembering which directories it made (prefix lengths of
 * path, outermost first) so a refusal afterwards can remove them again.
 * 0 or -1 (errno set). */
static int make_dirs(const char *path, size_t *made, size_t *n_made, size_t cap)
{
    char *copy = strdup(path);
    if (!copy)
        return -1;
    int rc = 0;
    *n_made = 0;
    for (char *p = copy + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char was = *p;
        *p = '\0';
        if (mkdir(copy, 0777) == 0) {
            if (*n_made < cap)
                made[(*n_made)++] = (size_t)(p - copy);
        } else if (errno != EEXIST) {
            rc = -1;
            break;
        }
        *p = was;
        if (was == '\0')
            break;
    }
    int e = errno;
    free(copy);
    errno = e;
    return rc;
}

/* Remove the directories make_dirs made, innermost first. */
static void unmake_dirs(const char *path, const size_t *made, size_t n_made)
{
    char *copy = strdup(path);
    for (size_t i = n_made; copy && i-- > 0;) {
        copy[made[i]] = '\0';
        rmdir(copy);
    }
    free(copy);
}

static char *own_path(void)
{
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        return NULL;
    buf[n] = '\0';
    return strdup(buf);
}

/* The absolute path dir will have once created, without creating
 * anything: the real path of its longest existing part (links resolved,
 * as realpath will resolve them afterwards), then the rest as given.
 * malloc'd; NULL with errno set when even that part cannot be resolved. */
static char *planned_path(const char *dir)
{
    char *whole = realpath(dir, NULL);
    if (whole || errno != ENOENT)
        return whole;
    size_t cut = strlen(dir);
    for (;;) {
        /* The part before the last '/' at or before cut. */
        while (cut > 0 && dir[cut - 1] != '/')
            cut--;
        size_t rest = cut;
        while (cut > 0 && dir[cut - 1] == '/')
            cut--;
        char *head = cut ? strndup(dir, cut) : strdup(dir[0] == '/' ? "/" : ".");
        if (!head)
            return NULL;
        char *real = realpath(head, NULL);
        int e = errno;
        free(head);
        if (real) {
            size_t a = strlen(real);
            char *out = sb_textf("%s%s%s", real, a && real[a - 1] == '/' ? "" : "/", dir + rest);
            free(real);
            return out;
        }
        if (e != ENOENT || cut == 0) {
            errno = e;
            return NULL;
        }
    }
}

/* The usage error for an output directory the script cannot name. */
static int bad_dir(const char *given, const char *absolute)
{
    char *shown = sb_escape_text(absolute);
    const char *s = shown ? shown : "?";
    int rc;
    if (!given)
        rc = cli_usage_error("--emit slurm",
                             "the default output directory '%s' (spacrbench-job in the "
                             "current directory) cannot be written in an #SBATCH --output "
                             "line, which takes no whitespace, quotes, %%, backslash or "
                             "control characters: give --slurm-output DIR with a path "
                             "without them",
                             s);
    else
        rc = cli_usage_error("--slurm-output",
                             "'%s' cannot be written in an #SBATCH --output line, which takes "
                             "no whitespace, quotes, %%, backslash or control characters "
                             "(the path is made absolute, links resolved)",
                             s);
    free(shown);
    return rc;
}

/* The library's check of the whole job (a dry run, cmd_run.c); its
 * refusal of the directory (which an #SBATCH --output line names) in the
 * command's own words. */
static int check_job(const char *given, cli_slurm_job *out)
{
    if (cli_slurm_check_job(&out->job, &out->tasks) >= 0)
        return CLI_EXIT_OK;
    const char *why = spacrbench_last_error_message();
    if (strncmp(why, "job.output_dir ", strlen("job.output_dir ")) == 0)
        return bad_dir(given, out->job.output_dir);
    return cli_usage_error("--emit slurm", "the job script cannot be written: %s", why);
}

/* The manifest's text when dir holds one that is a regular file of at
 * most 1 MiB, else NULL. */
static char *manifest_text(const char *dir, size_t *len)
{
    char path[PATH_MAX + sizeof "/" CLI_SLURM_MANIFEST];
    if (snprintf(path, sizeof path, "%s/%s", dir, CLI_SLURM_MANIFEST) >= (int)sizeof path)
        return NULL;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return NULL;
    struct stat st;
    char *text = NULL;
    int truncated;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= (1 << 20))
        sb_read_fd(fd, 1 << 20, &text, len, &truncated);
    close(fd);
    return text;
}

static int cli_slurm_job_check_dir(const spacrbench_slurm_job *job)
{
    size_t len = 0;
    char *text = manifest_text(job->output_dir, &len);
    if (!text)
        return CLI_EXIT_OK;
    json_doc doc;
    sb_manifest mf;
    int rc = CLI_EXIT_OK;
    if (sb_manifest_of(text, len, &doc, &mf) == 0) {
        if (mf.tasks >= 1 && mf.items_file &&
            (mf.tasks != job->n_items || strcmp(mf.items_file, job->items_file) != 0))
            rc = cli_error(CLI_EXIT_ERROR,
                           "--emit slurm: %s holds another job array's files (%lld task(s) over "
                           "%s; this run: %lld over %s), which that job's tasks read when they "
                           "start: nothing was run or written. Choose another output directory "
                           "(--slurm-output DIR), or remove spacrbench-items.idx, "
                           "spacrbench-job.sh and " CLI_SLURM_MANIFEST
                           " there once that job has finished",
                           job->output_dir, (long long)mf.tasks, mf.items_file,
                           (long long)job->n_items, job->items_file);
    }
    json_doc_free(&doc);
    free(text);
    return rc;
}

int cli_slurm_job_prepare(const cli_args *a, size_t n_items, cli_slurm_job *out)
{
    memset(out, 0, sizeof *out);
    const cli_slurm *s = &a->slurm;
    const char *dir = s->output_dir ? s->output_dir : "spacrbench-job";
    if (!(out->items_file = realpath(a->items_file, NULL)))
        return cli_usage_error("--items", "cannot resolve '%s': %s", a->items_file,
                               strerror(errno));
    if (!s->from_path && !(out->self = own_path()))
        return cli_error(CLI_EXIT_ERROR,
                         "--emit slurm: cannot find this program's own path (%s); use "
                         "--slurm-from-path",
                         strerror(errno));
    /* Everything the script needs is checked before anything is created
     * (and before any item runs): the directory's absolute path as it
     * will be, then the whole job as the library will check it. */
    char *planned = planned_path(dir);
    if (planned && strlen(planned) + sizeof "/" CLI_SLURM_MANIFEST ".tmp.4294967295" > PATH_MAX) {
        free(planned);
        planned = NULL;
        errno = ENAMETOOLONG;
    }
    if (!planned) /* a directory this user may not search, a path too long */
        return cli_usage_error(s->output_dir ? "--slurm-output" : "--emit slurm",
                               "cannot create '%s': %s", dir, strerror(errno));
    spacrbench_slurm_job *j = &out->job;
    spacrbench_slurm_job_init(j, sizeof *j);
    j->items_file = out->items_file;
    j->n_items = (int64_t)n_items;
    j->output_dir = planned;
    j->job_name = s->job_name;
    j->command = (const char *const *)a->cmd;
    j->command_len = a->cmd_len;
    j->spacrbench = out->self;
    j->directives = s->sbatch;
    j->n_directives = s->n_sbatch;
    spacrbench_slurm_tasks_init(&out->tasks, sizeof out->tasks);
    out->tasks.array_limit = s->array_limit;
    out->tasks.item_timeout_seconds = a->timeout_s;
    out->tasks.no_cgroup = a->no_cgroup ? 1 : 0;
    /* What the library would refuse after the run is refused now. */
    int rc = check_job(s->output_dir, out);
    if (rc != CLI_EXIT_OK) {
        free(planned);
        j->output_dir = NULL;
        return rc;
    }
    size_t made[PATH_MAX / 2], n_made = 0; /* every directory a PATH_MAX path can hold */
    if (make_dirs(dir, made, &n_made, sizeof made / sizeof made[0]) != 0 ||
        !(out->output_dir = realpath(dir, NULL))) {
        rc = cli_usage_error(s->output_dir ? "--slurm-output" : "--emit slurm",
                             "cannot create '%s': %s", dir, strerror(errno));
        unmake_dirs(dir, made, n_made);
        free(planned);
        j->output_dir = NULL;
        return rc;
    }
    /* The same path, unless ".." met a link on the way: checked again. */
    j->output_dir = out->output_dir;
    int same = strcmp(planned, out->output_dir) == 0;
    free(planned);
    if (!same && (rc = check_job(s->output_dir, out)) != CLI_EXIT_OK) {
        unmake_dirs(dir, made, n_made);
        return rc;
    }
    /* The array's files go there after the run: a directory that takes
     * no new file (another user's, a read-only mount) is refused now. */
    char probe[PATH_MAX + sizeof "/" CLI_SLURM_MANIFEST];
    snprintf(probe, sizeof probe, "%s/%s", out->output_dir, CLI_SLURM_MANIFEST);
    sb_atomic_file tmp;
    int denied = sb_atomic_open(&tmp, probe, 0600, 1) == 0 ? 0 : errno;
    sb_atomic_discard(&tmp);
    if (denied && denied != ENOMEM) {
        unmake_dirs(dir, made, n_made);
        return cli_usage_error(s->output_dir ? "--slurm-output" : "--emit slurm",
                               "no file can be created in %s: %s", out->output_dir,
                               strerror(denied));
    }
    if ((rc = cli_slurm_job_check_dir(j)) != CLI_EXIT_OK)
        return rc;
    if (n_items > CLI_SLURM_DEFAULT_MAX_ARRAY_SIZE &&
        (out->advice = sb_textf(
             "%zu items make --array=0-%zu, beyond SLURM's default MaxArraySize of %d "
             "(indexes 0-%d): sbatch refuses it unless slurm.conf sets MaxArraySize to at "
             "least %zu (see: scontrol show config | grep MaxArraySize); or split the items "
             "file into parts of at most %d lines (split -l %d FILE part-) and emit one "
             "script per part",
             n_items, n_items - 1, CLI_SLURM_DEFAULT_MAX_ARRAY_SIZE,
             CLI_SLURM_DEFAULT_MAX_ARRAY_SIZE - 1, n_items, CLI_SLURM_DEFAULT_MAX_ARRAY_SIZE,
             CLI_SLURM_DEFAULT_MAX_ARRAY_SIZE)))
        cli_notice("--emit slurm: warning: %s", out->advice);
    return CLI_EXIT_OK;
}

void cli_slurm_job_free(cli_slurm_job *j)
{
    free(j->items_file);
    free(j->output_dir);
    free(j->self);
    free(j->advice);
    memset(j, 0, sizeof *j);
}

void slurm_env_describe(json_writer *w)
{
    if (!getenv("SLURM_JOB_ID"))
        return;
    sb_job_env env = {getenv("SLURM_JOB_ID"), getenv("SLURM_ARRAY_JOB_ID"),
                      getenv("SLURM_ARRAY_TASK_ID"), getenv("SLURM_MEM_PER_NODE"),
                      getenv("SLURM_CPUS_PER_TASK")};
    const void *parts[] = {&env};
    sb_record_write(w, "job", &sb_job_env_record, parts, NULL); /* what is set */
}

/* A whole number from the environment, -1 when absent or not one. */
static long long env_count(const char *name)
{
    const char *v = getenv(name);
    if (!v || *v < '0' || *v > '9')
        return -1;
    char *end = NULL;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    return errno || *end ? -1 : n;
}

void task_record_describe(json_writer *w, const task_end *e)
{
    sb_task_record t;
    sb_task_record_init(&t);
    int signalled = e->failed && !e->exec_errno && WIFSIGNALED(e->wait_status);
    t.outcome = !e->failed      ? (e->interrupted_by ? SB_TASK_INTERRUPTED : SB_TASK_OK)
                : e->exec_errno ? SB_TASK_NOT_STARTED
                : e->timed_out  ? SB_TASK_TIMEOUT
                : e->oom_killed ? SB_TASK_OOM
                : signalled     ? SB_TASK_SIGNAL
                                : SB_TASK_EXIT;
    /* The status a shell would give: 127/126 for one that could not be
     * started (not found / not executable), -1 (null) for a signal. */
    t.exit_status = !e->failed                  ? 0
                    : e->exec_errno             ? (e->exec_errno == ENOENT ? 127 : 126)
                    : WIFEXITED(e->wait_status) ? WEXITSTATUS(e->wait_status)
                                                : -1;
    t.signal = signalled ? WTERMSIG(e->wait_status) : (e->interrupted_by ? e->interrupted_by : -1);
    if (e->failed && e->oom_killed)
        t.oom_limit_bytes = e->oom_limit_bytes;
    if (e->failed && e->timed_out)
        t.timeout_seconds = e->timeout_seconds;
    t.item_index = e->failed ? (long long)e->failed_index : -1;
    t.item = e->item;
    t.failed_item_peak_bytes = e->failed ? e->failed_peak : -1;
    t.items = (int64_t)e->items;
    t.completed = (int64_t)e->completed;
    t.elapsed_seconds = e->elapsed_seconds;
    t.array_job_id = getenv("SLURM_ARRAY_JOB_ID");
    t.array_task_id = env_count("SLURM_ARRAY_TASK_ID");
    t.job_id = getenv("SLURM_JOB_ID");
    /* The job script's key: summarize tells its manifest from another array's. */
    t.array_key = getenv("SPACRBENCH_ARRAY_KEY");
    /* The submission's own range, so summarize knows which tasks a newer
     * submission was meant to rerun (its other reports are stale). */
    t.array_min = env_count("SLURM_ARRAY_TASK_MIN");
    t.array_max = env_count("SLURM_ARRAY_TASK_MAX");
    t.array_step = env_count("SLURM_ARRAY_TASK_STEP");
    t.array_count = env_count("SLURM_ARRAY_TASK_COUNT");
    long long cpus = env_count("SLURM_CPUS_PER_TASK");
    long long mem = env_count("SLURM_MEM_PER_NODE"), per_cpu = env_count("SLURM_MEM_PER_CPU");
    if (mem < 0 && per_cpu >= 0)
        mem = per_cpu * (cpus > 0 ? cpus : 1);
    t.mem_bytes = mem >= 0 && mem < (1LL << 43) ? mem << 20 : -1;
    t.cpus = cpus;
    t.time_minutes = env_count("SPACRBENCH_TIME_LIMIT_MINUTES");
    const void *parts[] = {&t};
    sb_record_write(w, "task", &sb_task_record_fields, parts, NULL);
}
