/* esxperf's path-mtu and fragmentation rules (tools/esxperf/diagnose/diagnose_mtu.c)
 * over evidence recorded in esxperf_diagnose_mtu.bats's benches (two hosts at MTU
 * 9000 through a bridge whose port drops IP packets over 1500 bytes; a host at 1500
 * sending -l 8000): each class from its run, the older rules keeping random loss,
 * the finding beside another class, and a host that refuses the figures. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "diagnose.h"

const char tool_name[] = "esxperf_test";

static enum diag_class decide(const struct diag_evidence *e, struct diagnosis *d)
{
    diag_decide(e, d);
    return d->cls;
}

/* a TCP run through the silent black hole, -t 2, net.ipv4.tcp_mtu_probing 0: the
 * handshake and the 37-byte cookie crossed, no data segment did */
static void black_hole_tcp(struct diag_evidence *e)
{
    diag_evidence_init(e);
    e->rate_bps = 0;
    e->snd_thread_pct = 60;
    e->snd_thread_demand_pct = 62;
    e->snd_proc_pct = 61;
    e->rcv_proc_pct = 40;
    e->wall_us = 2.1e6;
    e->busy_us = 1.996e6;
    e->rwnd_limited_us = 8000;
    e->sndbuf_limited_us = 0;
    e->app_limited = 1;
    e->rtt_us = 11;
    e->segs_out = 14;
    e->retrans = 5;
    e->peer_wnd_bytes = 66560;
    e->autotune_cap_bytes = 6291456;
    e->mss_start_bytes = e->mss_bytes = 8948;
    e->bytes_acked = 38;
    e->rto_backoff = 3;
    e->route_mtu = 9000;
    e->peer = "198.18.3.2";
}

/* the black hole's run with other counts: segments sent and retransmitted, bytes
 * acknowledged, the MSS at the end, the rate */
static void counted(struct diag_evidence *e, double segs, double retrans, double acked, double mss, double bps)
{
    black_hole_tcp(e);
    e->segs_out = segs;
    e->retrans = retrans;
    e->bytes_acked = acked;
    e->mss_bytes = mss;
    e->rate_bps = bps;
    e->rto_backoff = 0;
}

static void path_mtu_tcp(void **state)
{
    (void)state;
    struct diag_evidence e;
    struct diagnosis d;
    char line[900];

    black_hole_tcp(&e);
    e.vmk = "vmk1";
    assert_int_equal(decide(&e, &d), DIAG_PATH_MTU);
    assert_string_equal(d.key, "path-mtu");
    assert_non_null(strstr(d.because, "38 bytes acknowledged"));
    assert_non_null(strstr(d.because, "3 timeouts in a row"));
    assert_non_null(strstr(d.advice, "confirm with esxmtu -I vmk1 -s 8972 -d 198.18.3.2"));
    diag_line(&d, line, sizeof line);
    assert_true(!strncmp(line, "bottleneck: path MTU (", 22));
    assert_int_equal(d.nfind, 0);

    black_hole_tcp(&e);                /* no vmknic, IPv6: the data size of MTU 9000 is 8952 */
    e.ipv6 = 1;
    e.mss_start_bytes = e.mss_bytes = 8928;
    e.peer = "2001:db8:3::2";
    assert_int_equal(decide(&e, &d), DIAG_PATH_MTU);
    assert_non_null(strstr(d.advice, "confirm with esxmtu -s 8952 -d 2001:db8:3::2"));

    black_hole_tcp(&e);                /* no address known: the command still has its shape */
    e.peer = NULL;
    e.route_mtu = -1;
    assert_int_equal(decide(&e, &d), DIAG_PATH_MTU);
    assert_non_null(strstr(d.advice, "esxmtu -s 8972 -d PEER"));

    /* tcp_mtu_probing 1, -t 6: after ~3 s of timeouts Linux cut the MSS to its base
     * (1024) and some data crossed; the route kept its 9000 */
    counted(&e, 106, 66, 22298, 1024, 48e3);
    assert_int_equal(decide(&e, &d), DIAG_PATH_MTU);
    assert_non_null(strstr(d.because, "fell from 8948 to 1024"));
    assert_non_null(strstr(d.because, "black-hole detection"));

    /* a router that says frag-needed: the route's MTU fell with the MSS, TCP adapted */
    counted(&e, 500000, 20, 7e8, 1448, 3e9);
    e.route_mtu = 1500;
    assert_int_not_equal(decide(&e, &d), DIAG_PATH_MTU);

    /* a peer at MTU 1500: the handshake's MSS is 1448 from the start */
    counted(&e, 500000, 5, 7e8, 1448, 3e9);
    e.mss_start_bytes = 1448;
    assert_int_not_equal(decide(&e, &d), DIAG_PATH_MTU);
}

/* the older rules keep what is theirs: random loss is network-loss however large */
static void path_mtu_leaves_loss_alone(void **state)
{
    (void)state;
    struct diag_evidence e;
    struct diagnosis d;

    counted(&e, 9000, 270, 7.8e7, 8948, 300e6);   /* nft numgen 3 %: most segments acknowledged */
    assert_int_equal(decide(&e, &d), DIAG_NETWORK_LOSS);

    counted(&e, 400, 200, 1.7e6, 8948, 0);   /* 50 % dropped: far more than 1 % acknowledged */
    assert_int_equal(decide(&e, &d), DIAG_NETWORK_LOSS);

    black_hole_tcp(&e);                /* small segments all lost: not a size problem */
    e.mss_start_bytes = e.mss_bytes = 536;
    assert_int_not_equal(decide(&e, &d), DIAG_PATH_MTU);

    black_hole_tcp(&e);                /* TCP_INFO without bytes_acked (before Linux 4.2) */
    e.bytes_acked = -1;
    assert_int_not_equal(decide(&e, &d), DIAG_PATH_MTU);
    black_hole_tcp(&e);                /* ... or refused: nothing read, no crash */
    e.mss_bytes = e.mss_start_bytes = e.bytes_acked = e.rto_backoff = e.segs_out = e.retrans = -1;
    assert_int_not_equal(decide(&e, &d), DIAG_PATH_MTU);
}

/* UDP, the datagrams as the sender counted them against the receiver's count */
static void udp_run(struct diag_evidence *e, double len, double mtu, double sent, double received)
{
    diag_evidence_init(e);
    e->udp = 1;
    e->rate_bps = received * len * 8 / 2;
    e->target_bps = 1e9;             /* -b 1G: not reached */
    e->snd_thread_pct = 7;
    e->rcv_proc_pct = 1;
    e->udp_len = len;
    e->route_mtu = mtu;
    e->udp_sent = sent;
    e->udp_received = received;
    e->udp_loss_pct = sent > received && received > 0 ? 100.0 * (sent - received) / sent : 0;
    e->frag_creates = len + 28 > mtu ? sent * 6 : 0;
    e->peer = "198.18.3.2";
}

static void path_mtu_udp(void **state)
{
    (void)state;
    struct diag_evidence e;
    struct diagnosis d;

    /* the black hole, -u -b 100M: iperf3's default length at MTU 9000 (8948), none
     * arrived; the receiver saw no gap (it saw nothing) */
    udp_run(&e, 8948, 9000, 2795, 0);
    assert_int_equal(decide(&e, &d), DIAG_PATH_MTU);
    assert_non_null(strstr(d.because, "100.0 % of the 8948-byte datagrams lost"));
    assert_non_null(strstr(d.advice, "esxmtu -s 8972 -d 198.18.3.2"));

    udp_run(&e, 1000, 9000, 2795, 0);  /* small datagrams all lost: not a size problem */
    e.udp_loss_pct = 100;
    assert_int_equal(decide(&e, &d), DIAG_NETWORK_LOSS);

    udp_run(&e, 8948, 9000, 2795, 2700);   /* 3 % random loss: network-loss */
    assert_int_equal(decide(&e, &d), DIAG_NETWORK_LOSS);
}

static void fragmentation_class_and_finding(void **state)
{
    (void)state;
    struct diag_evidence e;
    struct diagnosis d;
    char line[900];

    /* -u -l 8000 -b 200M from a host at 1500, 3 % of the fragments dropped: 6
     * fragments a datagram, two thirds of the datagrams lost (the receiver's
     * reassembly queue full of incomplete ones) */
    udp_run(&e, 8000, 1500, 6251, 2003);
    e.target_bps = 200e6;
    e.udp_loss_pct = 16.2;
    e.vmk = "vmk1";
    assert_int_equal(decide(&e, &d), DIAG_FRAGMENTATION);
    assert_string_equal(d.key, "fragmentation");
    assert_non_null(strstr(d.because, "left in 6 fragments (route MTU 1500)"));
    assert_non_null(strstr(d.advice, "-l 1472 keeps each in one packet"));
    assert_non_null(strstr(d.advice, "esxmtu -I vmk1 -s 8972 -d 198.18.3.2"));
    assert_int_equal(d.nfind, 0);

    /* the same size at -b 50M, nothing lost: pacing, and fragmentation a finding */
    udp_run(&e, 8000, 1500, 1564, 1564);
    e.target_bps = 50e6;
    e.rate_bps = 50e6;
    assert_int_equal(decide(&e, &d), DIAG_PACING);
    assert_int_equal(d.nfind, 1);
    assert_string_equal(d.find[0].key, "fragmentation");
    diag_finding_line(&d, 0, line, sizeof line);
    assert_non_null(strstr(line, "finding: fragmentation: each 8000-byte datagram left in 6 fragments"));
    assert_non_null(strstr(line, "9384 fragments made here"));
    diag_finding_line(&d, 1, line, sizeof line);
    assert_string_equal(line, "");

    /* IPv6: 1448 bytes a fragment (the 8-byte fragment header), still 6 */
    udp_run(&e, 8000, 1500, 1564, 1564);
    e.ipv6 = 1;
    e.target_bps = e.rate_bps = 50e6;
    decide(&e, &d);
    assert_int_equal(d.nfind, 1);
    assert_non_null(strstr(d.find[0].text, "-l 1452 keeps"));

    /* a datagram that fits (-l 1472 at 1500), or none made (the don't-fragment bit):
     * no finding; random loss then is network-loss */
    udp_run(&e, 1472, 1500, 10000, 9700);
    assert_int_equal(decide(&e, &d), DIAG_NETWORK_LOSS);
    assert_int_equal(d.nfind, 0);
    udp_run(&e, 8000, 1500, 10000, 9700);
    e.frag_creates = 0;
    assert_int_equal(decide(&e, &d), DIAG_NETWORK_LOSS);
    assert_int_equal(d.nfind, 0);

    /* fragmented and every datagram lost (the receiver's reassembly memory full of
     * incomplete ones, or a hop below the route's MTU): fragmentation, whose -l
     * tells the two apart, not path-mtu */
    udp_run(&e, 8000, 1500, 6250, 0);
    assert_int_equal(decide(&e, &d), DIAG_FRAGMENTATION);

    /* a host without /proc/net/snmp or IP_MTU: judged by size alone, or named missing */
    udp_run(&e, 8000, 1500, 6251, 2003);
    e.frag_creates = -1;
    assert_int_equal(decide(&e, &d), DIAG_FRAGMENTATION);
    assert_non_null(strstr(d.missing, "fragments made"));
    e.route_mtu = -1;
    assert_int_equal(decide(&e, &d), DIAG_NETWORK_LOSS);
    assert_non_null(strstr(d.missing, "route MTU"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(path_mtu_tcp),
        cmocka_unit_test(path_mtu_leaves_loss_alone),
        cmocka_unit_test(path_mtu_udp),
        cmocka_unit_test(fragmentation_class_and_finding),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
