/* spacrbench_slurm_write_array: the items index (each task's lookup in
 * O(1)), the script, and the manifest summarize reads. A queued job's
 * tasks read these files when they start, so another array's are never
 * replaced: under a lock on the directory all three are written to
 * temporaries and compared with what is there (comments and the version
 * aside); another array's refuse the call, nothing half-written; only
 * then are the three renamed into place. */
#if !defined(_WIN32)
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cluster.h"
#include "internal.h"
#include "record.h"
#include "records.h"
#include "util.h"

/* A file of the array, written to a temporary beside it (util.h) and
 * renamed into place once the directory holds no other array's. */
static int temp_open(sb_atomic_file *a, const char *dir, const char *name, mode_t mode)
{
    memset(a, 0, sizeof *a);
    char *path = sb_textf("%s/%s", dir, name);
    if (!path)
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory");
    int rc = sb_atomic_open(a, path, (unsigned)mode, 0);
    if (rc != 0 || !sb_atomic_stream(a))
        rc = errno == ENOMEM ? sb_fail(SPACRBENCH_ENOMEM, "out of memory")
                             : sb_fail(SPACRBENCH_ESYSTEM, "cannot create a file in %s for %s: %s",
                                       dir, name, strerror(errno));
    free(path);
    return rc;
}

/* POSIX cksum's CRC (polynomial 0x04C11DB7, most significant bit first). */
static void crc_table(uint32_t table[256])
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i << 24;
        for (int b = 0; b < 8; b++)
            c = (c & UINT32_C(0x80000000)) ? (c << 1) ^ UINT32_C(0x04C11DB7) : c << 1;
        table[i] = c;
    }
}

static uint32_t crc_byte(const uint32_t table[256], uint32_t crc, unsigned char byte)
{
    return (crc << 8) ^ table[(crc >> 24) ^ byte];
}

/* What `cksum` prints for the data whose CRC so far is crc: the length
 * goes in after the data, least significant byte first. */
static uint32_t crc_finish(const uint32_t table[256], uint32_t crc, int64_t length)
{
    for (uint64_t n = (uint64_t)length; n; n >>= 8)
        crc = crc_byte(table, crc, (unsigned char)(n & 0xff));
    return ~crc;
}

/* The header line, then one index line per item of the file, by the rule
 * of `run --items`: lines end at \n, a trailing CR is not part of the
 * item, empty items are skipped. The offset, length and CRC cover the
 * whole line but its \n, so the task hands --items the line as the file
 * has it. */
static int write_index(FILE *items, const char *items_path, FILE *out, const char *key,
                       int64_t *count)
{
    uint32_t table[256];
    crc_table(table);
    int64_t start = 0, pos = 0;
    int64_t len = 0; /* bytes of the line so far */
    uint32_t crc = 0;
    int last = -1, c;
    *count = 0;
    fprintf(out, "%*s\n", SB_SLURM_INDEX_WIDTH - 1, ""); /* the header, once the size is known */
    for (;;) {
        c = getc(items);
        if (pos > SB_SLURM_INDEX_MAX_BYTES)
            return sb_fail(SPACRBENCH_EINVAL, "%s: more than %" PRId64 " bytes", items_path,
                           SB_SLURM_INDEX_MAX_BYTES);
        if (c == EOF || c == '\n') {
            int64_t item_len = len - (last == '\r' ? 1 : 0);
            if (item_len > 0) {
                fprintf(out, "%015" PRId64 " %012" PRId64 " %010" PRIu32 "\n", start, len,
                        crc_finish(table, crc, len));
                (*count)++;
            }
            if (c == EOF)
                break;
            start = pos + 1;
            len = 0;
            crc = 0;
            last = -1;
        } else if (c == '\0') {
            return sb_fail(SPACRBENCH_EINVAL,
                           "%s: a NUL byte at offset %" PRId64 " (run --items refuses it too)",
                           items_path, pos);
        } else {
            if (++len > SB_SLURM_INDEX_MAX_LENGTH)
                return sb_fail(SPACRBENCH_EINVAL, "%s: a line longer than %" PRId64 " bytes",
                               items_path, SB_SLURM_INDEX_MAX_LENGTH);
            crc = crc_byte(table, crc, (unsigned char)c);
            last = c;
        }
        pos++;
    }
    if (ferror(items))
        return sb_fail(SPACRBENCH_ESYSTEM, "cannot read %s: %s", items_path, strerror(errno));
    if (fseek(out, 0, SEEK_SET) != 0)
        return sb_fail(SPACRBENCH_ESYSTEM, "cannot write the index: %s", strerror(errno));
    fprintf(out, SB_SLURM_INDEX_MAGIC " %s %015" PRId64, key, pos);
    return 0;
}

static int write_manifest(FILE *out, const spacrbench_slurm_job *j, const spacrbench_slurm_tasks *k,
                          const sb_slurm_settings *set, const char *key)
{
    char *script = sb_textf("%s/" SB_SLURM_SCRIPT, j->output_dir);
    sb_manifest mf;
    sb_manifest_init(&mf);
    mf.spacrbench_version = SPACRBENCH_VERSION_STRING;
    mf.tasks = j->n_items; /* #SBATCH --array=0-(tasks - 1) */
    mf.items_file = j->items_file;
    mf.index = SB_SLURM_INDEX;
    mf.script = script;
    mf.array_key = key; /* the script's key line, the index's header */
    mf.job_name = j->job_name ? j->job_name : "spacrbench";
    mf.mem_bytes = set->mem_bytes; /* the script's #SBATCH lines */
    mf.cpus = set->cpus;
    mf.time_minutes = set->minutes;
    mf.array_limit = k->array_limit;
    mf.item_timeout_seconds = k->item_timeout_seconds;
    mf.no_cgroup = k->no_cgroup;
    json_writer w;
    json_init(&w, 1);
    const void *parts[] = {&mf};
    sb_record_write(&w, NULL, &sb_manifest_record, parts, NULL);
    free(script);
    const char *text = json_result(&w);
    if (!text) {
        json_free(&w);
        return sb_fail(SPACRBENCH_ENOMEM, "out of memory");
    }
    fputs(text, out);
    fputc('\n', out);
    json_free(&w);
    return 0;
}

/* The manifest's line that does not say what the array does (nor do the
 * script's comment lines). */
static int manifest_version(const char *line, size_t n)
{
    (void)n;
    return strstr(line, "\"spacrbench_version\":") != NULL;
}

#define OTHER_MAX (16u << 20) /* an existing script or manifest larger than this differs */

/* The next line of f for which skip does not hold: 1 with it in *line, 0
 * at the end, -1 on a read error. */
static int next_line(FILE *f, char **line, size_t *cap, size_t *n,
                     int (*skip)(const char *, size_t))
{
    for (;;) {
        ssize_t got = getline(line, cap, f);
        if (got < 0)
            return ferror(f) ? -1 : 0;
        *n = (size_t)got;
        if (!skip || !skip(*line, *n))
            return 1;
    }
}

enum { EXISTING_NONE, EXISTING_SAME, EXISTING_OTHER };

/* What the directory holds under a's name, against a's temporary: none,
 * the same (lines for which skip holds aside), or another array's (a link,
 * not a regular file, or different lines). */
static int existing(const sb_atomic_file *a, int (*skip)(const char *, size_t), int *verdict)
{
    int fd = open(a->path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0 && errno == ENOENT) {
        *verdict = EXISTING_NONE;
        return 0;
    }
    *verdict = EXISTING_OTHER;
    if (fd < 0)
        return errno == ELOOP
                   ? 0
                   : sb_fail(SPACRBENCH_ESYSTEM, "cannot read %s: %s", a->path, strerror(errno));
    struct stat old, now;
    FILE *f = NULL, *g = NULL;
    int rc = 0;
    if (fstat(fd, &old) != 0 || stat(a->tmp, &now) != 0)
        rc = sb_fail(SPACRBENCH_ESYSTEM, "cannot stat %s: %s", a->path, strerror(errno));
    else if (!S_ISREG(old.st_mode) || (!skip && old.st_size != now.st_size) ||
             (skip && (uint64_t)old.st_size > OTHER_MAX))
        ; /* another's */
    else if (!(f = fdopen(fd, "r")) || !(g = fopen(a->tmp, "re")))
        rc = sb_fail(SPACRBENCH_ESYSTEM, "cannot read %s: %s", f ? a->tmp : a->path,
                     strerror(errno));
    else {
        fd = -1;
        char *x = NULL, *y = NULL;
        size_t xcap = 0, ycap = 0, xn = 0, yn = 0;
        for (;;) {
            int p = next_line(f, &x, &xcap, &xn, skip), q = next_line(g, &y, &ycap, &yn, skip);
            if (p < 0 || q < 0) {
                rc = sb_fail(SPACRBENCH_ESYSTEM, "cannot read %s: %s", a->path, strerror(errno));
                break;
            }
            if (p != q || (p && (xn != yn || memcmp(x, y, xn) != 0)))
                break;
            if (!p) {
                *verdict = EXISTING_SAME;
                break;
            }
        }
        free(x);
        free(y);
    }
    if (f)
        fclose(f);
    else if (fd >= 0)
        close(fd);
    if (g)
        fclose(g);
    return rc;
}

/* The refusal: which array the directory's files belong to, from its
 * manifest when it can be read, and what to do. */
static int refuse(const spacrbench_slurm_job *j, const char *which, int n_which)
{
    char what[4096 + 64] = ""; /* a whole path */
    char *path = sb_textf("%s/" SB_SLURM_MANIFEST, j->output_dir), *text = NULL;
    int fd = path ? open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY) : -1;
    size_t len = 0;
    int truncated;
    json_doc doc;
    sb_manifest mf;
    if (fd >= 0 && sb_read_fd(fd, 1 << 20, &text, &len, &truncated) == 0) {
        if (sb_manifest_of(text, len, &doc, &mf) == 0 && mf.tasks >= 1 && mf.items_file)
            snprintf(what, sizeof what, "; that array: %" PRId64 " task(s) over %s", mf.tasks,
                     mf.items_file);
        json_doc_free(&doc);
        free(text);
    }
    if (fd >= 0)
        close(fd);
    free(path);
    return sb_fail(SPACRBENCH_EINVAL,
                   "%s holds another job array's files (its %s %s), which that job's "
                   "tasks read when they start: nothing was written. Choose another output "
                   "directory (run --emit slurm: --slurm-output DIR; Python to_slurm: "
                   "output_dir), or remove " SB_SLURM_INDEX ", " SB_SLURM_SCRIPT
                   " and " SB_SLURM_MANIFEST " there once that job has finished%s",
                   j->output_dir, which, n_which > 1 ? "differ" : "differs", what);
}

/* 0 when the directory holds no other array's files under the three
 * names, else the refusal naming every one that differs: the script first
 * (what its tasks run), then the index (the items' contents), then the
 * manifest; a second measurement can change the script's --mem while the
 * items changed too. */
static int check_not_anothers(const spacrbench_slurm_job *j, const sb_atomic_file files[3])
{
    static const int order[3] = {1, 0, 2};
    int (*const skips[3])(const char *, size_t) = {NULL, sb_slurm_comment_line, manifest_version};
    static const char *const what[3] = {
        "items index (the items file's contents)",
        "job script (its items file, tasks, requests, command or options)", "manifest"};
    const char *differ[3];
    int n_differ = 0, rc = 0;
    for (int o = 0; o < 3 && rc == 0; o++) {
        int i = order[o], verdict = EXISTING_NONE;
        if ((rc = existing(&files[i], skips[i], &verdict)) == 0 && verdict == EXISTING_OTHER)
            differ[n_differ++] = what[i];
    }
    if (rc != 0 || n_differ == 0)
        return rc;
    char which[512] = "";
    for (int d = 0; d < n_differ; d++) {
        size_t used = strlen(which);
        snprintf(which + used, sizeof which - used, "%s%s",
                 d == 0              ? ""
                 : d == n_differ - 1 ? " and "
                                     : ", ",
                 differ[d]);
    }
    return refuse(j, which, n_differ);
}

int spacrbench_slurm_write_array(const spacrbench_measurement *m,
                                 const spacrbench_schedule *schedule,
                                 const spacrbench_slurm_job *job,
                                 const spacrbench_slurm_tasks *tasks)
{
    SB_REFUSE(!m || !schedule || !job, "measurement, schedule and job must not be NULL");
    spacrbench_slurm_job j;
    spacrbench_slurm_job_init(&j, sizeof j);
    int rc = sb_struct_in(&j, sizeof j, job, "spacrbench_slurm_job");
    if (rc < 0)
        return rc;
    spacrbench_slurm_tasks k;
    spacrbench_slurm_tasks_init(&k, sizeof k);
    if (tasks && (rc = sb_struct_in(&k, sizeof k, tasks, "spacrbench_slurm_tasks")) < 0)
        return rc;
    spacrbench_schedule s = {.size = sizeof s};
    if ((rc = sb_struct_in(&s, sizeof s, schedule, "spacrbench_schedule")) < 0)
        return rc;
    if (!j.items_file || !j.output_dir || j.n_items < 1)
        return sb_fail(SPACRBENCH_EINVAL, "job.items_file, job.output_dir and job.n_items >= 1 "
                                          "are required");
    sb_text text = {0};
    sb_slurm_settings set;
    char key[SB_SLURM_KEY_LEN + 1];
    if ((rc = sb_slurm_job_text(m, &s, &j, &k, &text, &set, key)) < 0) {
        sb_text_free(&text);
        return rc;
    }
    FILE *items = fopen(j.items_file, "rbe");
    if (!items) {
        sb_text_free(&text);
        return sb_fail(SPACRBENCH_ESYSTEM, "cannot open %s: %s", j.items_file, strerror(errno));
    }
    /* The directory, locked against another write_array into it (released
     * when the descriptor closes); a file system without flock goes without. */
    int dir = open(j.output_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0)
        rc = sb_fail(SPACRBENCH_ESYSTEM, "cannot open %s: %s", j.output_dir, strerror(errno));
    while (dir >= 0 && flock(dir, LOCK_EX) != 0 && errno == EINTR)
        ;
    sb_atomic_file files[3]; /* in the order they are renamed: index, script, manifest */
    memset(files, 0, sizeof files);
    static const char *const names[3] = {SB_SLURM_INDEX, SB_SLURM_SCRIPT, SB_SLURM_MANIFEST};
    static const mode_t modes[3] = {0644, 0755, 0644};
    for (int i = 0; i < 3 && rc == 0; i++)
        rc = temp_open(&files[i], j.output_dir, names[i], modes[i]);
    int64_t count = 0;
    if (rc == 0 && (rc = write_index(items, j.items_file, files[0].f, key, &count)) == 0 &&
        count != j.n_items)
        rc = sb_fail(SPACRBENCH_EINVAL,
                     "%s holds %" PRId64 " items now, the job %" PRId64
                     " (it changed since it was read?)",
                     j.items_file, count, j.n_items);
    if (rc == 0) {
        fwrite(text.data, 1, text.len, files[1].f);
        rc = write_manifest(files[2].f, &j, &k, &set, key);
    }
    for (int i = 0; i < 3 && rc == 0; i++)
        if (sb_atomic_close(&files[i]) != 0)
            rc = sb_fail(SPACRBENCH_ESYSTEM, "cannot write %s: %s", files[i].tmp, strerror(errno));
    if (rc == 0)
        rc = check_not_anothers(&j, files);
    for (int i = 0; i < 3 && rc == 0; i++)
        if (sb_atomic_commit(&files[i]) != 0)
            rc = sb_fail(SPACRBENCH_ESYSTEM, "cannot write %s: %s", files[i].path, strerror(errno));
    for (int i = 0; i < 3; i++)
        sb_atomic_discard(&files[i]);
    if (dir >= 0)
        close(dir);
    fclose(items);
    sb_text_free(&text);
    return rc;
}

#else /* Windows: no openat, O_NONBLOCK or FIFOs to guard against */

#include "cluster.h"
#include "internal.h"

int spacrbench_slurm_write_array(const spacrbench_measurement *m,
                                 const spacrbench_schedule *schedule,
                                 const spacrbench_slurm_job *job,
                                 const spacrbench_slurm_tasks *tasks)
{
    (void)m;
    (void)schedule;
    (void)job;
    (void)tasks;
    sb_clear_error();
    return sb_fail(SPACRBENCH_EUNSUPPORTED,
                   "a SLURM job array's files are written on Linux and macOS, not on Windows");
}
#endif
