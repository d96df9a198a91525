/* common/bytes.h: each load reads the order it names, each store writes it, and
 * a store followed by a load gives the value back, at any alignment. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "bytes.h"

const char tool_name[] = "test";

static const uint8_t seq[9] = { 0xee, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08 };

static void loads_read_the_named_order(void **state)
{
    (void)state;
    const uint8_t *p = seq + 1;   /* odd address: no alignment assumed */
    assert_int_equal(load_be16(p), 0x0102);
    assert_int_equal(load_le16(p), 0x0201);
    assert_int_equal(load_be32(p), 0x01020304u);
    assert_int_equal(load_le32(p), 0x04030201u);
    assert_true(load_be64(p) == 0x0102030405060708ull);
    assert_true(load_le64(p) == 0x0807060504030201ull);
    const uint8_t hi[8] = { 0xff, 0xfe, 0xfd, 0xfc, 0xfb, 0xfa, 0xf9, 0xf8 };
    assert_int_equal(load_be32(hi), 0xfffefdfcu);   /* no sign extension */
    assert_true(load_le64(hi) == 0xf8f9fafbfcfdfeffull);
}

static void stores_write_the_named_order_and_round_trip(void **state)
{
    (void)state;
    uint8_t b[9];
    memset(b, 0, sizeof b);
    store_be64(b + 1, 0x0102030405060708ull);
    assert_memory_equal(b + 1, seq + 1, 8);
    assert_int_equal(b[0], 0);
    memset(b, 0, sizeof b);
    store_le64(b + 1, 0x0807060504030201ull);
    assert_memory_equal(b + 1, seq + 1, 8);
    store_be16(b, 0xabcd);
    assert_int_equal(load_be16(b), 0xabcd);
    store_le16(b, 0xabcd);
    assert_int_equal(load_le16(b), 0xabcd);
    store_be32(b + 3, 0xdeadbeefu);
    assert_int_equal(load_be32(b + 3), 0xdeadbeefu);
    store_le32(b + 3, 0xdeadbeefu);
    assert_int_equal(load_le32(b + 3), 0xdeadbeefu);
    assert_int_equal(b[3], 0xef);
}

static void array_size_counts_elements(void **state)
{
    (void)state;
    uint64_t a[7];
    const char *names[] = { "a", "b", "c" };
    assert_int_equal(ARRAY_SIZE(a), 7);
    assert_int_equal(ARRAY_SIZE(names), 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(loads_read_the_named_order),
        cmocka_unit_test(stores_write_the_named_order_and_round_trip),
        cmocka_unit_test(array_size_counts_elements),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
