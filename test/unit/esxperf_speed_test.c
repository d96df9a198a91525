/* esxperf's speed engine: pacing arithmetic (tools/esxperf/pace.c), batch accounting and
 * GRO splitting (batch.c) including real loopback round trips through every
 * sendmmsg/GSO/recvmmsg/GRO combination and fallback, ESXPERF_ENGINE_OFF
 * names (stream.c) and -A parsing (options.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "batch.h"
#include "options.h"
#include "pace.h"
#include "stream.h"
#include "tcp_lowat.h"
#include "tcp_sndbuf.h"
#include "udp.h"
#include "bytes.h"
#include "clock.h"

const char tool_name[] = "esxperf_test";

#define SEC 1000000000ull

static void pace_allowed_is_rate_times_time(void **state)
{
    (void)state;
    /* 2 Gbit/s = 250 MB/s */
    assert_int_equal(pace_allowed(2000000000ull, SEC, 0), 250000000ull);
    assert_int_equal(pace_allowed(2000000000ull, SEC / 1000, 0), 250000ull);
    assert_int_equal(pace_allowed(2000000000ull, 0, 4096), 4096);
    /* no overflow: 100 Gbit/s for a day */
    assert_int_equal(pace_allowed(100000000000ull, 86400ull * SEC, 0), 12500000000ull * 86400ull);
    assert_int_equal(pace_allowed(8, SEC, 0), 1);
    assert_int_equal(pace_allowed(7, SEC, 0), 0);   /* rounds down: never ahead */
}

static void pace_batch_counts_whole_blocks(void **state)
{
    (void)state;
    /* a block may start while the bucket is not negative: one more than fits */
    assert_int_equal(pace_batch(10000, 0, 1448, 64), 7);
    assert_int_equal(pace_batch(10000, 8000, 1448, 64), 2);
    assert_int_equal(pace_batch(10000, 9000, 1448, 64), 1);
    assert_int_equal(pace_batch(10000, 10000, 1448, 64), 1);
    assert_int_equal(pace_batch(10000, 10001, 1448, 64), 0);    /* negative: wait */
    assert_int_equal(pace_batch(10000, 12000, 1448, 64), 0);
    assert_int_equal(pace_batch(100000000, 0, 1448, 64), 64);  /* capped */
    assert_int_equal(pace_batch(100, 0, 0, 64), 0);
}

/* the first block goes at once, whatever the rate and size (waiting until a whole
 * block is earned would hold 128 KiB at 100 kbit/s for 10.5 s before any data) */
static void pace_first_block_goes_at_once(void **state)
{
    (void)state;
    uint64_t due = 0;
    assert_int_equal(pace_step(100000, 0, 0, 0, 131072, 1, 1, &due), 1);
    assert_int_equal(pace_step(100000, 0, 0, 0, 65507, 1, 64, &due), 1);
    assert_int_equal(pace_step(100000000, 0, 0, 0, 16u << 20, 1, 1, &due), 1);
    /* a batch sender with a wake-up of 8 blocks also starts at once */
    assert_int_equal(pace_step(2000000000ull, 0, 0, 0, 1448, 8, 64, &due), 1);
    /* then it waits until the bucket is back at zero */
    assert_int_equal(pace_step(100000, 0, 131072, 0, 131072, 1, 1, &due), 0);
    assert_int_equal(due, pace_due_ns(100000, 131072, 0));
}

/* TCP write size when paced: 10 ms of the rate, 1..blk bytes */
static void pace_chunk_is_ten_ms_of_rate(void **state)
{
    (void)state;
    assert_int_equal(pace_chunk(100000, 131072), 125);
    assert_int_equal(pace_chunk(2000000, 131072), 2500);
    assert_int_equal(pace_chunk(100000000, 16u << 20), 125000);
    assert_int_equal(pace_chunk(10000000000ull, 131072), 131072);   /* fast: whole blocks */
    assert_int_equal(pace_chunk(1, 131072), 1);
}

/* a paced sender simulated against a clock that wakes late by 0..120 us:
 * bytes moved by dur_ns, as a fraction of what the rate asks */
static double simulated_rate(uint64_t rate, size_t blk, int wake, uint64_t dur_ns)
{
    uint64_t sent = 0, t = 0;
    for (int i = 0; i < 2000000 && t < dur_ns; i++) {
        uint64_t due = 0;
        int n = pace_step(rate, t, sent, 0, blk, wake, 64, &due);
        if (n) {
            sent += (uint64_t)n * blk;
            t += 1000;
        } else {
            assert_true(due > t);
            t = due + (uint64_t)(i % 7) * 20000;
        }
    }
    return (double)sent * 8 / ((double)rate * (double)dur_ns / 1e9);
}

/* low rates with large blocks land within a few % of the rate: TCP in pace_chunk
 * writes, UDP in whole datagrams that fit the test */
static void pace_low_rates_land_on_the_rate(void **state)
{
    (void)state;
    static const struct { uint64_t rate; size_t blk; uint64_t secs; } c[] = {
        { 100000, 131072, 2 },          /* -t 2 -b 100k (TCP) */
        { 100000000, 16u << 20, 1 },    /* -t 1 -l 16M -b 100M */
        { 2000000, 131072, 1 },         /* -P 128 -b 2M -t 1: each stream */
        { 1000000, 1448, 2 },           /* -u -b 1M -t 2 */
        { 10000000000ull, 131072, 1 },  /* fast: whole blocks */
    };
    for (size_t i = 0; i < ARRAY_SIZE(c); i++) {
        size_t chunk = pace_chunk(c[i].rate, c[i].blk);
        double got = simulated_rate(c[i].rate, chunk, 1, c[i].secs * SEC);
        if (got < 0.98 || got > 1.02)
            fail_msg("case %zu: %.3f of the rate", i, got);
    }
}

/* how far whole datagrams can land above a rate: the client warns past 5 % */
static void pace_overshoot_of_whole_datagrams(void **state)
{
    (void)state;
    /* 100 kbit/s for 2 s is 25000 bytes; one 32768-byte datagram is 131 % of it */
    assert_int_equal(pace_overshoot_pct(100000, 32768, 0, 2 * SEC), 131);
    assert_int_equal(pace_overshoot_pct(100000, 1250, 0, 2 * SEC), 5);
    assert_int_equal(pace_overshoot_pct(1000000000, 1448, 0, 10 * SEC), 0);
    assert_int_equal(pace_overshoot_pct(1000000, 1448, 10, 1 * SEC), 11);    /* a burst of 10 */
    assert_int_equal(pace_overshoot_pct(0, 1448, 0, SEC), 0);
    assert_true(pace_overshoot_pct(1, 65507, 0, SEC) > 1000);
}

static void pace_due_inverts_allowed(void **state)
{
    (void)state;
    assert_int_equal(pace_due_ns(2000000000ull, 250000000ull, 0), SEC);
    assert_int_equal(pace_due_ns(2000000000ull, 4096, 4096), 0);   /* inside the burst */
    assert_int_equal(pace_due_ns(0, 10, 0), UINT64_MAX);
    /* rounded up: at the due time the bytes are allowed, one ns before not yet */
    for (uint64_t rate = 1000000; rate < 40000000000ull; rate = rate * 7 + 3) {
        for (uint64_t bytes = 1448; bytes < 100000000; bytes = bytes * 13 + 1) {
            uint64_t t = pace_due_ns(rate, bytes, 0);
            assert_true(pace_allowed(rate, t, 0) >= bytes);
            assert_true(t == 0 || pace_allowed(rate, t - 1, 0) < bytes);
        }
    }
}

static void pace_wake_blocks_per_period(void **state)
{
    (void)state;
    /* 2 Gbit/s, 1 ms, 1448-byte datagrams: 172 blocks, capped at 64 */
    assert_int_equal(pace_wake_blocks(2000000000ull, 1000000, 1448, 64), 64);
    assert_int_equal(pace_wake_blocks(100000000ull, 1000000, 1448, 64), 8);
    assert_int_equal(pace_wake_blocks(1048576, 1000000, 1448, 64), 1);   /* at least one */
    assert_int_equal(pace_wake_blocks(1, 1, 0, 64), 1);
}

/* the long-run rate of a paced loop is exact: simulate sends against a clock
 * that jumps by uneven sleeps */
static void pace_simulated_rate_is_exact(void **state)
{
    (void)state;
    uint64_t rate = 2000000000ull, sent = 0, t = 0;
    size_t blk = 1448;
    int wake = pace_wake_blocks(rate, 1000000, blk, 64);
    int calls = 0, small = 0;
    for (int i = 0; i < 200000 && t < 3 * SEC; i++) {
        uint64_t due = 0;
        int n = pace_step(rate, t, sent, 0, blk, wake, 64, &due);
        if (n) {
            sent += (uint64_t)n * blk;
            calls++;
            small += n < wake;
            t += 1000;                        /* a send takes a little time */
        } else {
            assert_true(due > t);
            t = due + (uint64_t)(i % 7) * 20000;   /* wake-ups come late by 0..120 us */
        }
    }
    double got = (double)sent * 8 / ((double)t / 1e9);
    assert_true(got <= rate * 1.0001);
    assert_true(got >= rate * 0.99);
    /* whole batches: one call per `wake` datagrams, not one per datagram (the
     * first block, which goes at once, is the only small one) */
    assert_int_equal(small, 1);
    assert_true((uint64_t)calls <= sent / blk / (uint64_t)wake + 2);
    /* behind by more than a batch: catches up at once, up to max */
    uint64_t due = 0;
    assert_int_equal(pace_step(rate, SEC, 0, 0, blk, 8, 64, &due), 64);
    assert_int_equal(pace_step(rate, 0, blk, 0, blk, 8, 64, &due), 0);
    assert_int_equal(due, pace_due_ns(rate, 8 * blk, 0));
}

/* the receiver's nap (batch.c rx_nap): half a batch at the measured arrival
 * rate, only between RX_NAP_MIN_NS and RX_NAP_MAX_NS, never after a full call */
static void rx_nap_decisions(void **state)
{
    (void)state;
    struct rx_nap n;
    rx_nap_init(&n, 16 * 65536, 8 << 20);
    assert_int_equal(n.target, 8 * 65536);                    /* half the batch */
    rx_nap_init(&n, 16 * 65536, 1 << 20);
    assert_int_equal(n.target, (1 << 20) / 8);                /* small SO_RCVBUF bounds it */
    rx_nap_init(&n, 16 * 65536, 0);
    assert_int_equal(n.target, 8 * 65536);                    /* buffer unknown */

    rx_nap_init(&n, 16 * 65536, 8 << 20);
    uint64_t t = 1000 * NS_PER_MS;
    assert_int_equal(rx_nap_after(&n, t, 65536, 0), 0);       /* first call: no rate yet */
    /* 5 bytes/ns (40 Gbit/s): 512 KiB arrive in 104,857 ns */
    t += 100 * NS_PER_US;
    uint64_t ns = rx_nap_after(&n, t, 500000, 0);
    assert_true(ns >= 104000 && ns <= 105000);
    t += 100 * NS_PER_US;
    assert_int_equal(rx_nap_after(&n, t, 500000, 1), 0);      /* full: more is waiting */
    /* the rate is smoothed: one slow call does not end the naps at once */
    t += 1 * NS_PER_MS;
    ns = rx_nap_after(&n, t, 65536, 0);
    assert_true(ns > RX_NAP_MIN_NS && ns <= RX_NAP_MAX_NS);
    /* a nap that found nothing forgets the rate; a modest one never naps */
    rx_nap_idle(&n);
    t += 10 * NS_PER_MS;
    assert_int_equal(rx_nap_after(&n, t, 1250000, 0), 0);     /* 1 Gbit/s: 4 ms, block */
    rx_nap_init(&n, 16 * 65536, 8 << 20);
    t += NS_PER_MS;
    rx_nap_after(&n, t, 0, 0);
    t += 10 * NS_PER_US;
    assert_int_equal(rx_nap_after(&n, t, 1000000, 0), 0);     /* 100 bytes/ns: 5 us, no timer */
    rx_nap_init(&n, 0, 8 << 20);
    t += NS_PER_MS;
    rx_nap_after(&n, t, 0, 0);
    t += 100 * NS_PER_US;
    assert_int_equal(rx_nap_after(&n, t, 500000, 0), 0);      /* no batch: never */
}

static void gro_split(void **state)
{
    (void)state;
    assert_int_equal(gro_count(0, 1448), 0);
    assert_int_equal(gro_count(1448, 1448), 1);
    assert_int_equal(gro_count(1448 * 44, 1448), 44);
    assert_int_equal(gro_count(1448 * 3 + 100, 1448), 4);     /* short last one */
    assert_int_equal(gro_seg_len(1448 * 3 + 100, 1448, 3), 100);
    assert_int_equal(gro_seg_len(1448 * 3 + 100, 1448, 2), 1448);
    assert_int_equal(gro_seg_len(1448 * 3 + 100, 1448, 4), 0);
    assert_int_equal(gro_count(500, 0), 1);                   /* no segment size: one */
    assert_int_equal(gro_seg_len(500, 0, 0), 500);
    assert_int_equal(gro_seg_len(500, 0, 1), 0);
    assert_int_equal(gso_segments(1448), 44);
    assert_int_equal(gso_segments(1000), 64);                 /* kernel maximum */
    assert_int_equal(gso_segments(40000), 1);                 /* two do not fit */
    assert_int_equal(gso_segments(0), 1);
}

/* tcp_sndbuf.h: several streams on a short path hold 512 KiB; one stream, an
 * unknown RTT, or a path whose bandwidth-delay product at 100 Gbit/s the held
 * buffers would not cover twice keep the kernel's autotuning */
static void sndbuf_hold(void **state)
{
    (void)state;
    assert_int_equal(tcp_sndbuf_hold(4, 6), TCP_SNDBUF_ASK);      /* loopback */
    assert_int_equal(tcp_sndbuf_hold(2, 0), TCP_SNDBUF_ASK);
    assert_int_equal(tcp_sndbuf_hold(1, 6), 0);                   /* alone: never */
    assert_int_equal(tcp_sndbuf_hold(0, 6), 0);
    assert_int_equal(tcp_sndbuf_hold(4, -1), 0);                  /* no TCP_INFO field */
    assert_int_equal(tcp_sndbuf_hold(4, 4294967295LL), 0);        /* no sample yet (~0U) */
    /* 4 x 416 KiB = 1703936 bytes cover 2 x 12.5 GB/s x 68 us, not 69 us */
    assert_int_equal(tcp_sndbuf_hold(4, 68), TCP_SNDBUF_ASK);
    assert_int_equal(tcp_sndbuf_hold(4, 69), 0);
    /* 2 streams: 34 us; 8 streams: 136 us; a WAN's milliseconds: never */
    assert_int_equal(tcp_sndbuf_hold(2, 34), TCP_SNDBUF_ASK);
    assert_int_equal(tcp_sndbuf_hold(2, 35), 0);
    assert_int_equal(tcp_sndbuf_hold(8, 136), TCP_SNDBUF_ASK);
    assert_int_equal(tcp_sndbuf_hold(128, 5000), 0);
    assert_int_equal(tcp_sndbuf_hold(1000000, 2000), TCP_SNDBUF_ASK);  /* counted as 128 */
}

/* tcp_lowat.h: about a millisecond of data per wake-up, powers of two, capped */
static void lowat_from_rate(void **state)
{
    (void)state;
    const uint64_t ms10 = 10 * NS_PER_MS;
    /* 40 Gbit/s: 5 MB per ms, capped at 512 KiB */
    assert_int_equal(tcp_lowat_for_rate(50000000, ms10, TCP_LOWAT_MAX), 524288);
    /* 2 Gbit/s: 250 kB per ms -> 128 KiB (the power of two below) */
    assert_int_equal(tcp_lowat_for_rate(2500000, ms10, TCP_LOWAT_MAX), 131072);
    /* 100 Mbit/s: 12.5 kB per ms, under 16 KiB: each segment */
    assert_int_equal(tcp_lowat_for_rate(125000, ms10, TCP_LOWAT_MAX), 1);
    /* a cap that is no power of two is taken as it is (96 KiB at -P 3 and more) */
    assert_int_equal(tcp_lowat_for_rate(50000000, ms10, 100000), 100000);
    assert_int_equal(tcp_lowat_cap(1), TCP_LOWAT_MAX);
    assert_int_equal(tcp_lowat_cap(2), TCP_LOWAT_MAX);
    assert_int_equal(tcp_lowat_cap(4), 98304);
    assert_int_equal(tcp_lowat_for_rate(50000000, 0, TCP_LOWAT_MAX), 1);
    assert_int_equal(tcp_lowat_for_rate(50000000, ms10, 0), 1);
    /* a huge count in a long window does not overflow */
    assert_int_equal(tcp_lowat_for_rate(UINT64_MAX / 2, 1000 * NS_PER_MS * 1000, TCP_LOWAT_MAX), 524288);

    struct tcp_lowat t;
    tcp_lowat_init(&t, TCP_LOWAT_MAX, 1000);
    assert_int_equal(t.cur, TCP_LOWAT_START);
    /* inside the 10 ms window nothing changes */
    assert_int_equal(tcp_lowat_step(&t, 1 << 20, 1000 + 5 * NS_PER_MS), 0);
    /* at its end: 41 MB in 10 ms -> the cap */
    assert_int_equal(tcp_lowat_step(&t, 40 << 20, 1000 + 10 * NS_PER_MS), 524288);
    /* the socket took less (its receive buffer is still small): asked again at
     * the next window, until it takes it all */
    t.cur = 262144;
    assert_int_equal(tcp_lowat_step(&t, 41 << 20, 1000 + 20 * NS_PER_MS), 524288);
    t.cur = 524288;
    /* the same rate again: no change to set */
    assert_int_equal(tcp_lowat_step(&t, 41 << 20, 1000 + 30 * NS_PER_MS), 0);
    /* a read that waited 100 ms for 64 KiB: slow, each segment */
    assert_int_equal(tcp_lowat_step(&t, 65536, 1000 + 130 * NS_PER_MS), 1);
    /* what fits in half a receive buffer: all of it, the power of two below, or 1 */
    assert_int_equal(tcp_lowat_fit(524288, 3000000), 524288);
    assert_int_equal(tcp_lowat_fit(524288, 300000), 262144);
    assert_int_equal(tcp_lowat_fit(98304, 98304), 98304);
    assert_int_equal(tcp_lowat_fit(98304, 65536), 65536);
    assert_int_equal(tcp_lowat_fit(524288, 10000), 1);
    assert_int_equal(tcp_lowat_fit(1, 0), 1);
    /* a small cap starts at the cap */
    tcp_lowat_init(&t, 32768, 0);
    assert_int_equal(t.cur, 32768);
}

static void engine_off_names(void **state)
{
    (void)state;
    assert_int_equal(stream_engine_off(NULL), 0);
    assert_int_equal(stream_engine_off(""), 0);
    assert_int_equal(stream_engine_off("gso"), ENG_GSO);
    assert_int_equal(stream_engine_off("gso,mmsg,gro"), ENG_GSO | ENG_MMSG | ENG_GRO);
    assert_int_equal(stream_engine_off("lowat,trunc,sendfile,rcvbuf"),
                     ENG_LOWAT | ENG_TRUNC | ENG_SENDFILE | ENG_RCVBUF);
    assert_int_equal(stream_engine_off("pktinfo,sndbuf"), ENG_PKTINFO | ENG_SNDBUF);
    assert_int_equal(stream_engine_off("msgzc"), ENG_MSGZC);
    assert_int_equal(stream_engine_off("all") & ENG_MSGZC, ENG_MSGZC);
    assert_int_equal(stream_engine_off("gsox,gs,,bogus"), 0);
    assert_int_equal(stream_engine_off("all") & ENG_MMSG, ENG_MMSG);
}

static void affinity_parse(void **state)
{
    (void)state;
    int cpus[AFFINITY_MAX], n, srv;
    const char *why = NULL;
    assert_int_equal(opt_parse_affinity("1", cpus, &n, &srv, &why), 0);
    assert_int_equal(n, 1);
    assert_int_equal(cpus[0], 1);
    assert_int_equal(srv, -1);
    assert_int_equal(opt_parse_affinity("0-3,5", cpus, &n, &srv, &why), 0);
    assert_int_equal(n, 4);
    assert_int_equal(cpus[3], 3);
    assert_int_equal(srv, 5);
    assert_int_equal(opt_parse_affinity("2,0", cpus, &n, &srv, &why), 0);
    assert_int_equal(n, 1);
    assert_int_equal(srv, 0);
    assert_int_equal(opt_parse_affinity("3-1", cpus, &n, &srv, &why), -1);
    assert_int_equal(opt_parse_affinity("0-64", cpus, &n, &srv, &why), -1);   /* 65 CPUs */
    assert_int_equal(opt_parse_affinity("x", cpus, &n, &srv, &why), -1);
    assert_int_equal(opt_parse_affinity("1,", cpus, &n, &srv, &why), -1);
    assert_int_equal(opt_parse_affinity("1025", cpus, &n, &srv, &why), -1);
    assert_int_equal(opt_parse_affinity("1024", cpus, &n, &srv, &why), 0);  /* iperf3's bound */
    assert_int_equal(opt_parse_affinity("0x10,010", cpus, &n, &srv, &why), 0);
    assert_int_equal(cpus[0], 16);                  /* strtol base 0, as iperf3 */
    assert_int_equal(srv, 10);                      /* atoi, as iperf3 */
    assert_int_equal(opt_parse_affinity("", cpus, &n, &srv, &why), -1);
}

/* a connected loopback UDP pair */
static void udp_pair(int *tx, int *rx)
{
    struct sockaddr_in a;
    socklen_t al = sizeof a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    *rx = socket(AF_INET, SOCK_DGRAM, 0);
    *tx = socket(AF_INET, SOCK_DGRAM, 0);
    assert_true(*rx >= 0 && *tx >= 0);
    int big = 4 << 20;
    setsockopt(*rx, SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
    assert_int_equal(bind(*rx, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(getsockname(*rx, (struct sockaddr *)&a, &al), 0);
    assert_int_equal(connect(*tx, (struct sockaddr *)&a, sizeof a), 0);
    struct timeval tv = { 1, 0 };
    setsockopt(*rx, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
}

/* a connected loopback pair and a sender of blk-byte datagrams (payload 0x5a) */
static void sender_pair(int *tx, int *rx, struct udp_tx *t, size_t blk, int c64, int mmsg,
                        int gso)
{
    udp_pair(tx, rx);
    unsigned char payload[9000];
    memset(payload, 0x5a, sizeof payload);
    udp_tx_init(t, *tx, blk, c64, payload, mmsg, gso);
}

/* send `total` datagrams in batches; every one must arrive once, in order,
 * with its own header and size, however the kernel coalesced them */
static void round_trip(int mmsg, int gso, int gro, size_t blk, int total)
{
    int tx, rx;
    struct udp_tx t;
    struct udp_rxb r;
    sender_pair(&tx, &rx, &t, blk, 0, mmsg, gso);
    udp_rxb_init(&r, rx, blk, mmsg, gro);
    if (!gso)
        assert_int_equal(t.gso, 1);
    if (!mmsg)
        assert_int_equal(r.max, 1);
    int sent = 0, got = 0;
    size_t most = 0;
    uint64_t next = 1, bytes = 0;
    while (sent < total) {
        int n = total - sent < 37 ? total - sent : 37;
        int k = udp_tx_send(&t, n, (uint64_t)sent + 1);
        assert_true(k >= 1 && k <= n);
        sent += k;
        /* read what is there, so the socket buffer never overflows */
        while (got < sent) {
            int m = udp_rxb_recv(&r, 0);
            assert_true(m >= 1);
            for (int i = 0; i < m; i++) {
                const unsigned char *d;
                size_t len, seg;
                udp_rxb_msg(&r, i, &d, &len, &seg);
                size_t cnt = gro_count(len, seg);
                if (cnt > most)
                    most = cnt;
                for (size_t j = 0; j < cnt; j++) {
                    uint32_t s, us;
                    uint64_t seq;
                    size_t dl = gro_seg_len(len, seg, j);
                    assert_int_equal(dl, blk);
                    assert_int_equal(udp_header_get(d + j * seg, dl, 0, &s, &us, &seq), 0);
                    assert_int_equal(seq, next);
                    assert_int_equal(d[j * seg + dl - 1], 0x5a);
                    next++;
                    got++;
                    bytes += dl;
                }
            }
        }
    }
    assert_int_equal(got, total);
    assert_int_equal(bytes, (uint64_t)total * blk);
    /* GSO sends reach a GRO socket coalesced (loopback keeps them whole) */
    if (t.gso > 1 && r.gro)
        assert_true(most > 1);
    if (!r.gro)
        assert_int_equal(most, 1);
    /* the batches are real: fewer calls than datagrams when batching is on */
    if (mmsg || gso)
        assert_true(t.calls < (uint64_t)total);
    else
        assert_int_equal(t.calls, (uint64_t)total);
    udp_tx_free(&t);
    udp_rxb_free(&r);
    close(tx);
    close(rx);
}

static void batch_round_trips(void **state)
{
    (void)state;
    for (int mmsg = 0; mmsg < 2; mmsg++)
        for (int gso = 0; gso < 2; gso++)
            for (int gro = 0; gro < 2; gro++) {
                round_trip(mmsg, gso, gro, 1448, 1000);
                round_trip(mmsg, gso, gro, 100, 700);
            }
    round_trip(1, 1, 1, 8972, 200);    /* jumbo: GSO 7 per send */
}

/* --skip-rx-copy: only the header of each datagram is copied out (MSG_TRUNC),
 * yet every datagram arrives as a message of its own with its true length and
 * its own sequence number, also from a GSO sender: no GRO on this socket, even
 * when it was turned on before (gro_before; -J's report asks for it early) */
static void heads_round_trip(int mmsg, size_t blk, int c64, int total, int gro_before)
{
    int tx, rx;
    struct udp_tx t;
    struct udp_rxb r;
    sender_pair(&tx, &rx, &t, blk, c64, 1, 1);
    if (gro_before)
        assert_int_equal(udp_gro_on(rx), 1);
    udp_rxb_init_heads(&r, rx, blk, udp_header_size(c64), mmsg);
    assert_int_equal(r.gro, 0);
    assert_int_equal(r.slot, udp_header_size(c64));
    assert_int_equal(r.room, blk);
    assert_int_equal(r.max, mmsg ? BATCH_MAX : 1);
    int sent = 0, got = 0, batched = 0;
    uint64_t next = 1;
    while (sent < total) {
        int k = udp_tx_send(&t, total - sent < 37 ? total - sent : 37, (uint64_t)sent + 1);
        assert_true(k >= 1);
        sent += k;
        while (got < sent) {
            int m = udp_rxb_recv(&r, 0);
            assert_true(m >= 1);
            if (m > 1)
                batched = 1;
            for (int i = 0; i < m; i++) {
                const unsigned char *d;
                size_t len, seg;
                uint32_t sec, us;
                uint64_t seq;
                udp_rxb_msg(&r, i, &d, &len, &seg);
                assert_int_equal(len, blk);
                assert_int_equal(seg, blk);
                if (mmsg)
                    assert_true(r.msgs[i].msg_hdr.msg_flags & MSG_TRUNC);
                assert_int_equal(udp_header_get(d, len, c64, &sec, &us, &seq), 0);
                assert_int_equal(seq, next);
                next++;
                got++;
            }
        }
    }
    assert_int_equal(got, total);
    if (mmsg)
        assert_true(batched);
    char how[96];
    udp_rxb_describe(&r, how, sizeof how);
    assert_non_null(strstr(how, "MSG_TRUNC"));
    udp_tx_free(&t);
    udp_rxb_free(&r);
    close(tx);
    close(rx);
}

static void batch_heads_only(void **state)
{
    (void)state;
    heads_round_trip(1, 1448, 0, 1000, 0);
    heads_round_trip(0, 1448, 0, 300, 0);
    heads_round_trip(1, 8972, 1, 200, 0);
    heads_round_trip(1, 100, 1, 700, 0);
    heads_round_trip(1, 1448, 0, 1000, 1);
    heads_round_trip(0, 8972, 1, 200, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pace_allowed_is_rate_times_time),
        cmocka_unit_test(lowat_from_rate),
        cmocka_unit_test(sndbuf_hold),
        cmocka_unit_test(pace_batch_counts_whole_blocks),
        cmocka_unit_test(pace_first_block_goes_at_once),
        cmocka_unit_test(pace_chunk_is_ten_ms_of_rate),
        cmocka_unit_test(pace_low_rates_land_on_the_rate),
        cmocka_unit_test(pace_overshoot_of_whole_datagrams),
        cmocka_unit_test(pace_due_inverts_allowed),
        cmocka_unit_test(pace_wake_blocks_per_period),
        cmocka_unit_test(pace_simulated_rate_is_exact),
        cmocka_unit_test(gro_split),
        cmocka_unit_test(rx_nap_decisions),
        cmocka_unit_test(engine_off_names),
        cmocka_unit_test(affinity_parse),
        cmocka_unit_test(batch_round_trips),
        cmocka_unit_test(batch_heads_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
