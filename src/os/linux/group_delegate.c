/* Where a cgroup v2 group can be made without root. v2's rule: a cgroup
 * holding processes cannot enable memory for its children (the root is
 * exempt), and this process sits in its own. So a group needs either
 *   - the own cgroup, once its processes (only ours) moved into a leaf
 *     and memory is enabled there (what systemd's Delegate=yes or a
 *     container's init hand a process, and its owner may do), or
 *   - a cgroup above, delegated to this user (owned by it), empty and
 *     enabling memory: user@UID.service above a terminal's scope; the
 *     owner of the common ancestor may move processes below it.
 * A level between with a limit of its own rules the second out (groups
 * would escape it). Only the own cgroup's controllers are ever changed,
 * and undone when the last group is gone. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "os.h"

#define LEAF_PREFIX "spacrbench-leaf"
#define SHORT_PATH  52 /* a path in a note: at most this many bytes */
#define PARENT_HOPS 64 /* how far up a process's parents are followed */

void sb_group_short_path(const char *path, char *out, size_t cap)
{
    size_t len = strlen(path);
    if (len <= SHORT_PATH) {
        snprintf(out, cap, "%s", path);
        return;
    }
    /* The trailing components a user recognises, else the last one cut. */
    const char *tail = path + len;
    while (tail > path) {
        const char *slash = tail - 1;
        while (slash > path && *slash != '/')
            slash--;
        if (path + len - slash > SHORT_PATH - 4)
            break;
        tail = slash;
    }
    if (tail < path + len && *tail == '/') {
        snprintf(out, cap, "...%s", tail);
        return;
    }
    const char *last = strrchr(path, '/');
    last = last ? last + 1 : path;
    size_t n = strlen(last), half = (SHORT_PATH - 7) / 2;
    snprintf(out, cap, ".../%.*s...%s", (int)half, last, last + n - half);
}

/* Does DIR/FILE list WORD ("cpu memory pids")? */
static int lists(const char *dir, const char *file, const char *word)
{
    char text[512];
    if (sb_cg_read_in(dir, file, text, sizeof text, NULL) != 0)
        return 0;
    size_t n = strlen(word);
    for (char *p = text; (p = strstr(p, word)) != NULL; p += n)
        if ((p == text || p[-1] == ' ' || p[-1] == '+') &&
            (p[n] == '\0' || p[n] == ' ' || p[n] == '\n'))
            return 1;
    return 0;
}

/* The owner's write bit, as a delegation grants it; root anywhere but on a
 * read-only mount (a container's usual /sys/fs/cgroup). */
static int writable(const char *path, uid_t uid, long *owner, int *read_only)
{
    struct stat st;
    struct statvfs vfs;
    *owner = -1;
    if (stat(path, &st) != 0)
        return 0;
    *owner = (long)st.st_uid;
    if (statvfs(path, &vfs) == 0 && (vfs.f_flag & ST_RDONLY)) {
        *read_only = 1;
        return 0;
    }
    return uid == 0 || (st.st_uid == uid && (st.st_mode & S_IWUSR));
}

/* What systemd's Delegate=yes chowns. */
static int dir_writable(const char *dir, uid_t uid, long *owner, int *read_only)
{
    char procs[SB_GROUP_PATH_MAX + 64], subtree[SB_GROUP_PATH_MAX + 64];
    snprintf(procs, sizeof procs, "%s/cgroup.procs", dir);
    snprintf(subtree, sizeof subtree, "%s/cgroup.subtree_control", dir);
    return writable(dir, uid, owner, read_only) && writable(procs, uid, owner, read_only) &&
           writable(subtree, uid, owner, read_only);
}

static int ours(pid_t pid, pid_t self)
{
    for (int hop = 0; hop < PARENT_HOPS && pid > 1; hop++) {
        if (pid == self)
            return 1;
        if (sb_proc_stat("/proc", pid, NULL, &pid, NULL) != 0)
            return 0;
    }
    return pid == self;
}

typedef struct proc_count {
    pid_t self;
    int others; /* not self's */
} proc_count;

static int count_other(pid_t pid, void *arg)
{
    proc_count *c = arg;
    c->others += !ours(pid, c->self);
    return 0;
}

/* A limit a group made above the level would escape, or NULL. */
static const char *level_limit(const char *dir)
{
    static const char *const files[] = {"memory.max", "memory.high", "memory.swap.max", "pids.max",
                                        "cpu.max"};
    char text[256];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        if (sb_cg_read_in(dir, files[i], text, sizeof text, NULL) == 0 &&
            strncmp(text, "max", 3) != 0)
            return files[i];
    if (sb_cg_read_in(dir, "cpuset.cpus", text, sizeof text, NULL) == 0 && text[0] &&
        text[0] != '\n')
        return "cpuset.cpus";
    return NULL;
}

/* 0 when the own cgroup can take a leaf, else why not. */
static int own_usable(const sb_group *g, uid_t uid, pid_t self, char *why, size_t cap)
{
    long owner = -1;
    int ro = 0;
    if (!dir_writable(g->own, uid, &owner, &ro))
        return ro ? sb_why(why, cap, "is on a read-only cgroup mount")
                  : sb_why(why, cap, "is not writable for uid %ld (owner uid %ld)", (long)uid,
                           owner);
    if (!lists(g->own, "cgroup.controllers", "memory"))
        return sb_why(why, cap, "has no memory controller (the level above does not enable it)");
    proc_count c = {self, 0};
    if (sb_cgroup_procs_each(g->own, count_other, &c) < 0)
        return sb_why(why, cap, "cannot be listed (%s)", strerror(errno));
    if (c.others > 0)
        return sb_why(why, cap, "holds %d other process%s", c.others, c.others == 1 ? "" : "es");
    return 0;
}

static int delegated_above(const sb_group *g, const char *mount, uid_t uid, char *above,
                           size_t above_cap, char *why, size_t cap)
{
    char dir[SB_MOUNT_PATH_MAX], shown[64];
    snprintf(dir, sizeof dir, "%s", g->own);
    for (;;) {
        const char *limit = level_limit(dir);
        long owner = -1;
        int ro = 0;
        sb_group_short_path(dir, shown, sizeof shown);
        if (limit && strcmp(dir, g->own) == 0)
            return sb_why(why, cap, "groups above it would escape its %s", limit);
        if (limit)
            return sb_why(why, cap, "groups above %s would escape its %s", shown, limit);
        if (!sb_cgroup_up(dir, mount) || !dir_writable(dir, uid, &owner, &ro))
            return sb_why(why, cap, "nothing above it is delegated to uid %ld", (long)uid);
        if (sb_cgroup_procs_each(dir, NULL, NULL) == 0 &&
            lists(dir, "cgroup.subtree_control", "memory")) {
            snprintf(above, above_cap, "%s", dir);
            return 0;
        }
    }
}

/* The hierarchy's true root (exempt from the rule) has no cgroup.events;
 * a container's namespace root has one. */
static int true_root(const char *dir)
{
    char path[SB_GROUP_PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/cgroup.events", dir);
    return access(path, F_OK) != 0 && errno == ENOENT;
}

/* While we hold the leaf, /proc/self/cgroup names it: step above it. */
static int leave_own_leaf(sb_group *g, pid_t self)
{
    char *slash = strrchr(g->own, '/');
    char mine[96], tag[48];
    sb_group_owner_tag_of(self, tag, sizeof tag);
    snprintf(mine, sizeof mine, LEAF_PREFIX "-%s-0", tag);
    if (!slash || strcmp(slash + 1, mine) != 0)
        return 0;
    *slash = '\0';
    return 1;
}

void sb_group_choose(sb_group *g, const char *mount, uid_t uid, pid_t self)
{
    char own[64], where[64], why_own[128], why_up[128] = "";
    int in_leaf = g->version == 2 && leave_own_leaf(g, self);
    sb_group_short_path(g->own, own, sizeof own);
    snprintf(g->parent, sizeof g->parent, "%s", g->own);
    g->place = SB_GROUP_OWN;
    if (g->version == 1) {
        snprintf(g->found, sizeof g->found,
                 "cgroup v1 memory: groups in this process's own cgroup, %s", own);
        return;
    }
    if (true_root(g->own)) {
        snprintf(g->found, sizeof g->found, "cgroup v2: groups in the hierarchy's root, %s", own);
        return;
    }
    if (!in_leaf && lists(g->own, "cgroup.subtree_control", "memory")) {
        snprintf(g->found, sizeof g->found, "cgroup v2: groups in this process's own cgroup, %s",
                 own);
        return;
    }
    if (in_leaf || own_usable(g, uid, self, why_own, sizeof why_own) == 0) {
        g->place = SB_GROUP_LEAF;
        snprintf(g->found, sizeof g->found,
                 "cgroup v2: groups in this process's own cgroup, %s, with the process moved "
                 "into a leaf of it "
                 "(v2 enables memory only in a cgroup without processes)",
                 own);
        return;
    }
    char above[SB_MOUNT_PATH_MAX];
    if (uid != 0 &&
        delegated_above(g, mount, uid, above, sizeof above, why_up, sizeof why_up) == 0) {
        g->place = SB_GROUP_ABOVE;
        snprintf(g->parent, sizeof g->parent, "%s", above);
        sb_group_short_path(above, where, sizeof where);
        snprintf(g->found, sizeof g->found,
                 "cgroup v2: groups in %s, delegated to uid %ld, above this process's own "
                 "cgroup %s, which %s",
                 where, (long)uid, own, why_own);
        return;
    }
    g->place = SB_GROUP_NONE;
    snprintf(g->found, sizeof g->found, "no usable cgroup v2: this process's %s %s%s%s", own,
             why_own, why_up[0] ? "; " : "", why_up);
}

/* One leaf per process, shared by its groups. */
static struct leaf_state {
    pthread_mutex_t lock;
    pid_t owner; /* the process that holds it (a forked child does not) */
    int refs;    /* groups relying on it */
    int enabled; /* memory was enabled in own's subtree_control here */
    char own[SB_MOUNT_PATH_MAX];
    char leaf[SB_GROUP_PATH_MAX];
} leaf_state = {PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, "", ""};

typedef struct mover {
    const char *to;
    pid_t self;
    int failed;
} mover;

static int move_one(pid_t pid, void *arg)
{
    mover *m = arg;
    if (m->self && !ours(pid, m->self))
        return 0;
    if (sb_cg_move(m->to, pid) != 0 && errno != ESRCH)
        m->failed = errno;
    return 0;
}

/* self set: only self's. */
static int move_all(const char *from, const char *to, pid_t self)
{
    mover m = {to, self, 0};
    if (sb_cgroup_procs_each(from, move_one, &m) < 0)
        return -1;
    if (m.failed) {
        errno = m.failed;
        return -1;
    }
    return 0;
}

/* Until "populated 0" (rmdir is EBUSY before) or deadline; POLLPRI wakes
 * on a change, no timer. 0 empty; -1 not, or unreadable (< 4.5). */
static int wait_unpopulated(const char *dir, double deadline)
{
    char path[SB_GROUP_PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/cgroup.events", dir);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    int rc = -1;
    while (fd >= 0) {
        /* Each read re-arms the event, even for a change before poll. */
        char text[256];
        int64_t populated = 1;
        ssize_t n = pread(fd, text, sizeof text, 0);
        if (n < 0 || sb_parse_stat_key(text, (size_t)n, "populated", &populated) != SB_PARSE_OK)
            break;
        double wait = deadline - sb_now();
        if (populated == 0 || wait <= 0) {
            rc = populated == 0 ? 0 : -1;
            break;
        }
        struct pollfd p = {fd, POLLPRI, 0};
        if (poll(&p, 1, (int)ceil(wait * 1e3)) < 0 && errno != EINTR)
            break;
    }
    if (fd >= 0)
        close(fd);
    return rc;
}

/* With the lock held. */
static void leaf_undo(struct leaf_state *s)
{
    if (s->enabled)
        sb_cg_write_in(s->own, "cgroup.subtree_control", "-memory");
    move_all(s->leaf, s->own, 0);
    /* One exiting as it was moved keeps the leaf busy for a while. */
    if (rmdir(s->leaf) != 0 && errno == EBUSY && wait_unpopulated(s->leaf, sb_now() + 0.1) == 0)
        rmdir(s->leaf);
    s->refs = 0;
    s->enabled = 0;
    s->owner = 0;
    s->leaf[0] = '\0';
}

int sb_group_delegate_acquire(sb_group *g, char *why, size_t why_cap)
{
    if (g->place == SB_GROUP_NONE)
        return sb_why(why, why_cap, "%s", g->found);
    if (g->place != SB_GROUP_LEAF || g->holds_leaf)
        return 0;
    struct leaf_state *s = &leaf_state;
    pid_t self = getpid();
    char shown[64];
    pthread_mutex_lock(&s->lock);
    if (s->owner != self) /* inherited through fork: not this process's */
        s->refs = 0, s->enabled = 0, s->owner = 0, s->leaf[0] = '\0';
    int rc = 0;
    if (s->refs == 0) {
        snprintf(s->own, sizeof s->own, "%s", g->own);
        sb_group tmp = *g;
        sb_group_clean_stale(&tmp, LEAF_PREFIX, NULL, NULL);
        char tag[48];
        sb_group_owner_tag(tag, sizeof tag);
        if ((size_t)snprintf(s->leaf, sizeof s->leaf, "%s/%s-%s-0", g->own, LEAF_PREFIX, tag) >=
                sizeof s->leaf ||
            (mkdir(s->leaf, 0755) != 0 && errno != EEXIST)) {
            sb_group_short_path(g->own, shown, sizeof shown);
            snprintf(why, why_cap, "cannot make a leaf in %s: %s", shown, strerror(errno));
            s->leaf[0] = '\0';
            rc = -1;
        } else if (move_all(g->own, s->leaf, self) != 0) {
            snprintf(why, why_cap, "cannot move this process into its leaf: %s", strerror(errno));
            rc = -1;
        } else if (!lists(g->own, "cgroup.subtree_control", "memory")) {
            if (sb_cg_write_in(g->own, "cgroup.subtree_control", "+memory") != 0) {
                sb_group_short_path(g->own, shown, sizeof shown);
                snprintf(why, why_cap, "cannot enable memory in %s/cgroup.subtree_control: %s",
                         shown, strerror(errno));
                rc = -1;
            } else
                s->enabled = 1;
        }
        if (rc != 0 && s->leaf[0])
            leaf_undo(s);
        else if (rc == 0)
            s->owner = self;
    }
    if (rc == 0) {
        s->refs++;
        g->holds_leaf = 1;
    }
    pthread_mutex_unlock(&s->lock);
    return rc;
}

void sb_group_delegate_release(sb_group *g)
{
    if (!g->holds_leaf)
        return;
    g->holds_leaf = 0;
    struct leaf_state *s = &leaf_state;
    pthread_mutex_lock(&s->lock);
    if (s->owner == getpid() && s->refs > 0 && --s->refs == 0)
        leaf_undo(s);
    pthread_mutex_unlock(&s->lock);
}
