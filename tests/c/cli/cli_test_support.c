/* See cli_test_support.h. */
#include "cli_test_support.h"
#include "sb_test_text.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

char *cli_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    size_t n;
    while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (len + 1 == cap) {
            char *grown = realloc(buf, cap *= 2);
            if (!grown) {
                free(buf);
                buf = NULL;
            } else
                buf = grown;
        }
    }
    fclose(f);
    if (buf)
        buf[len] = '\0';
    return buf;
}

char *cli_temp_file(const char *text)
{
    char *path = strdup("/tmp/spacrbench-cli-test-XXXXXX");
    ck_assert_ptr_nonnull(path);
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    size_t n = strlen(text);
    ck_assert_int_eq(write(fd, text, n), (ssize_t)n);
    close(fd);
    return path;
}

char *cli_unwrap(const char *text)
{
    char *out = sb_test_unwrap(text);
    ck_assert_ptr_nonnull(out);
    return out;
}

void cli_run(char *const argv[], const char *stdin_path, cli_result *r)
{
    char out_path[] = "/tmp/spacrbench-cli-out-XXXXXX";
    char err_path[] = "/tmp/spacrbench-cli-err-XXXXXX";
    int out = mkstemp(out_path), err = mkstemp(err_path);
    ck_assert_int_ge(out, 0);
    ck_assert_int_ge(err, 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    cli_note_started(pid);
    if (pid == 0) {
        int in = open(stdin_path ? stdin_path : "/dev/null", O_RDONLY);
        if (in < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
            _exit(120);
        execv(argv[0], argv);
        _exit(121);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    close(out);
    close(err);
    r->exited = WIFEXITED(status);
    r->code = r->exited ? WEXITSTATUS(status) : WTERMSIG(status);
    r->raw = cli_read_file(out_path);
    r->out = r->raw ? cli_unwrap(r->raw) : NULL;
    r->err = cli_read_file(err_path);
    unlink(out_path);
    unlink(err_path);
    ck_assert_ptr_nonnull(r->out);
    ck_assert_ptr_nonnull(r->err);
    ck_assert_msg(r->code != 121 || !r->exited, "could not exec %s", argv[0]);
}

void cli_result_free(cli_result *r)
{
    free(r->raw);
    free(r->out);
    free(r->err);
    memset(r, 0, sizeof *r);
}

/* The python3 the suites parse JSON with: the one found at configure
 * time, or SPACRBENCH_TEST_PYTHON (the non-root stage runs them as a user
 * who cannot reach root's pyenv). */
static const char *test_python(void)
{
    const char *given = getenv("SPACRBENCH_TEST_PYTHON");
    return given && given[0] ? given : TEST_PYTHON;
}

int cli_have_python(void)
{
    const char *py = test_python();
    if (py[0] == '\0' || access(py, X_OK) != 0) {
        printf("SKIP: no python3 to parse JSON (TEST_PYTHON='%s')\n", py);
        return 0;
    }
    return 1;
}

char *cli_json_eval(const char *json_path, const char *expr)
{
    if (!cli_have_python())
        return NULL;
    char *const argv[] = {(char *)test_python(),
                          "-c",
                          "import json, sys\n"
                          "d = json.load(open(sys.argv[1], encoding='utf-8'))\n"
                          "print(eval(sys.argv[2]))\n",
                          (char *)json_path,
                          (char *)expr,
                          NULL};
    cli_result r;
    cli_run(argv, NULL, &r);
    char *value = NULL;
    if (r.exited && r.code == 0) {
        value = strdup(r.out);
        value[strcspn(value, "\n")] = '\0';
    } else
        fprintf(stderr, "python failed on %s: %s\n", expr, r.err);
    cli_result_free(&r);
    return value;
}

void cli_own_memory_cgroup(char *dir, size_t cap)
{
    FILE *f = fopen("/proc/self/cgroup", "r");
    char line[1024];
    dir[0] = '\0';
    while (f && fgets(line, sizeof line, f)) {
        char *p = strstr(line, ":memory:");
        if (p) {
            p[strcspn(p, "\n")] = '\0';
            snprintf(dir, cap, "/sys/fs/cgroup/memory%s", p + 8);
        }
    }
    if (f)
        fclose(f);
    struct stat st;
    if (dir[0] && stat(dir, &st) != 0)
        dir[0] = '\0';
}

/* The processes this test process started (the last CLI_STARTED_MAX). */
#define CLI_STARTED_MAX 4096
static pid_t g_started[CLI_STARTED_MAX];
static size_t g_n_started;

void cli_note_started(pid_t pid) { g_started[g_n_started++ % CLI_STARTED_MAX] = pid; }

static int started_here(long pid)
{
    size_t n = g_n_started < CLI_STARTED_MAX ? g_n_started : CLI_STARTED_MAX;
    for (size_t i = 0; i < n; i++)
        if ((long)g_started[i] == pid)
            return 1;
    return 0;
}

static int count_ended(const char *dir, int ours_only)
{
    DIR *d = dir[0] ? opendir(dir) : NULL;
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        long pid = 0;
        if (sscanf(e->d_name, "spacrbench-run-%ld-", &pid) == 1 &&
            (pid <= 0 || (kill((pid_t)pid, 0) != 0 && errno == ESRCH)) &&
            (!ours_only || started_here(pid)))
            n++;
    }
    if (d)
        closedir(d);
    return n;
}

int cli_count_ended_groups_in(const char *dir) { return count_ended(dir, 0); }

int cli_count_leftover_cgroups(void)
{
    char dir[1200];
    cli_own_memory_cgroup(dir, sizeof dir);
    return count_ended(dir, 1);
}

void cli_expect_usage_error(char *const argv[], const char *expected, size_t which)
{
    cli_result r;
    cli_run(argv, NULL, &r);
    int exit2 = r.exited && r.code == 2, named = strstr(r.err, expected) != NULL;
    char err[512];
    snprintf(err, sizeof err, "%s", r.err);
    int code = r.code;
    cli_result_free(&r); /* before the assertions, which may leave the test */
    ck_assert_msg(exit2, "case %zu: exit %d", which, code);
    ck_assert_msg(named, "case %zu: '%s' not in '%s'", which, expected, err);
}

void cli_make_limited_cgroup(char *dir, size_t cap, const char *name)
{
    char own[1024];
    cli_own_memory_cgroup(own, sizeof own);
    snprintf(dir, cap, "%s/%s-%ld", own, name, (long)getpid());
    char file[1400];
    snprintf(file, sizeof file, "%s/memory.limit_in_bytes", dir);
    int made = own[0] && mkdir(dir, 0755) == 0, ok = made;
    FILE *f = ok ? fopen(file, "w") : NULL;
    ok = f && fputs("268435456", f) >= 0;
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok) {
        printf("SKIP OOM test: no writable cgroup v1 memory controller (%s)\n",
               own[0] ? dir : "not mounted");
        if (made)
            rmdir(dir);
        dir[0] = '\0';
        return;
    }
    /* With swap accounting, swap would let the helper through. */
    snprintf(file, sizeof file, "%s/memory.memsw.limit_in_bytes", dir);
    if ((f = fopen(file, "w")) != NULL) {
        fputs("268435456", f);
        fclose(f);
    }
}

void cli_sleep_marker(char *marker, size_t cap, int base)
{
    snprintf(marker, cap, "%d.%07ld", base, (long)getpid());
}

int cli_sleepers(const char *marker, int kill_them)
{
    char want[64];
    snprintf(want, sizeof want, "sleep %s ", marker);
    DIR *d = opendir("/proc");
    ck_assert_ptr_nonnull(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char path[300], buf[512], state[600];
        long pid = strtol(e->d_name, NULL, 10);
        if (pid <= 0)
            continue;
        snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
        int fd = open(path, O_RDONLY);
        if (fd < 0)
            continue;
        ssize_t k = read(fd, buf, sizeof buf - 1);
        close(fd);
        for (ssize_t i = 0; i < k; i++)
            if (buf[i] == '\0')
                buf[i] = ' ';
        buf[k > 0 ? k : 0] = '\0';
        if (k <= 0 || strcmp(buf, want) != 0)
            continue;
        /* A zombie has an empty cmdline, so this one is alive. */
        snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        fd = open(path, O_RDONLY);
        ssize_t s = fd >= 0 ? read(fd, state, sizeof state - 1) : -1;
        if (fd >= 0)
            close(fd);
        state[s > 0 ? s : 0] = '\0';
        const char *paren = strrchr(state, ')');
        if (paren && paren[1] == ' ' && paren[2] == 'Z')
            continue;
        n++;
        if (kill_them)
            kill((pid_t)pid, SIGKILL);
    }
    closedir(d);
    return n;
}

int cli_sleep_survivors(const char *marker)
{
    usleep(100000); /* a SIGKILLed process may take a moment to go */
    return cli_sleepers(marker, 1);
}
