/* common/args.c: ESXi "++" launch words, bounded integers, iperf3's unit suffixes. */
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

static void reads_iperf3_byte_suffixes(void **state)
{
    (void)state;
    uint64_t v;
    const char *why;
    assert_int_equal(parse_bytes("128K", UINT64_MAX, &v, &why), 0);
    assert_int_equal(v, 131072);
    assert_int_equal(parse_bytes("1m", UINT64_MAX, &v, &why), 0);
    assert_int_equal(v, 1048576);
    assert_int_equal(parse_bytes("2G", UINT64_MAX, &v, &why), 0);
    assert_int_equal(v, 2147483648ull);
    assert_int_equal(parse_bytes("1.5K", UINT64_MAX, &v, &why), 0);
    assert_int_equal(v, 1536);
    assert_int_equal(parse_bytes("1Q", UINT64_MAX, &v, &why), -1);
    assert_int_equal(parse_bytes("1KB", UINT64_MAX, &v, &why), -1);
    assert_int_equal(parse_bytes("2G", 1 << 30, &v, &why), -1);
}

static void reads_iperf3_rate_suffixes(void **state)
{
    (void)state;
    uint64_t v;
    const char *why;
    assert_int_equal(parse_rate("100M", &v, &why), 0);
    assert_int_equal(v, 100000000);
    assert_int_equal(parse_rate("2g", &v, &why), 0);
    assert_int_equal(v, 2000000000);
    assert_int_equal(parse_rate("1.5k", &v, &why), 0);
    assert_int_equal(v, 1500);
    assert_int_equal(parse_rate("fast", &v, &why), -1);
}

/* issue 15 item 7: strto*() skip leading white space, so "\t-5000" passed the
 * sign check and read as -5000; every parser refuses any leading white space */
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
        assert_int_equal(parse_bytes(bad[k], 100, &u, &why), -1);
        assert_int_equal(parse_rate(bad[k], &u, &why), -1);
    }
    assert_int_equal(parse_rate("5", &u, &why), 0);     /* the same digits alone pass */
    assert_int_equal(u, 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(skips_leading_vmk_words),
        cmocka_unit_test(keeps_plus_words_after_first_real_arg),
        cmocka_unit_test(parses_bounded_integers),
        cmocka_unit_test(reads_iperf3_byte_suffixes),
        cmocka_unit_test(reads_iperf3_rate_suffixes),
        cmocka_unit_test(refuses_leading_white_space),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
