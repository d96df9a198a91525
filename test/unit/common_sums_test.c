/* common/crc32.c and common/checksum.c against known values. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "checksum.h"
#include "crc32.h"

const char tool_name[] = "test";

static void crc32_matches_the_check_value(void **state)
{
    (void)state;
    /* the standard CRC-32 check value of "123456789" */
    assert_int_equal(crc32_ieee(0, "123456789", 9), 0xCBF43926u);
    assert_int_equal(crc32_ieee(0, "", 0), 0);
    /* incremental use gives the same result */
    uint32_t c = crc32_ieee(0, "12345", 5);
    assert_int_equal(crc32_ieee(c, "6789", 4), 0xCBF43926u);
    /* 92 zero bytes, the size of a GPT header (value from Python zlib.crc32) */
    unsigned char z[92] = {0};
    assert_int_equal(crc32_ieee(0, z, sizeof z), 0xC2B526E7u);
}

static void inet_checksum_matches_rfc1071_example(void **state)
{
    (void)state;
    /* RFC 1071 section 3 example: 00 01 f2 03 f4 f5 f6 f7 sums to ddf2 -> ~ = 220d */
    const unsigned char b[] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };
    uint16_t c = inet_checksum(b, sizeof b);
    const unsigned char *cb = (const unsigned char *)&c;
    assert_int_equal(cb[0], 0x22);
    assert_int_equal(cb[1], 0x0d);
}

static void inet_checksum_verifies_to_zero(void **state)
{
    (void)state;
    /* an ICMP echo request with its checksum filled in sums to zero */
    unsigned char p[9] = { 8, 0, 0, 0, 0x12, 0x34, 0, 1, 0xab };   /* odd length */
    uint16_t c = inet_checksum(p, sizeof p);
    memcpy(p + 2, &c, 2);
    assert_int_equal(inet_checksum(p, sizeof p), 0);
    /* a real IPv4 header: 45 00 00 73 00 00 40 00 40 11 [b861] c0 a8 00 01 c0 a8 00 c7 */
    const unsigned char ip[20] = { 0x45, 0, 0, 0x73, 0, 0, 0x40, 0, 0x40, 0x11, 0, 0,
                                   0xc0, 0xa8, 0, 1, 0xc0, 0xa8, 0, 0xc7 };
    c = inet_checksum(ip, 20);
    assert_int_equal(((const unsigned char *)&c)[0], 0xb8);
    assert_int_equal(((const unsigned char *)&c)[1], 0x61);
    /* pseudo-header style: partial sums compose */
    uint32_t s = inet_sum(0, ip, 10);
    s = inet_sum(s, ip + 10, 10);
    assert_int_equal(inet_checksum_finish(s), c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(crc32_matches_the_check_value),
        cmocka_unit_test(inet_checksum_matches_rfc1071_example),
        cmocka_unit_test(inet_checksum_verifies_to_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
