/* See util.h. */
#include "util.h"

size_t sb_utf8_length(const unsigned char *p)
{
    unsigned char c = p[0];
    if (c < 0x80)
        return 1;
    unsigned char lo = 0x80, hi = 0xbf;
    size_t n;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        if (c == 0xe0)
            lo = 0xa0; /* overlong */
        else if (c == 0xed)
            hi = 0x9f; /* surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        if (c == 0xf0)
            lo = 0x90; /* overlong */
        else if (c == 0xf4)
            hi = 0x8f; /* above U+10FFFF */
    } else
        return 0;
    if (p[1] < lo || p[1] > hi) /* the NUL that ends the string fails here */
        return 0;
    for (size_t i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xbf)
            return 0;
    return n;
}

int sb_utf8_is_c1(const unsigned char *p, size_t n)
{
    return n == 2 && p[0] == 0xc2 && p[1] <= 0x9f;
}

/* Code point ranges a terminal shows two columns wide (East Asian Wide
 * and Fullwidth, the emoji presentation blocks) and zero wide (combining
 * marks, zero-width spaces and joiners, variation selectors), from
 * Unicode's EastAsianWidth.txt and the general categories Mn/Me/Cf,
 * merged into the blocks where they are dense. */
typedef struct range {
    unsigned lo, hi;
} range;

static const range k_zero[] = {
    {0x0300, 0x036F}, {0x0483, 0x0489}, {0x0591, 0x05BD},   {0x0610, 0x061A},  {0x064B, 0x065F},
    {0x0E31, 0x0E31}, {0x0E34, 0x0E3A}, {0x0E47, 0x0E4E},   {0x1AB0, 0x1AFF},  {0x1DC0, 0x1DFF},
    {0x200B, 0x200F}, {0x202A, 0x202E}, {0x2060, 0x2064},   {0x20D0, 0x20FF},  {0xFE00, 0xFE0F},
    {0xFE20, 0xFE2F}, {0xFEFF, 0xFEFF}, {0xE0001, 0xE007F}, {0xE0100, 0xE01EF}};

static const range k_wide[] = {
    {0x1100, 0x115F},   {0x231A, 0x231B},   {0x2329, 0x232A},   {0x23E9, 0x23EC},
    {0x23F0, 0x23F0},   {0x23F3, 0x23F3},   {0x25FD, 0x25FE},   {0x2614, 0x2615},
    {0x2648, 0x2653},   {0x267F, 0x267F},   {0x2693, 0x2693},   {0x26A1, 0x26A1},
    {0x26AA, 0x26AB},   {0x26BD, 0x26BE},   {0x26C4, 0x26C5},   {0x26CE, 0x26CE},
    {0x26D4, 0x26D4},   {0x26EA, 0x26EA},   {0x26F2, 0x26F3},   {0x26F5, 0x26F5},
    {0x26FA, 0x26FA},   {0x26FD, 0x26FD},   {0x2705, 0x2705},   {0x270A, 0x270B},
    {0x2728, 0x2728},   {0x274C, 0x274C},   {0x274E, 0x274E},   {0x2753, 0x2755},
    {0x2757, 0x2757},   {0x2795, 0x2797},   {0x27B0, 0x27B0},   {0x27BF, 0x27BF},
    {0x2B1B, 0x2B1C},   {0x2B50, 0x2B50},   {0x2B55, 0x2B55},   {0x2E80, 0x303E},
    {0x3041, 0x33FF},   {0x3400, 0x4DBF},   {0x4E00, 0x9FFF},   {0xA000, 0xA4CF},
    {0xA960, 0xA97F},   {0xAC00, 0xD7A3},   {0xF900, 0xFAFF},   {0xFE10, 0xFE19},
    {0xFE30, 0xFE6F},   {0xFF00, 0xFF60},   {0xFFE0, 0xFFE6},   {0x16FE0, 0x16FE4},
    {0x17000, 0x18CFF}, {0x1AFF0, 0x1B2FF}, {0x1F004, 0x1F004}, {0x1F0CF, 0x1F0CF},
    {0x1F18E, 0x1F18E}, {0x1F191, 0x1F19A}, {0x1F200, 0x1F251}, {0x1F300, 0x1F64F},
    {0x1F680, 0x1F6FF}, {0x1F7E0, 0x1F7EB}, {0x1F900, 0x1F9FF}, {0x1FA70, 0x1FAFF},
    {0x20000, 0x2FFFD}, {0x30000, 0x3FFFD}};

static int in_ranges(const range *r, size_t n, unsigned cp)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cp > r[mid].hi)
            lo = mid + 1;
        else if (cp < r[mid].lo)
            hi = mid;
        else
            return 1;
    }
    return 0;
}

/* The columns a terminal gives the valid sequence of n bytes at p: 2 for
 * East Asian wide and emoji, 0 for combining and zero-width, else 1. */
static int utf8_columns(const unsigned char *p, size_t n)
{
    static const unsigned char lead_mask[] = {0, 0x7f, 0x1f, 0x0f, 0x07};
    if (n < 1 || n > 4)
        return 1;
    unsigned cp = p[0] & lead_mask[n];
    for (size_t i = 1; i < n; i++)
        cp = cp << 6 | (p[i] & 0x3f);
    if (in_ranges(k_zero, sizeof k_zero / sizeof k_zero[0], cp))
        return 0;
    return in_ranges(k_wide, sizeof k_wide / sizeof k_wide[0], cp) ? 2 : 1;
}

size_t sb_utf8_width(const char *s, size_t bytes)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t cols = 0, i = 0;
    while (i < bytes) {
        size_t n = sb_utf8_length(p + i);
        if (n == 0 || i + n > bytes)
            n = 1; /* not UTF-8: one column, as its escape or U+FFFD shows */
        cols += (size_t)utf8_columns(p + i, n);
        i += n;
    }
    return cols;
}
