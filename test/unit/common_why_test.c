/* common/fail.c why_fmt: the reason into the caller's buffer, -1 back. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "fail.h"

const char tool_name[] = "test";

static void writes_the_reason_and_returns_minus_one(void **state)
{
    (void)state;
    char why[16] = "";
    assert_int_equal(why_fmt(why, sizeof why, "bad %s '%d'", "port", 0), -1);
    assert_string_equal(why, "bad port '0'");
    /* cut to the buffer, always terminated */
    assert_int_equal(why_fmt(why, sizeof why, "%s", "a reason longer than the buffer"), -1);
    assert_int_equal(strlen(why), sizeof why - 1);
    /* no buffer: nothing written, still -1 */
    assert_int_equal(why_fmt(NULL, 0, "x"), -1);
    why[0] = 'q';
    assert_int_equal(why_fmt(why, 0, "x"), -1);
    assert_int_equal(why[0], 'q');
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(writes_the_reason_and_returns_minus_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
