/* Server role: listen, take one test at a time, answer other connections with
 * ACCESS_DENIED, and return to listening whatever the client does. */
#include "server.h"
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
#include <unistd.h>

#define SEC 1000000000ull
#define STEP_NS (30 * SEC)          /* each setup step must finish within this */
#define IE_RECVPARAMS 114           /* iperf3's "unable to receive parameters" */

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
};

/* Issue 6 (RSA authentication) checks p->authtoken here when the server has
 * --rsa-private-key-path and --authorized-users-path. Returns 0 to accept. */
static int server_check_authtoken(const struct perf_opts *o, const struct test_params *p)
{
    (void)o;
    (void)p;
    return 0;
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
    net_write_full(fd, b, sizeof b, mono_ns() + SEC);
}

/* someone connected while a test runs: read its cookie briefly, deny, close */
static void deny(int lfd)
{
    int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0)
        return;
    char ck[COOKIE_SIZE];
    net_read_full(fd, ck, sizeof ck, mono_ns() + SEC / 5);
    ctl_send_state(fd, ST_ACCESS_DENIED, mono_ns() + SEC / 5);
    shutdown(fd, SHUT_WR);
    close(fd);
}

/* TCP data streams: accept until n arrived with our cookie */
static int accept_tcp_streams(struct server *sv, int n, const char **why)
{
    uint64_t deadline = mono_ns() + STEP_NS;
    int got = 0;
    while (got < n) {
        struct pollfd pf[2] = { { sv->lfd, POLLIN, 0 }, { sv->ctl, POLLIN, 0 } };
        int rc = poll(pf, 2, ms_until(deadline));
        if (rc < 0 && errno == EINTR)
            continue;
        if (rc <= 0) {
            *why = "the client did not open its data streams within 30 s";
            return -1;
        }
        if (pf[1].revents) {
            *why = "the client closed the control connection during stream setup";
            return -1;
        }
        int fd = accept4(sv->lfd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0)
            continue;
        char ck[COOKIE_SIZE];
        if (net_read_full(fd, ck, sizeof ck, mono_ns() + 5 * SEC) < 0 ||
            memcmp(ck, sv->cookie, COOKIE_SIZE) != 0) {
            ctl_send_state(fd, ST_ACCESS_DENIED, mono_ns() + SEC / 5);
            close(fd);
            continue;
        }
        const char *w = NULL;
        if (stream_sockopts(fd, &sv->s.p, sv->laddr.sa.sa_family, &w) < 0) {
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
    uint64_t deadline = mono_ns() + STEP_NS;
    int got = 0;
    while (got < n) {
        struct pollfd pf[2] = { { sv->ufd, POLLIN, 0 }, { sv->ctl, POLLIN, 0 } };
        int rc = poll(pf, 2, ms_until(deadline));
        if (rc < 0 && errno == EINTR)
            continue;
        if (rc <= 0) {
            *why = "the client did not open its UDP streams within 30 s";
            return -1;
        }
        if (pf[1].revents) {
            *why = "the client closed the control connection during stream setup";
            return -1;
        }
        unsigned char msg[64];
        union sockaddr_any from;
        socklen_t fl = sizeof from;
        ssize_t r = recvfrom(sv->ufd, msg, sizeof msg, MSG_DONTWAIT, &from.sa, &fl);
        if (r != 4)
            continue;
        int kind = udp_connect_kind(msg, 1);
        if (connect(sv->ufd, &from.sa, fl) < 0)
            continue;
        int fd = sv->ufd;
        sv->ufd = -1;
        const char *w = NULL;
        if (stream_sockopts(fd, &sv->s.p, sv->laddr.sa.sa_family, &w) < 0)
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
        udp_connect_value(reply, kind == 2 ? 2 : 1, 0);
        if (send(fd, reply, 4, MSG_NOSIGNAL) != 4) {
            *why = "cannot answer the UDP hello";
            return -1;
        }
    }
    return 0;
}

static void print_accepted(struct server *sv, const union sockaddr_any *peer)
{
    char h[64];
    rep_addr(peer, h, sizeof h);
    rep_printf(&sv->rep, "Accepted connection from %s, port %u\n", h, net_port(peer));
    for (int i = 0; i < sv->s.nstreams; i++) {
        union sockaddr_any la, ra;
        socklen_t ll = sizeof la, rl = sizeof ra;
        char lh[64], rh[64];
        memset(&la, 0, sizeof la);
        memset(&ra, 0, sizeof ra);
        getsockname(sv->s.st[i].fd, &la.sa, &ll);
        getpeername(sv->s.st[i].fd, &ra.sa, &rl);
        rep_addr(&la, lh, sizeof lh);
        rep_addr(&ra, rh, sizeof rh);
        rep_printf(&sv->rep, "[%3d] local %s port %u connected to %s port %u\n", sv->s.st[i].fd, lh,
                   net_port(&la), rh, net_port(&ra));
    }
}

/* wait for TEST_END while streams run; deny other clients */
static int run_until_end(struct server *sv, const char **why)
{
    struct session *s = &sv->s;
    uint64_t limit = 0;
    if (s->p.time && !s->p.num && !s->p.blockcount)
        limit = mono_ns() + (uint64_t)(s->p.time + s->p.omit + 60) * SEC;
    for (;;) {
        uint64_t now = mono_ns();
        int ms = session_poll(s, now);
        if (limit && now > limit) {
            *why = "the client did not end the test in time";
            return -1;
        }
        struct pollfd pf[2] = { { sv->ctl, POLLIN, 0 }, { sv->lfd, POLLIN, 0 } };
        int rc = poll(pf, 2, ms < 1 ? 1 : ms);
        if (rc < 0 && errno != EINTR) {
            *why = "poll failed";
            return -1;
        }
        if (rc <= 0)
            continue;
        if (pf[1].revents & POLLIN)
            deny(sv->lfd);
        if (pf[0].revents) {
            int st;
            if (ctl_recv_state(sv->ctl, &st, now + SEC) < 0) {
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
    }
}

static uint64_t ctl_deadline(const struct server *sv)
{
    uint64_t step = sv->o->idle_timeout > 0 ? (uint64_t)sv->o->idle_timeout * SEC : STEP_NS;
    return mono_ns() + step;
}

/* one test on an accepted control connection; returns 0 when it completed */
static int server_test(struct server *sv, const union sockaddr_any *peer)
{
    const struct perf_opts *o = sv->o;
    const char *why = NULL;
    int rc = -1;
    if (net_read_full(sv->ctl, sv->cookie, COOKIE_SIZE, ctl_deadline(sv)) < 0) {
        why = "no cookie from the client";
        goto done;
    }
    int one = 1;
    setsockopt(sv->ctl, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (ctl_send_state(sv->ctl, ST_PARAM_EXCHANGE, ctl_deadline(sv)) < 0) {
        why = "cannot write to the client";
        goto done;
    }
    char *pjs = NULL;
    size_t plen = 0;
    if (ctl_recv_json(sv->ctl, PARAMS_MAX, &pjs, &plen, ctl_deadline(sv)) < 0) {
        why = errno == EMSGSIZE ? "the client's parameters are empty or over 8 KiB"
                                : "cannot read the client's parameters";
        send_error(sv->ctl, IE_RECVPARAMS, errno == EMSGSIZE ? EMSGSIZE : 0);
        goto done;
    }
    struct test_params p;
    const char *pwhy = NULL;
    int prc = params_decode(pjs, plen, &p, &pwhy);
    free(pjs);
    if (prc < 0) {
        why = pwhy;
        send_error(sv->ctl, IE_RECVPARAMS, EINVAL);
        goto done;
    }
    if (!p.len)
        p.len = p.udp ? 1460 : 128 * 1024;
    if (server_check_authtoken(o, &p) < 0) {
        /* as iperf3 3.12: SERVER_ERROR and one int32, 142 (IEAUTHTEST) */
        static const unsigned char denied[5] = { 0xfe, 0, 0, 0, 142 };
        why = "authentication failed";
        net_write_full(sv->ctl, denied, sizeof denied, mono_ns() + SEC);
        goto done;
    }
    rep_init(&sv->rep, stdout, o->json, o->format, p.get_server_output && !o->json);
    sv->rep.forceflush = o->forceflush;
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
    if (o->json)
        session_json_start(&sv->s, NULL, 0, ph, net_port(peer), sv->cookie);
    else
        print_accepted(sv, peer);
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
        session_json_finish(&sv->s, NULL);
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
    if (ctl_recv_state(sv->ctl, &st, mono_ns() + 10 * SEC) == 0 && st != ST_IPERF_DONE)
        warnmsg("client ended with state %d instead of IPERF_DONE", st);
    rc = 0;
done:
    if (sv->have_session) {
        if (o->json && rc == 0)
            printf("%s\n", jw_text(&sv->rep.jw));
        else if (o->json && why) {
            session_json_finish(&sv->s, why);
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
    close(sv->ctl);
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
    sv.lfd = net_listen(SOCK_STREAM, &sv.laddr, 16);
    if (sv.lfd < 0 && !o->bind && o->family == AF_UNSPEC && errno == EAFNOSUPPORT) {
        net_resolve(NULL, AF_INET, o->port, 1, &sv.laddr, NULL);
        sv.lfd = net_listen(SOCK_STREAM, &sv.laddr, 16);
    }
    if (sv.lfd < 0)
        die(EXIT_USAGE, "cannot listen on port %u: %s (%s)", o->port, errtext(errno),
            errno == EADDRINUSE ? "another server runs there; pick another port with -p"
                                : "check -B and the port");
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
        socklen_t pl = sizeof peer;
        for (;;) {
            struct pollfd pf = { sv.lfd, POLLIN, 0 };
            int tmo = o->one_off && o->idle_timeout > 0 ? (int)o->idle_timeout * 1000 : -1;
            int rc = poll(&pf, 1, tmo);
            if (rc == 0)
                die(EXIT_CHECK, "no client within --idle-timeout %llds",
                    (long long)o->idle_timeout);
            if (rc < 0) {
                if (errno == EINTR)
                    continue;
                die(EXIT_USAGE, "poll on the listener: %s", errtext(errno));
            }
            sv.ctl = accept4(sv.lfd, &peer.sa, &pl, SOCK_CLOEXEC);
            if (sv.ctl >= 0)
                break;
        }
        last = server_test(&sv, &peer);
        if (o->one_off)
            break;
    }
    close(sv.lfd);
    return last == 0 ? EXIT_OKAY : EXIT_CHECK;
}
