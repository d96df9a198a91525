/* session.c session_totals: the end figures of a test (per-stream
 * rows, each direction's sums, CPU and efficiency, the sweep's headline) from the
 * session's books and the peer's results, computed without producing a report.
 * Streams without sockets (fd -1), counters and CPU samples set by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "options.h"
#include "proto.h"
#include "session.h"
#include "clock.h"

const char tool_name[] = "esxperf_test";

#define NEAR(a, b) assert_true((a) > (b) - 1e-9 && (a) < (b) + 1e-9)

struct fixture {
    struct perf_opts o;
    struct test_params p;
    struct session s;
};

/* a session of n streams; measured from 1 s to 3 s; this side used 1 CPU-second
 * (0.25 user + 0.75 system) in those 2 s */
static void start(struct fixture *f, int is_client, int n)
{
    opts_defaults(&f->o);
    f->o.host = is_client ? "198.18.0.2" : NULL;
    f->o.server = !is_client;
    f->p.len = 1000;
    session_init(&f->s, &f->o, &f->p, is_client, NULL);
    for (int i = 0; i < n; i++) {
        struct stream *st = session_add(&f->s, -1, session_is_sender(&f->s, i));
        assert_non_null(st);
        snprintf(st->path, sizeof st->path, "engine %d", i);
    }
    f->s.t_start = f->s.t_measure = 1 * NS_PER_SEC;
    f->s.t_measure_end = 3 * NS_PER_SEC;
    f->s.cpu_a = (struct cpu_sample){ 1 * NS_PER_SEC, 0, 0 };
    f->s.cpu_b = (struct cpu_sample){ 3 * NS_PER_SEC, 250000, 750000 };
}

static void book(struct fixture *f, int i, uint64_t bytes, uint64_t calls, int64_t retr)
{
    struct stream_book *b = &f->s.bk[i];
    b->bytes_base = 100;
    b->bytes_end = 100 + bytes;
    b->blocks_base = 1;
    b->blocks_end = 1 + bytes / 1000;
    b->calls_base = 5;
    b->calls_end = 5 + calls;
    b->retr_base = retr < 0 ? -1 : 2;
    b->retr_end = retr < 0 ? -1 : 2 + retr;
}

static void remote(struct fixture *f, int id, int64_t bytes, double end_time)
{
    struct test_results *r = &f->s.remote;
    struct stream_result *x = &r->streams[r->nstreams++];
    x->id = id;
    x->bytes = bytes;
    x->retransmits = -1;
    x->end_time = end_time;
    f->s.have_remote = 1;
}

static void finish(struct fixture *f)
{
    session_free(&f->s);
}

/* TCP client, -P 2: both rows per stream, the sums, CPU and efficiency */
static void tcp_client_sums_cpu_and_efficiency(void **state)
{
    (void)state;
    struct fixture f;
    memset(&f, 0, sizeof f);
    f.p.parallel = 2;
    start(&f, 1, 2);
    book(&f, 0, 1000000000, 1000, 5);
    book(&f, 1, 400000000, 3000, -1);     /* no TCP_INFO on this one */
    remote(&f, 1, 900000000, 2.5);
    remote(&f, 3, 400000000, 0);          /* no end time: the measured period */
    f.s.remote.cpu_total = 25;
    f.s.remote.cpu_user = 5;
    f.s.remote.cpu_system = 20;
    snprintf(f.s.congestion, sizeof f.s.congestion, "cubic");
    snprintf(f.s.remote.congestion_used, sizeof f.s.remote.congestion_used, "reno");

    struct totals t;
    session_totals(&f.s, &t);
    assert_int_equal(t.n, 2);
    NEAR(t.seconds, 2.0);
    assert_true(t.local_sender);
    /* stream rows: ours as sender, the server's as receiver */
    assert_true(t.st[0].have_snd && t.st[0].have_rcv);
    assert_int_equal(t.st[0].snd.bytes, 1000000000);
    assert_int_equal(t.st[0].snd.retrans, 5);
    assert_int_equal(t.st[0].snd.packets, 1000000);
    assert_int_equal(t.st[0].rcv.bytes, 900000000);
    NEAR(t.st[0].rcv.end, 2.5);
    NEAR(t.st[1].rcv.end, 2.0);
    assert_int_equal(t.st[1].snd.retrans, -1);
    assert_string_equal(t.st[1].engine, "engine 1");
    /* the sums: bytes add, known retransmits add, the latest end wins */
    const struct group_totals *g = &t.grp[0];
    assert_int_equal(g->n, 2);
    assert_int_equal(g->nsnd, 2);
    assert_int_equal(g->nrcv, 2);
    assert_int_equal(g->snd.bytes, 1400000000);
    assert_int_equal(g->rcv.bytes, 1300000000);
    assert_int_equal(g->snd.retrans, 5);
    assert_int_equal(g->snd.sock, -1);
    NEAR(g->rcv.end, 2.5);
    assert_int_equal(t.grp[1].n, 0);
    /* CPU: 1 CPU-second in 2 s here, 25 % of 2 s there */
    NEAR(t.cpu_total, 50.0);
    NEAR(t.cpu_user, 12.5);
    NEAR(t.cpu_system, 37.5);
    NEAR(t.cpu_seconds_local, 1.0);
    NEAR(t.cpu_seconds_remote, 0.5);
    NEAR(t.remote_total, 25.0);
    /* efficiency: this side's 1.4 GB = 11.2 Gbit per local and remote CPU-second */
    NEAR(t.gbit_per_cpu_local, 11.2);
    NEAR(t.gbit_per_cpu_remote, 22.4);
    NEAR(t.io_calls_per_second, 2000.0);
    /* the sweep's row: received 1.3 GB in the receiver's own 2.5 s (its latest end:
     * over this side's 2 s a shaper's queue would read as more than the path
     * carried), over 1.5 CPU-seconds in all */
    NEAR(t.fig.gbps, 10.4 / 2.5);
    NEAR(t.fig.gbit_per_cpu_s, 10.4 / 1.5);
    NEAR(t.fig.cpu_local, 50.0);
    NEAR(t.fig.cpu_remote, 25.0);
    assert_int_equal(t.fig.retrans, 5);
    assert_int_equal(t.fig.bytes_sent, 1400000000);
    assert_int_equal(t.fig.bytes_received, 1300000000);
    assert_string_equal(t.congestion_local, "cubic");
    assert_string_equal(t.congestion_remote, "reno");
    finish(&f);
}

/* UDP server receiving: loss, packets, averaged jitter; the sender rows from the
 * client's results; no remote CPU known yet means none is used */
static void udp_server_receiver_rows(void **state)
{
    (void)state;
    struct fixture f;
    memset(&f, 0, sizeof f);
    f.p.udp = 1;
    f.p.parallel = 2;
    start(&f, 0, 2);
    for (int i = 0; i < 2; i++) {
        book(&f, i, 1000000, 10, -1);
        struct stream_book *b = &f.s.bk[i];
        b->rx_base.last_seq = 100;
        b->rx_base.lost = 1;
        b->rx_end.last_seq = 1100;
        b->rx_end.lost = 1 + 10 * (i + 1);
        b->rx_end.jitter = 0.001 * (i + 1);
    }
    struct totals t;
    session_totals(&f.s, &t);
    assert_false(t.local_sender);
    assert_false(t.is_client);
    assert_int_equal(t.st[0].rcv.packets, 1000);
    assert_int_equal(t.st[0].rcv.lost, 10);
    assert_int_equal(t.st[1].rcv.lost, 20);
    NEAR(t.st[1].rcv.jitter_ms, 2.0);
    assert_false(t.st[0].have_snd);       /* no results from the client */
    const struct group_totals *g = &t.grp[0];
    assert_int_equal(g->rcv.lost, 30);
    assert_int_equal(g->rcv.packets, 2000);
    NEAR(g->rcv.jitter_ms, 1.5);          /* the mean of the streams' */
    assert_int_equal(g->snd.lost, 0);
    assert_false(t.have_remote);
    NEAR(t.cpu_seconds_remote, -1.0);
    NEAR(t.gbit_per_cpu_remote, 0.0);
    NEAR(t.fig.cpu_remote, -1.0);
    assert_string_equal(t.congestion_remote, "");
    /* the bits this side moved: 2 MB = 0.016 Gbit in 1 CPU-second */
    NEAR(t.gbit_per_cpu_local, 0.016);
    finish(&f);
}

/* --bidir -P 1 on the client: stream 1 sends (group 0), stream 2 receives (group 1) */
static void bidir_groups(void **state)
{
    (void)state;
    struct fixture f;
    memset(&f, 0, sizeof f);
    f.p.bidir = 1;
    f.p.parallel = 1;
    start(&f, 1, 2);
    book(&f, 0, 3000, 1, 0);
    book(&f, 1, 7000, 1, -1);
    struct totals t;
    session_totals(&f.s, &t);
    assert_int_equal(t.st[0].group, 0);
    assert_int_equal(t.st[1].group, 1);
    assert_true(t.st[0].sender);
    assert_false(t.st[1].sender);
    assert_string_equal(t.st[0].snd.role, "TX-C");
    assert_string_equal(t.st[1].rcv.role, "RX-C");
    assert_true(t.grp[0].first_sends);
    assert_false(t.grp[1].first_sends);
    assert_int_equal(t.grp[0].snd.bytes, 3000);
    assert_int_equal(t.grp[1].rcv.bytes, 7000);
    assert_int_equal(t.grp[1].n, 1);
    /* both directions' bytes are this side's work */
    NEAR(t.gbit_per_cpu_local, 10000 * 8.0 / 1e9);
    finish(&f);
}

/* no time measured: rates and efficiency are 0, never a division by zero */
static void nothing_measured(void **state)
{
    (void)state;
    struct fixture f;
    memset(&f, 0, sizeof f);
    f.p.parallel = 1;
    start(&f, 1, 1);
    f.s.t_measure_end = f.s.t_measure;
    f.s.cpu_b = f.s.cpu_a;
    struct totals t;
    session_totals(&f.s, &t);
    NEAR(t.seconds, 0.0);
    NEAR(t.fig.gbps, 0.0);
    NEAR(t.io_calls_per_second, 0.0);
    NEAR(t.cpu_total, 0.0);
    NEAR(t.gbit_per_cpu_local, 0.0);
    NEAR(t.fig.gbit_per_cpu_s, 0.0);
    finish(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tcp_client_sums_cpu_and_efficiency),
        cmocka_unit_test(udp_server_receiver_rows),
        cmocka_unit_test(bidir_groups),
        cmocka_unit_test(nothing_measured),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
