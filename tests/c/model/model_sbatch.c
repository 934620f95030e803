/* sbatch as the model's cluster reads a submission (model.h): the
 * script's #SBATCH lines before its first command (every option of a
 * line; the last one wins), then the command line's options, which
 * override them; long options by unambiguous abbreviation as getopt_long
 * takes them, among sbatch 22.05's names (sbatch --help, and what its
 * "ambiguous" errors list). A printed command line must be runnable as
 * printed: plain words and '...' quoting only, each argument within
 * Linux's MAX_ARG_STRLEN. This is the model's own reading, written apart
 * from the library's (src/cluster/slurm_directives.c), so that one checks
 * the other. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

/* sbatch 22.05's long options. */
static const char *const k_names[] = {"account",
                                      "acctg-freq",
                                      "array",
                                      "batch",
                                      "bb",
                                      "bbf",
                                      "begin",
                                      "chdir",
                                      "cluster",
                                      "cluster-constraint",
                                      "clusters",
                                      "comment",
                                      "constraint",
                                      "container",
                                      "context",
                                      "contiguous",
                                      "core-spec",
                                      "cores-per-socket",
                                      "cpu-freq",
                                      "cpus-per-gpu",
                                      "cpus-per-task",
                                      "deadline",
                                      "delay-boot",
                                      "dependency",
                                      "distribution",
                                      "error",
                                      "exclude",
                                      "exclusive",
                                      "export",
                                      "export-file",
                                      "extra-node-info",
                                      "get-user-env",
                                      "gid",
                                      "gpu-bind",
                                      "gpu-freq",
                                      "gpus",
                                      "gpus-per-node",
                                      "gpus-per-socket",
                                      "gpus-per-task",
                                      "gres",
                                      "gres-flags",
                                      "help",
                                      "hint",
                                      "hold",
                                      "ignore-pbs",
                                      "input",
                                      "job-name",
                                      "kill-on-invalid-dep",
                                      "licenses",
                                      "mail-type",
                                      "mail-user",
                                      "mcs-label",
                                      "mem",
                                      "mem-bind",
                                      "mem-per-cpu",
                                      "mem-per-gpu",
                                      "mincpus",
                                      "network",
                                      "nice",
                                      "no-kill",
                                      "no-requeue",
                                      "nodefile",
                                      "nodelist",
                                      "nodes",
                                      "ntasks",
                                      "ntasks-per-core",
                                      "ntasks-per-gpu",
                                      "ntasks-per-node",
                                      "ntasks-per-socket",
                                      "ntasks-per-tres",
                                      "open-mode",
                                      "output",
                                      "overcommit",
                                      "oversubscribe",
                                      "parsable",
                                      "partition",
                                      "power",
                                      "prefer",
                                      "priority",
                                      "profile",
                                      "propagate",
                                      "qos",
                                      "quiet",
                                      "reboot",
                                      "requeue",
                                      "reservation",
                                      "signal",
                                      "sockets-per-node",
                                      "spread-job",
                                      "switches",
                                      "tasks-per-node",
                                      "test-only",
                                      "thread-spec",
                                      "threads-per-core",
                                      "time",
                                      "time-min",
                                      "tmp",
                                      "uid",
                                      "usage",
                                      "use-min-nodes",
                                      "verbose",
                                      "version",
                                      "wait",
                                      "wait-all-nodes",
                                      "wckey",
                                      "wrap"};
#define N_NAMES (sizeof k_names / sizeof k_names[0])

/* The long options that take no value (the rest need one). */
static int takes_no_value(const char *name)
{
    static const char *const flags[] = {
        "contiguous", "exclusive",  "get-user-env", "help",          "hold",     "ignore-pbs",
        "no-kill",    "no-requeue", "overcommit",   "oversubscribe", "parsable", "quiet",
        "reboot",     "requeue",    "spread-job",   "test-only",     "usage",    "use-min-nodes",
        "verbose",    "version",    "wait",         "wait-all-nodes"};
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        if (strcmp(name, flags[i]) == 0)
            return 1;
    return 0;
}

/* Short options: the long name each stands for ("" takes no value). */
static const char *short_name(char c)
{
    switch (c) {
    case 'A':
        return "account";
    case 'C':
        return "constraint";
    case 'D':
        return "chdir";
    case 'F':
        return "nodefile";
    case 'G':
        return "gpus";
    case 'J':
        return "job-name";
    case 'L':
        return "licenses";
    case 'M':
        return "clusters";
    case 'N':
        return "nodes";
    case 'S':
        return "core-spec";
    case 'a':
        return "array";
    case 'b':
        return "begin";
    case 'c':
        return "cpus-per-task";
    case 'd':
        return "dependency";
    case 'e':
        return "error";
    case 'i':
        return "input";
    case 'm':
        return "distribution";
    case 'n':
        return "ntasks";
    case 'o':
        return "output";
    case 'p':
        return "partition";
    case 'q':
        return "qos";
    case 't':
        return "time";
    case 'w':
        return "nodelist";
    case 'x':
        return "exclude";
    case 'H':
        return "hold";
    case 'O':
        return "overcommit";
    case 'Q':
        return "quiet";
    case 'W':
        return "wait";
    case 'k':
        return "no-kill";
    case 's':
        return "oversubscribe";
    case 'v':
        return "verbose";
    default:
        return NULL;
    }
}

/* getopt_long's rule: an exact name, else the one name it abbreviates. */
static const char *resolve(const char *given, size_t len, char *why, size_t cap)
{
    const char *found = NULL;
    int n = 0;
    for (size_t i = 0; i < N_NAMES; i++) {
        if (strlen(k_names[i]) == len && strncmp(k_names[i], given, len) == 0)
            return k_names[i];
        if (strncmp(k_names[i], given, len) == 0) {
            found = k_names[i];
            n++;
        }
    }
    if (n == 1)
        return found;
    snprintf(why, cap, "sbatch: option '--%.*s' is %s", (int)len, given,
             n ? "ambiguous" : "unrecognized");
    return NULL;
}

void submission_free(submission *s)
{
    idx_free(&s->tasks);
    free(s->item_timeout);
    free(s->time_var);
    free(s->output);
    free(s->script);
    memset(s, 0, sizeof *s);
}

int model_shell_words(const char *line, char ***words, size_t *n, char *why, size_t cap)
{
    static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                "/._-+=:,%@";
    *words = NULL;
    *n = 0;
    size_t cap_words = 0;
    const char *p = line;
    while (*p) {
        if (*p == ' ') {
            p++;
            continue;
        }
        mtext w = {0};
        mt_printf(&w, "%s", "");
        while (*p && *p != ' ') {
            if (*p == '\'') {
                const char *end = strchr(p + 1, '\'');
                if (!end) {
                    snprintf(why, cap, "an unterminated quote");
                    mt_free(&w);
                    model_words_free(*words, *n);
                    return -1;
                }
                mt_printf(&w, "%.*s", (int)(end - p - 1), p + 1);
                p = end + 1;
            } else if (*p == '\\' && p[1] == '\'') {
                mt_printf(&w, "'");
                p += 2;
            } else if (strchr(plain, *p)) {
                mt_printf(&w, "%c", *p++);
            } else {
                snprintf(why, cap, "the character 0x%02x is special to a shell, unquoted",
                         (unsigned char)*p);
                mt_free(&w);
                model_words_free(*words, *n);
                return -1;
            }
        }
        if (*n == cap_words) {
            cap_words = cap_words ? 2 * cap_words : 16;
            *words = realloc(*words, cap_words * sizeof **words);
            if (!*words)
                abort();
        }
        (*words)[(*n)++] = w.s;
    }
    return 0;
}

void model_words_free(char **words, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(words[i]);
    free(words);
}

static int number_at(const char **p, int64_t *v)
{
    if (!isdigit((unsigned char)**p))
        return -1;
    char *end;
    long long x = strtoll(*p, &end, 10);
    if (end - *p > 12)
        return -1;
    *v = x;
    *p = end;
    return 0;
}

int model_array_spec(const char *spec, int64_t max, idxset *set, int64_t *throttle, char *why,
                     size_t cap)
{
    const char *p = spec;
    *throttle = 0;
    for (;;) {
        int64_t a, b, step = 1;
        if (number_at(&p, &a) != 0)
            goto bad;
        b = a;
        if (*p == '-') {
            p++;
            if (number_at(&p, &b) != 0)
                goto bad;
            if (*p == ':') {
                p++;
                if (number_at(&p, &step) != 0 || step < 1)
                    goto bad;
            }
        }
        if (b < a || b >= max)
            goto bad;
        for (int64_t i = a; i <= b; i += step)
            idx_add(set, i);
        if (*p == ',') {
            p++;
            continue;
        }
        break;
    }
    if (*p == '%') {
        p++;
        if (number_at(&p, throttle) != 0 || *throttle < 1)
            goto bad;
    }
    if (*p)
        goto bad;
    idx_sort(set);
    return 0;
bad:
    snprintf(why, cap, "sbatch: error: Invalid job array specification: %.200s", spec);
    return -1;
}

int64_t model_time_minutes(const char *text)
{
    int64_t f[4];
    int n = 0;
    int64_t days = 0;
    const char *p = text;
    const char *dash = strchr(text, '-');
    if (dash) {
        if (number_at(&p, &days) != 0 || p != dash)
            return -1;
        p++;
    }
    while (n < 4) {
        if (number_at(&p, &f[n]) != 0)
            return -1;
        n++;
        if (*p != ':')
            break;
        p++;
    }
    if (*p)
        return -1;
    if (dash) { /* D-H, D-H:M, D-H:M:S */
        if (n > 3)
            return -1;
        return days * 1440 + f[0] * 60 + (n > 1 ? f[1] : 0) + (n > 2 && f[2] > 0 ? 1 : 0);
    }
    if (n == 1)
        return f[0];
    if (n == 2) /* MM:SS */
        return f[0] + (f[1] > 0 ? 1 : 0);
    if (n == 3)
        return f[0] * 60 + f[1] + (f[2] > 0 ? 1 : 0);
    return -1;
}

int64_t model_mem_mib(const char *text)
{
    const char *p = text;
    int64_t v;
    if (number_at(&p, &v) != 0)
        return -1;
    char u = (char)toupper((unsigned char)*p);
    if (*p && p[1])
        return -1;
    return !*p || u == 'M' ? v
           : u == 'K'      ? (v + 1023) / 1024
           : u == 'G'      ? v << 10
           : u == 'T'      ? v << 20
                           : -1;
}

/* One option (its resolved long name and its value) into s. */
static int apply(submission *s, const char *name, const char *value, int64_t max_array, char *why,
                 size_t cap)
{
    if (strcmp(name, "array") == 0) {
        idx_free(&s->tasks);
        return model_array_spec(value, max_array, &s->tasks, &s->throttle, why, cap);
    }
    if (strcmp(name, "mem") == 0) {
        if ((s->mem_mib = model_mem_mib(value)) <= 0) {
            snprintf(why, cap, "sbatch: error: invalid memory constraint %.100s", value);
            return -1;
        }
        return 0;
    }
    if (strcmp(name, "cpus-per-task") == 0) {
        s->cpus = atoll(value);
        if (s->cpus < 1) {
            snprintf(why, cap, "sbatch: error: Invalid --cpus-per-task argument: %.100s", value);
            return -1;
        }
        return 0;
    }
    if (strcmp(name, "time") == 0) {
        if ((s->time_min = model_time_minutes(value)) < 1) {
            snprintf(why, cap, "sbatch: error: Invalid --time specification %.100s", value);
            return -1;
        }
        return 0;
    }
    if (strcmp(name, "output") == 0) {
        free(s->output);
        s->output = model_strdup(value);
        return 0;
    }
    if (strcmp(name, "export") == 0) {
        /* ALL,NAME=VALUE,...: the variables the tasks see. */
        char *copy = model_strdup(value);
        for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
            char **slot = strncmp(tok, "SPACRBENCH_ITEM_TIMEOUT=", 24) == 0 ? &s->item_timeout
                          : strncmp(tok, "SPACRBENCH_TIME_LIMIT_MINUTES=", 30) == 0 ? &s->time_var
                                                                                    : NULL;
            if (slot) {
                free(*slot);
                *slot = model_strdup(strchr(tok, '=') + 1);
            } else if (strcmp(tok, "ALL") != 0) {
                snprintf(why, cap, "model: --export of %.100s is not modelled", tok);
                free(copy);
                return -1;
            }
        }
        free(copy);
        return 0;
    }
    static const char *const ignored[] = {"job-name",  "partition",   "account",
                                          "qos",       "comment",     "mail-type",
                                          "mail-user", "reservation", "constraint"};
    for (size_t i = 0; i < sizeof ignored / sizeof ignored[0]; i++)
        if (strcmp(name, ignored[i]) == 0)
            return 0;
    snprintf(why, cap, "model: sbatch option --%s is not modelled", name);
    return -1;
}

/* The options of words[0..n-1] into s: *used how many were options (the
 * script follows them on a command line). */
static int options(submission *s, char **words, size_t n, size_t *used, int64_t max_array,
                   char *why, size_t cap)
{
    size_t i = 0;
    for (; i < n; i++) {
        const char *w = words[i];
        if (w[0] != '-' || !w[1])
            break;
        const char *name, *value = NULL;
        if (w[1] == '-') {
            const char *eq = strchr(w + 2, '=');
            size_t len = eq ? (size_t)(eq - w - 2) : strlen(w + 2);
            if (!(name = resolve(w + 2, len, why, cap)))
                return -1;
            if (takes_no_value(name))
                continue;
            value = eq ? eq + 1 : (i + 1 < n ? words[++i] : NULL);
        } else {
            /* A cluster of short options: flags, then one taking a value. */
            const char *c = w + 1;
            name = NULL;
            for (; *c; c++) {
                name = short_name(*c);
                if (!name) {
                    snprintf(why, cap, "sbatch: invalid option -- '%c'", *c);
                    return -1;
                }
                if (!takes_no_value(name))
                    break;
            }
            if (!*c)
                continue;
            value = c[1] ? c + 1 : (i + 1 < n ? words[++i] : NULL);
        }
        if (!value) {
            snprintf(why, cap, "sbatch: option '%s' requires an argument", w);
            return -1;
        }
        if (apply(s, name, value, max_array, why, cap) != 0)
            return -1;
    }
    *used = i;
    return 0;
}

/* #SBATCH words as sbatch splits them: whitespace, quotes removed. */
static void directive_words(const char *line, char ***words, size_t *n)
{
    *words = NULL;
    *n = 0;
    size_t cap = 0;
    const char *p = line;
    while (*p) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        mtext w = {0};
        mt_printf(&w, "%s", "");
        char quote = 0;
        for (; *p && (quote || (*p != ' ' && *p != '\t')); p++) {
            if (!quote && (*p == '"' || *p == '\''))
                quote = *p;
            else if (quote && *p == quote)
                quote = 0;
            else
                mt_printf(&w, "%c", *p);
        }
        if (*n == cap) {
            cap = cap ? 2 * cap : 8;
            *words = realloc(*words, cap * sizeof **words);
        }
        (*words)[(*n)++] = w.s;
    }
}

static int script_directives(const char *text, submission *s, int64_t max_array, char *why,
                             size_t cap)
{
    const char *line = text;
    for (int first = 1; line && *line; first = 0) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        char *l = model_alloc(len + 1);
        memcpy(l, line, len);
        line = nl ? nl + 1 : NULL;
        int stop = 0, rc = 0;
        if (strncmp(l, "#SBATCH", 7) == 0) {
            char **words;
            size_t n, used;
            directive_words(l + 7, &words, &n);
            rc = options(s, words, n, &used, max_array, why, cap);
            model_words_free(words, n);
        } else if (!(first && strncmp(l, "#!", 2) == 0) && l[strspn(l, " \t")] &&
                   l[strspn(l, " \t")] != '#')
            stop = 1; /* the first command */
        free(l);
        if (rc != 0)
            return -1;
        if (stop)
            break;
    }
    return 0;
}

int model_sbatch(char **argv, size_t argc, int64_t max_array, submission *out, char *why,
                 size_t cap)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < argc; i++)
        if (strlen(argv[i]) > MODEL_ARG_MAX) {
            snprintf(why, cap, "execve: Argument list too long (argument %zu is %zu bytes)", i,
                     strlen(argv[i]));
            return -1;
        }
    /* The script is the first word that is not an option: find it first,
     * then its #SBATCH lines, then the command line over them. */
    submission probe = {0};
    size_t used = 0;
    if (options(&probe, argv, argc, &used, max_array, why, cap) != 0) {
        submission_free(&probe);
        return -1;
    }
    submission_free(&probe);
    if (used >= argc) {
        snprintf(why, cap, "sbatch: error: no batch script");
        return -1;
    }
    char *text = model_read_file(argv[used], NULL);
    if (!text) {
        snprintf(why, cap, "sbatch: error: Unable to open file %.200s", argv[used]);
        return -1;
    }
    int rc = script_directives(text, out, max_array, why, cap);
    free(text);
    size_t again = 0;
    if (rc == 0)
        rc = options(out, argv, argc, &again, max_array, why, cap);
    if (rc == 0 && out->tasks.n == 0) {
        snprintf(why, cap, "model: not an array");
        rc = -1;
    }
    if (rc == 0) {
        out->script = model_strdup(argv[used]);
        if (out->cpus < 1)
            out->cpus = 1;
    }
    return rc;
}
