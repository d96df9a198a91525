/* Client role. The client decides the end of every test (time, -n, -k), also
 * with -R, and sends TEST_END. One test is iperf3's state list
 * (../shared/reference/iperf3-protocol.md) from the client's side, one function per
 * phase: handshake (connect, cookie, PARAM_EXCHANGE), send_params (parameters,
 * CREATE_STREAMS), open_streams (the streams, TEST_START, TEST_RUNNING), run (until
 * the end, TEST_END), exchange (EXCHANGE_RESULTS, both results), display
 * (DISPLAY_RESULTS, the report, IPERF_DONE). What it asks for is client_params.c's. */
#include "client.h"
#include "crypto.h"
#include "clock.h"
#include "fail.h"
#include "net.h"
#include "net_opts.h"
#include "rcv_timeout.h"
#include "proto.h"
#include "udp.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
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

/* Every wait for the server is bounded: a server that stops answering at any step
 * (a state byte, the UDP reply, the results, an -n/-k test whose data it stops
 * taking) ends the test after CTL_WAIT_S, with a line that says which step; the
 * results body gets 1 s more per RESULTS_BODY_BPS announced (README: hostile servers) */
#define CTL_WAIT_S 10
#define CTL_WAIT_NS ((uint64_t)CTL_WAIT_S * NS_PER_SEC)

struct client {
    const struct perf_opts *o;
    struct report rep;
    struct session s;
    int have_session;
    int ctl;
    char cookie[COOKIE_SIZE];
    char authtoken[AUTHTOKEN_MAX];
    union sockaddr_any dst, src;
    int have_src;
    char host[64];
    uint64_t tx_seen, tx_seen_ns;   /* -n/-k: bytes sent, and when that last changed */
};

static int cfail(struct client *c, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int cfail(struct client *c, int code, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (c->o->json && !c->o->quiet) {
        report_json_error(&c->rep, msg);
        report_json_print(&c->rep, stdout);
        fflush(stdout);
    }
    warnmsg("%s", msg);
    return code;
}

static int ctl_mss(int fd)
{
    int mss = 0;
    socklen_t l = sizeof mss;
    if (getsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &mss, &l) < 0)
        return 0;
    return mss;
}

/* socket + options + bind + connect with a timeout; p NULL for the control
 * connection (a TCP data stream is MPTCP with -m, and carries -L's label) */
static int dial(struct client *c, int type, const struct test_params *p, uint16_t cport,
                const char **why)
{
    union sockaddr_any dst = c->dst;
    int data_tcp = p && type == SOCK_STREAM;
    int proto = data_tcp ? net_opts_tcp_proto(c->o) : 0;
    int fd = socket(dst.sa.sa_family, type | SOCK_CLOEXEC, proto);
    if (fd < 0) {
        *why = data_tcp && c->o->mptcp ? "cannot create an MPTCP socket (-m)"
                                       : "cannot create a socket";
        return -1;
    }
    if (p && stream_sockopts(fd, p, net_wire_family(&c->dst), why) < 0)
        goto fail;
    if (net_opts_bind_dev(fd, c->o, why) < 0)
        goto fail;
    if (data_tcp && (net_opts_snd_timeout(fd, c->o, why) < 0 ||
                     net_opts_flowlabel(fd, p->flowlabel, &dst, why) < 0))
        goto fail;
    if (c->have_src || cport) {
        union sockaddr_any a;
        if (c->have_src) {
            a = c->src;
        } else {
            memset(&a, 0, sizeof a);
            a.sa.sa_family = c->dst.sa.sa_family;
        }
        net_set_port(&a, cport);
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, &a.sa, net_len(&a)) < 0) {
            *why = "cannot bind the local address or port (-B/--cport)";
            goto fail;
        }
    }
    int tmo = c->o->connect_timeout_ms >= 0 ? (int)c->o->connect_timeout_ms : 30000;
    if (net_connect_fd(fd, &dst, tmo) < 0) {
        *why = NULL;
        goto fail;
    }
    return fd;
fail:
    return net_close_fail(fd);
}

/* UDP stream setup: send the 4-byte hello, wait for the server's reply. Returns 0,
 * -1 with *why, or 1 when the control connection has something instead (a state,
 * or its end: the caller reads it) */
static int udp_hello(int fd, int ctl, const char **why)
{
    unsigned char msg[4], buf[65536];
    udp_connect_value(msg, UDP_CONNECT_NEW, 1);
    if (send(fd, msg, 4, MSG_NOSIGNAL) != 4) {
        *why = "cannot send the UDP stream hello";
        return -1;
    }
    uint64_t deadline = mono_ns() + CTL_WAIT_NS;
    for (int tries = 0; tries < 64; tries++) {
        struct pollfd pf[2] = { { fd, POLLIN, 0 }, { ctl, POLLIN, 0 } };
        int rc = poll(pf, 2, ms_until(deadline));
        if (rc < 0 && errno == EINTR)
            continue;
        if (rc <= 0) {
            *why = "no UDP reply from the server within 10 s (is UDP blocked?)";
            return -1;
        }
        if (!(pf[0].revents & (POLLIN | POLLERR)))
            return 1;
        ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EAGAIN || errno == EINTR)
                continue;
            *why = errno == ECONNREFUSED ? "UDP port unreachable on the server"
                                         : "cannot receive the UDP reply";
            return -1;
        }
        if (n == 4)
            return 0;      /* 3.12+ "6789" or older 987654321: both accepted */
        /* reverse mode: data may overtake the reply; skip it */
    }
    *why = "no UDP reply from the server";
    return -1;
}

static int wait_state(struct client *c, enum ctl_state want, uint64_t deadline);

static int create_streams(struct client *c, const struct test_params *p)
{
    int n = (int)p->parallel * (p->bidir ? 2 : 1);
    for (int i = 0; i < n; i++) {
        const char *why = NULL;
        /* --cport: stream i takes the next port, as iperf3 does (opts_validate
         * made sure the last one is at most 65535) */
        uint16_t cport = c->o->cport ? (uint16_t)(c->o->cport + i) : 0;
        int fd = dial(c, p->udp ? SOCK_DGRAM : SOCK_STREAM, p, cport, &why);
        if (fd < 0 && cport)
            return cfail(c, EXIT_CHECK, "cannot open data stream %d to %s port %u from local "
                         "port %u: %s%s%s (with --cport %u, stream N uses local port %u+N-1: "
                         "choose a free range)", i + 1, c->host, c->o->port, cport,
                         why ? why : "", why ? ": " : "", errtext(errno), c->o->cport,
                         c->o->cport);
        if (fd < 0)
            return cfail(c, EXIT_CHECK, "cannot open data stream %d to %s port %u: %s",
                         i + 1, c->host, c->o->port, why ? why : errtext(errno));
        if (p->udp) {
            int hrc = udp_hello(fd, c->ctl, &why);
            if (hrc) {
                close(fd);
                if (hrc < 0)
                    return cfail(c, EXIT_CHECK, "UDP stream %d: %s", i + 1, why);
                /* whatever the server said instead of the reply: TEST_START is due next */
                int rc = wait_state(c, ST_TEST_START, mono_ns() + CTL_WAIT_NS);
                return rc ? rc : cfail(c, EXIT_CHECK, "the server sent TEST_START before "
                                       "UDP stream %d was set up", i + 1);
            }
        } else if (net_write_full(fd, c->cookie, COOKIE_SIZE, mono_ns() + CTL_WAIT_NS) < 0) {
            int e = errno;
            close(fd);
            return cfail(c, EXIT_CHECK, "cannot send the cookie on data stream %d: %s", i + 1,
                         errtext(e));
        }
        int sender = session_is_sender(&c->s, i);
        if (!session_add(&c->s, fd, sender)) {
            int e = errno;
            close(fd);
            if (c->o->file)
                return cfail(c, EXIT_USAGE, "cannot open -F file %s %s: %s", c->o->file,
                             sender ? "to send" : "to write what arrives", errtext(e));
            return cfail(c, EXIT_USAGE, "cannot set up data stream %d: %s", i + 1, errtext(e));
        }
    }
    return 0;
}

/* a state the server sent when `want` was due (0: during the test). SERVER_TERMINATE
 * during the test (the server was stopped) first gets the summary of what this side
 * measured until then, as iperf3's client prints one: the server's figures never
 * come, so it has this side's rows only (and -J its end object beside the error) */
static int server_state_fail(struct client *c, const struct server_state *ss, int want)
{
    char msg[400];
    server_state_text(ss, want, msg, sizeof msg);
    if (want == 0 && ss->st == ST_SERVER_TERMINATE && c->have_session)
        session_summary_so_far(&c->s);
    return cfail(c, EXIT_CHECK, "%s", msg);
}

/* the state the protocol has next, or the test's failure naming what came */
static int wait_state(struct client *c, enum ctl_state want, uint64_t deadline)
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
    uint64_t sent = 0;
    int queued = -1;
    for (int i = 0; i < s->nstreams; i++) {
        if (!s->st[i].sender)
            continue;
        sent += atomic_load(&s->st[i].bytes);
        int q = 0;
        if (queued < 0 && ioctl(s->st[i].fd, TIOCOUTQ, &q) == 0 && q > 0)
            queued = i;
    }
    if (!c->tx_seen_ns || sent != c->tx_seen || queued < 0) {
        c->tx_seen = sent;
        c->tx_seen_ns = now;
        return 0;
    }
    return now - c->tx_seen_ns >= CTL_WAIT_NS ? queued + 1 : 0;
}

/* ^C or kill during the test: tell the server (CLIENT_TERMINATE, as iperf3 does) so it
 * ends the test at once instead of waiting for the control connection to drop; then
 * the summary of what this side measured so far, as iperf3 prints one */
static int interrupted(struct client *c, const sigset_t *stop)
{
    static const struct timespec zero = { 0, 0 };
    int sig = sigtimedwait(stop, NULL, &zero);
    if (sig <= 0)
        return 0;
    ctl_send_state(c->ctl, ST_CLIENT_TERMINATE, mono_ns() + NS_PER_SEC);
    session_summary_so_far(&c->s);
    return cfail(c, EXIT_CHECK, "interrupted (%s): the client has terminated; the server was told",
                 sig == SIGINT ? "SIGINT" : "SIGTERM");
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

static int run_test(struct client *c, const sigset_t *stop)
{
    struct session *s = &c->s;
    struct rcv_idle idle;
    rcv_idle_init(&idle, s->p.reverse || s->p.bidir, c->o->rcv_timeout_ms, mono_ns());
    for (;;) {
        int irc = interrupted(c, stop);
        if (irc)
            return irc;
        uint64_t now = mono_ns();
        int ms = session_poll(s, now);
        int err = session_stream_error(s);
        if (err) {
            int rc = ctl_during_test(c, STREAM_FAIL_GRACE_MS);
            return rc ? rc : cfail(c, EXIT_CHECK, "a data stream failed: %s", errtext(err));
        }
        if (session_should_end(s, now))
            break;
        if (rcv_idle_check(&idle, now, rcv_idle_received(s))) {
            ctl_send_state(c->ctl, ST_CLIENT_TERMINATE, mono_ns() + NS_PER_SEC);
            return cfail(c, EXIT_CHECK, "no data came from the server for %lld ms "
                         "(--rcv-timeout): the test is ended, the server was told",
                         (long long)c->o->rcv_timeout_ms);
        }
        int stalled = send_stalled(c, now);
        if (stalled)
            return cfail(c, EXIT_CHECK, "the server took no data for %d s (data stream %d: "
                         "it accepted the stream but does not read it)", CTL_WAIT_S, stalled);
        int rc = ctl_during_test(c, ms < 1 ? 1 : ms);
        if (rc)
            return rc;
    }
    return 0;
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

/* the server's address (and -B's), the token, the control connection, the cookie,
 * PARAM_EXCHANGE */
static int handshake(struct client *c)
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
    }
    rep_addr(&c->dst, c->host, sizeof c->host);
    if (client_authtoken(o, c->authtoken, sizeof c->authtoken) < 0)
        return EXIT_USAGE;
    rep_printf(&c->rep, "Connecting to host %s, port %u\n", o->host, o->port);
    const char *why = NULL;
    c->ctl = dial(c, SOCK_STREAM, NULL, 0, &why);
    if (c->ctl < 0) {
        int e = errno;
        return cfail(c, EXIT_USAGE, "cannot connect to %s port %u: %s (%s)", o->host, o->port,
                     why ? why : errtext(e),
                     e == ECONNREFUSED ? "is a server running? start one with esxperf -s"
                     : e == ETIMEDOUT ? "check the address, routes and firewalls, or raise --connect-timeout"
                     : e == ENODEV ? "name an interface of this host: ip link, or on ESXi "
                                     "esxcli network ip interface list"
                                      : "check the address and the network");
    }
    int one = 1;
    setsockopt(c->ctl, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (net_opts_control(c->ctl, o, &why) < 0)
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

/* the parameters (with the token), the session, CREATE_STREAMS */
static int send_params(struct client *c)
{
    struct test_params p;
    client_params(c->o, ctl_mss(c->ctl), &p);
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
    return wait_state(c, ST_CREATE_STREAMS, mono_ns() + CTL_WAIT_NS);
}

/* the data streams, TEST_START, the start of the report, TEST_RUNNING */
static int open_streams(struct client *c)
{
    int rc = create_streams(c, &c->s.p);
    if (rc == 0)
        rc = wait_state(c, ST_TEST_START, mono_ns() + CTL_WAIT_NS);
    if (rc)
        return rc;
    session_report_start(&c->s, c->o->host, c->o->port, c->host, c->cookie);
    return wait_state(c, ST_TEST_RUNNING, mono_ns() + CTL_WAIT_NS);
}

/* the test with SIGINT/SIGTERM held (the stream threads inherit the mask) and
 * taken by run_test, which ends it cleanly; then the senders stop, TEST_END */
static int run(struct client *c)
{
    const struct test_params *p = &c->s.p;
    sigset_t stop, old;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, &old);
    if (session_start(&c->s) < 0)
        return cfail(c, EXIT_USAGE, "cannot start stream threads: %s", errtext(errno));
    if (!c->o->json && c->o->interval > 0)
        rep_header(&c->rep, p->udp, !p->reverse || p->bidir, 0, p->bidir);
    int rc = run_test(c, &stop);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc)
        return rc;
    session_stop_senders(&c->s);
    if (ctl_send_state(c->ctl, ST_TEST_END, mono_ns() + CTL_WAIT_NS) < 0)
        return cfail(c, EXIT_CHECK, "cannot send TEST_END: %s", errtext(errno));
    return 0;
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
    const struct perf_opts *o = c->o;
    const struct test_results *rem = &c->s.remote;
    int rc = wait_state(c, ST_DISPLAY_RESULTS, mono_ns() + CTL_WAIT_NS);
    if (rc)
        return rc;
    session_summary(&c->s);
    rc = moved_nothing(c);
    if (o->get_server_output && !o->json) {
        if (rem->server_output_text)
            rep_printf(&c->rep, "\nServer output:\n%s", rem->server_output_text);
        else if (rem->server_output_json)
            rep_printf(&c->rep, "\nServer JSON output:\n%s\n", rem->server_output_json);
    }
    ctl_send_state(c->ctl, ST_IPERF_DONE, mono_ns() + 2 * NS_PER_SEC);
    if (o->json) {
        report_json_server_output(&c->rep, o->get_server_output ? rem : NULL);
        report_json_finish(&c->rep, NULL);
        if (!o->quiet)
            report_json_print(&c->rep, stdout);
    } else {
        rep_printf(&c->rep, "\niperf Done.\n");
    }
    if (rr)
        *rr = c->s.fig;
    return rc;
}

int client_run(const struct perf_opts *o, struct run_result *rr)
{
    struct client c;
    memset(&c, 0, sizeof c);
    c.o = o;
    c.ctl = -1;
    rep_init(&c.rep, o->quiet ? NULL : stdout, o->json, o->format, 0);
    c.rep.title = o->title;
    c.rep.forceflush = o->forceflush;
    c.rep.verbose = o->verbose;
    c.rep.timestamps = o->timestamps;
    c.rep.json_stream = o->json_stream;
    c.rep.json_full = o->json_stream_full;
    c.rep.extra_data = o->extra_data;
    int rc = handshake(&c);
    if (rc == 0)
        rc = send_params(&c);
    if (rc == 0)
        rc = open_streams(&c);
    if (rc == 0)
        rc = run(&c);
    if (rc == 0)
        rc = exchange(&c);
    if (rc == 0)
        rc = display(&c, rr);
    crypto_wipe(c.authtoken, sizeof c.authtoken);
    fflush(stdout);
    if (c.have_session)
        session_free(&c.s);
    if (c.ctl >= 0)
        close(c.ctl);
    rep_free(&c.rep);
    return rc;
}
