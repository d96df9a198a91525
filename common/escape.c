/* Terminal-safe text: the rule is in escape.h. */
#include "escape.h"
#include "utf8.h"

#include <stdio.h>
#include <string.h>

/* the code point of the well-formed sequence s[0..len) */
static unsigned code_point(const unsigned char *s, size_t len)
{
    if (len == 1)
        return s[0];
    unsigned cp = s[0] & (0x7Fu >> len);
    for (size_t k = 1; k < len; k++)
        cp = cp << 6 | (s[k] & 0x3Fu);
    return cp;
}

/* controls and the format characters that change what a line looks like without
 * being seen */
static int hidden(unsigned cp)
{
    return cp < 0x20 || (cp >= 0x7F && cp < 0xA0) || (cp >= 0x200B && cp <= 0x200F) ||
           (cp >= 0x2028 && cp <= 0x202E) || (cp >= 0x2060 && cp <= 0x2064) ||
           (cp >= 0x2066 && cp <= 0x2069) || cp == 0xFEFF;
}

size_t esc_text(const char *in, char *out, size_t outlen)
{
    size_t o = 0, cols = 0, n = strlen(in);
    if (outlen == 0)
        return 0;
    for (size_t i = 0; i < n;) {
        size_t len = utf8_len(in + i, n - i);
        int plain = len > 0 && !hidden(code_point((const unsigned char *)in + i, len));
        size_t bytes = len ? len : 1;
        size_t need = plain ? len : 4 * bytes;
        if (o + need >= outlen)
            break;
        if (plain) {
            memcpy(out + o, in + i, len);
            o += len;
            cols++;
        } else {
            for (size_t k = 0; k < bytes; k++, o += 4, cols += 4)
                snprintf(out + o, outlen - o, "\\x%02x", (unsigned char)in[i + k]);
        }
        i += bytes;
    }
    out[o] = 0;
    return cols;
}
