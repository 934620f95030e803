/* See format_bytes.h. */
#include "util.h"

#include <stdio.h>

void sb_format_bytes(char *buf, size_t cap, int64_t bytes)
{
    const double kib = 1024.0, mib = kib * 1024.0, gib = mib * 1024.0;
    double b = (double)bytes;
    if (bytes < 0)
        snprintf(buf, cap, "not measured");
    else if (b >= gib)
        snprintf(buf, cap, "%.2f GiB", b / gib);
    else if (b >= mib)
        snprintf(buf, cap, "%.1f MiB", b / mib);
    else if (b >= kib)
        snprintf(buf, cap, "%.1f KiB", b / kib);
    else
        snprintf(buf, cap, "%lld B", (long long)bytes);
}
