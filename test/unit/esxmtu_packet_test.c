/* esxmtu packet.c: size arithmetic, echo build/parse, ICMP errors with the quoted
 * probe, strict bounds, and reply matching (wrong id, short reply, other process). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <sys/socket.h>

#include "../../tools/esxmtu/packet.h"
#include "../../tools/esxmtu/probe.h"
#include "../../tools/esxmtu/report.h"
#include "bytes.h"
#include "checksum.h"

const char tool_name[] = "esxmtu";

#define NONCE 0x1122334455667788ull

static void size_arithmetic(void **state)
{
    (void)state;
    assert_int_equal(probe_data_len(AF_INET, 9000), 8972);
    assert_int_equal(probe_data_len(AF_INET6, 9000), 8952);
    assert_int_equal(probe_data_len(AF_INET, 1500), 1472);
    assert_int_equal(probe_data_len(AF_INET, 1600), 1572);
    assert_int_equal(probe_data_len(AF_INET, 1700), 1672);
    assert_int_equal(probe_data_len(AF_INET6, 1280), 1232);
    assert_int_equal(probe_data_len(AF_INET, 20), 0);
    assert_int_equal(pkt_min_mtu(AF_INET), 68);
    assert_int_equal(pkt_min_mtu(AF_INET6), 1280);
    char b[96];
    report_arith(b, sizeof b, AF_INET, 9000);
    assert_string_equal(b, "MTU 9000 = 8972 data + 8 ICMP + 20 IPv4");
    report_arith(b, sizeof b, AF_INET6, 9000);
    assert_string_equal(b, "MTU 9000 = 8952 data + 8 ICMPv6 + 40 IPv6");
}

static size_t build4(uint8_t *buf, size_t cap, uint16_t id, uint16_t seq, size_t data)
{
    struct pkt_ip4 ip = { { 198, 18, 0, 2 }, { 198, 18, 1, 2 }, 7, 1 };
    return pkt_build_echo(PKT_IP4, buf, cap, id, seq, NONCE, data, &ip);
}

static void builds_ipv4_with_df(void **state)
{
    (void)state;
    static uint8_t buf[9100];
    size_t n = build4(buf, sizeof buf, 0x1234, 7, 8972);
    assert_int_equal(n, 9000);
    assert_int_equal(buf[0], 0x45);
    assert_int_equal(load_be16(buf + 2), 9000);
    assert_int_equal(buf[6] & 0x40, 0x40);           /* DF */
    assert_int_equal(buf[8], 7);                     /* TTL */
    assert_int_equal(buf[9], 1);
    assert_int_equal(inet_checksum(buf, 20), 0);     /* header checksum valid */
    assert_int_equal(inet_checksum(buf + 20, n - 20), 0);   /* ICMP checksum valid */
    assert_int_equal(buf[20], 8);
    /* does not fit / too large */
    assert_int_equal(build4(buf, 100, 1, 1, 8972), 0);
    static uint8_t big[70000];
    assert_int_equal(build4(big, sizeof big, 1, 1, 65535 - 28), 65535);
    assert_int_equal(build4(big, sizeof big, 1, 1, 65535 - 27), 0);
    assert_int_equal(pkt_build_echo(PKT_IP4, buf, sizeof buf, 1, 1, NONCE, 10, NULL), 0);
}

/* turn our request (with IPv4 header) into the reply a peer sends */
static size_t as_reply4(uint8_t *buf, size_t n)
{
    uint8_t t[4];
    memcpy(t, buf + 12, 4);
    memcpy(buf + 12, buf + 16, 4);
    memcpy(buf + 16, t, 4);
    buf[20] = 0;
    buf[22] = buf[23] = 0;
    uint16_t ck = inet_checksum(buf + 20, n - 20);
    memcpy(buf + 22, &ck, 2);
    return n;
}

static struct pkt_expect expect4(uint16_t id, uint16_t seq, size_t data)
{
    struct pkt_expect x;
    memset(&x, 0, sizeof x);
    x.id = id;
    x.check_id = 1;
    x.seq = seq;
    x.nonce = NONCE;
    x.data_len = data;
    uint8_t d[4] = { 198, 18, 1, 2 };
    memcpy(x.dst, d, 4);
    x.dst_len = 4;
    return x;
}

static void parses_and_matches_echo_reply(void **state)
{
    (void)state;
    static uint8_t buf[9100];
    size_t n = as_reply4(buf, build4(buf, sizeof buf, 0x1234, 7, 8972));
    struct pkt_info r;
    const char *why = NULL;
    assert_int_equal(pkt_parse(PKT_IP4, buf, n, &r, &why), 0);
    assert_int_equal(r.kind, PK_ECHO_REPLY);
    assert_int_equal(r.id, 0x1234);
    assert_int_equal(r.seq, 7);
    assert_int_equal(r.data_len, 8972);
    assert_int_equal(r.src[3], 2);
    assert_int_equal(r.src[2], 1);
    struct pkt_expect x = expect4(0x1234, 7, 8972);
    assert_int_equal(pkt_match(&r, &x), PM_FULL);

    /* wrong id: another ping on this host */
    x.id = 0x4321;
    assert_int_equal(pkt_match(&r, &x), PM_NOT_OURS);
    /* ping sockets: the kernel owns the id, so it is not checked */
    x.check_id = 0;
    assert_int_equal(pkt_match(&r, &x), PM_FULL);
    x = expect4(0x1234, 8, 8972);                  /* wrong sequence */
    assert_int_equal(pkt_match(&r, &x), PM_NOT_OURS);
    x = expect4(0x1234, 7, 8972);
    x.nonce ^= 1;                                  /* same id/seq, another process's data */
    assert_int_equal(pkt_match(&r, &x), PM_NOT_OURS);

    /* a reply shorter than sent is ours but a failure */
    x = expect4(0x1234, 7, 8972);
    store_be16(buf + 2, 1500);
    assert_int_equal(pkt_parse(PKT_IP4, buf, n, &r, &why), 0);
    assert_int_equal(r.data_len, 1472);
    assert_int_equal(pkt_match(&r, &x), PM_SHORT);
    /* altered data past the stamp */
    store_be16(buf + 2, 9000);
    buf[20 + 8 + 5000] ^= 0xff;
    assert_int_equal(pkt_parse(PKT_IP4, buf, n, &r, &why), 0);
    assert_int_equal(pkt_match(&r, &x), PM_SHORT);
}

static void tiny_and_zero_data(void **state)
{
    (void)state;
    uint8_t buf[64];
    size_t n = pkt_build_echo(PKT_ICMP4, buf, sizeof buf, 9, 3, NONCE, 0, NULL);
    assert_int_equal(n, 8);
    buf[0] = 0;
    struct pkt_info r;
    assert_int_equal(pkt_parse(PKT_ICMP4, buf, n, &r, NULL), 0);
    struct pkt_expect x = expect4(9, 3, 0);
    assert_int_equal(pkt_match(&r, &x), PM_FULL);
    /* we sent 56, 0 came back: without the stamp it could be anyone's (a forger
     * knows id and sequence from the request), so it is not ours at all */
    x.data_len = 56;
    assert_int_equal(pkt_match(&r, &x), PM_NOT_OURS);
    n = pkt_build_echo(PKT_ICMP4, buf, sizeof buf, 9, 3, NONCE, 5, NULL);
    buf[0] = 0;
    assert_int_equal(pkt_parse(PKT_ICMP4, buf, n, &r, NULL), 0);
    x.data_len = 5;
    assert_int_equal(pkt_match(&r, &x), PM_FULL);
}

/* a router's frag-needed quoting our probe */
static size_t frag_needed(uint8_t *out, const uint8_t *probe, size_t quote, uint16_t mtu)
{
    uint8_t *p = out;
    p[0] = 0x45; p[1] = 0;
    store_be16(p + 2, (uint16_t)(20 + 8 + quote));
    memset(p + 4, 0, 5);
    p[8] = 64; p[9] = 1; p[10] = p[11] = 0;
    uint8_t r[4] = { 198, 18, 0, 1 }, a[4] = { 198, 18, 0, 2 };
    memcpy(p + 12, r, 4);
    memcpy(p + 16, a, 4);
    p[20] = 3; p[21] = 4; p[22] = p[23] = 0; p[24] = p[25] = 0;
    store_be16(p + 26, mtu);
    memcpy(p + 28, probe, quote);
    return 28 + quote;
}

static void parses_frag_needed_with_quoted_probe(void **state)
{
    (void)state;
    static uint8_t probe[9100], msg[700];
    build4(probe, sizeof probe, 0x1234, 42, 8972);
    size_t n = frag_needed(msg, probe, 20 + 8, 1500);
    struct pkt_info r;
    assert_int_equal(pkt_parse(PKT_IP4, msg, n, &r, NULL), 0);
    assert_int_equal(r.kind, PK_ERROR);
    assert_int_equal(r.type, 3);
    assert_int_equal(r.code, 4);
    assert_int_equal(r.mtu, 1500);
    assert_int_equal(r.has_orig, 1);
    assert_int_equal(r.id, 0x1234);
    assert_int_equal(r.seq, 42);
    assert_int_equal(r.orig_len, 9000);
    assert_int_equal(r.src[3], 1);
    struct pkt_expect x = expect4(0x1234, 42, 8972);
    assert_int_equal(pkt_match(&r, &x), PM_ERROR);
    x.dst[3] = 99;                                 /* quoted probe went elsewhere */
    assert_int_equal(pkt_match(&r, &x), PM_NOT_OURS);
    x = expect4(0x9999, 42, 8972);
    assert_int_equal(pkt_match(&r, &x), PM_NOT_OURS);

    /* quote cut before the ICMP id/seq: cannot be matched */
    n = frag_needed(msg, probe, 20 + 4, 1500);
    assert_int_equal(pkt_parse(PKT_IP4, msg, n, &r, NULL), 0);
    assert_int_equal(r.has_orig, 0);
    x = expect4(0x1234, 42, 8972);
    assert_int_equal(pkt_match(&r, &x), PM_NOT_OURS);
    /* quoted header claiming a longer header than quoted */
    n = frag_needed(msg, probe, 20 + 8, 1500);
    msg[28] = 0x4f;
    assert_int_equal(pkt_parse(PKT_IP4, msg, n, &r, NULL), 0);
    assert_int_equal(r.has_orig, 0);
}

static void parses_ipv6_packet_too_big(void **state)
{
    (void)state;
    static uint8_t probe[9100], msg[1300];
    size_t pn = pkt_build_echo(PKT_ICMP6, probe, sizeof probe, 0x77, 5, NONCE, 8952, NULL);
    assert_int_equal(pn, 8960);
    uint8_t *m = msg;
    m[0] = 2; m[1] = 0; m[2] = m[3] = 0;
    m[4] = 0; m[5] = 0; m[6] = 0x05; m[7] = 0xdc;   /* 1500 */
    uint8_t *ip6 = m + 8;
    memset(ip6, 0, 40);
    ip6[0] = 0x60;
    store_be16(ip6 + 4, (uint16_t)pn);
    ip6[6] = 58; ip6[7] = 64;
    ip6[24] = 0x20; ip6[25] = 0x01; ip6[26] = 0x0d; ip6[27] = 0xb8; ip6[39] = 2;
    memcpy(ip6 + 40, probe, 1232 - 40);
    struct pkt_info r;
    assert_int_equal(pkt_parse(PKT_ICMP6, msg, 1232, &r, NULL), 0);
    assert_int_equal(r.kind, PK_ERROR);
    assert_int_equal(r.mtu, 1500);
    assert_int_equal(r.id, 0x77);
    assert_int_equal(r.seq, 5);
    assert_int_equal(r.orig_len, 9000);
    struct pkt_expect x;
    memset(&x, 0, sizeof x);
    x.id = 0x77; x.check_id = 1; x.seq = 5; x.nonce = NONCE; x.data_len = 8952;
    memcpy(x.dst, ip6 + 24, 16);
    x.dst_len = 16;
    assert_int_equal(pkt_match(&r, &x), PM_ERROR);
    ip6[6] = 17;                                   /* quoted UDP: not ours */
    assert_int_equal(pkt_parse(PKT_ICMP6, msg, 1232, &r, NULL), 0);
    assert_int_equal(r.has_orig, 0);
    /* ICMPv6 echo reply */
    probe[0] = 129;
    assert_int_equal(pkt_parse(PKT_ICMP6, probe, pn, &r, NULL), 0);
    assert_int_equal(r.kind, PK_ECHO_REPLY);
    assert_int_equal(pkt_match(&r, &x), PM_FULL);
}

/* which types count as echo or error is per family: the other family's numbers
 * must not leak across (ICMP type 2 is not "too big", ICMPv6 type 8 is not echo) */
static void icmp_types_per_family(void **state)
{
    (void)state;
    static const struct { int layer; uint8_t type, code; int kind; uint32_t mtu; } c[] = {
        { PKT_ICMP4, 0, 0, PK_ECHO_REPLY, 0 },    { PKT_ICMP4, 8, 0, PK_ECHO_REQUEST, 0 },
        { PKT_ICMP4, 3, 1, PK_ERROR, 0 },         { PKT_ICMP4, 3, 4, PK_ERROR, 0x0304 },
        { PKT_ICMP4, 11, 0, PK_ERROR, 0 },        { PKT_ICMP4, 12, 0, PK_ERROR, 0 },
        { PKT_ICMP4, 2, 0, PK_OTHER, 0 },         { PKT_ICMP4, 5, 0, PK_OTHER, 0 },
        { PKT_ICMP4, 128, 0, PK_OTHER, 0 },       { PKT_ICMP4, 129, 0, PK_OTHER, 0 },
        { PKT_ICMP6, 129, 0, PK_ECHO_REPLY, 0 },  { PKT_ICMP6, 128, 0, PK_ECHO_REQUEST, 0 },
        { PKT_ICMP6, 1, 4, PK_ERROR, 0 },         { PKT_ICMP6, 2, 0, PK_ERROR, 0x01020304 },
        { PKT_ICMP6, 3, 0, PK_ERROR, 0 },         { PKT_ICMP6, 4, 0, PK_ERROR, 0 },
        { PKT_ICMP6, 0, 0, PK_OTHER, 0 },         { PKT_ICMP6, 8, 0, PK_OTHER, 0 },
        { PKT_ICMP6, 11, 0, PK_OTHER, 0 },        { PKT_ICMP6, 135, 0, PK_OTHER, 0 },
    };
    for (size_t i = 0; i < ARRAY_SIZE(c); i++) {
        uint8_t b[8] = { c[i].type, c[i].code, 0, 0, 1, 2, 3, 4 };
        struct pkt_info r;
        assert_int_equal(pkt_parse(c[i].layer, b, sizeof b, &r, NULL), 0);
        assert_int_equal(r.type, c[i].type);
        assert_int_equal(r.code, c[i].code);
        assert_int_equal(r.kind, c[i].kind);
        assert_int_equal(r.mtu, c[i].mtu);
        assert_int_equal(r.has_orig, 0);
        if (c[i].kind == PK_ECHO_REPLY || c[i].kind == PK_ECHO_REQUEST) {
            assert_int_equal(r.id, 0x0102);
            assert_int_equal(r.seq, 0x0304);
            assert_int_equal(r.data_len, 0);
        }
    }
    const char *why = NULL;
    struct pkt_info r;
    uint8_t b[8] = { 0 };
    assert_int_equal(pkt_parse(PKT_ICMP4, b, 7, &r, &why), -1);
    assert_string_equal(why, "ICMP message shorter than its 8-byte header");
    assert_int_equal(pkt_parse(PKT_ICMP6, b, 7, &r, &why), -1);
    assert_string_equal(why, "ICMPv6 message shorter than its 8-byte header");
}

static void rejects_malformed(void **state)
{
    (void)state;
    uint8_t b[64];
    struct pkt_info r;
    const char *why = NULL;
    memset(b, 0, sizeof b);
    assert_int_equal(pkt_parse(PKT_IP4, b, 19, &r, &why), -1);
    assert_non_null(why);
    b[0] = 0x44;                                   /* ihl 4 */
    assert_int_equal(pkt_parse(PKT_IP4, b, 64, &r, &why), -1);
    b[0] = 0x4f;                                   /* ihl 60 > 40 bytes */
    assert_int_equal(pkt_parse(PKT_IP4, b, 40, &r, &why), -1);
    b[0] = 0x45; b[2] = 0; b[3] = 10;              /* total length < header */
    assert_int_equal(pkt_parse(PKT_IP4, b, 64, &r, &why), -1);
    b[3] = 24; b[9] = 1;                           /* 4 bytes of ICMP */
    assert_int_equal(pkt_parse(PKT_IP4, b, 64, &r, &why), -1);
    b[3] = 64; b[6] = 0x20;                        /* a fragment (MF) */
    assert_int_equal(pkt_parse(PKT_IP4, b, 64, &r, &why), -1);
    assert_int_equal(pkt_parse(PKT_ICMP6, b, 7, &r, &why), -1);
    assert_int_equal(pkt_parse(PKT_ICMP4, NULL, 0, &r, &why), -1);
    assert_int_equal(pkt_parse(99, b, 64, &r, &why), -1);
    b[0] = 0x60;                                   /* IPv6 in an IPv4 socket */
    assert_int_equal(pkt_parse(PKT_IP4, b, 64, &r, &why), -1);
}

/* echo replies that a host on the path forges from the request it saw */
static void forged_replies_are_not_ours(void **state)
{
    (void)state;
    static uint8_t buf[9100];
    size_t n = as_reply4(buf, build4(buf, sizeof buf, 0x1234, 7, 8972));
    struct pkt_info r;
    struct pkt_expect x = expect4(0x1234, 7, 8972);
    /* right id and sequence, the stamp cut to 15 of its 16 bytes */
    store_be16(buf + 2, 20 + 8 + 15);
    assert_int_equal(pkt_parse(PKT_IP4, buf, n, &r, NULL), 0);
    assert_int_equal(pkt_match(&r, &x), PM_NOT_OURS);
    /* the whole stamp, then fewer bytes: ours, and short */
    store_be16(buf + 2, 20 + 8 + 16);
    assert_int_equal(pkt_parse(PKT_IP4, buf, n, &r, NULL), 0);
    assert_int_equal(pkt_match(&r, &x), PM_SHORT);
    /* full length with a wrong stamp (another nonce): not ours */
    store_be16(buf + 2, 9000);
    buf[28 + 3] ^= 0x40;
    assert_int_equal(pkt_parse(PKT_IP4, buf, n, &r, NULL), 0);
    assert_int_equal(pkt_match(&r, &x), PM_NOT_OURS);
    /* a probe with less data than a stamp: all of it must come back */
    uint8_t b[64];
    size_t m = pkt_build_echo(PKT_ICMP4, b, sizeof b, 9, 3, NONCE, 5, NULL);
    b[0] = 0;
    x = expect4(9, 3, 5);
    assert_int_equal(pkt_parse(PKT_ICMP4, b, m - 1, &r, NULL), 0);
    assert_int_equal(pkt_match(&r, &x), PM_NOT_OURS);
}

/* errors that quote a probe we never sent: another size under our sequence, our
 * sequence with another stamp; a short RFC 792 quote is still matched */
static void forged_quotes_are_not_ours(void **state)
{
    (void)state;
    static uint8_t probe[9100], msg[700];
    build4(probe, sizeof probe, 0x1234, 42, 8972);
    struct pkt_info r;
    struct pkt_expect x = expect4(0x1234, 42, 8972);
    x.ip_len = 9000;
    /* a Linux router quotes 576 - 28 bytes: header, ICMP header and our stamp */
    size_t n = frag_needed(msg, probe, 548, 1500);
    assert_int_equal(pkt_parse(PKT_IP4, msg, n, &r, NULL), 0);
    assert_int_equal(r.orig_data_len, 548 - 28);
    assert_int_equal(pkt_match(&r, &x), PM_ERROR);
    /* our sequence, but the quoted length is another probe's (the small one's) */
    struct pkt_expect small = expect4(0x1234, 42, 56);
    small.ip_len = 84;
    assert_int_equal(pkt_match(&r, &small), PM_NOT_OURS);
    /* the quoted length byte-swapped, as a host-order copy of the header would be */
    static uint8_t sw[700];
    memcpy(sw, msg, n);
    store_le16(sw + 28 + 2, 9000);
    assert_int_equal(pkt_parse(PKT_IP4, sw, n, &r, NULL), 0);
    assert_int_equal(pkt_match(&r, &x), PM_ERROR);
    /* the right id/seq/length, another stamp in the quoted data */
    msg[28 + 28 + 2] ^= 1;
    assert_int_equal(pkt_parse(PKT_IP4, msg, n, &r, NULL), 0);
    assert_int_equal(pkt_match(&r, &x), PM_NOT_OURS);
    /* only the 8 ICMP bytes quoted: id, seq, destination and length decide */
    n = frag_needed(msg, probe, 28, 1500);
    assert_int_equal(pkt_parse(PKT_IP4, msg, n, &r, NULL), 0);
    assert_int_equal(r.orig_data_len, 0);
    assert_int_equal(pkt_match(&r, &x), PM_ERROR);
    assert_int_equal(pkt_match(&r, &small), PM_NOT_OURS);
    /* the error queue hands back our own request: its data must be ours too */
    size_t q = pkt_build_echo(PKT_ICMP4, probe, sizeof probe, 0x1234, 42, NONCE, 8972, NULL);
    assert_int_equal(pkt_parse(PKT_ICMP4, probe, 548, &r, NULL), 0);
    assert_int_equal(r.kind, PK_ECHO_REQUEST);
    assert_int_equal(pkt_match(&r, &x), PM_ERROR);
    probe[8 + 20] ^= 1;
    assert_int_equal(pkt_parse(PKT_ICMP4, probe, q, &r, NULL), 0);
    assert_int_equal(pkt_match(&r, &x), PM_NOT_OURS);
}

static void next_hop_mtu_plausibility(void **state)
{
    (void)state;
    assert_true(pkt_mtu_plausible(AF_INET, 1500, 9000));
    assert_true(pkt_mtu_plausible(AF_INET, 68, 9000));        /* the minimum: can be (check.c weighs it) */
    assert_false(pkt_mtu_plausible(AF_INET, 0, 9000));        /* RFC 792 routers, or a lie */
    assert_false(pkt_mtu_plausible(AF_INET, 67, 9000));
    assert_false(pkt_mtu_plausible(AF_INET, 9000, 9000));     /* not below the probe */
    assert_false(pkt_mtu_plausible(AF_INET, 65535, 1500));
    assert_true(pkt_mtu_plausible(AF_INET6, 1280, 9000));
    assert_false(pkt_mtu_plausible(AF_INET6, 1279, 9000));    /* Packet Too Big under 1280 */
    assert_false(pkt_mtu_plausible(AF_INET6, 1000, 9000));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(size_arithmetic),
        cmocka_unit_test(builds_ipv4_with_df),
        cmocka_unit_test(parses_and_matches_echo_reply),
        cmocka_unit_test(tiny_and_zero_data),
        cmocka_unit_test(parses_frag_needed_with_quoted_probe),
        cmocka_unit_test(parses_ipv6_packet_too_big),
        cmocka_unit_test(icmp_types_per_family),
        cmocka_unit_test(rejects_malformed),
        cmocka_unit_test(forged_replies_are_not_ours),
        cmocka_unit_test(forged_quotes_are_not_ours),
        cmocka_unit_test(next_hop_mtu_plausibility),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
