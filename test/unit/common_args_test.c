/* common/args.c: ESXi "++" launch words, bounded integers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "args.h"

const char tool_name[] = "test";

static void skips_leading_vmk_words(void **state)
{
    (void)state;
    char *v[] = { "esxmtu", "++group=host/vim/tmp", "++netstack=vmotion", "-c", "3", NULL };
    char **argv = v;
    int argc = args_strip_vmk(5, &argv);
    assert_int_equal(argc, 3);
    assert_string_equal(argv[0], "esxmtu");
    assert_string_equal(argv[1], "-c");
}

static void keeps_plus_words_after_first_real_arg(void **state)
{
    (void)state;
    char *v[] = { "esxpart", "disk", "++x", NULL };
    assert_int_equal(args_skip_vmk(3, v), 1);
}

static void parses_bounded_integers(void **state)
{
    (void)state;
    uint64_t u;
    const char *why = NULL;
    assert_int_equal(parse_u64("128", 1, 128, &u, &why), 0);
    assert_int_equal(u, 128);
    assert_int_equal(parse_u64("129", 1, 128, &u, &why), -1);
    assert_string_equal(why, "out of range");
    assert_int_equal(parse_u64("0", 1, 128, &u, &why), -1);
    assert_int_equal(parse_u64("12x", 0, 128, &u, &why), -1);
    assert_int_equal(parse_u64("-1", 0, 128, &u, &why), -1);
    assert_int_equal(parse_u64("", 0, 128, &u, &why), -1);
    assert_int_equal(parse_u64("99999999999999999999999", 0, UINT64_MAX, &u, &why), -1);
    int64_t i;
    assert_int_equal(parse_i64("-5", -10, 10, &i, &why), 0);
    assert_int_equal(i, -5);
    double d;
    assert_int_equal(parse_double("0.5", 0, 1, &d, &why), 0);
    assert_int_equal(parse_double("nan", 0, 1, &d, &why), -1);
}

/* every parser refuses any leading white space: strto*() skip it, so "\t-5000"
 * would pass a sign check on the first character and read as -5000 */
static void refuses_leading_white_space(void **state)
{
    (void)state;
    static const char *const bad[] = { "\t-5000", "\t5", "\n5", "\v5", "\f5", "\r5", " 5",
                                       "\t+5" };
    uint64_t u;
    int64_t i;
    double d;
    const char *why = NULL;
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        assert_int_equal(parse_u64(bad[k], 0, 100, &u, &why), -1);
        assert_int_equal(parse_i64(bad[k], -10000, 100, &i, &why), -1);
        assert_int_equal(parse_double(bad[k], -10000, 100, &d, &why), -1);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(skips_leading_vmk_words),
        cmocka_unit_test(keeps_plus_words_after_first_real_arg),
        cmocka_unit_test(parses_bounded_integers),
        cmocka_unit_test(refuses_leading_white_space),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
