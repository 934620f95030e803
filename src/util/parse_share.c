/* A share as people write it: "5%" or "0.05", 0 to 1 (parse.h). */
#include <stdlib.h>
#include <string.h>

#include "util.h"

int sb_parse_share(const char *text, size_t len, double *share)
{
    char buf[64];
    if (len == 0 || len >= sizeof buf || !((text[0] >= '0' && text[0] <= '9') || text[0] == '.'))
        return SB_PARSE_BAD; /* no sign, blank, "nan" or "inf" */
    memcpy(buf, text, len);
    buf[len] = '\0';
    char *end = NULL;
    double v = strtod(buf, &end);
    if (end != buf && *end == '%' && end[1] == '\0')
        v /= 100;
    else if (end == buf || *end != '\0')
        return SB_PARSE_BAD;
    if (!(v >= 0 && v <= 1))
        return SB_PARSE_BAD;
    *share = v;
    return SB_PARSE_OK;
}
