/* spacrbench_format_slurm_job: the #SBATCH lines of a schedule and a bash
 * body that finds the task's item in O(1) through the index and runs the
 * command on it under `spacrbench run --json --report`. The line goes to
 * `run --items` as the file has it, so --items' one CR rule makes the item
 * run the item measured. Every caller's value is single-quoted in the
 * body; values an #SBATCH line must hold (sbatch parses those itself) are
 * refused when they could be misread. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cluster.h"
#include "internal.h"

/* A struct whose first member is its size, zeroed. */
static int init_sized(void *p, size_t size, const char *what)
{
    sb_clear_error();
    if (!p || size < sizeof(size_t))
        return sb_fail(SPACRBENCH_EINVAL, "%s must not be NULL and size must hold a size_t", what);
    memset(p, 0, size);
    memcpy(p, &size, sizeof size);
    return SPACRBENCH_OK;
}

int spacrbench_slurm_job_init(spacrbench_slurm_job *job, size_t size)
{
    return init_sized(job, size, "job");
}

int spacrbench_slurm_tasks_init(spacrbench_slurm_tasks *tasks, size_t size)
{
    return init_sized(tasks, size, "tasks");
}

int sb_has_control(const char *text)
{
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return 1;
    return 0;
}

/* A value sbatch reads from an #SBATCH line: no control characters, and
 * none of the characters in `refused`. */
static int directive_value_ok(const char *text, const char *refused)
{
    return *text && !sb_has_control(text) && strpbrk(text, refused) == NULL;
}

void sb_shell_word(sb_text *t, const char *text, int bare_ok)
{
    static const char bare[] =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,";
    if (bare_ok && *text && strspn(text, bare) == strlen(text)) {
        sb_text_printf(t, "%s", text);
        return;
    }
    int ansi = sb_has_control(text);
    sb_text_printf(t, ansi ? "$'" : "'");
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (ansi && (*p < 0x20 || *p == 0x7f))
            sb_text_printf(t, "\\x%02x", *p);
        else if (ansi && (*p == '\\' || *p == '\''))
            sb_text_printf(t, "\\%c", *p);
        else if (*p == '\'')
            sb_text_printf(t, "'\\''");
        else
            sb_text_printf(t, "%c", *p);
    }
    sb_text_printf(t, "'");
}

/* The job's fields; what its directives set goes into d. */
static int check_job(const spacrbench_slurm_job *j, sb_slurm_settings *d)
{
    if (!j->items_file || !*j->items_file)
        return sb_fail(SPACRBENCH_EINVAL, "job.items_file is required: each task reads its item "
                                          "from it");
    if (j->n_items < 1)
        return sb_fail(SPACRBENCH_EINVAL, "job.n_items is %" PRId64 ", expected >= 1", j->n_items);
    if (!j->output_dir || !directive_value_ok(j->output_dir, " \t'\"%\\"))
        return sb_fail(SPACRBENCH_EINVAL,
                       "job.output_dir '%s' is missing or cannot be written in an #SBATCH "
                       "--output line (no whitespace, quotes, %% or backslash)",
                       j->output_dir ? j->output_dir : "(null)");
    if (j->job_name && !directive_value_ok(j->job_name, " \t'\"\\"))
        return sb_fail(SPACRBENCH_EINVAL,
                       "job.job_name '%s' must be non-empty, without whitespace, quotes, "
                       "backslash or control characters",
                       j->job_name);
    if (!j->command || j->command_len < 1)
        return sb_fail(SPACRBENCH_EINVAL, "job.command is empty: give the command to run per item");
    for (size_t i = 0; i < j->command_len; i++)
        if (!j->command[i])
            return sb_fail(SPACRBENCH_EINVAL, "job.command[%zu] is NULL", i);
    if (j->spacrbench && !*j->spacrbench)
        return sb_fail(SPACRBENCH_EINVAL, "job.spacrbench is empty (NULL means from PATH)");
    if (j->n_directives && !j->directives)
        return sb_fail(SPACRBENCH_EINVAL, "job.directives is NULL but n_directives is %zu",
                       j->n_directives);
    memset(d, 0, sizeof *d);
    for (size_t i = 0; i < j->n_directives; i++) {
        if (!j->directives[i] || !*j->directives[i] || sb_has_control(j->directives[i]))
            return sb_fail(SPACRBENCH_EINVAL,
                           "job.directives[%zu] is empty or holds a control character", i);
        /* sbatch reads every option of the line, abbreviations too. */
        int rc = sb_slurm_directive_read(j->directives[i], i, d);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int check_tasks(const spacrbench_slurm_tasks *k)
{
    if (k->array_limit < 0)
        return sb_fail(SPACRBENCH_EINVAL,
                       "tasks.array_limit is %" PRId64 ", expected >= 0 (0: no limit)",
                       k->array_limit);
    if (k->time_minutes < 0 || k->time_minutes > SB_TIME_MAX_MINUTES)
        return sb_fail(SPACRBENCH_EINVAL,
                       "tasks.time_minutes is %" PRId64
                       ", expected 0 (from the measurement) to 365 days",
                       k->time_minutes);
    /* Written with at most 9 fraction digits, as the tasks' --timeout
     * parser reads it: below a nanosecond it would read as 0. */
    if (!(k->item_timeout_seconds >= 0) || k->item_timeout_seconds > 1e7 ||
        (k->item_timeout_seconds > 0 && k->item_timeout_seconds < 1e-9))
        return sb_fail(SPACRBENCH_EINVAL,
                       "tasks.item_timeout_seconds is %g, expected 0 (none) or 1e-9 to 1e7",
                       k->item_timeout_seconds);
    if (k->no_cgroup != 0 && k->no_cgroup != 1)
        return sb_fail(SPACRBENCH_EINVAL, "tasks.no_cgroup is %d, expected 0 or 1",
                       (int)k->no_cgroup);
    if (k->reserved != 0)
        return sb_fail(SPACRBENCH_EINVAL, "tasks.reserved must be 0");
    return 0;
}

static int header(sb_text *t, const spacrbench_measurement *m, const spacrbench_schedule *s,
                  const spacrbench_slurm_job *j, const spacrbench_slurm_tasks *k,
                  const sb_slurm_settings *set)
{
    spacrbench_figures f = {.size = sizeof f};
    int rc = spacrbench_measurement_figures(m, &f);
    if (rc < 0)
        return rc;
    double slowest = spacrbench_measurement_slowest_item_seconds(m);
    char peak[32], vram[256];
    sb_format_bytes(peak, sizeof peak, f.peak_rss_bytes);
    sb_vram_comment(vram, sizeof vram, &f);
    int64_t fit = s->array_concurrency < j->n_items ? s->array_concurrency : j->n_items;
    sb_text_printf(t,
                   "#!/bin/bash\n"
                   "# spacrbench %s: one SLURM array task per item (%" PRId64 " items).\n",
                   SPACRBENCH_VERSION_STRING, j->n_items);
    sb_slurm_rules(t, m, peak, isnan(slowest) ? 0.0 : slowest, set, k->item_timeout_seconds > 0);
    sb_text_printf(t,
                   "# %" PRId64 " such task(s) fit one node like the measured one; SLURM packs\n"
                   "# tasks onto nodes by --mem and --cpus-per-task by itself%s\n"
                   "%s"
                   "# Each task writes what it really used to %s/task-<index>.json;\n"
                   "# afterwards: spacrbench summarize %s\n"
                   "#SBATCH --job-name=%s\n",
                   fit,
                   k->array_limit > 0 ? " (the %N below is\n# an explicit --array-limit: at "
                                        "most N tasks at once on the whole cluster)"
                                      : "",
                   vram, j->output_dir, j->output_dir, j->job_name ? j->job_name : "spacrbench");
    sb_slurm_requests(t, set);
    sb_text_printf(t, "#SBATCH --array=0-%" PRId64, j->n_items - 1);
    if (k->array_limit > 0)
        sb_text_printf(t, "%%%" PRId64, k->array_limit);
    sb_text_printf(t, "\n#SBATCH --output=%s/slurm-%%A_%%a.out\n", j->output_dir);
    for (size_t i = 0; i < j->n_directives; i++)
        sb_text_printf(t, "#SBATCH %s\n", j->directives[i]);
    return 0;
}

/* The body: values as bash arrays of single-quoted words; the script's
 * key (filled in once the whole text is made); the index's header checked
 * against the key and the items file's size, then the item read from its
 * offset and length (dd seeks: O(1) per task) and checked against its
 * CRC, and handed to spacrbench through --items as the file has it, which
 * drops one trailing CR and substitutes {} exactly as the measuring run
 * did. Files that are not this script's stop the task with exit 65. */
static void body(sb_text *t, const spacrbench_slurm_job *j, const spacrbench_slurm_tasks *k,
                 int64_t minutes)
{
    sb_text_printf(t, "set -euo pipefail\nitems_file=");
    sb_shell_word(t, j->items_file, 0);
    sb_text_printf(t, "\noutput_dir=");
    sb_shell_word(t, j->output_dir, 0);
    sb_text_printf(t, "\nspacrbench=");
    sb_shell_word(t, j->spacrbench ? j->spacrbench : "spacrbench", 0);
    sb_text_printf(t, "\ncommand=(");
    for (size_t i = 0; i < j->command_len; i++) {
        sb_text_printf(t, i ? " " : "");
        sb_shell_word(t, j->command[i], 0);
    }
    char timeout[48] = "0";
    if (k->item_timeout_seconds > 0)
        sb_slurm_seconds_text(timeout, sizeof timeout, k->item_timeout_seconds);
    sb_text_printf(
        t,
        ")\n"
        "# The item --timeout of each task, in seconds (0: none): the measuring\n"
        "# run's, unless the submission exports SPACRBENCH_ITEM_TIMEOUT.\n"
        "item_timeout=${SPACRBENCH_ITEM_TIMEOUT:-%s}\n"
        "# This script's key (of its text without comments): the index written\n"
        "# with it starts with the same key, so a task never reads the index of\n"
        "# another array written into the same directory.\n" SB_SLURM_KEY_LINE "%.*s'\n"
        "index=\"$output_dir/" SB_SLURM_INDEX "\"\n"
        "task=${SLURM_ARRAY_TASK_ID:?submit this script with sbatch: it is a job array}\n"
        "# The --time each task's report records (a resubmission may export another).\n"
        "export SPACRBENCH_TIME_LIMIT_MINUTES=${SPACRBENCH_TIME_LIMIT_MINUTES:-%" PRId64 "}\n"
        "export SPACRBENCH_ARRAY_KEY=$array_key\n"
        "# First in the log: which array and what this submission asked, which\n"
        "# summarize reads even when the task is killed before its report.\n"
        "printf '" SB_SLURM_LOG_HEADER "%%s task %%s: key %%s, --mem %%s MiB, --time %%s min, item "
        "--timeout %%s s\\n' \\\n"
        "    \"${SLURM_ARRAY_JOB_ID:-none}\" \"$task\" \"$array_key\" "
        "\"${SLURM_MEM_PER_NODE:-unknown}\" \\\n"
        "    \"$SPACRBENCH_TIME_LIMIT_MINUTES\" \"$item_timeout\" >&2\n"
        "# Stop before anything runs: what is wrong, and the exit status.\n"
        "stop() {\n"
        "    printf 'spacrbench job: task %%s: %%s" SB_SLURM_NOTHING_RUN
        "\\n' \"$task\" \"$1\" >&2\n"
        "    exit \"$2\"\n"
        "}\n"
        "# Files that are not this job's: exit %d.\n"
        "mismatch() { stop \"$1\" %d; }\n"
        "if [[ ! $item_timeout =~ ^[0-9]{1,9}(\\.[0-9]{1,9})?$ ]]; then\n"
        "    stop \"SPACRBENCH_ITEM_TIMEOUT=$item_timeout is not a number of seconds (such as 20 "
        "or 1.5; 0: none)\" 2\n"
        "fi\n"
        "measuring=()\n"
        "if [[ ! $item_timeout =~ ^0*(\\.0*)?$ ]]; then\n"
        "    measuring+=(--timeout \"$item_timeout\")\n"
        "fi\n"
        "%s"
        "header=$(dd if=\"$index\" bs=%d count=1 status=none) || header=''\n"
        "if [[ ! $header =~ ^" SB_SLURM_INDEX_MAGIC "\\ ([0-9a-f]{%d})\\ ([0-9]{15})$ ]]; then\n"
        "    mismatch \"$index is missing or is not the index of a spacrbench array: emit the "
        "job again\"\n"
        "elif [[ ${BASH_REMATCH[1]} != \"$array_key\" ]]; then\n"
        "    mismatch \"$index belongs to another array (key ${BASH_REMATCH[1]}, this script's "
        "$array_key): another emit wrote into $output_dir; emit this job again into a directory "
        "of its own\"\n"
        "fi\n"
        "bytes=$((10#${BASH_REMATCH[2]}))\n"
        "size=$(wc -c <\"$items_file\") || mismatch \"cannot read $items_file\"\n"
        "if ((size != bytes)); then\n"
        "    mismatch \"$items_file holds $((size)) bytes, $bytes when this job was written: it "
        "changed since; emit the job again\"\n"
        "fi\n"
        "# Item <task>: its offset, length and cksum in the items file, from the\n"
        "# index (one %d-byte line per item after the header).\n"
        "entry=''\n"
        "if [[ $task =~ ^[0-9]{1,9}$ ]]; then\n"
        "    entry=$(dd if=\"$index\" bs=%d skip=$((10#$task + 1)) count=1 status=none) || "
        "entry=''\n"
        "fi\n"
        "if [[ ! $entry =~ ^([0-9]{15})\\ ([0-9]{12})\\ ([0-9]{10})$ ]]; then\n"
        "    stop \"$items_file has no item $task (see $index)\" 2\n"
        "fi\n"
        "offset=$((10#${BASH_REMATCH[1]})) length=$((10#${BASH_REMATCH[2]})) "
        "crc=$((10#${BASH_REMATCH[3]}))\n"
        "item=$(dd if=\"$items_file\" iflag=skip_bytes,count_bytes skip=\"$offset\" "
        "count=\"$length\" bs=65536 status=none; printf x)\n"
        "item=${item%%x}\n"
        "sum=$(printf '%%s' \"$item\" | cksum)\n"
        "if [[ $sum != \"$crc $length\" ]]; then\n"
        "    mismatch \"item $task of $items_file is not the one indexed (cksum $sum, indexed "
        "$crc $length): the file changed since the job was written; emit the job again\"\n"
        "fi\n"
        "exec \"$spacrbench\" run --json --report \"$output_dir/task-$task.json\" "
        "${measuring[@]+\"${measuring[@]}\"} \\\n"
        "    --items <(printf '%%s\\n' \"$item\") -- \"${command[@]}\"\n",
        timeout, SB_SLURM_KEY_LEN, "0000000000000000", minutes, SB_SLURM_MISMATCH_EXIT,
        SB_SLURM_MISMATCH_EXIT, k->no_cgroup ? "measuring+=(--no-cgroup)\n" : "",
        SB_SLURM_INDEX_WIDTH, SB_SLURM_KEY_LEN, SB_SLURM_INDEX_WIDTH, SB_SLURM_INDEX_WIDTH);
}

int sb_slurm_comment_line(const char *line, size_t n)
{
    return n >= 1 && line[0] == '#' && (n == 1 || line[1] == ' ' || line[1] == '\n');
}

/* A comment line or the key line: not part of the key. */
static int outside_key(const char *line, size_t n)
{
    return sb_slurm_comment_line(line, n) ||
           (n >= sizeof SB_SLURM_KEY_LINE - 1 &&
            memcmp(line, SB_SLURM_KEY_LINE, sizeof SB_SLURM_KEY_LINE - 1) == 0);
}

void sb_slurm_script_key(const char *text, size_t len, char key[SB_SLURM_KEY_LEN + 1])
{
    uint64_t h = UINT64_C(14695981039346656037); /* FNV-1a 64 */
    for (size_t at = 0; at < len;) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t n = nl ? (size_t)(nl - (text + at)) + 1 : len - at;
        if (!outside_key(text + at, n))
            for (size_t i = 0; i < n; i++) {
                h ^= (unsigned char)text[at + i];
                h *= UINT64_C(1099511628211);
            }
        at += n;
    }
    snprintf(key, SB_SLURM_KEY_LEN + 1, "%016" PRIx64, h);
}

int sb_slurm_stated_key(const char *text, size_t len, char key[SB_SLURM_KEY_LEN + 1])
{
    const size_t prefix = sizeof SB_SLURM_KEY_LINE - 1;
    for (size_t at = 0; at < len;) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
        const char *l = text + at;
        if (n == prefix + SB_SLURM_KEY_LEN + 1 && memcmp(l, SB_SLURM_KEY_LINE, prefix) == 0 &&
            l[n - 1] == '\'' && strspn(l + prefix, "0123456789abcdef") >= SB_SLURM_KEY_LEN) {
            memcpy(key, l + prefix, SB_SLURM_KEY_LEN);
            key[SB_SLURM_KEY_LEN] = '\0';
            return 0;
        }
        at += n + 1;
    }
    return -1;
}

void sb_slurm_seconds_text(char *buf, size_t cap, double seconds)
{
    snprintf(buf, cap, "%.9f", seconds);
    char *dot = strchr(buf, '.');
    if (!dot)
        return;
    char *end = buf + strlen(buf);
    while (end > dot + 1 && end[-1] == '0')
        end--;
    if (end == dot + 1)
        end = dot;
    *end = '\0';
}

/* Every input in (by its size), checked, and what the script requests. */
static int job_inputs(const spacrbench_measurement *m, const spacrbench_schedule *schedule,
                      const spacrbench_slurm_job *job, const spacrbench_slurm_tasks *tasks,
                      spacrbench_slurm_job *j, spacrbench_slurm_tasks *k, spacrbench_schedule *s,
                      sb_slurm_settings *set)
{
    if (!m || !schedule || !job)
        return sb_fail(SPACRBENCH_EINVAL, "measurement, schedule and job must not be NULL");
    spacrbench_slurm_job_init(j, sizeof *j);
    int rc = sb_struct_in(j, sizeof *j, job, "spacrbench_slurm_job");
    if (rc < 0 || (rc = check_job(j, set)) < 0)
        return rc;
    spacrbench_slurm_tasks_init(k, sizeof *k);
    if (tasks && (rc = sb_struct_in(k, sizeof *k, tasks, "spacrbench_slurm_tasks")) < 0)
        return rc;
    if ((rc = check_tasks(k)) < 0)
        return rc;
    *s = (spacrbench_schedule){.size = sizeof *s};
    if ((rc = sb_struct_in(s, sizeof *s, schedule, "spacrbench_schedule")) < 0)
        return rc;
    if (s->cpus_per_task < 1 || s->array_concurrency < 1 || s->mem_per_task_bytes < SB_MIB)
        return sb_fail(SPACRBENCH_EINVAL, "the schedule has a count below 1 or no memory: "
                                          "compute it with spacrbench_schedule_compute");
    if (set->minutes && k->time_minutes && set->minutes != k->time_minutes)
        return sb_fail(SPACRBENCH_EINVAL,
                       "tasks.time_minutes is %" PRId64 " but a directive's --time says %" PRId64
                       " minutes: give one of them",
                       k->time_minutes, set->minutes);
    /* What the directives leave out comes from the schedule and the tasks. */
    if (!(set->mem_given = set->mem_bytes > 0))
        set->mem_bytes = s->mem_per_task_bytes;
    if (!(set->cpus_given = set->cpus > 0))
        set->cpus = s->cpus_per_task;
    if (!set->minutes)
        set->minutes = k->time_minutes;
    set->time_given = set->minutes > 0;
    if (set->minutes == 0 &&
        (rc = sb_measurement_time_limit(m, k->item_timeout_seconds, &set->minutes)) < 0)
        return rc;
    return 0;
}

int sb_slurm_job_text(const spacrbench_measurement *m, const spacrbench_schedule *schedule,
                      const spacrbench_slurm_job *job, const spacrbench_slurm_tasks *tasks,
                      sb_text *t, sb_slurm_settings *set, char key[SB_SLURM_KEY_LEN + 1])
{
    spacrbench_slurm_job j;
    spacrbench_slurm_tasks k;
    spacrbench_schedule s;
    int rc = job_inputs(m, schedule, job, tasks, &j, &k, &s, set);
    if (rc < 0 || (rc = header(t, m, &s, &j, &k, set)) < 0)
        return rc;
    body(t, &j, &k, set->minutes);
    if (t->failed)
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory formatting text");
    /* The key over the finished text, written over the placeholder. */
    sb_slurm_script_key(t->data, t->len, key);
    char *at = strstr(t->data, "\n" SB_SLURM_KEY_LINE); /* header() wrote it */
    if (at)
        memcpy(at + sizeof SB_SLURM_KEY_LINE, key, SB_SLURM_KEY_LEN);
    return 0;
}

int spacrbench_format_slurm_job(const spacrbench_measurement *m,
                                const spacrbench_schedule *schedule,
                                const spacrbench_slurm_job *job,
                                const spacrbench_slurm_tasks *tasks, char *buf, size_t cap)
{
    sb_clear_error();
    if (buf == NULL && cap > 0)
        return sb_fail(SPACRBENCH_EINVAL, "buf is NULL but cap is %zu", cap);
    sb_text t = {0};
    sb_slurm_settings set;
    char key[SB_SLURM_KEY_LEN + 1];
    int rc = sb_slurm_job_text(m, schedule, job, tasks, &t, &set, key);
    if (rc < 0) {
        sb_text_free(&t);
        return rc;
    }
    return sb_text_deliver(&t, buf, cap);
}

int spacrbench_format_slurm_script(const spacrbench_measurement *m,
                                   const spacrbench_schedule *schedule,
                                   const spacrbench_slurm_job *job, char *buf, size_t cap)
{
    return spacrbench_format_slurm_job(m, schedule, job, NULL, buf, cap);
}
