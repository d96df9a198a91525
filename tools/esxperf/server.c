/* Server role: listen, take one test at a time, answer other connections with
 * ACCESS_DENIED, and return to listening whatever the client does.
 *
 * Protection (issue 6): every read on the control connection outside the running
 * test has a deadline (--control-timeout, default 10 s); parameters are checked
 * strictly (proto.c) and refused with SERVER_ERROR; connections refused or denied
 * are answered at once, half-closed and kept in a small "linger" table that drains
 * what they still send, so that the answer is not lost to a reset and the main loop
 * never blocks on them; --max-duration ends long tests; an optional RSA token
 * (auth.h) is checked before any stream is opened, and a refused token makes the
 * server accept nothing for a second. */
#include "server.h"
#include "auth.h"
#include "clock.h"
#include "fail.h"
#include "net.h"
#include "proto.h"
#include "session.h"
#include "udp.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define IE_RECVCOOKIE 106           /* iperf3's "unable to receive cookie" */
#define IE_RECVPARAMS 114           /* iperf3's "unable to receive parameters" */
#define IE_AUTHTEST 142             /* iperf3's "test authorization failed" */
#define LINGER_MAX 128              /* refused connections drained at once */
#define LINGER_NS NS_PER_SEC        /* how long a refused connection is drained */
#define AUTH_PAUSE_NS NS_PER_SEC    /* after a refused token, accept nothing this long */
#define BUFFERS_MAX (1ull << 30)    /* stream count x block size the server allocates */
#define DENY_BATCH 64               /* connections denied per pass of the test loop */

struct lingerer {
    int fd;
    uint64_t until;
};

struct server {
    const struct perf_opts *o;
    int lfd;                        /* TCP listener (control and TCP data) */
    int ufd;                        /* UDP listener during stream setup */
    union sockaddr_any laddr;
    int ctl;
    char cookie[COOKIE_SIZE];
    struct report rep;
    struct session s;
    int have_session;
    struct crypto_key *priv;        /* --rsa-private-key-path, or NULL */
    struct auth_replay replay;      /* tokens accepted recently (no replay) */
    uint64_t quiet_until;           /* no accept before this (after a refused token) */
    uint64_t deny_pause_until;      /* out of descriptors: leave the listener alone */
    struct lingerer lg[LINGER_MAX];
    int nlg;
};

/* ---- refused connections: answered, half-closed, drained, then closed */

static void linger_close(struct server *sv, int i)
{
    close(sv->lg[i].fd);
    sv->lg[i] = sv->lg[--sv->nlg];
}

/* take over fd (the answer is already written): FIN now, close after the peer's
 * FIN or LINGER_NS, whichever is first */
static void linger_add(struct server *sv, int fd)
{
    shutdown(fd, SHUT_WR);
    if (sv->nlg == LINGER_MAX) {
        int old = 0;
        for (int i = 1; i < sv->nlg; i++)
            if (sv->lg[i].until < sv->lg[old].until)
                old = i;
        linger_close(sv, old);
    }
    sv->lg[sv->nlg].fd = fd;
    sv->lg[sv->nlg].until = mono_ns() + LINGER_NS;
    sv->nlg++;
}

/* never blocks: reads what is there (at most 4 KiB each), closes the finished */
static void linger_service(struct server *sv)
{
    uint64_t now = mono_ns();
    for (int i = 0; i < sv->nlg;) {
        int done = now >= sv->lg[i].until;
        for (int k = 0; !done && k < 8; k++) {
            char buf[512];
            ssize_t r = recv(sv->lg[i].fd, buf, sizeof buf, MSG_DONTWAIT);
            if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
                done = 1;
            if (r <= 0)
                break;
        }
        if (done)
            linger_close(sv, i);
        else
            i++;
    }
}

static uint64_t ctl_deadline(const struct server *sv)
{
    return mono_ns() + (uint64_t)sv->o->control_timeout_ms * NS_PER_MS;
}

/* RSA authentication (--rsa-private-key-path with --authorized-users-path): the
 * users file is read for each test (edits apply without a restart). What failed is
 * logged here; the client only ever learns "authorization failed". Returns 0 to
 * accept. */
static int server_check_authtoken(struct server *sv, const struct test_params *p,
                                  const union sockaddr_any *peer)
{
    const struct perf_opts *o = sv->o;
    char err[300], ph[64];
    struct auth_users users;
    struct auth_result res;
    if (!sv->priv)
        return 0;
    rep_addr(peer, ph, sizeof ph);
    if (auth_users_load(o->authorized_users, &users, err, sizeof err) < 0) {
        warnmsg("test from %s refused: %s (fix the users file; tests are refused until then)",
                ph, err);
        return -1;
    }
    if (users.malformed)
        warnmsg("users file %s: %zu malformed line%s ignored, the first is line %zu (want "
                "user,<64 lowercase hex digits of sha256(\"{user}password\")>)",
                o->authorized_users, users.malformed, users.malformed == 1 ? "" : "s",
                users.first_bad_line);
    int rc = auth_token_check(sv->priv, &users, p->authtoken, strlen(p->authtoken),
                              (int64_t)time(NULL), o->time_skew, &sv->replay, &res);
    auth_users_free(&users);
    if (rc == 0) {
        if (!o->json) {
            printf("Authenticated user '%s' from %s\n", res.user, ph);
            fflush(stdout);
        }
        return 0;
    }
    if (res.status == AUTH_EXPIRED)
        warnmsg("test from %s refused: authentication failed: %s token (user '%s', token time "
                "%lld, %+lld s from ours; --time-skew-threshold is %lld)", ph,
                auth_status_text(res.status),
                res.user, (long long)res.ts, (long long)(res.ts - (int64_t)time(NULL)),
                (long long)o->time_skew);
    else if (res.user[0])
        warnmsg("test from %s refused: authentication failed: %s (user '%s')", ph,
                auth_status_text(res.status), res.user);
    else if (res.status == AUTH_BAD_TOKEN)
        warnmsg("test from %s refused: authentication failed: bad token: %s", ph,
                auth_bad_text(res.bad));
    else
        warnmsg("test from %s refused: authentication failed: %s", ph,
                auth_status_text(res.status));
    return -1;
}

static void send_error(int fd, int ie, int en)
{
    unsigned char b[9];
    b[0] = (unsigned char)(signed char)ST_SERVER_ERROR;
    uint32_t v = (uint32_t)ie, w = (uint32_t)en;
    b[1] = (unsigned char)(v >> 24); b[2] = (unsigned char)(v >> 16);
    b[3] = (unsigned char)(v >> 8); b[4] = (unsigned char)v;
    b[5] = (unsigned char)(w >> 24); b[6] = (unsigned char)(w >> 16);
    b[7] = (unsigned char)(w >> 8); b[8] = (unsigned char)w;
    net_write_full(fd, b, sizeof b, mono_ns() + NS_PER_SEC);
}

/* connections while a test runs (other clients, extra streams): ACCESS_DENIED at
 * once, without waiting for their cookie; the linger table drains and closes them */
static void deny_pending(struct server *sv)
{
    for (int i = 0; i < DENY_BATCH; i++) {
        int fd = accept4(sv->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0) {
            if ((errno == EMFILE || errno == ENFILE) && sv->nlg > 0) {
                linger_close(sv, 0);
                continue;
            }
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
                sv->deny_pause_until = mono_ns() + 100 * NS_PER_MS;
            return;
        }
        char ck[COOKIE_SIZE];
        (void)!recv(fd, ck, sizeof ck, MSG_DONTWAIT);
        signed char b = (signed char)ST_ACCESS_DENIED;
        (void)!send(fd, &b, 1, MSG_DONTWAIT | MSG_NOSIGNAL);
        linger_add(sv, fd);
    }
}

/* stream setup: wait until fd is readable (1), a signal interrupted (0), or
 * the step deadline passed (-1, *why = late) or the control connection
 * closed (-1) */
static int setup_wait(struct server *sv, int fd, uint64_t deadline, const char *late,
                      const char **why)
{
    struct pollfd pf[2] = { { fd, POLLIN, 0 }, { sv->ctl, POLLIN, 0 } };
    int rc = poll(pf, 2, ms_until(deadline));
    if (rc < 0 && errno == EINTR)
        return 0;
    if (rc <= 0) {
        *why = late;
        return -1;
    }
    if (pf[1].revents) {
        *why = "the client closed the control connection during stream setup";
        return -1;
    }
    return 1;
}

/* TCP data streams: accept until n arrived with our cookie */
static int accept_tcp_streams(struct server *sv, int n, const char **why)
{
    uint64_t deadline = ctl_deadline(sv);
    int got = 0;
    while (got < n) {
        int rc = setup_wait(sv, sv->lfd, deadline,
            "the client did not open its data streams within --control-timeout", why);
        if (rc < 0)
            return -1;
        if (rc == 0)
            continue;
        union sockaddr_any from;
        socklen_t fl = sizeof from;
        int fd = accept4(sv->lfd, &from.sa, &fl, SOCK_CLOEXEC);
        if (fd < 0)
            continue;
        /* a real client sends the cookie with the connection; a silent one holds
         * the setup at most 3 s (and never past the step deadline) */
        char ck[COOKIE_SIZE];
        uint64_t cdl = mono_ns() + 3 * NS_PER_SEC;
        if (net_read_full(fd, ck, sizeof ck, cdl < deadline ? cdl : deadline) < 0 ||
            memcmp(ck, sv->cookie, COOKIE_SIZE) != 0) {
            signed char b = (signed char)ST_ACCESS_DENIED;
            (void)!send(fd, &b, 1, MSG_DONTWAIT | MSG_NOSIGNAL);
            linger_add(sv, fd);
            continue;
        }
        const char *w = NULL;
        /* -S and --dont-fragment follow the packets' IP version: on the dual-stack
         * listener an IPv4 client is an IPv4-mapped peer of an AF_INET6 socket */
        if (stream_sockopts(fd, &sv->s.p, net_wire_family(&from), &w) < 0) {
            /* options such as -C may be unknown here: iperf3 also carries on */
            warnmsg("data stream: %s", w);
        }
        if (!session_add(&sv->s, fd, session_is_sender(&sv->s, sv->s.nstreams))) {
            close(fd);
            *why = "cannot set up a data stream";
            return -1;
        }
        got++;
    }
    return 0;
}

static int open_udp_listener(struct server *sv)
{
    sv->ufd = net_listen(SOCK_DGRAM, &sv->laddr, 0);
    return sv->ufd < 0 ? -1 : 0;
}

/* UDP data streams: each hello datagram turns the listener into that stream's
 * socket (connected to the client), and a fresh listener takes its place */
static int accept_udp_streams(struct server *sv, int n, const char **why)
{
    uint64_t deadline = ctl_deadline(sv);
    int got = 0;
    while (got < n) {
        int rc = setup_wait(sv, sv->ufd, deadline,
            "the client did not open its UDP streams within --control-timeout", why);
        if (rc < 0)
            return -1;
        if (rc == 0)
            continue;
        unsigned char msg[64];
        union sockaddr_any from;
        socklen_t fl = sizeof from;
        ssize_t r = recvfrom(sv->ufd, msg, sizeof msg, MSG_DONTWAIT, &from.sa, &fl);
        if (r != 4)
            continue;
        enum udp_connect_kind kind = udp_connect_kind(msg, 1);
        if (connect(sv->ufd, &from.sa, fl) < 0)
            continue;
        int fd = sv->ufd;
        sv->ufd = -1;
        const char *w = NULL;
        if (stream_sockopts(fd, &sv->s.p, net_wire_family(&from), &w) < 0)
            warnmsg("data stream: %s", w);
        if (!session_add(&sv->s, fd, session_is_sender(&sv->s, sv->s.nstreams))) {
            close(fd);
            *why = "cannot set up a data stream";
            return -1;
        }
        got++;
        if (open_udp_listener(sv) < 0) {
            *why = "cannot reopen the UDP listener";
            return -1;
        }
        unsigned char reply[4];
        udp_connect_value(reply, kind == UDP_CONNECT_OLD ? UDP_CONNECT_OLD : UDP_CONNECT_NEW, 0);
        if (send(fd, reply, 4, MSG_NOSIGNAL) != 4) {
            *why = "cannot answer the UDP hello";
            return -1;
        }
    }
    return 0;
}

static uint64_t bytes_moved(const struct session *s)
{
    uint64_t n = 0;
    for (int i = 0; i < s->nstreams; i++)
        n += atomic_load(&s->st[i].bytes);
    return n;
}

/* the server ends the test: SERVER_TERMINATE, as iperf3 does when it is stopped.
 * The streams stay open until the client closes the control connection (at most
 * 2 s): a reset data stream would otherwise hide the message from an iperf3 client. */
static int terminate(struct server *sv, const char **why, const char *reason)
{
    *why = reason;
    if (ctl_send_state(sv->ctl, ST_SERVER_TERMINATE, mono_ns() + NS_PER_SEC) < 0)
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

void end_guard_init(struct end_guard *g, const struct perf_opts *o,
                    const struct test_params *p, uint64_t now)
{
    memset(g, 0, sizeof *g);
    g->counted = p->num || p->blockcount;
    if (p->time && !g->counted)
        g->limit = now + (uint64_t)(p->time + p->omit + 60) * NS_PER_SEC;
    if (o->max_duration > 0)
        g->cap = now + (uint64_t)o->max_duration * NS_PER_SEC;
    g->stall_ns = 3 * (uint64_t)o->control_timeout_ms * NS_PER_MS;
    g->moved_at = now;
}

const char *end_guard_check(struct end_guard *g, uint64_t now, uint64_t moved)
{
    if (g->cap && now >= g->cap)
        return "the test reached the server's --max-duration; ended with SERVER_TERMINATE";
    if (g->limit && now > g->limit)
        return "the client did not end the test 60 s after its time; ended with "
               "SERVER_TERMINATE";
    if (!g->counted)
        return NULL;
    if (moved != g->moved) {
        g->moved = moved;
        g->moved_at = now;
    } else if (now - g->moved_at > g->stall_ns) {
        return "no data moved in this -n/-k test for 3 x --control-timeout; ended with "
               "SERVER_TERMINATE";
    }
    return NULL;
}

/* wait for TEST_END while streams run; deny other clients; end the test ourselves
 * when the guard says so */
static int run_until_end(struct server *sv, const char **why)
{
    struct session *s = &sv->s;
    struct end_guard g;
    end_guard_init(&g, sv->o, &s->p, mono_ns());
    for (;;) {
        uint64_t now = mono_ns();
        int ms = session_poll(s, now);
        linger_service(sv);
        const char *reason = end_guard_check(&g, now, bytes_moved(s));
        if (reason)
            return terminate(sv, why, reason);
        if (g.cap && ms > ms_until(g.cap))
            ms = ms_until(g.cap);
        int listen_ok = now >= sv->deny_pause_until;
        struct pollfd pf[2] = { { sv->ctl, POLLIN, 0 }, { sv->lfd, POLLIN, 0 } };
        int rc = poll(pf, listen_ok ? 2 : 1, ms < 1 ? 1 : ms);
        if (rc < 0 && errno != EINTR) {
            *why = "poll failed";
            return -1;
        }
        if (rc <= 0)
            continue;
        /* the control connection before the listener: when a client dies and the
         * next one connects at once, both can be waiting here, and the next one
         * must find the test over (served), not be denied by a dead test */
        if (pf[0].revents) {
            int st;
            if (ctl_recv_state(sv->ctl, &st, now + NS_PER_SEC) < 0) {
                *why = "the client went away during the test";
                return -1;
            }
            if (st == ST_TEST_END)
                return 0;
            if (st == ST_CLIENT_TERMINATE) {
                *why = "the client terminated the test";
                return -1;
            }
            /* anything else is ignored, as iperf3 does */
        }
        if (listen_ok && (pf[1].revents & POLLIN))
            deny_pending(sv);
    }
}

/* one test on an accepted control connection; returns 0 when it completed */
static int server_test(struct server *sv, const union sockaddr_any *peer)
{
    const struct perf_opts *o = sv->o;
    const char *why = NULL;
    int rc = -1;
    if (net_read_full(sv->ctl, sv->cookie, COOKIE_SIZE, ctl_deadline(sv)) < 0) {
        why = errno == ETIMEDOUT ? "no cookie from the client within --control-timeout"
                                 : "the client closed before sending its cookie";
        goto done;
    }
    if (!proto_cookie_valid(sv->cookie, COOKIE_SIZE)) {
        why = "the client's cookie is not 36 iperf3 cookie characters and a NUL";
        send_error(sv->ctl, IE_RECVCOOKIE, EINVAL);
        goto done;
    }
    int one = 1;
    setsockopt(sv->ctl, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (ctl_send_state(sv->ctl, ST_PARAM_EXCHANGE, ctl_deadline(sv)) < 0) {
        why = "cannot write to the client";
        goto done;
    }
    struct test_params p;
    int perr = 0;
    if (ctl_recv_params(sv->ctl, ctl_deadline(sv), &p, &why, &perr) < 0) {
        send_error(sv->ctl, IE_RECVPARAMS, perr);
        goto done;
    }
    if (!p.len)
        p.len = p.udp ? 1460 : 128 * 1024;
    if (server_check_authtoken(sv, &p, peer) < 0) {
        /* as iperf3 3.12: SERVER_ERROR and one int32, 142 (IEAUTHTEST) */
        static const unsigned char denied[5] = { 0xfe, 0, 0, 0, IE_AUTHTEST };
        why = NULL;     /* logged by the check */
        net_write_full(sv->ctl, denied, sizeof denied, mono_ns() + NS_PER_SEC);
        sv->quiet_until = mono_ns() + AUTH_PAUSE_NS;
        goto done;
    }
    uint64_t nbuf = (uint64_t)p.parallel * (p.bidir ? 2u : 1u);
    if (nbuf * (uint64_t)p.len > BUFFERS_MAX) {
        why = "streams x block size would need more than 1 GiB of buffers";
        send_error(sv->ctl, IE_RECVPARAMS, ENOMEM);
        goto done;
    }
    rep_init(&sv->rep, stdout, o->json, o->format, p.get_server_output && !o->json);
    sv->rep.forceflush = o->forceflush;
    sv->rep.verbose = o->verbose;
    session_init(&sv->s, o, &p, 0, &sv->rep);
    sv->have_session = 1;
    if (p.udp && open_udp_listener(sv) < 0) {
        why = "cannot open the UDP listener";
        send_error(sv->ctl, 102, errno);
        goto done;
    }
    if (ctl_send_state(sv->ctl, ST_CREATE_STREAMS, ctl_deadline(sv)) < 0) {
        why = "cannot write to the client";
        goto done;
    }
    int n = (int)p.parallel * (p.bidir ? 2 : 1);
    if ((p.udp ? accept_udp_streams(sv, n, &why) : accept_tcp_streams(sv, n, &why)) < 0)
        goto done;
    if (sv->ufd >= 0) {
        close(sv->ufd);
        sv->ufd = -1;
    }
    char ph[64];
    rep_addr(peer, ph, sizeof ph);
    session_report_start(&sv->s, ph, net_port(peer), ph, sv->cookie);
    if (ctl_send_state(sv->ctl, ST_TEST_START, ctl_deadline(sv)) < 0 ||
        ctl_send_state(sv->ctl, ST_TEST_RUNNING, ctl_deadline(sv)) < 0) {
        why = "cannot write to the client";
        goto done;
    }
    if (session_start(&sv->s) < 0) {
        why = "cannot start stream threads";
        goto done;
    }
    if (!o->json && o->interval > 0)
        rep_header(&sv->rep, p.udp, p.reverse, 0, p.bidir);
    if (run_until_end(sv, &why) < 0)
        goto done;
    session_stop_all(&sv->s);
    if (ctl_send_state(sv->ctl, ST_EXCHANGE_RESULTS, ctl_deadline(sv)) < 0) {
        why = "cannot write to the client";
        goto done;
    }
    char *cjs = NULL;
    size_t clen = 0;
    if (ctl_recv_json(sv->ctl, RESULTS_MAX, &cjs, &clen, ctl_deadline(sv)) < 0) {
        why = "cannot read the client's results";
        goto done;
    }
    const char *rwhy = NULL;
    int drc = results_decode(cjs, clen, &sv->s.remote, &rwhy);
    free(cjs);
    if (drc < 0) {
        why = rwhy;
        goto done;
    }
    sv->s.have_remote = 1;
    session_summary(&sv->s);
    const char *out_json = NULL;
    if (o->json) {
        report_json_finish(&sv->rep, NULL);
        out_json = jw_text(&sv->rep.jw);
    }
    struct test_results mine;
    session_local_results(&sv->s, &mine,
                          p.get_server_output && !o->json ? (sv->rep.cap ? sv->rep.cap : "") : NULL,
                          p.get_server_output && o->json ? out_json : NULL);
    size_t rlen;
    char *rjs = results_encode(&mine, &rlen);
    results_free(&mine);
    if (!rjs || ctl_send_json(sv->ctl, rjs, rlen, ctl_deadline(sv)) < 0) {
        free(rjs);
        why = "cannot send our results";
        goto done;
    }
    free(rjs);
    if (ctl_send_state(sv->ctl, ST_DISPLAY_RESULTS, ctl_deadline(sv)) < 0) {
        why = "cannot write to the client";
        goto done;
    }
    int st;
    if (ctl_recv_state(sv->ctl, &st, ctl_deadline(sv)) == 0 && st != ST_IPERF_DONE)
        warnmsg("client ended with state %d instead of IPERF_DONE", st);
    rc = 0;
done:
    if (sv->have_session) {
        if (o->json && rc == 0)
            printf("%s\n", jw_text(&sv->rep.jw));
        else if (o->json && why) {
            report_json_finish(&sv->rep, why);
            printf("%s\n", jw_text(&sv->rep.jw));
        }
        session_free(&sv->s);
        sv->have_session = 0;
        rep_free(&sv->rep);
    }
    if (why)
        warnmsg("test aborted: %s", why);
    if (sv->ufd >= 0)
        close(sv->ufd);
    sv->ufd = -1;
    linger_add(sv, sv->ctl);    /* an error answer must not be lost to a reset */
    sv->ctl = -1;
    fflush(stdout);
    return rc;
}

int server_run(const struct perf_opts *o)
{
    struct server sv;
    memset(&sv, 0, sizeof sv);
    sv.o = o;
    sv.ufd = sv.ctl = -1;
    int family = o->family == AF_UNSPEC ? AF_INET6 : o->family;
    int gai = net_resolve(o->bind, o->bind ? o->family : family, o->port, 1, &sv.laddr, NULL);
    if (gai)
        die(EXIT_USAGE, "cannot use address %s: %s", o->bind ? o->bind : "(any)",
            net_gai_strerror(gai));
    if (o->rsa_private_key) {
        char err[400];
        struct auth_users users;
        sv.priv = auth_key_load_private(o->rsa_private_key, o->allow_readable_key, err,
                                        sizeof err);
        if (!sv.priv)
            die(EXIT_USAGE, "%s", err);
        if (auth_users_load(o->authorized_users, &users, err, sizeof err) < 0)
            die(EXIT_USAGE, "%s (lines user,<sha256 hex of \"{user}password\">)", err);
        if (users.n == 0)
            warnmsg("users file %s has no valid entry: every test will be refused",
                    o->authorized_users);
        auth_users_free(&users);
    }
    /* a large backlog: a flood is answered (ACCESS_DENIED) rather than left in SYN retries */
    sv.lfd = net_listen(SOCK_STREAM, &sv.laddr, 128);
    if (sv.lfd < 0 && !o->bind && o->family == AF_UNSPEC && errno == EAFNOSUPPORT) {
        net_resolve(NULL, AF_INET, o->port, 1, &sv.laddr, NULL);
        sv.lfd = net_listen(SOCK_STREAM, &sv.laddr, 128);
    }
    if (sv.lfd < 0)
        die(EXIT_USAGE, "cannot listen on port %u: %s (%s)", o->port, errtext(errno),
            errno == EADDRINUSE ? "another server runs there; pick another port with -p"
                                : "check -B and the port");
    net_set_nonblock(sv.lfd, 1);    /* accept never blocks: poll says when */
    int last = 0;
    for (int test = 1;; test++) {
        if (!o->json) {
            printf("-----------------------------------------------------------\n"
                   "Server listening on %u (test #%d)\n"
                   "-----------------------------------------------------------\n",
                   o->port, test);
            fflush(stdout);
        }
        union sockaddr_any peer;
        uint64_t idle_end = o->one_off && o->idle_timeout > 0
                                ? mono_ns() + (uint64_t)o->idle_timeout * NS_PER_SEC : 0;
        for (;;) {
            linger_service(&sv);
            uint64_t now = mono_ns();
            if (idle_end && now >= idle_end)
                die(EXIT_CHECK, "no client within --idle-timeout %llds",
                    (long long)o->idle_timeout);
            int quiet = now < sv.quiet_until;
            int tmo = idle_end ? ms_until(idle_end) : -1;
            if (sv.nlg && (tmo < 0 || tmo > 100))
                tmo = 100;
            if (quiet && (tmo < 0 || tmo > ms_until(sv.quiet_until)))
                tmo = ms_until(sv.quiet_until);
            struct pollfd pf = { sv.lfd, POLLIN, 0 };
            int rc = poll(&pf, quiet ? 0 : 1, tmo);
            if (rc < 0) {
                if (errno == EINTR)
                    continue;
                die(EXIT_USAGE, "poll on the listener: %s", errtext(errno));
            }
            if (rc == 0)
                continue;
            socklen_t pl = sizeof peer;
            sv.ctl = accept4(sv.lfd, &peer.sa, &pl, SOCK_CLOEXEC);
            if (sv.ctl >= 0)
                break;
            if ((errno == EMFILE || errno == ENFILE) && sv.nlg > 0)
                linger_close(&sv, 0);
        }
        last = server_test(&sv, &peer);
        if (o->one_off)
            break;
    }
    for (int i = sv.nlg - 1; i >= 0; i--)
        linger_close(&sv, i);
    close(sv.lfd);
    crypto_key_free(sv.priv);
    return last == 0 ? EXIT_OKAY : EXIT_CHECK;
}
