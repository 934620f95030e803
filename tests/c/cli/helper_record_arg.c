/* Test helper: append argv[2] and a newline to the file argv[1], so a test
 * can check that an item reached the command verbatim. */
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 3)
        return 64;
    FILE *f = fopen(argv[1], "a");
    if (!f)
        return 65;
    fprintf(f, "%s\n", argv[2]);
    return fclose(f) == 0 ? 0 : 66;
}
