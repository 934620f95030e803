/* See run_stale.h. */
#include "run_stale.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_escape.h"

#define SHOWN_PIDS 8 /* pids named per cgroup; more are counted */

/* Is pid a running spacrbench? Its comm is "spacrbench" (the kernel keeps
 * 15 bytes of the executable's name). A zombie or another program that
 * reused the pid is not. */
static int spacrbench_alive(long pid)
{
    char path[64], comm[32] = "", state[256] = "";
    snprintf(path, sizeof path, "/proc/%ld/comm", pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    int ok = fgets(comm, sizeof comm, f) != NULL;
    fclose(f);
    comm[strcspn(comm, "\n")] = '\0';
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    if (ok && (f = fopen(path, "re"))) {
        ok = fgets(state, sizeof state, f) != NULL;
        fclose(f);
    }
    const char *paren = strrchr(state, ')');
    return ok && strcmp(comm, "spacrbench") == 0 && paren && paren[1] == ' ' && paren[2] != 'Z';
}

/* Append to a growing text. */
static void appendf(char **text, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void appendf(char **text, const char *fmt, ...)
{
    if (!*text)
        return;
    char piece[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(piece, sizeof piece, fmt, ap);
    va_end(ap);
    size_t n = strlen(*text), k = strlen(piece);
    char *grown = realloc(*text, n + k + 1);
    if (!grown) {
        free(*text);
        *text = NULL;
        return;
    }
    memcpy(grown + n, piece, k + 1);
    *text = grown;
}

/* The pids in dir/cgroup.procs, as " 12 34 (and 5 more)"; how many. */
static int list_pids(const char *dir, char *out, size_t cap)
{
    char path[SB_GROUP_PATH_MAX + 320];
    snprintf(path, sizeof path, "%s/cgroup.procs", dir);
    FILE *f = fopen(path, "re");
    out[0] = '\0';
    if (!f)
        return -1;
    long pid;
    int n = 0;
    size_t used = 0;
    while (fscanf(f, "%ld", &pid) == 1) {
        if (n++ < SHOWN_PIDS && used < cap)
            used += (size_t)snprintf(out + used, cap - used, " %ld", pid);
    }
    fclose(f);
    if (n > SHOWN_PIDS && used < cap)
        snprintf(out + used, cap - used, " (and %d more)", n - SHOWN_PIDS);
    return n;
}

/* Handle one stale cgroup; its description goes to stderr and the note. */
static void handle(const sb_group *g, const char *name, long pid, char **note)
{
    char dir[SB_GROUP_PATH_MAX + 300], pids[256], what[400];
    snprintf(dir, sizeof dir, "%s/%s", g->parent, name);
    char *shown = cli_escape_label(name);
    int n = list_pids(dir, pids, sizeof pids);
    if (n == 0 && rmdir(dir) == 0)
        snprintf(what, sizeof what, "empty, removed");
    else if (n == 0)
        snprintf(what, sizeof what, "empty, but cannot be removed: %s", strerror(errno));
    else if (n > 0)
        snprintf(what, sizeof what,
                 "process(es)%s still in it: left alone, not killed (end them, then rmdir it)",
                 pids);
    else
        snprintf(what, sizeof what, "unreadable: %s", strerror(errno));
    fprintf(stderr,
            "spacrbench: cgroup %s/%s was left by spacrbench process %ld, which no longer "
            "runs: %s\n",
            g->parent, shown ? shown : "?", pid, what);
    appendf(note, "%s%s (%s)", **note ? "; " : "", shown ? shown : "?", what);
    free(shown);
}

char *run_stale_cleanup(const sb_group *g)
{
    DIR *d = opendir(g->parent);
    if (!d)
        return NULL;
    char *found = calloc(1, 1);
    struct dirent *e;
    long self = (long)getpid();
    while ((e = readdir(d)) != NULL) {
        long pid;
        char rest;
        if (sscanf(e->d_name, "spacrbench-run-%ld-%c", &pid, &rest) != 2 || pid <= 0 ||
            pid == self || spacrbench_alive(pid))
            continue;
        handle(g, e->d_name, pid, &found);
    }
    closedir(d);
    if (found && !*found) {
        free(found);
        return NULL;
    }
    char *note = NULL;
    if (found && asprintf(&note,
                          "cgroups left by earlier spacrbench runs that did not end cleanly "
                          "(killed?) were found beside this run's: %s",
                          found) < 0)
        note = NULL;
    free(found);
    return note;
}
