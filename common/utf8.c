/* UTF-8 well-formedness: the rule is in utf8.h. */
#include "utf8.h"

size_t utf8_len(const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    unsigned lo = 0x80, hi = 0xBF;   /* allowed range of the second byte */
    size_t len;
    if (n == 0)
        return 0;
    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xC2 && s[0] <= 0xDF) {
        len = 2;
    } else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
        len = 3;
        lo = s[0] == 0xE0 ? 0xA0 : 0x80;   /* no overlong forms */
        hi = s[0] == 0xED ? 0x9F : 0xBF;   /* no surrogates */
    } else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
        len = 4;
        lo = s[0] == 0xF0 ? 0x90 : 0x80;
        hi = s[0] == 0xF4 ? 0x8F : 0xBF;   /* nothing above U+10FFFF */
    } else {
        return 0;   /* a continuation byte, C0/C1 (overlong) or F5..FF */
    }
    if (n < len || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t k = 2; k < len; k++)
        if ((s[k] & 0xC0) != 0x80)
            return 0;
    return len;
}
