/* Test helpers for a system setting a test changes for a moment (e.g.
 * /proc/sys/vm/nr_hugepages): read it, set it, set it back. */
#ifndef SB_TEST_SYSCTL_H
#define SB_TEST_SYSCTL_H

/* The number the file holds, or -1 when it cannot be read. */
long sb_test_read_long(const char *path);
/* Write v (and a newline) to path: 0, or -1. */
int sb_test_write_long(const char *path, long v);

#endif
