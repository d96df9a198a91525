/* esxmtu packet.c, pkt_build_echo6: the IPv6 header esxmtu writes itself (probes sent
 * by an IPPROTO_RAW socket) and the ICMPv6 echo request behind it, whose checksum we
 * compute over the IPv6 pseudo-header. The checksums are compared with values
 * computed apart from this code, by this Python 3 (the stamp and pattern written out
 * from packet.h's description; the same arithmetic made echo requests that a Linux
 * peer answered on the test bench):
 *
 *   import socket, struct
 *   def echo6(src, dst, ident, seq, nonce, n):
 *       st = struct.pack('>QH', nonce, seq) + b'esxmtu'
 *       data = bytes(st[i] if i < 16 else (i * 7 + seq + (nonce >> ((i & 7) * 8))) & 0xff
 *                    for i in range(n))
 *       icmp = struct.pack('>BBHHH', 128, 0, 0, ident, seq) + data
 *       b = (socket.inet_pton(socket.AF_INET6, src) + socket.inet_pton(socket.AF_INET6, dst)
 *            + struct.pack('>I3xB', len(icmp), 58) + icmp)
 *       b += b'\0' * (len(b) & 1)
 *       t = sum(struct.unpack('>%dH' % (len(b) // 2), b))
 *       while t >> 16: t = (t & 0xffff) + (t >> 16)
 *       return ~t & 0xffff
 *   echo6('2001:db8::2', '2001:db8:1::2', 0x1234, 7, 0x1122334455667788, 1452)   # 0x1d27
 *   echo6('2001:db8::2', '2001:db8:1::2', 0x1234, 7, 0x1122334455667788, 5)      # 0x789f
 *   echo6('2001:db8::3', '2001:db8:1::10', 0xffff, 0xfffe, 0xfedcba9876543210, 8952)  # 0x76b6
 *
 * Then what comes back must still match the probe: the echo reply, and a Packet Too
 * Big or time exceeded that quotes our own header and echo request. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include "../../tools/esxmtu/packet.h"
#include "bytes.h"
#include "checksum.h"

const char tool_name[] = "esxmtu";

#define NONCE 0x1122334455667788ull

static struct pkt_ip6 ip6(const char *src, const char *dst, uint8_t hops)
{
    struct pkt_ip6 ip;
    memset(&ip, 0, sizeof ip);
    assert_int_equal(inet_pton(AF_INET6, src, ip.src), 1);
    assert_int_equal(inet_pton(AF_INET6, dst, ip.dst), 1);
    ip.hops = hops;
    return ip;
}

static uint16_t checksum_field(const uint8_t *pkt)
{
    return load_be16(pkt + 40 + 2);
}

/* the message's checksum is right when the pseudo-header, the message and its
 * checksum field sum to all ones (RFC 1071): a check apart from how it was computed */
static int checksum_verifies(const uint8_t *pkt, size_t n)
{
    uint8_t tail[8] = { 0, 0, 0, 0, 0, 0, 0, 58 };
    store_be32(tail, (uint32_t)(n - 40));
    uint32_t sum = inet_sum(0, pkt + 8, 32);
    sum = inet_sum(sum, tail, sizeof tail);
    sum = inet_sum(sum, pkt + 40, n - 40);
    return inet_checksum_finish(sum) == 0;
}

static void header_fields(void **state)
{
    (void)state;
    static uint8_t buf[1600];
    struct pkt_ip6 ip = ip6("2001:db8::2", "2001:db8:1::2", 7);
    size_t n = pkt_build_echo6(buf, sizeof buf, 0x1234, 7, NONCE, 1452, &ip);
    assert_int_equal(n, 1500);
    assert_int_equal(buf[0], 0x60);                      /* version 6, traffic class 0 */
    assert_int_equal(buf[1] | buf[2] | buf[3], 0);       /* flow label 0 */
    assert_int_equal(load_be16(buf + 4), 1460);          /* payload: 8 ICMPv6 + 1452 data */
    assert_int_equal(buf[6], 58);                        /* next header ICMPv6, no extension */
    assert_int_equal(buf[7], 7);                         /* hop limit as given */
    assert_memory_equal(buf + 8, ip.src, 16);
    assert_memory_equal(buf + 24, ip.dst, 16);
    assert_int_equal(buf[40], ICMP6_ECHO);
    assert_int_equal(buf[41], 0);
    assert_int_equal(load_be16(buf + 44), 0x1234);
    assert_int_equal(load_be16(buf + 46), 7);
    assert_true(pkt_data_ok(buf + 48, 1452, NONCE, 7));
    /* hop limit 0: the default 64 */
    ip.hops = 0;
    assert_int_equal(pkt_build_echo6(buf, sizeof buf, 0x1234, 7, NONCE, 1452, &ip), 1500);
    assert_int_equal(buf[7], 64);
}

static void checksum_matches_reference(void **state)
{
    (void)state;
    static uint8_t buf[9100];
    struct pkt_ip6 ip = ip6("2001:db8::2", "2001:db8:1::2", 64);
    size_t n = pkt_build_echo6(buf, sizeof buf, 0x1234, 7, NONCE, 1452, &ip);
    assert_int_equal(checksum_field(buf), 0x1d27);
    assert_true(checksum_verifies(buf, n));
    /* an odd length: the last byte is summed as the high half of a word */
    n = pkt_build_echo6(buf, sizeof buf, 0x1234, 7, NONCE, 5, &ip);
    assert_int_equal(n, 53);
    assert_int_equal(checksum_field(buf), 0x789f);
    assert_true(checksum_verifies(buf, n));
    /* another source, destination, id, sequence and nonce, at MTU 9000; the hop
     * limit is not in the pseudo-header */
    ip = ip6("2001:db8::3", "2001:db8:1::10", 1);
    n = pkt_build_echo6(buf, sizeof buf, 0xffff, 0xfffe, 0xfedcba9876543210ull, 8952, &ip);
    assert_int_equal(n, 9000);
    assert_int_equal(checksum_field(buf), 0x76b6);
    assert_true(checksum_verifies(buf, n));
    /* the source is covered: the same probe from another address differs */
    ip.src[15] ^= 1;
    pkt_build_echo6(buf, sizeof buf, 0xffff, 0xfffe, 0xfedcba9876543210ull, 8952, &ip);
    assert_int_not_equal(checksum_field(buf), 0x76b6);
    assert_true(checksum_verifies(buf, n));
}

static void lengths_are_bounded(void **state)
{
    (void)state;
    static uint8_t big[65600];
    struct pkt_ip6 ip = ip6("2001:db8::2", "2001:db8:1::2", 64);
    /* the largest payload the 16-bit length holds: 8 + 65527 */
    assert_int_equal(pkt_build_echo6(big, sizeof big, 1, 1, NONCE, 65527, &ip), 40 + 65535);
    assert_int_equal(load_be16(big + 4), 65535);
    assert_true(checksum_verifies(big, 40 + 65535));
    assert_int_equal(pkt_build_echo6(big, sizeof big, 1, 1, NONCE, 65528, &ip), 0);
    assert_int_equal(pkt_build_echo6(big, sizeof big, 1, 1, NONCE, (size_t)-1, &ip), 0);
    /* the buffer: exactly enough, one byte short, less than a header */
    assert_int_equal(pkt_build_echo6(big, 48 + 100, 1, 1, NONCE, 100, &ip), 148);
    assert_int_equal(pkt_build_echo6(big, 48 + 99, 1, 1, NONCE, 100, &ip), 0);
    assert_int_equal(pkt_build_echo6(big, 39, 1, 1, NONCE, 0, &ip), 0);
    assert_int_equal(pkt_build_echo6(big, 48, 1, 1, NONCE, 0, &ip), 48);
    assert_int_equal(pkt_build_echo6(big, sizeof big, 1, 1, NONCE, 10, NULL), 0);
}

static struct pkt_expect expect6(uint16_t id, uint16_t seq, size_t data, const uint8_t dst[16])
{
    struct pkt_expect x;
    memset(&x, 0, sizeof x);
    x.id = id;
    x.check_id = 1;
    x.seq = seq;
    x.nonce = NONCE;
    x.data_len = data;
    x.ip_len = (uint32_t)(data + 48);
    memcpy(x.dst, dst, 16);
    x.dst_len = 16;
    return x;
}

/* an ICMPv6 error of `type` (a raw ICMPv6 socket reads it without the IPv6 header)
 * quoting as much of the probe as fits in a 1280-byte packet (RFC 4443) */
static size_t icmp6_error(uint8_t *out, uint8_t type, uint32_t info, const uint8_t *probe, size_t n)
{
    size_t quote = n < 1280 - 48 ? n : 1280 - 48;
    out[0] = type;
    out[1] = 0;
    out[2] = out[3] = 0;
    store_be32(out + 4, info);
    memcpy(out + 8, probe, quote);
    return 8 + quote;
}

static void answers_match_our_header(void **state)
{
    (void)state;
    static uint8_t probe[9100], msg[1300];
    struct pkt_ip6 ip = ip6("2001:db8::2", "2001:db8:1::2", 64);
    size_t n = pkt_build_echo6(probe, sizeof probe, 0x1234, 42, NONCE, 8952, &ip);
    struct pkt_expect x = expect6(0x1234, 42, 8952, ip.dst);
    struct pkt_info r;

    /* the peer's echo reply: our ICMPv6 message turned around */
    probe[40] = ICMP6_ECHO_REPLY;
    assert_int_equal(pkt_parse(PKT_ICMP6, probe + 40, n - 40, &r, NULL), 0);
    assert_int_equal(r.kind, PK_ECHO_REPLY);
    assert_int_equal(pkt_match(&r, &x), PM_FULL);
    probe[40] = ICMP6_ECHO;

    /* the router's Packet Too Big quotes our header and the start of our request */
    size_t m = icmp6_error(msg, ICMP6_TOO_BIG, 1500, probe, n);
    assert_int_equal(pkt_parse(PKT_ICMP6, msg, m, &r, NULL), 0);
    assert_int_equal(r.kind, PK_ERROR);
    assert_int_equal(r.mtu, 1500);
    assert_int_equal(r.has_orig, 1);
    assert_int_equal(r.id, 0x1234);
    assert_int_equal(r.seq, 42);
    assert_int_equal(r.orig_len, 9000);              /* 40 + our payload length */
    assert_int_equal(r.orig_dst_len, 16);
    assert_memory_equal(r.orig_dst, ip.dst, 16);
    assert_int_equal(r.orig_data_len, 1280 - 48 - 48);
    assert_int_equal(pkt_match(&r, &x), PM_ERROR);
    assert_true(pkt_mtu_plausible(AF_INET6, r.mtu, x.ip_len));
    /* the same quote for another probe, or another destination, is not ours */
    struct pkt_expect y = expect6(0x1234, 43, 8952, ip.dst);
    assert_int_equal(pkt_match(&r, &y), PM_NOT_OURS);
    y = expect6(0x1234, 42, 8952, ip.dst);
    y.dst[15] ^= 1;
    assert_int_equal(pkt_match(&r, &y), PM_NOT_OURS);

    /* a hop's time exceeded for a probe with hop limit 1 (--trace) */
    ip.hops = 1;
    n = pkt_build_echo6(probe, sizeof probe, 0x1234, 42, NONCE, 52, &ip);
    m = icmp6_error(msg, ICMP6_TIME_EXCEEDED, 0, probe, n);
    assert_int_equal(pkt_parse(PKT_ICMP6, msg, m, &r, NULL), 0);
    assert_int_equal(r.kind, PK_ERROR);
    assert_int_equal(r.type, ICMP6_TIME_EXCEEDED);
    assert_int_equal(r.orig_len, 100);
    x = expect6(0x1234, 42, 52, ip.dst);
    assert_int_equal(pkt_match(&r, &x), PM_ERROR);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(header_fields),
        cmocka_unit_test(checksum_matches_reference),
        cmocka_unit_test(lengths_are_bounded),
        cmocka_unit_test(answers_match_our_header),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
