/* Test helper: map argv[1] MiB of hugetlb pages (MAP_HUGETLB), write every
 * page, hold them for argv[2] ms, then exit 0; 75 when the kernel gives no
 * such pages (the test then skips). */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

int main(int argc, char **argv)
{
    if (argc < 3)
        return 64;
    size_t n = (size_t)strtoul(argv[1], NULL, 10) << 20;
    long hold_ms = strtol(argv[2], NULL, 10);
    char *p =
        mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
    if (p == MAP_FAILED)
        return 75;
    memset(p, 0x5a, n);
    struct timespec hold = {hold_ms / 1000, (hold_ms % 1000) * 1000000L};
    nanosleep(&hold, NULL);
    int rc = p[n - 1] != 0x5a ? 66 : 0;
    munmap(p, n);
    return rc;
}
