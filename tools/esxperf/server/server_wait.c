/* The wait for the next test. Every connection that has not sent its whole cookie
 * yet is read side by side with the listener and the stop signal, each within its
 * own --control-timeout, so that one that stays silent (or sends half a cookie)
 * holds only itself: a real client behind it is served at once. The first whole
 * cookie makes the test; the others still waiting then get ACCESS_DENIED, as any
 * connection during a test does, unless that cookie is no iperf3 cookie (its test
 * ends at once, so it denies no one). A connection that brings the last test's cookie
 * is one of its data streams come late (that test has ended): denied without a log
 * line. The table is small and a full one makes room by dropping its oldest; out
 * of descriptors, a refused connection's, then the oldest waiting one's descriptor
 * is given up, else the listener rests 100 ms (said once). */
#include "server.h"
#include "server_conn.h"
#include "daemon.h"
#include "fail.h"
#include "sockopt_apply.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define ACCEPT_PAUSE_NS (100 * NS_PER_MS)   /* out of descriptors: listener left alone */
#define ACCEPT_BATCH 16                     /* connections accepted per pass */

/* pending i out of the table: closed, with a log line when why is given */
static void pending_drop(struct server *sv, int i, const char *why)
{
    if (why) {
        char ph[64];
        rep_addr(&sv->pend[i].peer, ph, sizeof ph);
        warnmsg("connection from %s dropped: %s", ph, why);
    }
    close(sv->pend[i].fd);
    sv->pend[i] = sv->pend[--sv->npend];
}

static int oldest_pending(const struct server *sv)
{
    int old = 0;
    for (int i = 1; i < sv->npend; i++)
        if (sv->pend[i].until < sv->pend[old].until)
            old = i;
    return old;
}

/* out of descriptors at accept: one given up for the next connection (1), or the
 * listener rests (0) */
static int free_descriptor(struct server *sv, uint64_t now)
{
    if (sv->nlg > 0) {
        linger_close(sv, 0);
        return 1;
    }
    if (sv->npend > 0) {
        pending_drop(sv, oldest_pending(sv), "out of descriptors (ulimit -n): the oldest "
                     "connection still without a cookie makes room");
        return 1;
    }
    if (!sv->accept_told)
        warnmsg("cannot accept a connection: %s (raise the descriptor limit: ulimit -n)",
                perf_errtext(errno));
    sv->accept_told = 1;
    sv->deny_pause_until = now + ACCEPT_PAUSE_NS;
    return 0;
}

/* new connections into the table, each given --control-timeout for its cookie */
static void pending_accept(struct server *sv, uint64_t now)
{
    for (int k = 0; k < ACCEPT_BATCH; k++) {
        union sockaddr_any peer;
        socklen_t pl = sizeof peer;
        int fd = accept4(sv->lfd, &peer.sa, &pl, SOCK_CLOEXEC);
        if (fd < 0 && (errno == EMFILE || errno == ENFILE)) {
            if (free_descriptor(sv, now))
                continue;
            return;
        }
        if (fd < 0)
            return;
        sv->accept_told = 0;
        const char *why;
        if (sockopt_control(fd, sv->o, &why) < 0)
            warnmsg("control connection: %s: %s", why, perf_errtext(errno));
        if (sv->npend == PENDING_MAX)
            pending_drop(sv, oldest_pending(sv), "too many connections without a cookie: "
                         "the oldest makes room");
        struct pending *p = &sv->pend[sv->npend++];
        memset(p, 0, sizeof *p);
        p->fd = fd;
        p->peer = peer;
        p->until = now + (uint64_t)sv->o->control_timeout_ms * NS_PER_MS;
    }
}

/* what pending i sent: 1 when its cookie is whole, 0 not yet, -1 dropped */
static int pending_read(struct server *sv, int i)
{
    struct pending *p = &sv->pend[i];
    ssize_t r = recv(p->fd, p->cookie + p->got, COOKIE_SIZE - p->got, MSG_DONTWAIT);
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return 0;
    if (r <= 0) {
        pending_drop(sv, i, "the client closed before sending its cookie");
        return -1;
    }
    p->got += (size_t)r;
    return p->got == COOKIE_SIZE;
}

/* pending i's cookie is whole: the test's control connection (1), or a late data
 * stream of the last test, denied (0) */
static int pending_take(struct server *sv, int i, union sockaddr_any *peer)
{
    struct pending *p = &sv->pend[i];
    if (sv->have_cookie && memcmp(p->cookie, sv->cookie, COOKIE_SIZE) == 0) {
        int fd = p->fd;
        sv->pend[i] = sv->pend[--sv->npend];
        server_deny(sv, fd);
        return 0;
    }
    sv->ctl = p->fd;
    *peer = p->peer;
    memcpy(sv->cookie, p->cookie, COOKIE_SIZE);
    sv->have_cookie = proto_cookie_valid(sv->cookie, COOKIE_SIZE);
    sv->pend[i] = sv->pend[--sv->npend];
    /* a cookie that is no iperf3 cookie makes a test that the handshake ends at
     * once: the connections still waiting stay, and the next of them is served */
    while (sv->have_cookie && sv->npend > 0) {  /* the test runs: the others are denied */
        int fd = sv->pend[0].fd;
        sv->pend[0] = sv->pend[--sv->npend];
        server_deny(sv, fd);
    }
    atomic_store(&sv->stop.ctl, sv->ctl);
    return 1;
}

void server_pending_end(struct server *sv, int stopped)
{
    while (sv->npend > 0) {
        if (stopped) {           /* as a running test's client is told */
            signed char st = (signed char)ST_SERVER_TERMINATE;
            (void)!send(sv->pend[0].fd, &st, 1, MSG_DONTWAIT | MSG_NOSIGNAL);
        }
        pending_drop(sv, 0, NULL);
    }
}

/* the poll timeout: the nearest of the deadlines (ms, -1 none) */
static int wait_ms(const struct server *sv, uint64_t idle_end, uint64_t now)
{
    uint64_t next = idle_end;
    for (int i = 0; i < sv->npend; i++)
        if (!next || sv->pend[i].until < next)
            next = sv->pend[i].until;
    if (now < sv->quiet_until && (!next || sv->quiet_until < next))
        next = sv->quiet_until;
    if (now < sv->deny_pause_until && (!next || sv->deny_pause_until < next))
        next = sv->deny_pause_until;
    int ms = next ? ms_until(next) : -1;
    if (sv->nlg && (ms < 0 || ms > 100))
        ms = 100;
    return ms;
}

/* the connections whose time is up, dropped */
static void pending_expire(struct server *sv, uint64_t now)
{
    for (int i = 0; i < sv->npend;)
        if (now >= sv->pend[i].until)
            pending_drop(sv, i, "no cookie from the client within --control-timeout");
        else
            i++;
}

/* one pass over what poll found: 1 when a test's control connection is in sv->ctl */
static int serve_ready(struct server *sv, const struct pollfd *pf, int npf,
                       union sockaddr_any *peer, uint64_t now)
{
    /* pf[2 + i] is pend[i] as it was at the poll: walk back, as a drop moves the
     * last entry into its place */
    for (int i = npf - 3; i >= 0; i--) {
        if (!pf[2 + i].revents || i >= sv->npend)
            continue;
        if (pending_read(sv, i) == 1 && pending_take(sv, i, peer))
            return 1;
    }
    if (npf > 1 && (pf[1].revents & POLLIN))
        pending_accept(sv, now);
    return 0;
}

int server_next_client(struct server *sv, union sockaddr_any *peer)
{
    const struct perf_opts *o = sv->o;
    uint64_t idle_end = o->one_off && o->idle_timeout > 0
                            ? mono_ns() + (uint64_t)o->idle_timeout * NS_PER_SEC : 0;
    struct pollfd pf[2 + PENDING_MAX];
    for (;;) {
        linger_service(sv);
        uint64_t now = mono_ns();
        if (idle_end && now >= idle_end) {
            pidfile_remove(o->pidfile);
            die(EXIT_CHECK, "no client within --idle-timeout %llds", (long long)o->idle_timeout);
        }
        pending_expire(sv, now);
        /* after a refused token nothing is served for a while (RSA probing is slow) */
        int quiet = now < sv->quiet_until;
        int npf = 1;
        pf[0] = (struct pollfd){ sv->stop.fd[0], POLLIN, 0 };
        if (!quiet) {
            pf[npf++] = (struct pollfd){ sv->lfd, now < sv->deny_pause_until ? 0 : POLLIN, 0 };
            for (int i = 0; i < sv->npend; i++)
                pf[npf++] = (struct pollfd){ sv->pend[i].fd, POLLIN, 0 };
        }
        int rc = poll(pf, (nfds_t)npf, wait_ms(sv, idle_end, now));
        if (stop_guard_signal(&sv->stop))
            return -1;
        if (rc < 0 && errno != EINTR) {
            pidfile_remove(o->pidfile);
            die(EXIT_USAGE, "poll on the listener: %s", perf_errtext(errno));
        }
        if (rc > 0 && serve_ready(sv, pf, npf, peer, mono_ns()))
            return 0;
    }
}
