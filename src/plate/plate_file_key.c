/* The plate's key of an item that names a file (spacrbench_plate_file_key):
 * the command's --sample and Python's benchmark_plate both take it here. */
#include <math.h>
#include <sys/stat.h>
#if defined(_WIN32)
#define WIN32_LEAN_AND_MEAN
#include <stdlib.h>
#include <windows.h>
#endif

#include "plate.h"

double spacrbench_plate_file_key(const char *path)
{
    if (!path)
        return NAN;
#if defined(_WIN32)
    /* The path is UTF-8 (Python's os.fsencode): stat() would read it in
     * the ANSI code page. */
    int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, NULL, 0);
    wchar_t *wide = n > 0 ? malloc((size_t)n * sizeof *wide) : NULL;
    struct _stat64 st;
    int rc = wide && MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, wide, n) == n
                 ? _wstat64(wide, &st)
                 : -1;
    free(wide);
    int regular = rc == 0 && (st.st_mode & _S_IFMT) == _S_IFREG;
#else
    struct stat st; /* stat only: nothing is opened, so a FIFO cannot block */
    int regular = stat(path, &st) == 0 && S_ISREG(st.st_mode);
#endif
    return regular ? (double)st.st_size : NAN;
}
