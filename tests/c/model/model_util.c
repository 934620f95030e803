/* The model's small helpers (model.h): a seeded random source (splitmix64:
 * the same seed plays the same history), sorted index sets, growing text,
 * whole-file reads and writes. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model.h"

uint64_t model_next(model_rng *r)
{
    uint64_t z = (r->s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

int64_t model_int(model_rng *r, int64_t lo, int64_t hi)
{
    uint64_t span = (uint64_t)(hi - lo) + 1;
    return lo + (int64_t)(model_next(r) % span);
}

double model_unit(model_rng *r) { return (double)(model_next(r) >> 11) / 9007199254740992.0; }

int model_chance(model_rng *r, double p) { return model_unit(r) < p; }

void *model_alloc(size_t n)
{
    void *p = calloc(1, n ? n : 1);
    if (!p) {
        fprintf(stderr, "model: out of memory\n");
        abort();
    }
    return p;
}

char *model_strdup(const char *s)
{
    char *d = model_alloc(strlen(s) + 1);
    memcpy(d, s, strlen(s) + 1);
    return d;
}

void idx_add(idxset *s, int64_t v)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 16;
        s->v = realloc(s->v, s->cap * sizeof *s->v);
        if (!s->v)
            abort();
    }
    s->v[s->n++] = v;
}

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

void idx_sort(idxset *s)
{
    if (s->n < 2)
        return;
    qsort(s->v, s->n, sizeof *s->v, cmp64);
    size_t out = 1;
    for (size_t i = 1; i < s->n; i++)
        if (s->v[i] != s->v[out - 1])
            s->v[out++] = s->v[i];
    s->n = out;
}

int idx_has(const idxset *s, int64_t v)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->v[mid] < v)
            lo = mid + 1;
        else if (s->v[mid] > v)
            hi = mid;
        else
            return 1;
    }
    return 0;
}

void idx_free(idxset *s)
{
    free(s->v);
    memset(s, 0, sizeof *s);
}

char *idx_text(const idxset *s)
{
    mtext t = {0};
    mt_printf(&t, "%s", "");
    for (size_t i = 0; i < s->n;) {
        size_t j = i;
        while (j + 1 < s->n && s->v[j + 1] == s->v[j] + 1)
            j++;
        if (j == i)
            mt_printf(&t, "%s%" PRId64, t.n ? "," : "", s->v[i]);
        else
            mt_printf(&t, "%s%" PRId64 "-%" PRId64, t.n ? "," : "", s->v[i], s->v[j]);
        i = j + 1;
    }
    return t.s;
}

void mt_printf(mtext *t, const char *fmt, ...)
{
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        abort();
    if (t->n + (size_t)n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 64;
        while (cap < t->n + (size_t)n + 1)
            cap *= 2;
        t->s = realloc(t->s, cap);
        if (!t->s)
            abort();
        t->cap = cap;
    }
    vsnprintf(t->s + t->n, (size_t)n + 1, fmt, again);
    va_end(again);
    t->n += (size_t)n;
}

void mt_free(mtext *t)
{
    free(t->s);
    memset(t, 0, sizeof *t);
}

char *model_read_file(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    size_t cap = 4096, got = 0; /* to its end: a pipe has no size */
    char *buf = model_alloc(cap);
    for (;;) {
        if (got + 1 >= cap) {
            cap *= 2;
            buf = realloc(buf, cap);
            if (!buf)
                abort();
        }
        ssize_t n = read(fd, buf + got, cap - got - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    buf[got] = '\0';
    if (len)
        *len = got;
    return buf;
}

void model_write_file(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "we");
    if (!f || fwrite(text, 1, len, f) != len || fclose(f) != 0) {
        fprintf(stderr, "model: cannot write %s: %s\n", path, strerror(errno));
        abort();
    }
}

void model_append_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        abort();
    size_t len = strlen(text), done = 0;
    while (done < len) {
        ssize_t n = write(fd, text + done, len - done);
        if (n <= 0)
            abort();
        done += (size_t)n;
    }
    close(fd);
}

void model_remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char path[4096];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
            model_remove_tree(path);
        else
            unlink(path);
    }
    closedir(d);
    rmdir(dir);
}
