/* libFuzzer target: the strict JSON reader over arbitrary bytes. Every getter is
 * exercised on every token; nothing may read outside the input or the token array. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "jsonr.h"

const char tool_name[] = "fuzz";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    jsmntok_t tok[256];
    struct jsonr r;
    if (jr_parse(&r, (const char *)data, size, tok, 256) != JR_OK)
        return 0;
    for (int i = 0; i < r.ntok; i++) {
        int b;
        int64_t n;
        double d;
        char s[64];
        (void)jr_bool(&r, i, &b);
        (void)jr_int(&r, i, &n);
        (void)jr_double(&r, i, &d);
        (void)jr_str(&r, i, s, sizeof s);
        (void)jr_is_null(&r, i);
        int len = jr_arr_len(&r, i);
        for (int k = 0; k < len && k < 8; k++)
            (void)jr_arr_at(&r, i, k);
        if (jr_skip(&r, i) > r.ntok)
            __builtin_trap();
    }
    static const char *keys[] = { "tcp", "udp", "time", "parallel", "streams", "a" };
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        (void)jr_find(&r, 0, keys[k]);
    return 0;
}
