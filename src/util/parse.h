/* Pure parsers for the texts machine discovery reads: /proc/meminfo,
 * /proc/self/cgroup, /proc/self/mountinfo and cgroup control files; and
 * the durations people write (--timeout, SLURM's --time).
 *
 * Every parser takes (text, len): the text need not be NUL-terminated and
 * may hold anything (they are fuzzed). None allocates, reads a file or
 * touches global state, so they are tested on recorded texts. Outputs are
 * written only on SB_PARSE_OK. Not installed. */
#ifndef SPACRBENCH_PARSE_H
#define SPACRBENCH_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* Results of every parser. */
#define SB_PARSE_OK          0
#define SB_PARSE_ABSENT      1    /* well-formed enough, but the thing is not there */
#define SB_PARSE_NOT_VISIBLE 2    /* cgroup path lies outside every mount root */
#define SB_PARSE_BAD         (-1) /* malformed, out of range, or does not fit */

/* A limit file saying "no limit" ("max", v1's huge sentinel). */
#define SB_UNLIMITED INT64_C(-1)
/* v1 reports "no limit" as LONG_MAX rounded down to a page; anything this
 * large is not a limit a machine can have. */
#define SB_V1_UNLIMITED_FLOOR (INT64_C(1) << 62)
/* Largest CPU number a cpuset list may name (the kernel's NR_CPUS ceiling). */
#define SB_MAX_CPUS 8192

/* A whole decimal number, optionally signed, surrounded by optional blanks
 * and newlines (cpu.cfs_quota_us, memory.current, usage_in_bytes). */
int sb_parse_int64(const char *text, size_t len, int64_t *value);

/* /proc/meminfo: the "Key:   N kB" line for key, in bytes. */
int sb_parse_meminfo(const char *text, size_t len, const char *key, int64_t *bytes);

/* memory.stat (and cpu.stat, any "key value" file): the value of key. */
int sb_parse_stat_key(const char *text, size_t len, const char *key, int64_t *value);

/* A memory limit (memory.max, memory.high, memory.limit_in_bytes,
 * memory.memsw.limit_in_bytes): bytes, or SB_UNLIMITED for "max", -1, a
 * value >= SB_V1_UNLIMITED_FLOOR, or one too big for int64. */
int sb_parse_memory_limit(const char *text, size_t len, int64_t *bytes);

/* v2 cpu.max "QUOTA PERIOD" (QUOTA may be "max" -> *quota = SB_UNLIMITED;
 * PERIOD may be missing -> 100000). */
int sb_parse_cpu_max(const char *text, size_t len, int64_t *quota, int64_t *period);

/* A cpuset list ("0-3,8,10-11"): the number of distinct CPUs, 0 for an
 * empty list. CPUs numbered >= SB_MAX_CPUS are SB_PARSE_BAD. */
int sb_parse_cpuset(const char *text, size_t len, int64_t *count);

/* /proc/self/cgroup, v1: the path of the line whose controller list holds
 * controller ("memory", "cpu", "name=systemd"). */
int sb_parse_proc_cgroup_v1(const char *text, size_t len, const char *controller, char *path,
                            size_t cap);
/* /proc/self/cgroup, v2: the path of the "0::PATH" line. */
int sb_parse_proc_cgroup_v2(const char *text, size_t len, char *path, size_t cap);

/* Undo mountinfo's octal escapes (\040 space, \011 tab, \012 newline,
 * \134 backslash); any other backslash is kept as is. */
int sb_unescape_mount_path(const char *src, size_t len, char *dst, size_t cap);

#define SB_MOUNT_PATH_MAX 1024
#define SB_MOUNT_WORD_MAX 256

/* The fields of one mountinfo line that discovery needs. */
typedef struct sb_mount {
    char root[SB_MOUNT_PATH_MAX];  /* unescaped */
    char point[SB_MOUNT_PATH_MAX]; /* unescaped */
    char fstype[SB_MOUNT_WORD_MAX];
    char super_opts[SB_MOUNT_WORD_MAX]; /* v1 lists its controllers here */
} sb_mount;

/* One line of /proc/self/mountinfo (without its newline). */
int sb_parse_mountinfo_line(const char *line, size_t len, sb_mount *out);

/* Which hierarchy to look for in mountinfo. */
typedef struct sb_cgroup_query {
    int version;            /* 1 or 2 */
    const char *controller; /* v1 only: "memory", "cpu", "cpuset" */
    const char *path;       /* this process's cgroup path from /proc/self/cgroup */
} sb_cgroup_query;

/* Where a cgroup lives: its directory and the mount point above which no
 * ancestor is visible. */
typedef struct sb_cgroup_location {
    char dir[SB_MOUNT_PATH_MAX];
    char mount_point[SB_MOUNT_PATH_MAX];
} sb_cgroup_location;

/* Map a cgroup path to its directory through the whole mountinfo text.
 * Among mounts of the hierarchy, the one with the longest root containing
 * the path wins. SB_PARSE_ABSENT: no such mount; SB_PARSE_NOT_VISIBLE: the
 * path lies outside every mount root (or climbs with ".."). */
int sb_locate_cgroup(const char *mountinfo, size_t len, const sb_cgroup_query *query,
                     sb_cgroup_location *out);

/* SLURM's --time forms in whole seconds: minutes, MM:SS, HH:MM:SS, D-HH,
 * D-HH:MM, D-HH:MM:SS (no INFINITE or UNLIMITED). */
int sb_parse_slurm_time(const char *text, size_t len, int64_t *seconds);

/* A duration in seconds as --timeout takes it: a number of seconds
 * ("10", "1.5"), or numbers each with d, h, m or s, in that order
 * ("90s", "2m", "1h30m", "1.5h", "2d12h"), or SLURM's forms with a ':'
 * or '-' ("1:30:00", "2-00:00:00"). 0 and any size parse; the caller
 * bounds them. */
int sb_parse_duration(const char *text, size_t len, double *seconds);

/* A share from 0 to 1, as a percentage ("5%", "12.5%") or a fraction
 * ("0.05"); no sign, blank, NaN or infinity. */
int sb_parse_share(const char *text, size_t len, double *share);

/* Helpers shared by the parse_*.c files. */

/* The next line of text starting at *pos (without its newline); advances
 * *pos past it. Returns 0 at the end of the text. */
int sb_next_line(const char *text, size_t len, size_t *pos, const char **line, size_t *line_len);
/* Does the comma-separated list hold word exactly? */
int sb_list_has(const char *list, size_t len, const char *word);
/* Trim blanks, tabs, CR and LF from both ends of [*text, *text + *len). */
void sb_trim(const char **text, size_t *len);

#endif
