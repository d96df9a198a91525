/* iperf_units.c: iperf3's unit suffixes (-n -l -w bytes, -b rates)
 * and the -f column formats. These cases were in common_args_test.c and
 * common_units_test.c while the functions lived in common/. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "iperf_units.h"
#include "bytes.h"

const char tool_name[] = "test";

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

static void formats_iperf3_units(void **state)
{
    (void)state;
    char b[32];
    fmt_unit(b, sizeof b, 1.18e9, 'A', 0);           /* bytes, adaptive */
    assert_string_equal(b, "1.10 GBytes");
    fmt_unit(b, sizeof b, 9.41e9, 'a', 1);           /* bits, adaptive */
    assert_string_equal(b, "9.41 Gbits");
    fmt_unit(b, sizeof b, 1.25e9 / 8 * 8, 'm', 1);   /* fixed unit */
    assert_string_equal(b, "1250 Mbits");
    fmt_unit(b, sizeof b, 131072, 'K', 0);
    assert_string_equal(b, " 128 KBytes");
    fmt_unit(b, sizeof b, 125000, 'k', 0);          /* bytes shown as bits */
    assert_string_equal(b, "1000 Kbits");
    fmt_unit(b, sizeof b, 0, 'a', 1);
    assert_string_equal(b, "0.00 bits");
}

/* the suffixed parsers refuse any leading white space: strto*() skip it, so
 * "\t-5000" would pass a sign check on the first character and read as -5000 */
static void refuses_leading_white_space(void **state)
{
    (void)state;
    static const char *const bad[] = { "\t-5000", "\t5", "\n5", "\v5", "\f5", "\r5", " 5",
                                       "\t+5" };
    uint64_t u;
    const char *why = NULL;
    for (size_t k = 0; k < ARRAY_SIZE(bad); k++) {
        assert_int_equal(parse_bytes(bad[k], 100, &u, &why), -1);
        assert_int_equal(parse_rate(bad[k], &u, &why), -1);
    }
    assert_int_equal(parse_rate("5", &u, &why), 0);     /* the same digits alone pass */
    assert_int_equal(u, 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_iperf3_byte_suffixes),
        cmocka_unit_test(reads_iperf3_rate_suffixes),
        cmocka_unit_test(formats_iperf3_units),
        cmocka_unit_test(refuses_leading_white_space),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
