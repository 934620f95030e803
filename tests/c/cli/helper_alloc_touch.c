/* Test helper: allocate N MiB (argv[1]), write every page so it is
 * resident, hold it for argv[2] ms (default 50), then exit 0. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
    if (argc < 2)
        return 64;
    size_t mib = (size_t)strtoul(argv[1], NULL, 10);
    long hold_ms = argc > 2 ? strtol(argv[2], NULL, 10) : 50;
    size_t n = mib * 1024 * 1024;
    char *p = n ? malloc(n) : NULL;
    if (n && !p)
        return 65;
    if (n)
        memset(p, 0x5a, n);
    struct timespec hold = {hold_ms / 1000, (hold_ms % 1000) * 1000000L};
    nanosleep(&hold, NULL);
    /* Read the memory back so the compiler cannot drop the writes. */
    int rc = n && p[n - 1] != 0x5a ? 66 : 0;
    free(p);
    return rc;
}
