/* util/'s contract: the portable helpers the library, the command and the
 * tests share (the record engine and the JSON writer are in record.h). Not installed. */
#ifndef SPACRBENCH_UTIL_H
#define SPACRBENCH_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* MinGW builds use its C99 printf family (__USE_MINGW_ANSI_STDIO, set by
 * the toolchain file); plain "printf" would check against msvcrt's. */
#if defined(__MINGW32__)
#define SB_TEXT_PRINTF(f, a) __attribute__((format(gnu_printf, f, a)))
#elif defined(__GNUC__)
#define SB_TEXT_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define SB_TEXT_PRINTF(f, a)
#endif

/* ---- system ---- */

/* The project's one monotonic clock, in seconds, so that every time compares. */
double sb_now(void);

/* Room for need elements in *arrayp (the address of any array's pointer),
 * *cap its capacity, doubling so appends stay amortised O(1). 0, or -1
 * (nothing changed) when need * elem overflows or memory ran out. */
int sb_grow(void *arrayp, size_t *cap, size_t need, size_t elem);

/* All n bytes of buf on fd, EINTR retried, in chunks a 32-bit count holds:
 * 0, or -1 with errno set (EIO for a write that wrote nothing).
 * Async-signal-safe. */
int sb_write_all(int fd, const void *buf, size_t n);

/* Up to n bytes of fd into buf, EINTR retried, short only at end of file:
 * how many, or -1 with errno set. */
long long sb_read_all(int fd, void *buf, size_t n);
/* fd to its end into a fresh NUL-terminated buffer of at most limit bytes
 * (limit >= 1; a longer file sets *truncated, the rest is not read):
 * /proc files report size 0, so the size is never trusted. 0 with *text
 * (the caller frees it) and *len, or -1 with errno set. The caller closes fd. */
int sb_read_fd(int fd, size_t limit, char **text, size_t *len, int *truncated);

/* Loading a shared library at run time (NVML): dlopen/dlsym on POSIX,
 * LoadLibrary/GetProcAddress on Windows. NULL with the system's reason in why. */
void *sb_dl_open(const char *path, char *why, size_t why_cap);
void *sb_dl_symbol(void *lib, const char *name);
void sb_dl_close(void *lib);
/* getenv, except in a setuid or file-capability program on Linux, where a
 * library named by an unprivileged caller's environment must not load. */
const char *sb_secure_getenv(const char *name);

/* Replace a file whole, so that no reader ever sees half of one: the text
 * goes to a temporary ".sbXXXXXX" beside the target (fixed in length, so
 * any name that fits the directory fits), created O_CREAT | O_EXCL |
 * O_NOFOLLOW, is synced and renamed over it. Errors are errno's (-1). */
typedef struct sb_atomic_file {
    char *path;  /* the target */
    char *tmp;   /* the temporary beside it */
    int fd;      /* the temporary, open until sb_atomic_close; -1 after */
    FILE *f;     /* a stream on fd (sb_atomic_stream), or NULL */
    int pending; /* the temporary exists and is not renamed yet */
} sb_atomic_file;

/* mode: the permissions, less the umask, or exactly mode with exact (an
 * existing file keeps its own). */
int sb_atomic_open(sb_atomic_file *a, const char *path, unsigned mode, int exact);
int sb_atomic_write(sb_atomic_file *a, const char *text, size_t len);
/* A stdio stream on the temporary (closed by sb_atomic_close); NULL with errno. */
FILE *sb_atomic_stream(sb_atomic_file *a);
/* Flushed, synced and closed: -1 when anything written did not reach the
 * disk (a full disk is said here). */
int sb_atomic_close(sb_atomic_file *a);
int sb_atomic_commit(sb_atomic_file *a);
/* Close what is open and remove the temporary unless it was committed;
 * errno is kept. A zeroed sb_atomic_file (never opened) is left alone. */
void sb_atomic_discard(sb_atomic_file *a);

/* ---- text ---- */

/* The one growing text buffer: always NUL-terminated. A formatter is
 * called once when its text fits the room left, a second time only after
 * the buffer grew. */
typedef struct sb_text {
    char *data;
    size_t len;
    size_t cap;
    int failed; /* set on allocation failure; further appends are ignored */
} sb_text;

void sb_text_printf(sb_text *t, const char *fmt, ...) SB_TEXT_PRINTF(2, 3);
void sb_text_vprintf(sb_text *t, const char *fmt, va_list ap) SB_TEXT_PRINTF(2, 0);
/* snprintf-style: at most cap bytes (NUL included), the full length or < 0. */
typedef int (*sb_text_formatter)(char *buf, size_t cap, const void *arg);
/* Append what format(arg) writes: its length, or -1 (t->failed set). */
int sb_text_append(sb_text *t, sb_text_formatter format, const void *arg);
/* Room for need more bytes: 0 or -1 (t->failed set). */
int sb_text_reserve(sb_text *t, size_t need);
/* Empty again, keeping the memory. */
void sb_text_clear(sb_text *t);
/* A fresh string printed by fmt (the caller frees it), NULL out of memory. */
char *sb_textf(const char *fmt, ...) SB_TEXT_PRINTF(1, 2);
char *sb_vtextf(const char *fmt, va_list ap) SB_TEXT_PRINTF(1, 0);
/* The text, handed over ("" when empty), or NULL if anything failed; t is
 * empty afterwards either way. */
char *sb_text_take(sb_text *t);
void sb_text_free(sb_text *t);

/* "512 B", "12.3 MiB", "1.50 GiB"; "not measured" for a negative one. */
void sb_format_bytes(char *buf, size_t cap, int64_t bytes);

/* Length of the valid UTF-8 sequence at p (1..4), or 0 when the byte at p
 * does not start one (stray continuation, overlong, surrogate, cut short
 * by the string's NUL). p points into a NUL-terminated string. */
size_t sb_utf8_length(const unsigned char *p);
/* Whether the valid sequence of n bytes at p is a C1 control (U+009B is CSI). */
int sb_utf8_is_c1(const unsigned char *p, size_t n);
/* The columns of the first `bytes` bytes of s (a byte that is not UTF-8
 * counts one). */
size_t sb_utf8_width(const char *s, size_t bytes);

/* The one escaping of text that reaches a terminal: an item is arbitrary
 * bytes, and shown raw a newline forges a report line and ESC drives the
 * terminal. \n, \t, \r escaped as themselves; other C0 controls and DEL,
 * the C1 controls (U+0080..U+009F) and every byte that is not valid UTF-8
 * (a lone 0x9b is CSI to an 8-bit terminal) as \xNN per byte; valid UTF-8
 * unchanged. JSON documents keep the raw text, JSON-escaped. */
size_t sb_escaped_length(const char *text); /* NUL excluded */
char *sb_escape_text(const char *text);     /* malloc'd; NULL out of memory */
/* At most about max bytes: when longer, its start and end around "...",
 * then its length ("abc...xyz (1200 bytes)"), never cutting a character
 * or an escape. malloc'd; NULL out of memory. */
char *sb_escape_short(const char *text, size_t max);
/* Append text escaped (NULL: nothing). */
void sb_text_label(sb_text *t, const char *text);

/* Columns a report line holds, and where its value column starts. */
#define SB_WRAP_WIDTH  79
#define SB_WRAP_INDENT 22
/* Append line (no line break in it): as it is when it fits width columns,
 * else broken at spaces, every line after the first indented. The first
 * keep bytes are never broken (upstream's words). A detail in parentheses
 * that then fits the second line whole starts it; else each line is
 * filled. A word longer than a line stands alone. No final line break. */
void sb_text_wrapped(sb_text *t, const char *line, size_t keep, size_t width, size_t indent);

/* ---- item lists ---- */

/* A list of items, one per line (`spacrbench run --items`,
 * spacrbench_slurm_count_items): lines end at \n, a trailing CR is not part
 * of the item, empty items are skipped. Checked as the bytes arrive, so a
 * file without newlines or an endless stream cannot grow a reader without
 * end. The limits: 1 GiB (ten million 100-byte paths) and 2^24 items (four
 * times the largest SLURM array); a line at most ARG_MAX, within 128 KiB..64 MiB
 * (no longer line can be passed to a command). */
#define SB_ITEMS_MAX_BYTES ((size_t)1 << 30)
#define SB_ITEMS_MAX_COUNT ((size_t)1 << 24)

typedef enum sb_items_fault {
    SB_ITEMS_OK = 0,
    SB_ITEMS_ERRNO,     /* a read failed, or keep did: errno */
    SB_ITEMS_NUL,       /* a NUL byte */
    SB_ITEMS_LONG_LINE, /* a line longer than the line limit */
    SB_ITEMS_TOO_LARGE, /* more than SB_ITEMS_MAX_BYTES */
    SB_ITEMS_TOO_MANY,  /* more than SB_ITEMS_MAX_COUNT items */
} sb_items_fault;

/* Each item of f in turn to keep (NUL-terminated; non-zero stops, errno
 * saying why): the fault, *line the line it stopped at (from 1). */
sb_items_fault sb_items_read(FILE *f, int (*keep)(const char *item, size_t len, void *payload),
                             void *payload, size_t *line);
/* The sentence refusing a list for fault (not OK or ERRNO) at line, naming
 * file (NULL: standard input): malloc'd, NULL out of memory. */
char *sb_items_refusal(sb_items_fault fault, size_t line, const char *file);

/* ---- JSON ---- */

/* A bounded JSON reader for documents we did not write (task reports,
 * manifests): json-c parses the text, with a depth limit (a document
 * nested 100,000 deep is refused, not a stack overflow), and its values
 * become one arena of nodes, with a node limit. The syntax is strict RFC
 * 8259 (no NaN/Infinity, no trailing commas, no control characters in
 * strings, valid UTF-8 and \u surrogate pairs: what json-c lets through
 * is checked here), integers beyond 64 bits are numbers still, and an
 * error names the byte offset. Strings are decoded to NUL-terminated UTF-8
 * (a \u0000 inside is refused, so each string is one C string). */
typedef enum json_kind {
    JSON_NULL,
    JSON_FALSE,
    JSON_TRUE,
    JSON_NUMBER,
    JSON_STRING,
    JSON_ARRAY,
    JSON_OBJECT
} json_kind;

typedef struct json_node {
    json_kind kind;
    unsigned char is_integer; /* a number without fraction or exponent that fits int64 */
    unsigned char integral;   /* a number without fraction or exponent, of any size */
    unsigned char finite;     /* a number a double holds (always, unless JSON_KEEP_UNHELD
                                 or JSON_NONFINITE let another in) */
    unsigned char has_nul;    /* a string that held \u0000 (JSON_KEEP_UNHELD): text ends there */
    int64_t integer;          /* when is_integer */
    double number;            /* every number (+-HUGE_VAL beyond a double, NaN for NaN) */
    const char *text;         /* JSON_STRING: decoded; JSON_NUMBER: as written */
    const char *key;          /* member name inside an object, else NULL */
    size_t count;             /* children of an array or object */
    size_t first;             /* index of the first child; children are consecutive
                          siblings linked by next */
    size_t next;              /* the next sibling's index, 0 = none (0 is the root) */
} json_node;

typedef struct json_doc {
    json_node *nodes;
    size_t n_nodes;
    char *strings;            /* numbers' texts (the strings are the tree's) */
    struct json_object *tree; /* json-c's values */
    char error[160];
} json_doc;

typedef struct json_limits {
    int max_depth;    /* e.g. 64 */
    size_t max_nodes; /* e.g. 1 << 20 */
    unsigned flags;   /* 0 (strict), or JSON_KEEP_UNHELD | JSON_NONFINITE */
} json_limits;

/* What RFC 8259 allows but a C string or a double cannot hold (a \u0000
 * inside a string, a number beyond a double or of more than 63
 * characters) is kept, marked (has_nul, !finite), for a field reader to
 * name, instead of failing the parse; a lone surrogate escape becomes
 * U+FFFD. */
#define JSON_KEEP_UNHELD 1u
/* NaN, Infinity and -Infinity, which Python's json.dumps writes for
 * float('nan') and float('inf'), are numbers (!finite). */
#define JSON_NONFINITE 2u

/* Parse text[0..len) (not NUL-terminated necessarily). 0, or -1 with
 * doc->error set ("nested deeper than 64 at byte 64", ...). json_doc_free
 * in both cases. */
int json_parse(json_doc *doc, const char *text, size_t len, const json_limits *limits);
void json_doc_free(json_doc *doc);

/* The root, or NULL when the parse failed. */
const json_node *json_root(const json_doc *doc);
/* An object's member by name (the last one when repeated), or NULL when
 * node is not an object or has none. */
const json_node *json_get(const json_doc *doc, const json_node *node, const char *key);
/* The i-th child of an array or object, NULL past the end (O(i)). */
const json_node *json_child(const json_doc *doc, const json_node *node, size_t i);
/* The sibling after child, NULL at the end: for loops over children. */
const json_node *json_next(const json_doc *doc, const json_node *child);

/* ---- parsers ---- */

/* Pure parsers (fuzzed) for the texts machine discovery reads and the
 * sizes and durations people write. Each takes (text, len): not
 * necessarily NUL-terminated, anything in it. None allocates, reads a file
 * or touches global state. Outputs are written only on SB_PARSE_OK. */
#define SB_PARSE_OK          0
#define SB_PARSE_ABSENT      1    /* well-formed enough, but the thing is not there */
#define SB_PARSE_NOT_VISIBLE 2    /* cgroup path lies outside every mount root */
#define SB_PARSE_BAD         (-1) /* malformed, out of range, or does not fit */

/* A limit file saying "no limit" ("max", v1's huge sentinel). */
#define SB_UNLIMITED INT64_C(-1)
/* v1 says "no limit" as LONG_MAX rounded down to a page; anything this
 * large is not a limit a machine can have. */
#define SB_V1_UNLIMITED_FLOOR (INT64_C(1) << 62)
/* Largest CPU number a cpuset list may name (the kernel's NR_CPUS ceiling). */
#define SB_MAX_CPUS 8192

/* A whole decimal number, optionally signed, within optional blanks and
 * newlines (cpu.cfs_quota_us, memory.current). */
int sb_parse_int64(const char *text, size_t len, int64_t *value);
/* /proc/meminfo: the "Key:   N kB" line for key, in bytes. */
int sb_parse_meminfo(const char *text, size_t len, const char *key, int64_t *bytes);
/* Any "key value" file (memory.stat, cpu.stat): the value of key. */
int sb_parse_stat_key(const char *text, size_t len, const char *key, int64_t *value);
/* A memory limit file: bytes, or SB_UNLIMITED for "max", -1, a value >=
 * SB_V1_UNLIMITED_FLOOR, or one too big for int64. */
int sb_parse_memory_limit(const char *text, size_t len, int64_t *bytes);
/* v2 cpu.max "QUOTA PERIOD" (QUOTA "max" -> SB_UNLIMITED; no PERIOD -> 100000). */
int sb_parse_cpu_max(const char *text, size_t len, int64_t *quota, int64_t *period);
/* A cpuset list ("0-3,8,10-11"): the number of distinct CPUs, 0 for an
 * empty list; a CPU >= SB_MAX_CPUS is SB_PARSE_BAD. */
int sb_parse_cpuset(const char *text, size_t len, int64_t *count);

/* /proc/self/cgroup, v1: the path of the line whose controller list holds
 * controller ("memory", "name=systemd"); v2: of the "0::PATH" line. */
int sb_parse_proc_cgroup_v1(const char *text, size_t len, const char *controller, char *path,
                            size_t cap);
int sb_parse_proc_cgroup_v2(const char *text, size_t len, char *path, size_t cap);

/* Undo mountinfo's octal escapes (\040 space, \011 tab, \012 newline,
 * \134 backslash); any other backslash is kept. */
int sb_unescape_mount_path(const char *src, size_t len, char *dst, size_t cap);

#define SB_MOUNT_PATH_MAX 1024
#define SB_MOUNT_WORD_MAX 256

/* The fields of one mountinfo line that discovery needs (paths unescaped). */
typedef struct sb_mount {
    char root[SB_MOUNT_PATH_MAX];
    char point[SB_MOUNT_PATH_MAX];
    char fstype[SB_MOUNT_WORD_MAX];
    char super_opts[SB_MOUNT_WORD_MAX]; /* v1 lists its controllers here */
} sb_mount;

/* One line of /proc/self/mountinfo (without its newline). */
int sb_parse_mountinfo_line(const char *line, size_t len, sb_mount *out);

typedef struct sb_cgroup_query {
    int version;            /* 1 or 2 */
    const char *controller; /* v1 only: "memory", "cpu", "cpuset" */
    const char *path;       /* this process's cgroup path from /proc/self/cgroup */
} sb_cgroup_query;

/* A cgroup's directory and the mount point above which no ancestor is visible. */
typedef struct sb_cgroup_location {
    char dir[SB_MOUNT_PATH_MAX];
    char mount_point[SB_MOUNT_PATH_MAX];
} sb_cgroup_location;

/* Map a cgroup path to its directory through the whole mountinfo text:
 * among the hierarchy's mounts, the longest root containing the path wins.
 * SB_PARSE_ABSENT: no such mount; SB_PARSE_NOT_VISIBLE: the path lies
 * outside every mount root (or climbs with ".."). */
int sb_locate_cgroup(const char *mountinfo, size_t len, const sb_cgroup_query *query,
                     sb_cgroup_location *out);

/* SLURM's --time forms in whole seconds: minutes, MM:SS, HH:MM:SS, D-HH,
 * D-HH:MM, D-HH:MM:SS (no INFINITE or UNLIMITED). */
int sb_parse_slurm_time(const char *text, size_t len, int64_t *seconds);
/* --timeout's seconds: a number ("10", "1.5"), or numbers each with d, h,
 * m or s, in that order ("1h30m", "1.5h"), or SLURM's forms with ':' or
 * '-'. 0 and any size parse; the caller bounds them. */
int sb_parse_duration(const char *text, size_t len, double *seconds);
/* A share from 0 to 1: a percentage ("12.5%") or a fraction ("0.05"); no
 * sign, blank, NaN or infinity. */
int sb_parse_share(const char *text, size_t len, double *share);

/* A byte size, the one rule of the command's size options,
 * spacrbench_parse_size and Python's reserve_bytes="4G": digits with an
 * optional fraction, then K M G T P E alone, with "i" or "iB": powers of
 * 1024 (SLURM's --mem); with "B": powers of 1000 (Dask's parse_bytes); "B"
 * or nothing: bytes, in either case. At most SB_SIZE_TEXT_MAX bytes read,
 * no blanks, signs, hex or exponents; a fraction rounds up. NULL with
 * *bytes set, or what is wrong (a static sentence not quoting the text). */
#define SB_SIZE_TEXT_MAX 64
const char *sb_parse_size_text(const char *text, int64_t *bytes);

/* The parsers' shared steps: the next line at *pos (advanced past it; 0
 * at the end), whether a comma-separated list holds word, blanks, tabs,
 * CR and LF trimmed from both ends. */
int sb_next_line(const char *text, size_t len, size_t *pos, const char **line, size_t *line_len);
int sb_list_has(const char *list, size_t len, const char *word);
void sb_trim(const char **text, size_t *len);

#endif
