/* Test helper: fork a child that allocates and touches N MiB (argv[1])
 * and holds it for argv[2] ms (default 100); the parent only waits. The
 * measured tree peak must include the child. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2)
        return 64;
    size_t n = (size_t)strtoul(argv[1], NULL, 10) * 1024 * 1024;
    long hold_ms = argc > 2 ? strtol(argv[2], NULL, 10) : 100;
    pid_t pid = fork();
    if (pid < 0)
        return 65;
    if (pid == 0) {
        char *p = malloc(n);
        if (!p)
            _exit(66);
        memset(p, 0x33, n);
        struct timespec hold = {hold_ms / 1000, (hold_ms % 1000) * 1000000L};
        nanosleep(&hold, NULL);
        int bad = p[n / 2] != 0x33;
        free(p);
        _exit(bad ? 67 : 0);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid)
        return 68;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 69;
}
