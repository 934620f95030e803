/* The extra #SBATCH lines (job.directives) read as sbatch reads them:
 * every option on the line; long options by unambiguous abbreviation
 * (`--arr` is --array); short options in a cluster (`-Ha1-3` is --hold
 * --array=1-3). Against sbatch 22.05's option names. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "internal.h"
#include "util.h"

enum { OPT_OTHER, OPT_ARRAY, OPT_TIME, OPT_MEM, OPT_CPUS, OPT_CONFLICT, OPT_LOG, OPT_KINDS };

typedef struct opt_name {
    const char *name;
    int what;
} opt_name;

/* sbatch's long options whose first two letters are those of an option
 * read here: enough to tell an abbreviation from an ambiguous one. */
static const opt_name k_long[] = {
    {"account", OPT_OTHER},
    {"acctg-freq", OPT_OTHER},
    {"array", OPT_ARRAY},
    {"cpu-freq", OPT_OTHER},
    {"cpus-per-gpu", OPT_OTHER},
    {"cpus-per-task", OPT_CPUS},
    {"error", OPT_LOG},
    {"mem", OPT_MEM},
    {"mem-bind", OPT_OTHER},
    {"mem-per-cpu", OPT_CONFLICT},
    {"mem-per-gpu", OPT_CONFLICT},
    {"output", OPT_LOG},
    {"time", OPT_TIME},
    {"time-min", OPT_OTHER},
};
#define N_LONG (sizeof k_long / sizeof k_long[0])

/* sbatch's short options: those taking a value, and those that do not. */
static const char k_short_value[] = "ACDFGJLMNSabcdeimnopqtwx";
static const char k_short_flag[] = "HOQVWhksv";

static int short_what(char c)
{
    return c == 'a'               ? OPT_ARRAY
           : c == 't'             ? OPT_TIME
           : c == 'c'             ? OPT_CPUS
           : c == 'o' || c == 'e' ? OPT_LOG
                                  : OPT_OTHER;
}

/* What --name (len bytes) is to sbatch: one of ours, another option, or
 * an abbreviation of several (ambiguous, which sbatch refuses). */
static int long_what(const char *name, size_t len, const char **full)
{
    *full = NULL;
    if (len < 2) /* "--a", "--t": ambiguous to sbatch for every letter of ours */
        return strchr("acemot", name[0]) && len == 1 ? -1 : OPT_OTHER;
    int found = OPT_OTHER, n = 0;
    for (size_t i = 0; i < N_LONG; i++) {
        if (strncmp(k_long[i].name, name, len) != 0)
            continue;
        if (strlen(k_long[i].name) == len) { /* an exact name wins */
            *full = k_long[i].name;
            return k_long[i].what;
        }
        found = k_long[i].what;
        *full = k_long[i].name;
        n++;
    }
    return n > 1 ? -1 : found;
}

/* The next word of a line as sbatch splits it (whitespace; quotes kept
 * together and removed), into buf; NULL at the end. */
static const char *next_word(const char *p, char *buf, size_t cap)
{
    while (*p == ' ' || *p == '\t')
        p++;
    if (!*p)
        return NULL;
    size_t n = 0;
    char quote = 0;
    for (; *p && (quote || (*p != ' ' && *p != '\t')); p++) {
        if (!quote && (*p == '"' || *p == '\''))
            quote = *p;
        else if (quote && *p == quote)
            quote = 0;
        else if (n + 1 < cap)
            buf[n++] = *p;
    }
    buf[n] = '\0';
    return p;
}

/* SLURM's --mem: a whole number, MiB unless K, M, G or T follows. */
static int64_t mem_bytes(const char *text)
{
    const char *p = text;
    int64_t v = 0;
    for (int d = 0; isdigit((unsigned char)*p); p++, d++) {
        if (d == 12)
            return -1;
        v = v * 10 + (*p - '0');
    }
    if (p == text || v == 0)
        return -1;
    static const char units[] = "KMGT";
    const char *unit = *p ? strchr(units, toupper((unsigned char)*p)) : NULL;
    int shift = !*p ? 20 : unit ? 10 * (int)(unit - units + 1) : 0;
    if (!shift || (*p && p[1]) || v > (INT64_C(1) << (60 - shift)))
        return -1;
    return v << shift;
}

/* What sbatch would do with the options refused whatever their value. */
static const char *const k_refused[OPT_KINDS] = {
    [OPT_ARRAY] = "--array: the script sets the array from the items (one task per item; sbatch "
                  "would take the last --array and tasks beyond the items find none): drop it; "
                  "to run at most N tasks at once use --array-limit N (Python: array_limit=N)",
    [OPT_CONFLICT] = "--mem-per-cpu or --mem-per-gpu, which it refuses beside the script's own "
                     "--mem: give the memory per task as --mem",
    [OPT_LOG] = "--output or --error, which would move the tasks' SLURM logs away from their "
                "reports, where summarize reads how each task ended (TIMEOUT, an oom-kill): drop "
                "it"};

/* One option of the line (what it is, as given, its value) into d. */
static int take(int what, const char *given, const char *value, size_t index, sb_slurm_settings *d)
{
    if (k_refused[what])
        return sb_fail(SPACRBENCH_EINVAL, "job.directives[%zu]: sbatch reads '%s' as %s", index,
                       given, k_refused[what]);
    if (!value)
        return sb_fail(SPACRBENCH_EINVAL, "job.directives[%zu]: '%s' needs a value", index, given);
    if (what == OPT_TIME) {
        /* SLURM's forms (util/parse_duration.c), seconds rounded up to a
         * minute as SLURM rounds them; INFINITE and UNLIMITED are no limit:
         * nothing to double. */
        int64_t seconds, minutes = -1;
        if (sb_parse_slurm_time(value, strlen(value), &seconds) == SB_PARSE_OK)
            minutes = (seconds + 59) / 60;
        if (minutes < 1 || minutes > SB_TIME_MAX_MINUTES)
            return sb_fail(SPACRBENCH_EINVAL,
                           "job.directives[%zu]: --time '%s' is not a time limit of 1 minute to "
                           "365 days as sbatch writes it (minutes, MM:SS, HH:MM:SS, D-HH, "
                           "D-HH:MM or D-HH:MM:SS; no INFINITE: summarize doubles it after a "
                           "TIMEOUT)",
                           index, value);
        d->minutes = minutes;
    } else if (what == OPT_MEM) {
        int64_t bytes = mem_bytes(value);
        if (bytes < (INT64_C(1) << 20))
            return sb_fail(SPACRBENCH_EINVAL,
                           "job.directives[%zu]: --mem '%s' is not a memory per task of at least "
                           "1M (a whole number, MiB unless K, M, G or T follows; not 0, all of a "
                           "node's memory, which summarize cannot double after an OOM)",
                           index, value);
        d->mem_bytes = bytes;
    } else if (what == OPT_CPUS) {
        char *end = NULL;
        long long n = strtoll(value, &end, 10);
        if (!isdigit((unsigned char)value[0]) || *end || n < 1 || n > 1 << 20)
            return sb_fail(SPACRBENCH_EINVAL,
                           "job.directives[%zu]: --cpus-per-task '%s' is not a whole number of "
                           "CPUs",
                           index, value);
        d->cpus = n;
    }
    return 0;
}

int sb_slurm_directive_read(const char *line, size_t index, sb_slurm_settings *d)
{
    char word[1024], value_word[1024];
    const char *p = line;
    while ((p = next_word(p, word, sizeof word)) != NULL) {
        if (word[0] != '-' || !word[1])
            continue; /* a value of the option before it, or not an option */
        const char *value = NULL;
        int what;
        if (word[1] == '-') {
            char *eq = strchr(word + 2, '=');
            const char *full;
            what = long_what(word + 2, eq ? (size_t)(eq - word - 2) : strlen(word + 2), &full);
            if (what < 0)
                return sb_fail(SPACRBENCH_EINVAL,
                               "job.directives[%zu]: '%s' is an ambiguous abbreviation to "
                               "sbatch (which refuses it): spell the option out",
                               index, word);
            if (what == OPT_OTHER)
                continue;
            if (eq)
                value = eq + 1;
        } else {
            /* Flags, then at most one option that takes a value (the rest
             * of the word, else the next word). */
            const char *c = word + 1;
            while (*c && strchr(k_short_flag, *c))
                c++;
            if (!*c || !strchr(k_short_value, *c))
                continue;
            what = short_what(*c);
            if (what == OPT_OTHER) { /* its value may be the next word */
                const char *after = c[1] ? NULL : next_word(p, value_word, sizeof value_word);
                if (after)
                    p = after;
                continue;
            }
            if (c[1])
                value = c + 1;
        }
        if (!value && !k_refused[what]) {
            const char *after = next_word(p, value_word, sizeof value_word);
            if (after) {
                value = value_word;
                p = after;
            }
        }
        int rc = take(what, word, value, index, d);
        if (rc < 0)
            return rc;
    }
    return 0;
}
