/* spacrbench_format_slurm_script: the job script's #SBATCH lines follow
 * the schedule and the job (array 0..n-1, concurrency at most n), every
 * value in the body is single-quoted, and fields that would break the
 * script are refused with EINVAL. (tests/python/test_slurm_script.py runs
 * such a script through bash; tests/slurm/ submits one to SLURM.) */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if !defined(_WIN32)
#include <sys/stat.h>
#include <unistd.h>
#endif

#include "cluster.h"
#include "spacrbench.h"

#define MIB INT64_C(1048576)

static spacrbench_measurement *measured(void)
{
    spacrbench_figures f;
    memset(&f, 0, sizeof f);
    f.size = sizeof f;
    f.items = 2;
    f.seconds = 2.0;
    f.cpu_seconds = 2.0;
    f.peak_rss_bytes = 700 * MIB;
    f.peak_vram_bytes = SPACRBENCH_NOT_MEASURED;
    f.peak_method = SPACRBENCH_PEAK_CGROUP;
    f.stopped_item = -1;
    spacrbench_measurement *m = NULL;
    ck_assert_int_eq(spacrbench_measurement_create(&f, &m), 0);
    return m;
}

static spacrbench_schedule schedule(int64_t concurrency)
{
    spacrbench_schedule s;
    memset(&s, 0, sizeof s);
    s.size = sizeof s;
    s.cpus_per_task = 2;
    s.mem_per_task_bytes = 958 * MIB;
    s.array_concurrency = s.n_workers = concurrency;
    s.threads_per_worker = 2;
    s.memory_limit_bytes = 958 * MIB;
    return s;
}

static const char *const k_command[] = {"python3", "seg ment.py", "--in", "{}", "it's"};
static const char *const k_extra[] = {"--partition=short", "--time=00:10:00"};

static spacrbench_slurm_job job(void)
{
    spacrbench_slurm_job j;
    ck_assert_int_eq(spacrbench_slurm_job_init(&j, sizeof j), 0);
    j.items_file = "/data/items $1.txt";
    j.n_items = 10;
    j.output_dir = "/scratch/out";
    j.job_name = "seg";
    j.command = k_command;
    j.command_len = 5;
    j.spacrbench = "/opt/sb/bin/spacrbench";
    j.directives = k_extra;
    j.n_directives = 2;
    return j;
}

static char *script(const spacrbench_schedule *s, const spacrbench_slurm_job *j)
{
    spacrbench_measurement *m = measured();
    int len = spacrbench_format_slurm_script(m, s, j, NULL, 0);
    ck_assert_msg(len > 0, "%d: %s", len, spacrbench_last_error_message());
    char *text = malloc((size_t)len + 1);
    ck_assert_int_eq(spacrbench_format_slurm_script(m, s, j, text, (size_t)len + 1), len);
    ck_assert_int_eq((int)strlen(text), len);
    /* snprintf semantics: a short buffer gets the NUL-terminated prefix. */
    char small[12];
    ck_assert_int_eq(spacrbench_format_slurm_script(m, s, j, small, sizeof small), len);
    ck_assert_int_eq(strncmp(small, text, sizeof small - 1), 0);
    spacrbench_measurement_free(m);
    return text;
}

/* (the text shown at most 3000 bytes long: Check's messages are short) */
#define HAS(text, want)                                                                            \
    ck_assert_msg(strstr(text, want) != NULL, "'%s' not in\n%.3000s", want, text)

START_TEST(directives_follow_the_schedule_and_the_job)
{
    spacrbench_schedule s = schedule(3);
    spacrbench_slurm_job j = job();
    char *text = script(&s, &j);
    ck_assert_int_eq(strncmp(text, "#!/bin/bash\n", 12), 0);
    HAS(text, "\n#SBATCH --job-name=seg\n");
    HAS(text, "\n#SBATCH --cpus-per-task=2\n");
    HAS(text, "\n#SBATCH --mem=958M\n");
    HAS(text, "\n#SBATCH --array=0-9\n"); /* no %K: SLURM would apply it cluster-wide */
    HAS(text, "# 3 such task(s) fit one node like the measured one");
    /* A --time among the directives is the script's own: its #SBATCH line, the
     * time the tasks record, the manifest. */
    HAS(text, "\n#SBATCH --time=00:10:00\n");
    HAS(text, "# --time = as given\n");
    HAS(text, "SPACRBENCH_TIME_LIMIT_MINUTES=${SPACRBENCH_TIME_LIMIT_MINUTES:-10}\n");
    HAS(text, "\n#SBATCH --output=/scratch/out/slurm-%A_%a.out\n");
    HAS(text, "\n#SBATCH --partition=short\n#SBATCH --time=00:10:00\n");
    /* Directives end before the first command: sbatch stops reading there. */
    ck_assert(strstr(text, "--time=00:10:00") < strstr(text, "\nset -euo pipefail\n"));
    free(text);
}
END_TEST

START_TEST(concurrency_is_at_most_the_items)
{
    spacrbench_schedule s = schedule(16);
    spacrbench_slurm_job j = job();
    j.n_items = 4;
    j.job_name = NULL;
    char *text = script(&s, &j);
    HAS(text, "\n#SBATCH --array=0-3\n");
    HAS(text, "# 4 such task(s) fit one node");
    HAS(text, "\n#SBATCH --job-name=spacrbench\n");
    free(text);
}
END_TEST

#if !defined(_WIN32)
/* The script's command=(...) line, run by bash: its words, NUL-separated,
 * are the n given (POSIX only: Wine has no bash). */
static void read_back_by_bash(const char *text, const char *const *want, size_t n)
{
    const char *line = strstr(text, "\ncommand=(");
    ck_assert_ptr_nonnull(line);
    const char *end = strchr(line + 1, '\n');
    char path[] = "/tmp/sb-quote-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "%.*s\nprintf '%%s\\0' \"${command[@]}\"\n", (int)(end - line - 1), line + 1);
    fclose(f);
    char cmd[64], got[256];
    snprintf(cmd, sizeof cmd, "bash %s", path);
    FILE *out = popen(cmd, "r");
    ck_assert_ptr_nonnull(out);
    size_t len = fread(got, 1, sizeof got, out);
    ck_assert_int_eq(pclose(out), 0);
    unlink(path);
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        size_t w = strlen(want[i]);
        ck_assert_msg(at + w < len && memcmp(got + at, want[i], w + 1) == 0, "word %zu", i);
        at += w + 1;
    }
    ck_assert_uint_eq(at, len);
}
#endif

START_TEST(values_are_single_quoted)
{
    spacrbench_schedule s = schedule(2);
    spacrbench_slurm_job j = job();
    char *text = script(&s, &j);
    HAS(text, "\nitems_file='/data/items $1.txt'\n");
    HAS(text, "\nspacrbench='/opt/sb/bin/spacrbench'\n");
    HAS(text, "\ncommand=('python3' 'seg ment.py' '--in' '{}' 'it'\\''s')\n");
    HAS(text, "run --json --report \"$output_dir/task-$task.json\"");
    j.spacrbench = NULL; /* from PATH */
    free(text);
    text = script(&s, &j);
    HAS(text, "\nspacrbench='spacrbench'\n");
    free(text);
    /* Control characters (a second review's ESC) as bash's $'\xHH': no raw
     * escape reaches a terminal that shows the script, and bash reads
     * back the same bytes. */
    const char *const controls[] = {"python3", "{}", "arg\033[2J\\x'q", "tab\there"};
    j.command = controls;
    j.command_len = 4;
    text = script(&s, &j);
    HAS(text, "\ncommand=('python3' '{}' $'arg\\x1b[2J\\\\x\\'q' $'tab\\x09here')\n");
    ck_assert_ptr_null(strchr(text, '\033'));
    ck_assert_ptr_null(strchr(text, '\t'));
#if !defined(_WIN32)
    read_back_by_bash(text, controls, 4);
#endif
    free(text);
}
END_TEST

static void refused(const spacrbench_slurm_job *j, const char *why)
{
    spacrbench_measurement *m = measured();
    spacrbench_schedule s = schedule(2);
    ck_assert_int_eq(spacrbench_format_slurm_script(m, &s, j, NULL, 0), SPACRBENCH_EINVAL);
    ck_assert_msg(strstr(spacrbench_last_error_message(), why) != NULL, "'%s' not in '%s'", why,
                  spacrbench_last_error_message());
    spacrbench_measurement_free(m);
}

START_TEST(unusable_jobs_are_refused)
{
    spacrbench_slurm_job j = job();
    j.items_file = NULL;
    refused(&j, "items_file");
    j = job();
    j.n_items = 0;
    refused(&j, "n_items");
    j = job();
    j.output_dir = "/scratch/my out";
    refused(&j, "output_dir");
    j.output_dir = "/scratch/100%";
    refused(&j, "output_dir");
    j = job();
    j.job_name = "a b";
    refused(&j, "job_name");
    j = job();
    j.command_len = 0;
    refused(&j, "command");
    const char *const with_null[] = {"a", NULL};
    j.command = with_null;
    j.command_len = 2;
    refused(&j, "command[1]");
    j = job();
    const char *const newline[] = {"--time=5\nrm -rf /"};
    j.directives = newline;
    j.n_directives = 1;
    refused(&j, "directives[0]");

    spacrbench_measurement *m = measured();
    spacrbench_schedule bad = schedule(0);
    j = job();
    ck_assert_int_eq(spacrbench_format_slurm_script(m, &bad, &j, NULL, 0), SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_format_slurm_script(m, NULL, &j, NULL, 0), SPACRBENCH_EINVAL);
    bad = schedule(2);
    ck_assert_int_eq(spacrbench_format_slurm_script(m, &bad, NULL, NULL, 0), SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_format_slurm_script(m, &bad, &j, NULL, 5), SPACRBENCH_EINVAL);
    spacrbench_measurement_free(m);
}
END_TEST

START_TEST(job_struct_follows_the_size_rule)
{
    spacrbench_schedule s = schedule(2);
    /* A larger struct with a non-zero unknown tail is refused. */
    struct {
        spacrbench_slurm_job j;
        int64_t future;
    } big;
    memset(&big, 0, sizeof big);
    big.j = job();
    big.j.size = sizeof big;
    big.future = 1;
    spacrbench_measurement *m = measured();
    ck_assert_int_eq(spacrbench_format_slurm_script(m, &s, &big.j, NULL, 0),
                     SPACRBENCH_EUNKNOWN_FIELDS);
    big.future = 0;
    ck_assert_int_gt(spacrbench_format_slurm_script(m, &s, &big.j, NULL, 0), 0);
    spacrbench_measurement_free(m);
    ck_assert_int_eq(spacrbench_slurm_job_init(NULL, sizeof big.j), SPACRBENCH_EINVAL);
}
END_TEST

static char *script_with(const spacrbench_schedule *s, const spacrbench_slurm_job *j,
                         const spacrbench_slurm_tasks *k)
{
    spacrbench_measurement *m = measured();
    int len = spacrbench_format_slurm_job(m, s, j, k, NULL, 0);
    ck_assert_msg(len > 0, "%d: %s", len, spacrbench_last_error_message());
    char *text = malloc((size_t)len + 1);
    ck_assert_int_eq(spacrbench_format_slurm_job(m, s, j, k, text, (size_t)len + 1), len);
    spacrbench_measurement_free(m);
    return text;
}

START_TEST(tasks_get_the_limit_the_time_and_the_measuring_options)
{
    spacrbench_schedule s = schedule(3);
    spacrbench_slurm_job j = job();
    j.n_directives = 1; /* no --time among them */
    spacrbench_slurm_tasks k;
    ck_assert_int_eq(spacrbench_slurm_tasks_init(&k, sizeof k), 0);
    k.array_limit = 7;
    k.item_timeout_seconds = 600;
    k.no_cgroup = 1;
    char *text = script_with(&s, &j, &k);
    HAS(text, "\n#SBATCH --array=0-9%7\n");
    HAS(text, "\n#SBATCH --time=00:11:00\n"); /* the item timeout + 1 minute */
    /* The built-in item --timeout, which a submission may replace. */
    HAS(text, "\nitem_timeout=${SPACRBENCH_ITEM_TIMEOUT:-600}\n");
    HAS(text, "\n    measuring+=(--timeout \"$item_timeout\")\n");
    HAS(text, "\nmeasuring+=(--no-cgroup)\n");
    /* No read loop: the item is found through the index, O(1). */
    ck_assert_ptr_null(strstr(text, "while "));
    HAS(text, "\nindex=\"$output_dir/spacrbench-items.idx\"\n");
    HAS(text, "entry=$(dd if=\"$index\" bs=40 skip=$((10#$task + 1)) count=1");
    /* One CR rule: the script strips nothing, `run --items` drops one CR. */
    ck_assert_ptr_null(strstr(text, "\\r"));
    free(text);
    k.array_limit = 0;
    k.time_minutes = 24 * 60 + 90;
    k.item_timeout_seconds = 0;
    k.no_cgroup = 0;
    text = script_with(&s, &j, &k);
    HAS(text, "\n#SBATCH --array=0-9\n");
    HAS(text, "\n#SBATCH --time=1-01:30:00\n");
    HAS(text, "\nitem_timeout=${SPACRBENCH_ITEM_TIMEOUT:-0}\n");
    ck_assert_ptr_null(strstr(text, "--no-cgroup"));
    free(text);
    spacrbench_measurement *m = measured();
    k.array_limit = -1;
    ck_assert_int_eq(spacrbench_format_slurm_job(m, &s, &j, &k, NULL, 0), SPACRBENCH_EINVAL);
    k.array_limit = 0;
    k.item_timeout_seconds = NAN;
    ck_assert_int_eq(spacrbench_format_slurm_job(m, &s, &j, &k, NULL, 0), SPACRBENCH_EINVAL);
    k.item_timeout_seconds = 0;
    k.no_cgroup = 2;
    ck_assert_int_eq(spacrbench_format_slurm_job(m, &s, &j, &k, NULL, 0), SPACRBENCH_EINVAL);
    spacrbench_measurement_free(m);
}
END_TEST

START_TEST(an_array_directive_is_refused)
{
    spacrbench_schedule s = schedule(3);
    spacrbench_slurm_job j = job();
    spacrbench_measurement *m = measured();
    const char *const arrays[][1] = {{"--array=0-99"}, {"-a0-99"}, {"--array 0-5"}};
    for (size_t i = 0; i < 3; i++) {
        j.directives = arrays[i];
        j.n_directives = 1;
        ck_assert_int_eq(spacrbench_format_slurm_script(m, &s, &j, NULL, 0), SPACRBENCH_EINVAL);
        ck_assert_ptr_nonnull(strstr(spacrbench_last_error_message(), "--array-limit"));
    }
    const char *const account[] = {"--account=lab"};
    j.directives = account;
    ck_assert_int_gt(spacrbench_format_slurm_script(m, &s, &j, NULL, 0), 0);
    spacrbench_measurement_free(m);
}
END_TEST

#if !defined(_WIN32)
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    static char buf[16384];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

START_TEST(the_index_follows_the_items_rule)
{
    char dir[64], items[96], path[128];
    snprintf(dir, sizeof dir, "/tmp/sb-slurm-array-%ld", (long)getpid());
    ck_assert_int_eq(mkdir(dir, 0700), 0);
    snprintf(items, sizeof items, "%s/items.txt", dir);
    FILE *f = fopen(items, "wb");
    ck_assert_ptr_nonnull(f);
    fputs("a\nb\r\n\r\n\nx\r\r\nlast", f); /* items a, b, x\r, last */
    fclose(f);
    int64_t counted = 0; /* as the index counts them */
    ck_assert_int_eq(spacrbench_slurm_count_items(items, &counted), 0);
    ck_assert_int_eq(counted, 4);
    spacrbench_schedule s = schedule(3);
    spacrbench_slurm_job j = job();
    j.items_file = items;
    j.output_dir = dir;
    j.n_items = 4;
    spacrbench_measurement *m = measured();
    int rc = spacrbench_slurm_write_array(m, &s, &j, NULL);
    ck_assert_msg(rc == 0, "%d: %s", rc, spacrbench_last_error_message());
    snprintf(path, sizeof path, "%s/spacrbench-items.idx", dir);
    /* The header (the script's key, the items file's 16 bytes), then per
     * item its offset, length and POSIX cksum CRC (the values `printf 'a' |
     * cksum` prints). */
    char want[512], key[SB_SLURM_KEY_LEN + 1];
    snprintf(path, sizeof path, "%s/spacrbench-job.sh", dir);
    char *script = strdup(slurp(path));
    ck_assert_int_eq(sb_slurm_stated_key(script, strlen(script), key), 0);
    char again[SB_SLURM_KEY_LEN + 1];
    sb_slurm_script_key(script, strlen(script), again);
    ck_assert_str_eq(key, again);
    free(script);
    snprintf(want, sizeof want,
             "sbidx1 %s 000000000000016\n"
             "000000000000000 000000000001 1220704766\n"
             "000000000000002 000000000002 2777124760\n"
             "000000000000008 000000000003 3534906287\n"
             "000000000000012 000000000004 0160640845\n",
             key);
    snprintf(path, sizeof path, "%s/spacrbench-items.idx", dir);
    ck_assert_str_eq(slurp(path), want);
    unlink(path);
    snprintf(path, sizeof path, "%s/spacrbench-array.json", dir);
    ck_assert_ptr_nonnull(strstr(slurp(path), "\"tasks\": 4,"));
    /* The directive's --time=00:10:00, as the script's own #SBATCH line has it. */
    ck_assert_ptr_nonnull(strstr(slurp(path), "\"time_minutes\": 10"));
    snprintf(want, sizeof want, "\"array_key\": \"%s\"", key);
    ck_assert_ptr_nonnull(strstr(slurp(path), want));
    unlink(path);
    /* Another count than the job's: refused, nothing left behind. */
    j.n_items = 5;
    ck_assert_int_eq(spacrbench_slurm_write_array(m, &s, &j, NULL), SPACRBENCH_EINVAL);
    snprintf(path, sizeof path, "%s/spacrbench-items.idx", dir);
    ck_assert_int_ne(access(path, F_OK), 0);
    spacrbench_measurement_free(m);
    snprintf(path, sizeof path, "%s/spacrbench-job.sh", dir);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0); /* the script itself, for summarize's command line */
    ck_assert(st.st_mode & S_IXUSR);
    unlink(path);
    unlink(items);
    ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* The count has `run --items`'s bounds (the index's are far wider). */
START_TEST(items_are_counted_with_the_commands_bounds)
{
    char path[] = "/tmp/sb-items-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, "a\nb\0c\n", 6), 6);
    close(fd);
    int64_t n = -1;
    ck_assert_int_eq(spacrbench_slurm_count_items(path, &n), SPACRBENCH_EINVAL);
    ck_assert_int_eq(n, -1);
    ck_assert_msg(strstr(spacrbench_last_error_message(), "line 2 holds a NUL byte"), "%s",
                  spacrbench_last_error_message());
    unlink(path);
    ck_assert_int_eq(spacrbench_slurm_count_items(path, &n), SPACRBENCH_ESYSTEM);
    ck_assert_int_eq(spacrbench_slurm_count_items(NULL, &n), SPACRBENCH_EINVAL);
    ck_assert_int_eq(spacrbench_slurm_count_items(path, NULL), SPACRBENCH_EINVAL);
}
END_TEST

/* A job array reads its items file again in every task: a FIFO (with no
 * writer: refused at once, never waited on) or a directory is refused. */
START_TEST(an_items_file_that_is_not_a_regular_file_is_refused_at_once)
{
    char dir[] = "/tmp/sb-items-dir-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char fifo[sizeof dir + 8];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    const char *paths[] = {fifo, dir};
    for (size_t i = 0; i < 2; i++) {
        int64_t n = -1;
        ck_assert_int_eq(spacrbench_slurm_count_items(paths[i], &n), SPACRBENCH_EINVAL);
        ck_assert_int_eq(n, -1);
        ck_assert_msg(strstr(spacrbench_last_error_message(), "is not a regular file"), "%s",
                      spacrbench_last_error_message());
    }
    unlink(fifo);
    rmdir(dir);
}
END_TEST

/* The three files of an array and the directory's names, to compare a
 * directory before and after a call. */
typedef struct dir_state {
    char *files[3];
    char names[1024];
} dir_state;

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return strdup("(none)");
    char *buf = malloc(1 << 16);
    ck_assert_ptr_nonnull(buf);
    size_t n = fread(buf, 1, (1 << 16) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void take_state(const char *dir, dir_state *st)
{
    static const char *const names[3] = {"spacrbench-items.idx", "spacrbench-job.sh",
                                         "spacrbench-array.json"};
    char path[256];
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        st->files[i] = read_all(path);
    }
    char cmd[320];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | sort | tr '\\n' ' '", dir);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    size_t n = fread(st->names, 1, sizeof st->names - 1, p);
    st->names[n] = '\0';
    pclose(p);
}

static void same_state(const dir_state *a, const dir_state *b)
{
    for (int i = 0; i < 3; i++)
        ck_assert_str_eq(a->files[i], b->files[i]);
    ck_assert_str_eq(a->names, b->names);
}

static void free_state(dir_state *st)
{
    for (int i = 0; i < 3; i++)
        free(st->files[i]);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static int write_array(const spacrbench_measurement *m, const spacrbench_schedule *s,
                       const char *items, const char *dir, int64_t n)
{
    spacrbench_slurm_job j = job();
    j.items_file = items;
    j.output_dir = dir;
    j.n_items = n;
    return spacrbench_slurm_write_array(m, s, &j, NULL);
}

static void expect_refused(int rc, const char *dir, const char *which)
{
    const char *why = spacrbench_last_error_message();
    ck_assert_msg(rc == SPACRBENCH_EINVAL, "%d: %s", rc, why);
    HAS(why, dir);
    HAS(why, "holds another job array's files");
    HAS(why, which);
    HAS(why, "nothing was written");
    HAS(why, "--slurm-output DIR");
    HAS(why, "once that job has finished");
}

/* The refusal is never cut (it was at 511 bytes, mid-path of the other
 * array's items file): long paths, the whole message. */
START_TEST(a_refusal_names_long_paths_whole)
{
    char base[64], dir[700], items[700], other[700], long_name[201];
    memset(long_name, 'd', 200);
    long_name[200] = '\0';
    snprintf(base, sizeof base, "/tmp/sb-slurm-long-%ld", (long)getpid());
    ck_assert_int_eq(mkdir(base, 0700), 0);
    snprintf(dir, sizeof dir, "%s/%s", base, long_name);
    ck_assert_int_eq(mkdir(dir, 0700), 0);
    snprintf(dir, sizeof dir, "%s/%s/%s", base, long_name, long_name);
    ck_assert_int_eq(mkdir(dir, 0700), 0);
    snprintf(items, sizeof items, "%s/%s.items", base, long_name);
    snprintf(other, sizeof other, "%s/%s.other", base, long_name);
    write_text(items, "a\nbb\nccc\n");
    write_text(other, "x\ny\n");
    spacrbench_schedule s = schedule(3);
    spacrbench_measurement *m = measured();
    ck_assert_int_eq(write_array(m, &s, items, dir, 3), 0);
    expect_refused(write_array(m, &s, other, dir, 2), dir, "job script");
    const char *why = spacrbench_last_error_message();
    char end[800];
    snprintf(end, sizeof end, "; that array: 3 task(s) over %s", items);
    size_t n = strlen(why), k = strlen(end);
    ck_assert_msg(n > k && strcmp(why + n - k, end) == 0, "%zu bytes: %s", n, why);
    spacrbench_measurement_free(m);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* A second array into a directory that holds another's files is refused,
 * whatever differs (the items file, their contents, the requests), and the
 * directory is left exactly as it was; the same array again is accepted
 * (comments such as the measured peak aside) and changes nothing. */
START_TEST(another_arrays_files_are_never_replaced)
{
    char dir[64], items[96], other[96];
    snprintf(dir, sizeof dir, "/tmp/sb-slurm-refuse-%ld", (long)getpid());
    ck_assert_int_eq(mkdir(dir, 0700), 0);
    snprintf(items, sizeof items, "%s.items", dir);
    snprintf(other, sizeof other, "%s.other", dir);
    write_text(items, "a\nbb\nccc\n");
    write_text(other, "x\ny\nz\nw\nv\n");
    spacrbench_schedule s = schedule(3);
    spacrbench_measurement *m = measured();
    ck_assert_int_eq(write_array(m, &s, items, dir, 3), 0);
    dir_state before, after;
    take_state(dir, &before);
    ck_assert_str_eq(before.names, "spacrbench-array.json spacrbench-items.idx "
                                   "spacrbench-job.sh ");

    /* Another items file (the report's case): refused, nothing touched. */
    expect_refused(write_array(m, &s, other, dir, 5), dir, "job script");
    HAS(spacrbench_last_error_message(), "that array: 3 task(s) over ");
    take_state(dir, &after);
    same_state(&before, &after);
    free_state(&after);

    /* The same items file with other contents (as many items): refused. */
    write_text(items, "a\nbX\nccc\n");
    expect_refused(write_array(m, &s, items, dir, 3), dir, "items index");
    take_state(dir, &after);
    same_state(&before, &after);
    free_state(&after);
    write_text(items, "a\nbb\nccc\n");

    /* The same items, another --mem: the script differs. */
    spacrbench_schedule more = schedule(3);
    more.mem_per_task_bytes += MIB;
    expect_refused(write_array(m, &more, items, dir, 3), dir, "job script");
    take_state(dir, &after);
    same_state(&before, &after);
    free_state(&after);

    /* Another --mem and other contents: both are named. */
    write_text(items, "a\nbX\nccc\n");
    expect_refused(write_array(m, &more, items, dir, 3), dir,
                   "(its job script (its items file, tasks, requests, command or options), "
                   "items index (the items file's contents) and manifest differ)");
    take_state(dir, &after);
    same_state(&before, &after);
    free_state(&after);
    write_text(items, "a\nbb\nccc\n");

    /* The same emit again, from a measurement whose peak differs only in
     * the script's comments: accepted, the files as they were. */
    spacrbench_figures f;
    memset(&f, 0, sizeof f);
    f.size = sizeof f;
    f.items = 2;
    f.seconds = 2.0;
    f.cpu_seconds = 2.0;
    f.peak_rss_bytes = 701 * MIB;
    f.peak_vram_bytes = SPACRBENCH_NOT_MEASURED;
    f.peak_method = SPACRBENCH_PEAK_CGROUP;
    f.stopped_item = -1;
    spacrbench_measurement *m2 = NULL;
    ck_assert_int_eq(spacrbench_measurement_create(&f, &m2), 0);
    ck_assert_int_eq(write_array(m, &s, items, dir, 3), 0);
    take_state(dir, &after);
    same_state(&before, &after);
    free_state(&after);
    ck_assert_int_eq(write_array(m2, &s, items, dir, 3), 0);
    take_state(dir, &after);
    ck_assert_str_eq(before.files[0], after.files[0]); /* the index */
    ck_assert_str_eq(before.files[2], after.files[2]); /* the manifest */
    ck_assert_str_eq(before.names, after.names);
    ck_assert_ptr_nonnull(strstr(after.files[1], "701.0 MiB"));
    free_state(&after);

    /* A file of another kind under one of the names is another's too. */
    char path[160];
    snprintf(path, sizeof path, "%s/spacrbench-array.json", dir);
    ck_assert_int_eq(unlink(path), 0);
    ck_assert_int_eq(symlink("/dev/null", path), 0);
    expect_refused(write_array(m, &s, items, dir, 3), dir, "manifest");
    unlink(path);

    /* Once the old files are removed, the other array is written. */
    snprintf(path, sizeof path, "%s/spacrbench-items.idx", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/spacrbench-job.sh", dir);
    unlink(path);
    ck_assert_int_eq(write_array(m, &s, other, dir, 5), 0);
    take_state(dir, &after);
    ck_assert_ptr_nonnull(strstr(after.files[2], "\"tasks\": 5,"));
    free_state(&after);
    free_state(&before);
    spacrbench_measurement_free(m);
    spacrbench_measurement_free(m2);
    static const char *const names[3] = {"spacrbench-items.idx", "spacrbench-job.sh",
                                         "spacrbench-array.json"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    ck_assert_int_eq(rmdir(dir), 0);
    unlink(items);
    unlink(other);
}
END_TEST
#else
/* Windows: the array's files are POSIX's; the call says so. */
START_TEST(the_index_follows_the_items_rule)
{
    spacrbench_schedule s = schedule(3);
    spacrbench_slurm_job j = job();
    spacrbench_measurement *m = measured();
    ck_assert_int_eq(spacrbench_slurm_write_array(m, &s, &j, NULL), SPACRBENCH_EUNSUPPORTED);
    spacrbench_measurement_free(m);
}
END_TEST
#endif

static Suite *slurm_script_suite(void)
{
    Suite *s = suite_create("slurm_script");
    TCase *t = tcase_create("script");
    tcase_add_test(t, directives_follow_the_schedule_and_the_job);
    tcase_add_test(t, concurrency_is_at_most_the_items);
    tcase_add_test(t, values_are_single_quoted);
    tcase_add_test(t, unusable_jobs_are_refused);
    tcase_add_test(t, job_struct_follows_the_size_rule);
    tcase_add_test(t, tasks_get_the_limit_the_time_and_the_measuring_options);
    tcase_add_test(t, an_array_directive_is_refused);
    tcase_add_test(t, the_index_follows_the_items_rule);
#if !defined(_WIN32)
    tcase_add_test(t, another_arrays_files_are_never_replaced);
    tcase_add_test(t, items_are_counted_with_the_commands_bounds);
    tcase_add_test(t, an_items_file_that_is_not_a_regular_file_is_refused_at_once);
    tcase_add_test(t, a_refusal_names_long_paths_whole);
#endif
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(slurm_script_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
