/* The data streams of a test on the server: TCP connections that bring our
 * cookie (others are denied), or UDP hellos, each answered by a socket of its own
 * bound to the address the hello was sent to (udp_dest.h); every wait has the
 * step's deadline and ends when the client closes the control connection. */
#include "server_conn.h"
#include "sockopt_apply.h"
#include "fail.h"
#include "fallback.h"
#include "udp.h"
#include "udp_dest.h"

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

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
        errno = rc == 0 ? ETIMEDOUT : errno;
        return -1;
    }
    if (pf[1].revents) {
        *why = "the client closed the control connection during stream setup";
        errno = ECONNRESET;
        return -1;
    }
    return 1;
}

/* out of descriptors for the next data stream: the client is told (iperf3's
 * error 204 with EMFILE) rather than left waiting for TEST_START */
static int no_descriptor(struct server *sv, const char **why)
{
    int e = errno;
    snprintf(sv->why, sizeof sv->why, "cannot accept data stream %d: %s (raise the "
             "server's descriptor limit, ulimit -n, or ask for fewer streams with -P)",
             sv->s.nstreams + 1, perf_errtext(e));
    *why = sv->why;
    proto_send_error(sv->ctl, IE_STREAMACCEPT, e, mono_ns() + NS_PER_SEC);
    return -1;
}

/* fd into the session, or the test's end told to the client: iperf3's IEFILE
 * for -F's file, else its error 201 with the errno */
static int add_stream(struct server *sv, int fd, const char **why)
{
    if (session_add(&sv->s, fd, session_is_sender(&sv->s, sv->s.nstreams)))
        return 0;
    int e = errno;
    close(fd);
    if (sv->o->file) {
        snprintf(sv->why, sizeof sv->why, "cannot open the -F file %s: %s", sv->o->file,
                 e == EINVAL ? "it is not a regular file" : perf_errtext(e));
        proto_send_error(sv->ctl, IE_FILE, e, mono_ns() + NS_PER_SEC);
    } else {
        snprintf(sv->why, sizeof sv->why, "cannot set up data stream %d: %s",
                 sv->s.nstreams + 1, perf_errtext(e));
        proto_send_error(sv->ctl, IE_INITSTREAM, e, mono_ns() + NS_PER_SEC);
    }
    *why = sv->why;
    return -1;
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
        if (fd < 0 && (errno == EMFILE || errno == ENFILE) && sv->nlg > 0) {
            linger_close(sv, 0);     /* a refused connection's descriptor, for this one */
            continue;
        }
        if (fd < 0 && (errno == EMFILE || errno == ENFILE))
            return no_descriptor(sv, why);
        if (fd < 0)
            continue;
        /* a real client sends the cookie with the connection; a silent one holds
         * the setup at most 3 s (and never past the step deadline) */
        char ck[COOKIE_SIZE];
        uint64_t cdl = mono_ns() + 3 * NS_PER_SEC;
        if (net_read_full(fd, ck, sizeof ck, cdl < deadline ? cdl : deadline) < 0 ||
            memcmp(ck, sv->cookie, COOKIE_SIZE) != 0) {
            server_deny(sv, fd);
            continue;
        }
        const char *w = NULL;
        /* -S and --dont-fragment follow the packets' IP version: on the dual-stack
         * listener an IPv4 client is an IPv4-mapped peer of an AF_INET6 socket */
        if (sockopt_data(fd, &sv->s.p, net_wire_family(&from), &w) < 0) {
            /* options such as -C may be unknown here: iperf3 also carries on */
            warnmsg("data stream: %s", w);
        }
        if (sockopt_snd_timeout(fd, sv->o, &w) < 0)
            warnmsg("data stream: %s", w);
        if (add_stream(sv, fd, why) < 0)
            return -1;
        got++;
    }
    return 0;
}

static int is_wildcard(const union sockaddr_any *a)
{
    return a->sa.sa_family == AF_INET ? a->in4.sin_addr.s_addr == htonl(INADDR_ANY)
                                      : IN6_IS_ADDR_UNSPECIFIED(&a->in6.sin6_addr);
}

int server_open_udp_listener(struct server *sv)
{
    sv->ufd = sockopt_listen(sv->o, SOCK_DGRAM, &sv->laddr, 0);
    if (sv->ufd < 0)
        return -1;
    /* a wildcard listener learns each hello's destination; one on a single address
     * (-B) answers from it anyway. A host without IP_PKTINFO (VMkernel may lack it)
     * answers as iperf3 does, and so does ESXPERF_ENGINE_OFF=pktinfo (the test of
     * that path) */
    if (is_wildcard(&sv->laddr) &&
        !(stream_engine_off(getenv("ESXPERF_ENGINE_OFF")) & ENG_PKTINFO))
        udp_dest_enable(sv->ufd, sv->laddr.sa.sa_family);
    return 0;
}

/* the socket of the UDP stream whose hello came from `from` to `to`: a new one
 * bound to `to`, whence the client's connected socket takes datagrams; where the
 * host did not say `to` or refuses that bind, the listener itself, connected
 * (its source is then the address the routing table picks, as iperf3's is);
 * -1 when neither connects */
static int udp_stream_fd(struct server *sv, const union sockaddr_any *from, socklen_t fl,
                         const union sockaddr_any *to)
{
    if (to->sa.sa_family != AF_UNSPEC) {
        int fd = udp_dest_socket(to, net_port(&sv->laddr), sv->o->bind_dev, from, fl);
        if (fd >= 0)
            return fd;
        int e = errno;
        char a[64];
        rep_addr(to, a, sizeof a);
        warnmsg("UDP stream: cannot answer from %s, the address the client sent to: %s "
                "(replies leave from the address the routing table picks)", a, errtext(e));
    }
    if (connect(sv->ufd, &from->sa, fl) < 0)
        return -1;
    int fd = sv->ufd;
    sv->ufd = -1;
    return fd;
}

/* UDP data streams: each hello datagram gets that stream's socket, connected to
 * the client (udp_stream_fd); when that took the listener, a fresh one takes its
 * place */
static int accept_udp_streams(struct server *sv, int n, const char **why)
{
    uint64_t deadline = ctl_deadline(sv);
    int got = 0;
    while (got < n) {
        int rc = setup_wait(sv, sv->ufd, deadline,
            "the client did not open its UDP streams within --control-timeout", why);
        /* said, so that the client calls it what it is (is UDP blocked?) also when
         * this timer runs out before its own */
        if (rc < 0 && errno == ETIMEDOUT)
            proto_send_error(sv->ctl, IE_STREAMACCEPT, ETIMEDOUT, mono_ns() + NS_PER_SEC);
        if (rc < 0)
            return -1;
        if (rc == 0)
            continue;
        unsigned char msg[64];
        union sockaddr_any from, to;
        socklen_t fl = sizeof from;
        ssize_t r = udp_recv_dest(sv->ufd, msg, sizeof msg, MSG_DONTWAIT, &from, &fl, &to);
        if (r != 4)
            continue;
        enum udp_connect_kind kind = udp_connect_kind(msg, 1);
        int fd = udp_stream_fd(sv, &from, fl, &to);
        if (fd < 0)
            continue;
        const char *w = NULL;
        if (sockopt_data(fd, &sv->s.p, net_wire_family(&from), &w) < 0)
            warnmsg("data stream: %s", w);
        if (add_stream(sv, fd, why) < 0)
            return -1;
        got++;
        /* the listener is only needed for the streams still to come (each test
         * opens its own): a host that refuses SO_REUSEADDR has one UDP stream */
        if (sv->ufd < 0 && got < n && server_open_udp_listener(sv) < 0) {
            *why = errno == EADDRINUSE && fallback_has("SO_REUSEADDR")
                       ? "cannot reopen the UDP listener for the next stream: this host refused "
                         "SO_REUSEADDR, so a UDP test has one stream here (-P 1)"
                       : "cannot reopen the UDP listener";
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

int server_accept_streams(struct server *sv, int n, const char **why)
{
    return sv->s.p.udp ? accept_udp_streams(sv, n, why) : accept_tcp_streams(sv, n, why);
}
