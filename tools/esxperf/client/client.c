/* Client role. The client decides the end of every test (time, -n, -k), also
 * with -R, and sends TEST_END. One test is iperf3's state list
 * (docs/iperf3-protocol.md) from the client's side, one function per
 * phase: handshake (connect, cookie, PARAM_EXCHANGE), send_params (parameters,
 * CREATE_STREAMS), open_streams (the streams, TEST_START, TEST_RUNNING), run (until
 * the end, TEST_END), exchange (EXCHANGE_RESULTS, both results), display
 * (DISPLAY_RESULTS, the report, IPERF_DONE). What it asks for is client_params.c's,
 * its connections client_streams.c's, the failure line and a stop signal in any
 * phase client_abort.c's. */
#include "client_conn.h"
#include "fallback.h"
#include "fallback_texts.h"
#include "crypto.h"
#include "escape.h"
#include "clock.h"
#include "fail.h"
#include "file_opt.h"
#include "net.h"
#include "sockopt_apply.h"
#include "rcv_timeout.h"
#include "proto.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

/* the control connection's MSS, which sizes UDP datagrams when -l is not given
 * (as iperf3 does); 0 where it is not needed or cannot be read */
static int ctl_mss(int fd, const struct perf_opts *o)
{
    int mss = 0;
    socklen_t l = sizeof mss;
    if (!o->udp || o->len)
        return 0;
    if (getsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &mss, &l) < 0) {
        fallback_note("getsockopt TCP_MAXSEG", errno, "UDP datagrams of 1460 bytes (-l sets the size)");
        return 0;
    }
    return mss;
}

/* a state the server sent when `want` was due (0: during the test). SERVER_TERMINATE
 * during the test (the server was stopped) first gets the summary of what this side
 * measured until then, as iperf3's client prints one: the server's figures never
 * come, so it has this side's rows only (and -J its end object beside the error) */
static int server_state_fail(struct client *c, const struct server_state *ss, int want)
{
    char msg[400];
    server_state_text(ss, want, msg, sizeof msg);
    if (want == 0 && ss->st == ST_SERVER_TERMINATE && c->have_session && !c->summarized) {
        session_summary_so_far(&c->s);
        c->summarized = 1;
    }
    return cfail(c, EXIT_CHECK, "%s", msg);
}

int wait_state(struct client *c, enum ctl_state want, uint64_t deadline)
{
    struct server_state got;
    char msg[400];
    if (ctl_expect(c->ctl, want, deadline, &got) == 0)
        return 0;
    ctl_expect_text(&got, want, CTL_WAIT_S, msg, sizeof msg);
    return cfail(c, EXIT_CHECK, "%s", msg);
}

/* -n/-k tests end when the bytes are sent: a server that takes the data stream but
 * never reads it would hold them forever. A TCP sender whose bytes stay queued with
 * nothing sent for CTL_WAIT_NS ends the test; returns that stream's index + 1, or 0.
 * (TIOCOUTQ, which is SIOCOUTQ on a TCP socket: bytes not yet acknowledged; a paced
 * sender's queue empties between its writes.) */
static int send_stalled(struct client *c, uint64_t now)
{
    const struct session *s = &c->s;
    if (s->p.udp || !(s->p.num || s->p.blockcount))
        return 0;
    uint64_t sent = session_bytes(s, BYTES_SENT, 0);
    int queued = -1;
    for (int i = 0; i < s->nstreams && queued < 0; i++) {
        int q = 0;
        if (s->st[i].sender && ioctl(s->st[i].fd, TIOCOUTQ, &q) == 0 && q > 0)
            queued = i;
    }
    if (queued < 0) {
        progress_start(&c->tx, sent, now);
        return 0;
    }
    return progress_stalled(&c->tx, sent, now, CTL_WAIT_NS) ? queued + 1 : 0;
}

/* the control connection has something during the test (within ms): the server's
 * state, or its close, as the test's failure; 0 when it stayed silent */
static int ctl_during_test(struct client *c, int ms)
{
    struct pollfd pf = { c->ctl, POLLIN, 0 };
    if (poll(&pf, 1, ms) <= 0)
        return 0;
    struct server_state ss;
    if (ctl_recv_server_state(c->ctl, mono_ns() + NS_PER_SEC, &ss) < 0)
        return cfail(c, EXIT_CHECK, "the server closed the control connection during the test");
    return server_state_fail(c, &ss, 0);
}

/* a server that ends the test (closing, SERVER_ERROR, SERVER_TERMINATE) closes its
 * streams too: when a stream fails, the control connection gets this long to say why */
#define STREAM_FAIL_GRACE_MS 2000

/* what a look at the running test found: it goes on, or it reached its end;
 * anything else is the exit code of its failure (the line is out) */
enum { LOOK_ON = 0, LOOK_END = -1 };

/* One look at the running test: a stop signal, the interval rows, a failed
 * stream, the end, the guards, and the control connection, waited on until the
 * next event when wait is set (else only looked at); *next_ms: until that event.
 * ^C or kill (client_abort.c): the server is told (CLIENT_TERMINATE, as iperf3
 * does) so it ends the test at once instead of waiting for the control connection
 * to drop, and this side's summary so far is printed */
static int test_look(struct client *c, int wait, int *next_ms)
{
    struct session *s = &c->s;
    if (client_stop_signal(c->stop))
        return client_interrupted(c);
    uint64_t now = mono_ns();
    int ms = session_poll(s, now);
    *next_ms = ms;
    int err = session_stream_error(s);
    if (err && s->p.rr && err == ETIMEDOUT)      /* rr_io.h: an answer that never came */
        return cfail(c, EXIT_CHECK, "--rr: the server stopped answering: a request got no "
                     "answer within %lld ms (--rr-timeout); the test is ended",
                     (long long)c->o->rr_timeout_ms);
    if (err) {
        int rc = ctl_during_test(c, STREAM_FAIL_GRACE_MS);
        return rc ? rc : cfail(c, EXIT_CHECK, "a data stream failed: %s", errtext(err));
    }
    if (session_should_end(s, now))
        return LOOK_END;
    if (rcv_idle_check(&c->idle, now, session_bytes(s, BYTES_RECEIVED, 0))) {
        ctl_send_state(c->ctl, ST_CLIENT_TERMINATE, mono_ns() + NS_PER_SEC);
        return cfail(c, EXIT_CHECK, "no data came from the server for %lld ms "
                     "(--rcv-timeout): the test is ended, the server was told",
                     (long long)c->o->rcv_timeout_ms);
    }
    int stalled = send_stalled(c, now);
    if (stalled)
        return cfail(c, EXIT_CHECK, "the server took no data for %d s (data stream %d: "
                     "it accepted the stream but does not read it)", CTL_WAIT_S, stalled);
    return ctl_during_test(c, !wait ? 0 : ms < 1 ? 1 : ms);
}

/* the end of the running test: the senders stop (their bytes acknowledged), TEST_END */
static int end_test(struct client *c)
{
    session_stop_senders(&c->s);
    if (ctl_send_state(c->ctl, ST_TEST_END, mono_ns() + CTL_WAIT_NS) < 0)
        return cfail(c, EXIT_CHECK, "cannot send TEST_END: %s", errtext(errno));
    return 0;
}

/* A one-thread run's turn (session_run_here): a look that does not wait. A client
 * that receives says TEST_END at the end and its stream reads on, as a stream
 * thread would, until the server answers (EXCHANGE_RESULTS, which exchange reads):
 * so it counts every byte the server sent before it stopped. -1 ends the turns. */
static int test_turn(void *arg)
{
    struct client *c = arg;
    int ms = TURN_MAX_MS;
    if (c->end_told) {
        struct pollfd pf = { c->ctl, POLLIN, 0 };
        int over = poll(&pf, 1, 0) != 0 || client_stop_signal(c->stop) ||
                   mono_ns() - c->end_told > CTL_WAIT_NS;
        return over ? -1 : ms;
    }
    int rc = test_look(c, 0, &ms);
    if (rc == LOOK_ON)
        return ms;
    if (rc == LOOK_END && !c->s.st[0].sender) {
        rc = end_test(c);
        if (rc == 0) {
            c->end_told = mono_ns();
            return TURN_MAX_MS;
        }
    }
    c->here_rc = rc == LOOK_END ? 0 : rc;
    return -1;
}

/* the test until its end: looks in a loop while the stream threads run, or the
 * turns of a one-thread run */
static int run_test(struct client *c)
{
    struct session *s = &c->s;
    rcv_idle_init(&c->idle, s->p.reverse || s->p.bidir, c->o->rcv_timeout_ms, mono_ns());
    if (s->here) {
        session_run_here(s, test_turn, c, c->ctl);
        return c->here_rc;
    }
    int rc, ms;
    while ((rc = test_look(c, 1, &ms)) == LOOK_ON)
        ;
    return rc == LOOK_END ? 0 : rc;
}

/* a test that moved nothing is no success (a stalled path, everything lost):
 * the report stands, and the exit code says it failed */
static int moved_nothing(struct client *c)
{
    const struct run_result *f = &c->s.fig;
    if (f->bytes_received)
        return 0;
    warnmsg("the test moved no data: %llu bytes sent, 0 received (check the path, "
            "firewalls and -b)", (unsigned long long)f->bytes_sent);
    return EXIT_CHECK;
}

/* the server's address and -B's; a link-local one needs its interface (the
 * kernel refuses it with EINVAL), named by %zone, -B's or --bind-dev */
static int addresses(struct client *c)
{
    const struct perf_opts *o = c->o;
    int gai = net_resolve(o->host, o->family, o->port, 0, &c->dst, NULL);
    if (gai)
        return cfail(c, EXIT_USAGE, "cannot resolve %s: %s (check the name or address)",
                     o->host, net_gai_strerror(gai));
    if (o->bind) {
        gai = net_resolve(o->bind, c->dst.sa.sa_family, 0, 1, &c->src, NULL);
        if (gai)
            return cfail(c, EXIT_USAGE, "cannot use -B %s: %s", o->bind, net_gai_strerror(gai));
        c->have_src = 1;
        if (sockopt_zone_missing(&c->src) && !o->bind_dev)
            return cfail(c, EXIT_USAGE, "-B %s is an IPv6 link-local address without a zone: "
                         "name its interface, e.g. -B %s%%vmk1 (ESXi: esxcli network ip "
                         "interface list; Linux: ip link)", o->bind, o->bind);
    }
    int zoned = o->bind_dev || (c->have_src && c->src.sa.sa_family == AF_INET6 &&
                                c->src.in6.sin6_scope_id);
    if (sockopt_zone_missing(&c->dst) && !zoned)
        return cfail(c, EXIT_USAGE, "-c %s is an IPv6 link-local address without a zone: "
                     "name the interface it is reached on, e.g. -c %s%%vmk1 (ESXi: esxcli "
                     "network ip interface list; Linux: ip link)", o->host, o->host);
    rep_addr(&c->dst, c->host, sizeof c->host);
    return 0;
}

/* the addresses, the token, the control connection, the cookie, PARAM_EXCHANGE */
static int handshake(struct client *c)
{
    const struct perf_opts *o = c->o;
    int rc = addresses(c);
    if (rc)
        return rc;
    if (client_authtoken(o, c->authtoken, sizeof c->authtoken) < 0)
        return EXIT_USAGE;
    char shown[4 * sizeof o->host_part];    /* the name as typed, terminal-safe (escape.h) */
    esc_text(o->host, shown, sizeof shown);
    rep_printf(&c->rep, "Connecting to host %s, port %u\n", shown, o->port);
    const char *why = NULL;
    c->ctl = client_dial(c, SOCK_STREAM, NULL, 0, &why);
    if (c->ctl < 0) {
        int e = errno;
        return cfail(c, EXIT_USAGE, "cannot connect to %s port %u: %s%s%s (%s)", o->host,
                     o->port, why ? why : "", why ? ": " : "", perf_errtext(e),
                     e == ECONNREFUSED ? "is a server running? start one with esxperf -s"
                     : e == ETIMEDOUT ? "check the address, routes and firewalls, or raise --connect-timeout"
                     : e == ENODEV ? "name an interface of this host: ip link, or on ESXi "
                                     "esxcli network ip interface list"
                     : e == EMFILE || e == ENFILE ? "raise the descriptor limit: ulimit -n"
                                      : "check the address and the network");
    }
    client_stop_watch(c->stop, STOP_CTL, c->ctl);
    int one = 1;
    if (setsockopt(c->ctl, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) < 0)
        fallback_refused("TCP_NODELAY", errno);
    if (sockopt_control(c->ctl, o, &why) < 0)
        return cfail(c, EXIT_USAGE, "control connection to %s: %s: %s", o->host, why,
                     errtext(errno));
    proto_make_cookie(c->cookie);
    uint64_t dl = mono_ns() + CTL_WAIT_NS;
    if (net_write_full(c->ctl, c->cookie, COOKIE_SIZE, dl) < 0)
        return cfail(c, EXIT_CHECK, "cannot send the cookie: %s", errtext(errno));
    return wait_state(c, ST_PARAM_EXCHANGE, dl);
}

/* -F NAME without -t, -n or -k: the test is the file's length (-n), as iperf3 does
 * (a file it cannot stat, or an empty one, leaves the 10 s default) */
static void file_length(const struct perf_opts *o, struct test_params *p)
{
    struct stat st;
    if (!o->file || o->num || o->blockcount || o->given['t'])
        return;
    if (stat(o->file, &st) == 0 && st.st_size > 0) {
        p->num = st.st_size;
        p->time = 0;
    }
}

/* --rr: an esxperf server that takes it says so (ST_ESXPERF_RR) before
 * CREATE_STREAMS; iperf3, which ignores the key, goes straight to CREATE_STREAMS
 * and would run a throughput test, so the client stops there and says why */
static int rr_ready(struct client *c)
{
    struct server_state got;
    char msg[400];
    if (ctl_expect(c->ctl, ST_ESXPERF_RR, mono_ns() + CTL_WAIT_NS, &got) == 0)
        return 0;
    if (!got.io_err && got.st == ST_CREATE_STREAMS)
        return cfail(c, EXIT_USAGE, "--rr: the server at %s does not answer requests: it went "
                     "on to a throughput test (an iperf3 server, or an esxperf without --rr); "
                     "run this esxperf's server there (esxperf -s)", c->o->host);
    ctl_expect_text(&got, ST_ESXPERF_RR, CTL_WAIT_S, msg, sizeof msg);
    return cfail(c, EXIT_CHECK, "%s", msg);
}

/* the parameters (with the token), the session, CREATE_STREAMS */
static int send_params(struct client *c)
{
    struct test_params p;
    client_params(c->o, ctl_mss(c->ctl, c->o), &p);
    file_length(c->o, &p);
    client_warn_pace(&p);
    memcpy(p.authtoken, c->authtoken, sizeof p.authtoken);
    size_t plen;
    char *pjs = params_encode(&p, &plen);
    if (!pjs)
        return cfail(c, EXIT_USAGE, "the test parameters exceed 8 KiB (shorten --title)");
    int wr = ctl_send_json(c->ctl, pjs, plen, mono_ns() + CTL_WAIT_NS);
    free(pjs);
    if (wr < 0)
        return cfail(c, EXIT_CHECK, "cannot send the parameters: %s", errtext(errno));
    session_init(&c->s, c->o, &p, 1, &c->rep);
    c->have_session = 1;
    int rc = p.rr ? rr_ready(c) : 0;
    return rc ? rc : wait_state(c, ST_CREATE_STREAMS, mono_ns() + CTL_WAIT_NS);
}

/* the data streams, TEST_START, the start of the report, TEST_RUNNING */
static int open_streams(struct client *c)
{
    int rc = client_create_streams(c, &c->s.p);
    if (rc == 0)
        rc = wait_state(c, ST_TEST_START, mono_ns() + CTL_WAIT_NS);
    if (rc)
        return rc;
    session_report_start(&c->s, c->o->host, c->o->port, c->host, c->cookie);
    return wait_state(c, ST_TEST_RUNNING, mono_ns() + CTL_WAIT_NS);
}

/* the test until its end (run_test); then the senders stop, TEST_END */
static int run(struct client *c)
{
    const struct test_params *p = &c->s.p;
    if (session_start(&c->s) < 0) {
        char line[160];
        session_no_threads(&c->s, errno, line, sizeof line);
        return cfail(c, EXIT_USAGE, "%s", line);
    }
    if (c->o->interval > 0 && (!p->rr || p->rr_load))   /* --rr's rows have their own */
        c->rep.sink->interval_header(&c->rep, p->udp, !p->reverse || p->bidir, p->bidir);
    int rc = run_test(c);
    if (rc)
        return rc;
    return c->end_told ? 0 : end_test(c);
}

/* EXCHANGE_RESULTS, the streams stopped, our results out, the server's in */
static int exchange(struct client *c)
{
    int rc = wait_state(c, ST_EXCHANGE_RESULTS, mono_ns() + CTL_WAIT_NS);
    if (rc)
        return rc;
    session_stop_all(&c->s);
    struct test_results mine;
    session_local_results(&c->s, &mine, NULL, NULL);
    size_t rlen;
    char *rjs = results_encode(&mine, &rlen);
    results_free(&mine);
    if (!rjs || ctl_send_json(c->ctl, rjs, rlen, mono_ns() + CTL_WAIT_NS) < 0) {
        int e = errno;
        free(rjs);
        return e == EPIPE || e == ECONNRESET
                   ? cfail(c, EXIT_CHECK, "the server closed the control connection before "
                           "it took our results")
                   : cfail(c, EXIT_CHECK, "cannot send our results: %s", errtext(e));
    }
    free(rjs);
    char rwhy[300];
    if (ctl_recv_results(c->ctl, CTL_WAIT_NS, &c->s.remote, rwhy, sizeof rwhy) < 0)
        return cfail(c, EXIT_CHECK, "%s", rwhy);
    c->s.have_remote = 1;
    return 0;
}

/* DISPLAY_RESULTS, the report (with the server's when asked), IPERF_DONE */
static int display(struct client *c, struct run_result *rr)
{
    const struct test_results *rem = &c->s.remote;
    int rc = wait_state(c, ST_DISPLAY_RESULTS, mono_ns() + CTL_WAIT_NS);
    if (rc)
        return rc;
    session_summary(&c->s);
    c->summarized = 1;
    rc = moved_nothing(c);
    c->rep.sink->peer_output(&c->rep, c->s.p.get_server_output ? rem : NULL);
    ctl_send_state(c->ctl, ST_IPERF_DONE, mono_ns() + 2 * NS_PER_SEC);
    c->rep.sink->done(&c->rep, "\niperf Done.\n");
    if (rr)
        *rr = c->s.fig;
    return rc;
}

/* -F's file before anything connects: one that cannot be sent, or is no regular
 * file, is a usage error now rather than a failed stream later */
static int file_check(struct client *c)
{
    char why[400];
    const struct perf_opts *o = c->o;
    if (!o->file || file_opt_check(o->file, !o->reverse, why, sizeof why) == 0)
        return 0;
    return cfail(c, EXIT_USAGE, "%s", why);
}

/* the phases in order, each only after the one before succeeded; a stop signal
 * between two ends the test there */
static int phases(struct client *c, struct run_result *rr)
{
    static int (*const step[])(struct client *) = {
        file_check, handshake, send_params, open_streams, run, exchange,
    };
    for (size_t i = 0; i < sizeof step / sizeof step[0]; i++) {
        int rc = client_stop_signal(c->stop) ? client_interrupted(c) : step[i](c);
        if (rc)
            return rc;
    }
    return client_stop_signal(c->stop) ? client_interrupted(c) : display(c, rr);
}

int client_run(const struct perf_opts *o, struct client_stop *stop, struct run_result *rr,
               char *err, size_t errlen)
{
    struct client c;
    memset(&c, 0, sizeof c);
    c.o = o;
    c.stop = stop;
    c.ctl = -1;
    c.err = err;
    c.errlen = errlen;
    if (err && errlen)
        err[0] = '\0';
    session_report_init(&c.rep, o->quiet ? NULL : stdout, o, 0);
    c.rep.title = o->title;
    c.rep.extra_data = o->extra_data;
    int rc = phases(&c, rr);
    crypto_wipe(c.authtoken, sizeof c.authtoken);
    fflush(stdout);
    if (c.have_session)
        session_free(&c.s);
    client_stop_watch(stop, STOP_CTL, -1);
    if (c.ctl >= 0)
        close(c.ctl);
    rep_free(&c.rep);
    return rc;
}
