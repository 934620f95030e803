/* Test helper: kill itself with the signal number in argv[1] (0: exit 0). */
#include <signal.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int sig = argc > 1 ? atoi(argv[1]) : 0;
    if (sig > 0) {
        signal(sig, SIG_DFL);
        raise(sig);
    }
    return sig > 0 ? 70 : 0;
}
