/* The UDP loops of a data stream (thread bodies): send whole datagrams in
 * batches (batch.c: sendmmsg, GSO) under the pacer and the -n/-k budgets, and
 * receive them (recvmmsg, GRO; with --skip-rx-copy each datagram's header only,
 * MSG_TRUNC, no GRO; at high rates napping between calls instead of blocking,
 * batch.h rx_nap), counting loss, jitter and order (udp.c). */
#include "stream_loop.h"
#include "fallback.h"
#include "pace.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>

#define UDP_RCVBUF (4 * 1024 * 1024)    /* asked for; the kernel caps it at rmem_max */

/* The end of a UDP loop, sending (tx) or receiving (rb; the other is NULL): when
 * the batch path changed while it ran (a technique refused at run time), the
 * path text adds what it fell back to ("how" is the path as it started); then
 * the final call count is published and the batch freed. */
static void udp_loop_done(struct stream *s, const char *how, struct udp_tx *tx,
                          struct udp_rxb *rb)
{
    char now[96];
    if (tx)
        udp_tx_describe(tx, now, sizeof now);
    else
        udp_rxb_describe(rb, now, sizeof now);
    if (strcmp(how, now))
        stream_path_add(s, "; fell back to %s", now);
    atomic_store(&s->calls, tx ? tx->calls : rb->calls);
    if (tx)
        udp_tx_free(tx);
    else
        udp_rxb_free(rb);
}

void stream_udp_send(struct stream *s)
{
    struct udp_tx tx;
    udp_tx_init(&tx, s->fd, s->blksize, s->counters64, s->buf, !(s->eng_off & ENG_MMSG),
                !(s->eng_off & ENG_GSO));
    char how[96];
    udp_tx_describe(&tx, how, sizeof how);
    stream_path_add(s, "UDP send: %s", how);
    uint64_t seq = 0;
    struct pace_clock pc = { 0, 0 };
    const uint64_t burst = stream_burst_bytes(s);   /* fixed for the test: not per batch */
    int wake = 1;
    if (s->rate_bps) {
        /* wake once per pacing period, or per full batch at high rates */
        wake = pace_wake_blocks(s->rate_bps, s->pacing_ns, s->blksize, BATCH_MAX);
        stream_path_add(s, ", paced %d datagrams per wake-up", wake);
    }
    for (;;) {
        stream_turn(s);
        if (atomic_load_explicit(&s->sh->stop_send, memory_order_relaxed))
            break;
        int n = tx.max;
        if (s->rate_bps) {
            uint64_t due = 0;
            stream_pace_sync(s, &pc);
            n = pace_step(s->rate_bps, mono_ns() - pc.from_ns, pc.sent, burst,
                          s->blksize, wake, tx.max, &due);
            if (n == 0) {
                if (stream_pace_wait(s, &pc, due) < 0)
                    break;
                continue;
            }
        }
        n = budget_take_datagrams(s, n);
        if (!n)
            break;
        int k = udp_tx_send(&tx, n, seq + 1);
        if (k < 0) {
            int e = errno;
            budget_return_datagrams(s, n);
            atomic_store_explicit(&s->calls, tx.calls, memory_order_relaxed);
            /* a full buffer, or ICMP unreachable reported on a connected socket */
            if (e == EAGAIN || e == EWOULDBLOCK)
                stream_io_wait(s, POLLOUT);
            if (e == EAGAIN || e == EWOULDBLOCK || e == EINTR || e == ENOBUFS || e == ECONNREFUSED)
                continue;
            atomic_store(&s->err, e);
            break;
        }
        budget_return_datagrams(s, n - k);
        seq += (uint64_t)k;
        pc.sent += (uint64_t)k * s->blksize;
        atomic_fetch_add_explicit(&s->bytes, (unsigned long long)k * s->blksize,
                                  memory_order_relaxed);
        atomic_fetch_add_explicit(&s->blocks, (unsigned long long)k, memory_order_relaxed);
        atomic_store_explicit(&s->calls, tx.calls, memory_order_relaxed);
    }
    udp_loop_done(s, how, &tx, NULL);
}

/* count the datagrams of m received messages; GRO ones hold several, each with
 * its own header. Returns the bytes counted. */
static uint64_t udp_consume(struct stream *s, const struct udp_rxb *rb, int m)
{
    double now = (double)wall_us() / 1e6;
    uint64_t bytes = 0, blocks = 0;
    pthread_mutex_lock(&s->lock);
    for (int i = 0; i < m; i++) {
        const unsigned char *d;
        size_t len, seg;
        udp_rxb_msg(rb, i, &d, &len, &seg);
        size_t cnt = gro_count(len, seg);
        for (size_t j = 0; j < cnt; j++) {
            size_t dl = gro_seg_len(len, seg, j);
            uint32_t sec, usec;
            uint64_t seq;
            if (udp_header_get(d + j * seg, dl, s->counters64, &sec, &usec, &seq) < 0)
                continue;   /* not one of ours (too short for the header) */
            udp_rx_update(&s->rx, seq, sec + usec / 1e6, now);
            bytes += dl;
            blocks++;
        }
    }
    pthread_mutex_unlock(&s->lock);
    atomic_fetch_add_explicit(&s->bytes, bytes, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->blocks, blocks, memory_order_relaxed);
    return bytes;
}

int stream_udp_heads(const struct stream *s)
{
    return s->udp && !s->sender && s->skip_rx_copy && !(s->eng_off & ENG_TRUNC);
}

/* a receiver's socket and batch: the receive buffer (returned: its size, 0 if
 * unknown) and whole datagrams (GRO) or, for --skip-rx-copy, their headers
 * only; the path text says which, and "how" keeps it for udp_loop_done */
static int udp_recv_setup(struct stream *s, struct udp_rxb *rb, char *how, size_t how_len)
{
    int rcvbuf = 0, asked = 0;
    if (!(s->eng_off & ENG_RCVBUF) && s->window <= 0) {
        /* a burst of datagrams must fit while this thread is off the CPU */
        int v = UDP_RCVBUF;
        asked = setsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof v) == 0;
        if (!asked)
            fallback_note("SO_RCVBUF", errno, "the system's UDP receive buffer: bursts may be lost");
    }
    socklen_t l = sizeof rcvbuf;
    if (getsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, &l) < 0) {
        fallback_note("getsockopt SO_RCVBUF", errno, RCVBUF_UNREAD);
        rcvbuf = 0;     /* unknown: the receiver's naps are sized by its batch alone */
    }
    if (stream_udp_heads(s))
        udp_rxb_init_heads(rb, s->fd, s->blksize, udp_header_size(s->counters64),
                           !(s->eng_off & ENG_MMSG));
    else
        udp_rxb_init(rb, s->fd, s->blksize, !(s->eng_off & ENG_MMSG), !(s->eng_off & ENG_GRO));
    udp_rxb_describe(rb, how, how_len);
    stream_path_add(s, "UDP receive: %s", how);
    if (asked && rcvbuf)
        stream_path_add(s, ", SO_RCVBUF %d", rcvbuf);
    return rcvbuf;
}

void stream_udp_recv(struct stream *s)
{
    struct udp_rxb rb;
    char how[96];
    int rcvbuf = udp_recv_setup(s, &rb, how, sizeof how);
    struct rx_nap nap;
    rx_nap_init(&nap, (size_t)rb.max * rb.room, rcvbuf);
    int flags = 0;            /* MSG_DONTWAIT right after a nap */
    for (;;) {
        stream_turn(s);
        if (atomic_load_explicit(&s->sh->stop_recv, memory_order_relaxed)) {
            uint64_t until = mono_ns() + DRAIN_MAX_NS;
            while (mono_ns() < until) {
                int m = udp_rxb_recv(&rb, MSG_DONTWAIT);
                if (m < 0 && errno == EINTR)
                    continue;
                if (m <= 0)
                    break;
                udp_consume(s, &rb, m);
            }
            break;
        }
        int m = udp_rxb_recv(&rb, flags);
        atomic_store_explicit(&s->calls, rb.calls, memory_order_relaxed);
        if (m < 0) {
            if (flags && (errno == EAGAIN || errno == EWOULDBLOCK))
                rx_nap_idle(&nap);          /* nothing came during the nap: block */
            else if (errno == EAGAIN || errno == EWOULDBLOCK)
                stream_io_wait(s, POLLIN);
            flags = 0;
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ||
                errno == ECONNREFUSED)
                continue;
            atomic_store(&s->err, errno);
            break;
        }
        uint64_t got = udp_consume(s, &rb, m);
        uint64_t nap_ns = rx_nap_after(&nap, mono_ns(), got, m == rb.max);
        flags = 0;
        if (nap_ns) {
            sleep_ns(nap_ns);
            flags = MSG_DONTWAIT;
        }
    }
    udp_loop_done(s, how, NULL, &rb);
}
