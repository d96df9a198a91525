/* Server role: listen, take one test at a time, answer other connections with
 * ACCESS_DENIED, and return to listening whatever the client does.
 *
 * One test is iperf3's state list (docs/iperf3-protocol.md) from the
 * server's side, one function per phase: handshake (the cookie, which the wait
 * for a client read: server_wait.c; PARAM_EXCHANGE),
 * take_params (parameters, token, buffers), open_streams (CREATE_STREAMS, the
 * streams, TEST_START, TEST_RUNNING), run (until TEST_END), exchange
 * (EXCHANGE_RESULTS, both results), display (DISPLAY_RESULTS, IPERF_DONE), then
 * finish. Every read on the control connection outside the running test has a
 * deadline (--control-timeout, default 10 s); parameters are checked strictly
 * (proto_params.c) and refused with SERVER_ERROR; the protections are
 * server_guard.c's, the data streams server_accept.c's. */
#include "server.h"
#include "server_conn.h"
#include "daemon.h"
#include "sockopt_apply.h"
#include "rcv_timeout.h"
#include "fallback.h"
#include "fallback_texts.h"
#include "fail.h"
#include "file_opt.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define AUTH_PAUSE_NS NS_PER_SEC    /* after a refused token, accept nothing this long */
#define BUFFERS_MAX (1ull << 30)    /* stream count x block size the server allocates */

/* the server ends the test: SERVER_TERMINATE, as iperf3 does when it is stopped.
 * The streams stay open until the client closes the control connection (at most
 * 2 s): a reset data stream would otherwise hide the message from an iperf3 client. */
static int terminate(struct server *sv, const char **why, const char *reason, int ie)
{
    *why = reason;
    /* ie: SERVER_ERROR with that iperf3 error instead, as iperf3 ends a test over
     * its --server-bitrate-limit */
    if (ie ? proto_send_error(sv->ctl, ie, 0, mono_ns() + NS_PER_SEC) < 0
           : ctl_send_state(sv->ctl, ST_SERVER_TERMINATE, mono_ns() + NS_PER_SEC) < 0)
        return -1;
    uint64_t dl = mono_ns() + 2 * NS_PER_SEC;
    for (int i = 0; i < 1000 && mono_ns() < dl; i++) {
        char b[256];
        struct pollfd pf = { sv->ctl, POLLIN, 0 };
        int rc = poll(&pf, 1, ms_until(dl));
        if (rc < 0 && errno == EINTR)
            continue;
        if (rc <= 0)
            break;
        ssize_t r = recv(sv->ctl, b, sizeof b, MSG_DONTWAIT);
        if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
            break;
    }
    return -1;
}

/* the server was stopped (SIGTERM, SIGINT, SIGHUP): SERVER_TERMINATE to the
 * client, as iperf3 3.22's server does, so that it ends at once with "the server
 * has terminated" rather than meet a broken connection */
static int stopped(struct server *sv, const char **why)
{
    snprintf(sv->why, sizeof sv->why, "the server was stopped (%s); ended with "
             "SERVER_TERMINATE", signal_name(sv->stop.sig));
    return terminate(sv, why, sv->why, 0);
}

/* a state from the client while the test runs: 0 TEST_END, -1 the test is over
 * (*why), 1 ignored (anything else, as iperf3 does) */
static int ctl_during_test(struct server *sv, uint64_t now, const char **why)
{
    int st;
    if (ctl_recv_state(sv->ctl, &st, now + NS_PER_SEC) < 0) {
        *why = "the client went away during the test";
        return -1;
    }
    if (st == ST_TEST_END)
        return 0;
    if (st == ST_CLIENT_TERMINATE) {
        /* the summary of what this side measured so far, as iperf3's server prints */
        session_summary_so_far(&sv->s);
        *why = "the client terminated the test";
        return -1;
    }
    return 1;
}

/* what watches a running test: the guards (server_guard.c) and --rcv-timeout;
 * for a one-thread run also how its turns ended */
struct run_watch {
    struct server *sv;
    struct end_guard g;
    struct rate_guard rg;
    struct rcv_idle idle;
    const char **why;
    int rc;
};

/* One look at the running test: the interval rows, the guards (ending the test
 * ourselves when one says so), the control connection (TEST_END), a stop signal,
 * other clients (denied); waited on until the next event when wait is set, else
 * only looked at (*next_ms: until that event). 1 while the test goes on, 0 at
 * TEST_END, -1 when it is over otherwise (*why) */
static int run_look(struct run_watch *w, int wait, int *next_ms)
{
    struct server *sv = w->sv;
    struct session *s = &sv->s;
    const char **why = w->why;
    uint64_t now = mono_ns();
    int ms = session_poll(s, now);
    linger_service(sv);
    const char *reason = end_guard_check(&w->g, now, session_bytes(s, BYTES_ALL, 0));
    if (!reason && rcv_idle_check(&w->idle, now, session_bytes(s, BYTES_RECEIVED, 0)))
        reason = "no data came on the data streams for --rcv-timeout; ended with "
                 "SERVER_TERMINATE";
    if (reason)
        return terminate(sv, why, reason, 0);
    if (rate_guard_check(&w->rg, now, session_bytes(s, BYTES_ALL, 0))) {
        snprintf(sv->why, sizeof sv->why, "total throughput of %llu bit/s passed "
                 "--server-bitrate-limit %llu bit/s; ended with SERVER_ERROR (iperf3 "
                 "error 27)", (unsigned long long)w->rg.bps,
                 (unsigned long long)w->rg.limit);
        return terminate(sv, why, sv->why, IE_TOTALRATE);
    }
    if (w->g.cap && ms > ms_until(w->g.cap))
        ms = ms_until(w->g.cap);
    if (w->rg.limit && ms > ms_until(w->rg.next))
        ms = ms_until(w->rg.next);
    *next_ms = ms;
    int listen_ok = now >= sv->deny_pause_until;
    struct pollfd pf[3] = { { sv->ctl, POLLIN, 0 }, { sv->stop.fd[0], POLLIN, 0 },
                            { sv->lfd, POLLIN, 0 } };
    int rc = poll(pf, listen_ok ? 3 : 2, !wait ? 0 : ms < 1 ? 1 : ms);
    if (rc < 0 && errno != EINTR) {
        *why = "poll failed";
        return -1;
    }
    if (rc <= 0)
        return 1;
    /* the control connection before the listener: when a client dies and the
     * next one connects at once, both can be waiting here, and the next one
     * must find the test over (served), not be denied by a dead test */
    if (pf[0].revents) {
        int crc = ctl_during_test(sv, now, why);
        if (crc <= 0)
            return crc;
    }
    if (pf[1].revents && stop_guard_signal(&sv->stop)) {
        /* stopped while the test runs: its summary so far, as iperf3 prints */
        int src = stopped(sv, why);
        session_summary_so_far(s);
        return src;
    }
    if (listen_ok && (pf[2].revents & POLLIN))
        deny_pending(sv);
    return 1;
}

/* a one-thread run's turn (session_run_here): a look that does not wait; -1
 * ends the turns, with the look's result in rc */
static int run_turn(void *arg)
{
    struct run_watch *w = arg;
    int ms;
    w->rc = run_look(w, 0, &ms);
    return w->rc > 0 ? ms : -1;
}

/* wait for TEST_END while the streams run: looks in a loop while the stream
 * threads run, or the turns of a one-thread run */
static int run_until_end(struct server *sv, const char **why)
{
    struct session *s = &sv->s;
    struct run_watch w = { .sv = sv, .why = why };
    end_guard_init(&w.g, sv->o, &s->p, mono_ns());
    rate_guard_init(&w.rg, sv->o, mono_ns());
    rcv_idle_init(&w.idle, !s->p.reverse || s->p.bidir, sv->o->rcv_timeout_ms, mono_ns());
    if (s->here) {
        session_run_here(s, run_turn, &w, sv->ctl);
        return w.rc;
    }
    int rc, ms;
    while ((rc = run_look(&w, 1, &ms)) > 0)
        ;
    return rc;
}

/* the cookie (read while waiting: server_wait.c), PARAM_EXCHANGE */
static int handshake(struct server *sv, const char **why)
{
    if (!proto_cookie_valid(sv->cookie, COOKIE_SIZE)) {
        *why = "the client's cookie is not 36 iperf3 cookie characters and a NUL";
        proto_send_error(sv->ctl, IE_RECVCOOKIE, EINVAL, mono_ns() + NS_PER_SEC);
        return -1;
    }
    int one = 1;
    if (setsockopt(sv->ctl, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) < 0)
        fallback_refused("TCP_NODELAY", errno);
    if (ctl_send_state(sv->ctl, ST_PARAM_EXCHANGE, ctl_deadline(sv)) < 0) {
        *why = "cannot write to the client";
        return -1;
    }
    return 0;
}

/* the parameters, the RSA token, what the buffers would cost */
static int take_params(struct server *sv, const union sockaddr_any *peer,
                       struct test_params *p, const char **why)
{
    int perr = 0;
    if (ctl_recv_params(sv->ctl, ctl_deadline(sv), p, why, &perr) < 0) {
        proto_send_error(sv->ctl, IE_RECVPARAMS, perr, mono_ns() + NS_PER_SEC);
        return -1;
    }
    int ie = server_params_refusal(sv->o, p, why);
    if (ie) {
        proto_send_error(sv->ctl, ie, 0, mono_ns() + NS_PER_SEC);
        return -1;
    }
    if (!p->len)
        p->len = p->udp ? 1460 : 128 * 1024;
    if (server_check_authtoken(sv, p, peer) < 0) {
        /* as iperf3 3.12: SERVER_ERROR and one int32, IEAUTHTEST */
        *why = NULL;     /* logged by the check */
        proto_send_error(sv->ctl, IE_AUTHTEST, PROTO_CODE_ONLY, mono_ns() + NS_PER_SEC);
        sv->quiet_until = mono_ns() + AUTH_PAUSE_NS;
        return -1;
    }
    uint64_t nbuf = (uint64_t)p->parallel * (p->bidir ? 2u : 1u);
    if (nbuf * (uint64_t)p->len > BUFFERS_MAX) {
        *why = "streams x block size would need more than 1 GiB of buffers";
        proto_send_error(sv->ctl, IE_RECVPARAMS, ENOMEM, mono_ns() + NS_PER_SEC);
        return -1;
    }
    return 0;
}

/* the test's report and session */
static void begin_session(struct server *sv, const struct test_params *p)
{
    const struct perf_opts *o = sv->o;
    session_report_init(&sv->rep, stdout, o, p->get_server_output);
    sv->rep.extra_data = p->extra_data[0] ? p->extra_data : NULL;
    session_init(&sv->s, o, p, 0, &sv->rep);
    sv->have_session = 1;
}

/* the TCP listener anew, MPTCP or not, on the same address (as iperf3 3.22 remakes
 * its listener for a client that asks for MPTCP streams, and back after the test).
 * An MPTCP listener also takes plain TCP connections. 0, or -1 (errno) with the
 * old listener gone */
static int relisten(struct server *sv, int mptcp)
{
    close(sv->lfd);
    sv->lfd = sockopt_listen_proto(sv->o, SOCK_STREAM, mptcp ? IPPROTO_MPTCP : 0,
                                    &sv->laddr, 128);
    if (sv->lfd < 0)
        return -1;
    sv->lfd_mptcp = mptcp;
    net_set_nonblock(sv->lfd, 1);
    return 0;
}

/* a client's "mptcp" parameter: its TCP streams come to an MPTCP listener; where
 * the kernel has none they fall back to TCP (said once per test) */
static int listen_for_streams(struct server *sv, const struct test_params *p, const char **why)
{
    if (p->udp || !p->mptcp || sv->lfd_mptcp)
        return 0;
    if (relisten(sv, 1) == 0)
        return 0;
    warnmsg("the client asked for MPTCP streams; this kernel has no MPTCP (%s): they "
            "fall back to TCP", errtext(errno));
    if (relisten(sv, 0) == 0)
        return 0;
    *why = "cannot listen again on the server port";
    return -1;
}

/* CREATE_STREAMS, the streams, the start of the report, TEST_START, TEST_RUNNING */
static int open_streams(struct server *sv, const struct test_params *p,
                        const union sockaddr_any *peer, const char **why)
{
    begin_session(sv, p);
    if (listen_for_streams(sv, p, why) < 0)
        return -1;
    if (p->udp && server_open_udp_listener(sv) < 0) {
        *why = "cannot open the UDP listener";
        proto_send_error(sv->ctl, IE_LISTEN, errno, mono_ns() + NS_PER_SEC);
        return -1;
    }
    if (ctl_send_state(sv->ctl, ST_CREATE_STREAMS, ctl_deadline(sv)) < 0) {
        *why = "cannot write to the client";
        return -1;
    }
    int n = (int)p->parallel * (p->bidir ? 2 : 1);
    if (server_accept_streams(sv, n, why) < 0)
        return -1;
    if (sv->ufd >= 0) {
        close(sv->ufd);
        sv->ufd = -1;
    }
    char ph[64];
    rep_addr(peer, ph, sizeof ph);
    session_report_start(&sv->s, ph, net_port(peer), ph, sv->cookie);
    if (ctl_send_state(sv->ctl, ST_TEST_START, ctl_deadline(sv)) < 0 ||
        ctl_send_state(sv->ctl, ST_TEST_RUNNING, ctl_deadline(sv)) < 0) {
        *why = "cannot write to the client";
        return -1;
    }
    return 0;
}

/* the streams' threads, the interval header, the test until TEST_END */
static int run(struct server *sv, const char **why)
{
    const struct test_params *p = &sv->s.p;
    if (session_start(&sv->s) < 0) {
        /* one server, one test at a time: the text outlives this call */
        static char text[160];
        int e = errno;
        session_no_threads(&sv->s, e, text, sizeof text);
        *why = text;
        proto_send_error(sv->ctl, IE_INITSTREAM, e, mono_ns() + NS_PER_SEC);
        return -1;
    }
    if (sv->o->interval > 0)
        sv->rep.sink->interval_header(&sv->rep, p->udp, p->reverse, p->bidir);
    return run_until_end(sv, why);
}

/* our results (with our report when the client asked for it) to the client */
static int send_results(struct server *sv, const char **why)
{
    const char *out_text = NULL, *out_json = NULL;
    if (sv->s.p.get_server_output)
        sv->rep.sink->own_output(&sv->rep, &out_text, &out_json);
    struct test_results mine;
    session_local_results(&sv->s, &mine, out_text, out_json);
    size_t rlen;
    char *rjs = results_encode(&mine, &rlen);
    results_free(&mine);
    int rc = rjs ? ctl_send_json(sv->ctl, rjs, rlen, ctl_deadline(sv)) : -1;
    free(rjs);
    if (rc < 0)
        *why = "cannot send our results";
    return rc;
}

/* EXCHANGE_RESULTS, the client's results, our summary, our results */
static int exchange(struct server *sv, const char **why)
{
    session_stop_all(&sv->s);
    if (ctl_send_state(sv->ctl, ST_EXCHANGE_RESULTS, ctl_deadline(sv)) < 0) {
        *why = "cannot write to the client";
        return -1;
    }
    char *cjs = NULL;
    size_t clen = 0;
    if (ctl_recv_json(sv->ctl, RESULTS_MAX, &cjs, &clen, ctl_deadline(sv)) < 0) {
        *why = "cannot read the client's results";
        return -1;
    }
    int drc = results_decode(cjs, clen, &sv->s.remote, why);
    free(cjs);
    if (drc < 0)
        return -1;
    sv->s.have_remote = 1;
    /* the summary ends with the verdict, which may ask esxcli for the link (seconds on
     * ESXi): the client waits for our results only when it asked for our output in them */
    if (!sv->s.p.get_server_output) {
        int rc = send_results(sv, why);
        session_summary(&sv->s);
        sv->rep.sink->close(&sv->rep);
        return rc;
    }
    session_summary(&sv->s);
    sv->rep.sink->close(&sv->rep);
    return send_results(sv, why);
}

/* DISPLAY_RESULTS, and the client's IPERF_DONE */
static int display(struct server *sv, const char **why)
{
    if (ctl_send_state(sv->ctl, ST_DISPLAY_RESULTS, ctl_deadline(sv)) < 0) {
        *why = "cannot write to the client";
        return -1;
    }
    int st;
    if (ctl_recv_state(sv->ctl, &st, ctl_deadline(sv)) == 0 && st != ST_IPERF_DONE)
        warnmsg("client ended with state %d instead of IPERF_DONE", st);
    return 0;
}

/* the report (JSON: the document, or the error in it), the log line of a test that
 * failed, and the control connection into the linger table */
static void finish(struct server *sv, int rc, const char *why)
{
    if (sv->have_session) {
        if (rc == 0)
            sv->rep.sink->done(&sv->rep, NULL);
        else if (why)
            sv->rep.sink->failure(&sv->rep, why);
        session_free(&sv->s);
        sv->have_session = 0;
        rep_free(&sv->rep);
    }
    if (why)
        warnmsg("test aborted: %s", why);
    if (sv->ufd >= 0)
        close(sv->ufd);
    sv->ufd = -1;
    atomic_store(&sv->stop.ctl, -1);
    linger_add(sv, sv->ctl);    /* an error answer must not be lost to a reset */
    sv->ctl = -1;
    fflush(stdout);
}

/* one test on an accepted control connection; returns 0 when it completed */
static int server_test(struct server *sv, const union sockaddr_any *peer)
{
    const char *why = NULL;
    struct test_params p;
    /* a stop between the phases is told at the next one, as in the running test */
    int rc = handshake(sv, &why);
    if (rc == 0)
        rc = stop_guard_signal(&sv->stop) ? stopped(sv, &why) : take_params(sv, peer, &p, &why);
    if (rc == 0)
        rc = stop_guard_signal(&sv->stop) ? stopped(sv, &why) : open_streams(sv, &p, peer, &why);
    if (rc == 0)
        rc = stop_guard_signal(&sv->stop) ? stopped(sv, &why) : run(sv, &why);
    if (rc == 0)
        rc = exchange(sv, &why);
    if (rc == 0)
        rc = display(sv, &why);
    finish(sv, rc, why);
    if (sv->lfd_mptcp != sv->o->mptcp && relisten(sv, sv->o->mptcp) < 0)
        die(EXIT_USAGE, "cannot listen again on port %u: %s", sv->o->port, errtext(errno));
    return rc;
}

/* the private key and a first look at the users file (-s with authentication) */
static void load_auth(struct server *sv, const struct perf_opts *o)
{
    char err[400];
    struct auth_users users;
    sv->priv = auth_key_load_private(o->rsa_private_key, o->allow_readable_key, err,
                                     sizeof err);
    if (!sv->priv)
        die(EXIT_USAGE, "%s", err);
    if (auth_users_load(o->authorized_users, &users, err, sizeof err) < 0)
        die(EXIT_USAGE, "%s (lines user,<sha256 hex of \"{user}password\">)", err);
    if (users.n == 0)
        warnmsg("users file %s has no valid entry: every test will be refused",
                o->authorized_users);
    auth_users_free(&users);
}

/* the listener: -B, else IPv6 and IPv4 both (IPv4 alone where the host has no IPv6) */
static void listen_on(struct server *sv, const struct perf_opts *o)
{
    int family = o->family == AF_UNSPEC ? AF_INET6 : o->family;
    int gai = net_resolve(o->bind, o->bind ? o->family : family, o->port, 1, &sv->laddr, NULL);
    if (gai)
        die(EXIT_USAGE, "cannot use address %s: %s", o->bind ? o->bind : "(any)",
            net_gai_strerror(gai));
    if (sockopt_zone_missing(&sv->laddr) && !o->bind_dev)
        die(EXIT_USAGE, "-B %s is an IPv6 link-local address without a zone: name its "
            "interface, e.g. -B %s%%vmk1 (ESXi: esxcli network ip interface list; Linux: "
            "ip link)", o->bind, o->bind);
    if (o->rsa_private_key)
        load_auth(sv, o);
    /* a large backlog: a flood is answered (ACCESS_DENIED) rather than left in SYN retries */
    sv->lfd = sockopt_listen(o, SOCK_STREAM, &sv->laddr, 128);
    if (sv->lfd < 0 && !o->bind && o->family == AF_UNSPEC && errno == EAFNOSUPPORT) {
        net_resolve(NULL, AF_INET, o->port, 1, &sv->laddr, NULL);
        sv->lfd = sockopt_listen(o, SOCK_STREAM, &sv->laddr, 128);
    }
    if (sv->lfd < 0)
        die(EXIT_USAGE, "cannot listen on port %u: %s (%s)", o->port, errtext(errno),
            errno != EADDRINUSE ? "check -B and the port"
            : fallback_has("SO_REUSEADDR") ? "this host refused SO_REUSEADDR, so the port stays taken while a "
                                "connection of the last test is in TIME_WAIT: wait a minute or pick another port with -p"
                              : "another server runs there; pick another port with -p");
    sv->lfd_mptcp = o->mptcp;
    net_set_nonblock(sv->lfd, 1);    /* accept never blocks: poll says when */
}

/* -D and -I, once the listener is up (a port in use is told on the terminal), and
 * the signals that stop the server */
static void leave_running(struct server *sv, const struct perf_opts *o)
{
    char why[400];
    /* the pid file's refusals, too, before the terminal is left */
    if (o->pidfile && pidfile_check(o->pidfile, why, sizeof why) < 0)
        die(EXIT_USAGE, "%s", why);
    if (o->daemon && daemon_detach(o->logfile != NULL, o->argv_started, sv->lfd, why, sizeof why) < 0)
        die(EXIT_USAGE, "%s", why);
    if (o->log_fd >= 0) {
        dup2(o->log_fd, 1);
        dup2(o->log_fd, 2);
        close(o->log_fd);
    }
    if (o->pidfile && pidfile_create(o->pidfile, why, sizeof why) < 0)
        die(EXIT_USAGE, "%s", why);
    if (stop_guard_start(&sv->stop, o->pidfile, why, sizeof why) < 0) {
        pidfile_remove(o->pidfile);
        die(EXIT_USAGE, "%s", why);
    }
}

int server_run(const struct perf_opts *o)
{
    struct server sv;
    memset(&sv, 0, sizeof sv);
    sv.o = o;
    sv.sink = report_sink_for(o);
    sv.ufd = sv.ctl = -1;
    char why[400];
    if (o->file && file_opt_check(o->file, 0, why, sizeof why) < 0)
        die(EXIT_USAGE, "%s", why);
    listen_on(&sv, o);
    leave_running(&sv, o);
    int last = 0;
    for (int test = 1; !sv.stop.sig; test++) {
        sv.sink->banner(stdout, o->timestamps, o->port, test);
        union sockaddr_any peer;
        if (server_next_client(&sv, &peer) < 0)
            break;
        last = server_test(&sv, &peer);
        if (o->one_off)
            break;
    }
    server_pending_end(&sv, sv.stop.sig != 0);
    for (int i = sv.nlg - 1; i >= 0; i--)
        linger_close(&sv, i);
    close(sv.lfd);
    crypto_key_free(sv.priv);
    pidfile_remove(o->pidfile);
    if (sv.stop.sig) {
        /* as iperf3: a server stopped by a signal exits 0 */
        warnmsg("interrupted (%s): the server has terminated", signal_name(sv.stop.sig));
        return EXIT_OKAY;
    }
    return last == 0 ? EXIT_OKAY : EXIT_CHECK;
}
