/* udp.c: datagram header (32/64-bit counters), loss, out-of-order,
 * jitter, and the connect handshake values of old and new iperf3. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "udp.h"

const char tool_name[] = "esxperf_test";

static void header_32bit(void **state)
{
    (void)state;
    unsigned char b[16];
    uint32_t s, us;
    uint64_t c;
    memset(b, 0xee, sizeof b);
    udp_header_put(b, 0x01020304, 999999, 0x0a0b0c0d, 0);
    static const unsigned char want[12] = { 1, 2, 3, 4, 0x00, 0x0f, 0x42, 0x3f, 0x0a, 0x0b, 0x0c, 0x0d };
    assert_memory_equal(b, want, 12);
    assert_int_equal(b[12], 0xee);   /* nothing beyond 12 bytes */
    assert_int_equal(udp_header_get(b, 12, 0, &s, &us, &c), 0);
    assert_int_equal(s, 0x01020304);
    assert_int_equal(us, 999999);
    assert_int_equal(c, 0x0a0b0c0d);
    assert_int_equal(udp_header_get(b, 11, 0, &s, &us, &c), -1);
    assert_int_equal(udp_header_size(0), 12);
}

static void header_64bit(void **state)
{
    (void)state;
    unsigned char b[16];
    uint32_t s, us;
    uint64_t c;
    udp_header_put(b, 7, 8, 0x0000000500000006ull, 1);
    assert_int_equal(b[11], 5);
    assert_int_equal(b[15], 6);
    assert_int_equal(udp_header_get(b, 16, 1, &s, &us, &c), 0);
    assert_int_equal(c, 0x0000000500000006ull);
    assert_int_equal(udp_header_get(b, 15, 1, &s, &us, &c), -1);
    assert_int_equal(udp_header_size(1), 16);
}

static void loss_and_out_of_order(void **state)
{
    (void)state;
    struct udp_rx r;
    udp_rx_init(&r);
    /* 1 2 4 5 3 8: 3 comes late, 6 and 7 never come */
    uint64_t seq[] = { 1, 2, 4, 5, 3, 8 };
    for (size_t i = 0; i < 6; i++)
        udp_rx_update(&r, seq[i], 0, 0);
    assert_int_equal(r.packets, 6);
    assert_int_equal(r.last_seq, 8);
    assert_int_equal(r.lost, 2);
    assert_int_equal(r.out_of_order, 1);
    /* first datagrams missing count as lost */
    udp_rx_init(&r);
    udp_rx_update(&r, 4, 0, 0);
    assert_int_equal(r.lost, 3);
    /* a duplicate never drives the loss count negative */
    udp_rx_init(&r);
    udp_rx_update(&r, 1, 0, 0);
    udp_rx_update(&r, 1, 0, 0);
    assert_int_equal(r.lost, 0);
    assert_int_equal(r.out_of_order, 1);
    assert_true(udp_loss_percent(5, 100) == 5.0);
    assert_true(udp_loss_percent(5, 0) == 0.0);
}

static void jitter_rfc1889(void **state)
{
    (void)state;
    struct udp_rx r;
    udp_rx_init(&r);
    /* constant transit: no jitter */
    for (int i = 1; i <= 10; i++)
        udp_rx_update(&r, (uint64_t)i, i * 0.01, i * 0.01 + 0.005);
    assert_true(r.jitter < 1e-12);
    /* transit alternates 5 ms / 7 ms: D = 2 ms each time, J -> J + (D - J)/16 */
    udp_rx_init(&r);
    double j = 0;
    udp_rx_update(&r, 1, 0, 0.005);
    for (int i = 2; i <= 40; i++) {
        udp_rx_update(&r, (uint64_t)i, i, i + (i % 2 ? 0.005 : 0.007));
        j += (0.002 - j) / 16.0;
    }
    assert_true(r.jitter > j - 1e-9 && r.jitter < j + 1e-9);
    assert_true(r.jitter > 0.0015 && r.jitter < 0.002);
}

static void connect_values_old_and_new(void **state)
{
    (void)state;
    unsigned char m[4];
    udp_connect_value(m, 1, 1);
    assert_memory_equal(m, "9876", 4);
    assert_int_equal(udp_connect_kind(m, 1), 1);
    udp_connect_value(m, 1, 0);
    assert_memory_equal(m, "6789", 4);
    assert_int_equal(udp_connect_kind(m, 0), 1);
    udp_connect_value(m, 2, 1);
    uint32_t v;
    memcpy(&v, m, 4);
    assert_int_equal(v, 123456789u);
    assert_int_equal(udp_connect_kind(m, 1), 2);
    udp_connect_value(m, 2, 0);
    memcpy(&v, m, 4);
    assert_int_equal(v, 987654321u);
    assert_int_equal(udp_connect_kind(m, 0), 2);
    assert_int_equal(udp_connect_kind((const unsigned char *)"abcd", 1), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(header_32bit),
        cmocka_unit_test(header_64bit),
        cmocka_unit_test(loss_and_out_of_order),
        cmocka_unit_test(jitter_rfc1889),
        cmocka_unit_test(connect_values_old_and_new),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
