/* common/escape.c: what reaches a terminal holds no control byte, no byte that is
 * not UTF-8, no invisible format character; everything else passes unchanged. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "bytes.h"
#include "escape.h"

const char tool_name[] = "test";

static void escapes_for_the_terminal(void **state)
{
    (void)state;
    static const struct { const char *in, *out; size_t cols; } cases[] = {
        { "disk.img", "disk.img", 8 },
        { "\x1b[31mX", "\\x1b[31mX", 9 },
        { "a\xff" "b", "a\\xffb", 6 },
        { "caf\xc3\xa9", "caf\xc3\xa9", 4 },
        { "\xc2\x9b" "2J", "\\xc2\\x9b2J", 10 },   /* C1 CSI, both bytes shown */
        { "\x7f\t", "\\x7f\\x09", 8 },
        { "\xc2\xa0x", "\xc2\xa0x", 2 },             /* no-break space is seen: kept */
        { "\xef\xbb\xbf" "esx01", "\\xef\\xbb\\xbfesx01", 17 },   /* byte-order mark */
        { "a\xe2\x80\x8b" "b", "a\\xe2\\x80\\x8bb", 14 },        /* zero-width space */
        { "\xe2\x80\xae" "lmx", "\\xe2\\x80\\xaelmx", 15 },      /* right-to-left override */
        { "\xe2\x81\xa6", "\\xe2\\x81\\xa6", 12 },                /* left-to-right isolate */
        { "\xe2\x80\x94", "\xe2\x80\x94", 1 },                    /* em dash: seen */
        { "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80", 1 },
        { "\xed\xa0\x80", "\\xed\\xa0\\x80", 12 },                /* a surrogate */
    };
    char out[64];
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        assert_int_equal(esc_text(cases[i].in, out, sizeof out), cases[i].cols);
        assert_string_equal(out, cases[i].out);
    }
}

static void cuts_on_a_character_boundary(void **state)
{
    (void)state;
    char out[8];
    esc_text("ab\x1b", out, 6);         /* a short buffer cuts before an escape */
    assert_string_equal(out, "ab");
    esc_text("\xc3\xa9\xc3\xa9", out, 4);
    assert_string_equal(out, "\xc3\xa9");
    out[0] = 'x';
    assert_int_equal(esc_text("abc", out, 1), 0);
    assert_string_equal(out, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(escapes_for_the_terminal),
        cmocka_unit_test(cuts_on_a_character_boundary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
