/* The processes of one tree, read from the tree itself: the children of
 * each process from /proc/PID/task/TID/children (every thread's, Linux
 * >= 3.5 with CONFIG_PROC_CHILDREN, which Debian, Ubuntu, Fedora and RHEL
 * enable), so a sample costs in proportion to the tree, never to the
 * machine (a login node runs thousands of processes). Where the kernel has
 * no children files, one scan of every /proc/PID/stat (their parent pids)
 * gives the same answer. The tree sampler and the process group's PSS
 * sampler both list their processes here. Not installed. */
#ifndef SPACRBENCH_PROC_TREE_H
#define SPACRBENCH_PROC_TREE_H

#include <stddef.h>
#include <sys/types.h>

/* More descendants than this are not listed (a fork bomb stays bounded). */
#define SB_PROC_TREE_MAX 16384

typedef struct sb_pid_list {
    pid_t *pid;
    size_t n, cap;
} sb_pid_list;

/* Non-zero: leave pid, and everything below it, out. */
typedef int (*sb_pid_skip)(pid_t pid, const void *arg);

/* Replace out's contents with the descendants of roots[0..n) (not the
 * roots themselves), each once, those skip() refuses and their subtrees
 * left out (skip may be NULL). proc_root is "/proc" (tests may point
 * elsewhere). 0, or -1 when /proc cannot be read or memory runs out (out
 * then holds what was found). */
int sb_proc_tree_descendants(const char *proc_root, const pid_t *roots, size_t n, sb_pid_skip skip,
                             const void *arg, sb_pid_list *out);

/* The state letter of /proc/PID/stat ('R', 'S', 'Z', ...), 0 when gone. */
char sb_proc_state(const char *proc_root, pid_t pid);

/* Append pid: 0, or -1 out of memory. */
int sb_pid_list_add(sb_pid_list *l, pid_t pid);
void sb_pid_list_free(sb_pid_list *l);

#endif
