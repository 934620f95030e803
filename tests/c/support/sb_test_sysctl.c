/* See sb_test_sysctl.h. */
#include "sb_test_sysctl.h"

#include <stdio.h>

long sb_test_read_long(const char *path)
{
    FILE *f = fopen(path, "re");
    long v = -1;
    if (f) {
        if (fscanf(f, "%ld", &v) != 1)
            v = -1;
        fclose(f);
    }
    return v;
}

int sb_test_write_long(const char *path, long v)
{
    FILE *f = fopen(path, "we");
    if (!f)
        return -1;
    int ok = fprintf(f, "%ld\n", v) > 0;
    return fclose(f) == 0 && ok ? 0 : -1;
}
