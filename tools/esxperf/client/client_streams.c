/* The client's connections: the control connection and the test's data streams
 * (TCP with the cookie, or UDP with the hello and the server's reply), each
 * connect bounded by --connect-timeout and shut by a stop signal (client_abort.c);
 * a stream that cannot be made says why, with the errno (out of descriptors:
 * exit 2, naming the limit). */
#include "client_conn.h"
#include "clock.h"
#include "fail.h"
#include "file_opt.h"
#include "sockopt_apply.h"
#include "udp.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

int client_dial(struct client *c, int type, const struct test_params *p, uint16_t cport,
                const char **why)
{
    union sockaddr_any dst = c->dst;
    int data_tcp = p && type == SOCK_STREAM;
    int proto = data_tcp ? sockopt_tcp_proto(c->o) : 0;
    int fd = socket(dst.sa.sa_family, type | SOCK_CLOEXEC, proto);
    if (fd < 0) {
        *why = data_tcp && c->o->mptcp ? "cannot create an MPTCP socket (-m)"
                                       : "cannot create a socket";
        return -1;
    }
    if (p && sockopt_data(fd, p, net_wire_family(&c->dst), why) < 0)
        goto fail;
    if (sockopt_bind_dev(fd, c->o, why) < 0)
        goto fail;
    if (data_tcp && (sockopt_snd_timeout(fd, c->o, why) < 0 ||
                     sockopt_flowlabel(fd, p->flowlabel, &dst, why) < 0))
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
    client_stop_watch(c->stop, STOP_DIAL, fd);
    int crc = net_connect_fd(fd, &dst, tmo);
    int e = errno;
    client_stop_watch(c->stop, STOP_DIAL, -1);
    errno = e;
    if (crc < 0) {
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

/* UDP stream i's hello got no reply, and the control connection spoke instead.
 * An esxperf server waits for the hellos as long as we wait for its reply (its
 * --control-timeout is 10 s too): when its timer runs out first it says so
 * (SERVER_ERROR, iperf3's error 204 with ETIMEDOUT) before closing, and that is
 * told as our own timeout is, "is UDP blocked?", whichever side gave up first.
 * TEST_START means the server took our hello and its reply was lost. */
static int udp_no_reply(struct client *c, int i)
{
    struct server_state got;
    char msg[400];
    if (ctl_expect(c->ctl, ST_TEST_START, mono_ns() + CTL_WAIT_NS, &got) == 0)
        return cfail(c, EXIT_CHECK, "UDP stream %d: no UDP reply from the server (is UDP "
                     "blocked?): it took our hello and sent TEST_START, so its reply was "
                     "lost", i + 1);
    if (!got.io_err && got.st == ST_SERVER_ERROR && got.ncodes == 2 &&
        got.ierr == IE_STREAMACCEPT && got.err == ETIMEDOUT)
        return cfail(c, EXIT_CHECK, "UDP stream %d: no UDP reply from the server (is UDP "
                     "blocked?): the server got no UDP hello within its --control-timeout",
                     i + 1);
    ctl_expect_text(&got, ST_TEST_START, CTL_WAIT_S, msg, sizeof msg);
    return cfail(c, EXIT_CHECK, "%s", msg);
}

/* stream i (cport: its local port, or 0) could not be opened: why, with the errno */
static int stream_fail(struct client *c, int i, uint16_t cport, const char *why, int e)
{
    char what[300];
    snprintf(what, sizeof what, "%s%s%s", why ? why : "", why ? ": " : "", perf_errtext(e));
    if (e == EMFILE || e == ENFILE) {
        struct rlimit rl;
        char lim[64] = "";
        if (e == EMFILE && getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
            snprintf(lim, sizeof lim, " (now %llu)", (unsigned long long)rl.rlim_cur);
        return cfail(c, EXIT_USAGE, "cannot open data stream %d to %s port %u: %s (each "
                     "stream takes descriptors: raise the limit with ulimit -n%s, or ask "
                     "for fewer streams with -P)", i + 1, c->host, c->o->port, what, lim);
    }
    if (cport)
        return cfail(c, EXIT_CHECK, "cannot open data stream %d to %s port %u from local "
                     "port %u: %s (with --cport %u, stream N uses local port %u+N-1: "
                     "choose a free range)", i + 1, c->host, c->o->port, cport, what,
                     c->o->cport, c->o->cport);
    return cfail(c, EXIT_CHECK, "cannot open data stream %d to %s port %u: %s", i + 1,
                 c->host, c->o->port, what);
}

/* stream i is open but the session cannot take it (-F's file, threads, memory) */
static int add_fail(struct client *c, int i, int sender, int e)
{
    char why[400];
    if (!c->o->file)
        return cfail(c, EXIT_USAGE, "cannot set up data stream %d: %s", i + 1, perf_errtext(e));
    if (file_opt_check(c->o->file, sender, why, sizeof why) == 0)
        snprintf(why, sizeof why, "cannot open -F file %s %s: %s", c->o->file,
                 sender ? "to send" : "to write what arrives", e == EINVAL
                 ? "it is not a regular file" : perf_errtext(e));
    return cfail(c, EXIT_USAGE, "%s", why);
}

int client_create_streams(struct client *c, const struct test_params *p)
{
    int n = (int)p->parallel * (p->bidir ? 2 : 1);
    for (int i = 0; i < n; i++) {
        const char *why = NULL;
        /* --cport: stream i takes the next port, as iperf3 does (opts_validate
         * made sure the last one is at most 65535) */
        uint16_t cport = c->o->cport ? (uint16_t)(c->o->cport + i) : 0;
        int fd = client_dial(c, p->udp ? SOCK_DGRAM : SOCK_STREAM, p, cport, &why);
        if (fd < 0)
            return stream_fail(c, i, cport, why, errno);
        if (p->udp) {
            int hrc = udp_hello(fd, c->ctl, &why);
            if (hrc) {
                close(fd);
                return hrc < 0 ? cfail(c, EXIT_CHECK, "UDP stream %d: %s", i + 1, why)
                               : udp_no_reply(c, i);
            }
        } else if (net_write_full(fd, c->cookie, COOKIE_SIZE, mono_ns() + CTL_WAIT_NS) < 0) {
            int e = errno;
            close(fd);
            return cfail(c, EXIT_CHECK, "cannot send the cookie on data stream %d: %s", i + 1,
                         perf_errtext(e));
        }
        int sender = session_is_sender(&c->s, i);
        if (!session_add(&c->s, fd, sender)) {
            int e = errno;
            close(fd);
            return add_fail(c, i, sender, e);
        }
    }
    return 0;
}
