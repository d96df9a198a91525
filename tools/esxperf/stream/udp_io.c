/* The UDP steps of a data stream (udp_io.h): one batch of datagrams each, what
 * it moved counted; the first step sets the batch and the path up, the last
 * frees the batch. */
#include "udp_io.h"
#include "budget.h"
#include "fallback.h"
#include "stream.h"

#include <errno.h>
#include <poll.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/socket.h>

#define UDP_RCVBUF (4 * 1024 * 1024)    /* asked for; the kernel caps it at rmem_max */

/* The last step of a UDP stream, sending (tx) or receiving (rb; the other is
 * NULL): when the batch path changed while it ran (a technique refused at run time), the
 * path text adds what it fell back to ("how" is the path as it started); then
 * the final call count is published and the batch freed. */
static int udp_io_done(struct stream *s, const char *how, struct udp_tx *tx,
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
    return STEP_DONE;
}

/* the first step of a sender: the batch, the path, the pacer's wake-ups */
static void udp_send_begin(struct stream *s, struct udp_io *u)
{
    u->begun = 1;
    udp_tx_init(&u->tx, s->fd, s->blksize, s->counters64, s->buf, !(s->eng_off & ENG_MMSG),
                !(s->eng_off & ENG_GSO));
    udp_tx_describe(&u->tx, u->how, sizeof u->how);
    stream_path_add(s, "UDP send: %s", u->how);
    u->burst = budget_burst_bytes(s);
    u->wake = 1;
    if (s->rate_bps) {
        /* wake once per pacing period, or per full batch at high rates */
        u->wake = pace_wake_blocks(s->rate_bps, s->pacing_ns, s->blksize, BATCH_MAX);
        stream_path_add(s, ", paced %d datagrams per wake-up", u->wake);
    }
}

int udp_send_step(struct stream *s)
{
    struct udp_io *u = &s->io.udp;
    if (!u->begun)
        udp_send_begin(s, u);
    if (atomic_load_explicit(&s->sh->stop_send, memory_order_relaxed))
        return udp_io_done(s, u->how, &u->tx, NULL);
    int n = u->tx.max;
    if (s->rate_bps) {
        uint64_t due = 0;
        budget_pace_sync(s, &u->pc);
        n = pace_step(s->rate_bps, mono_ns() - u->pc.from_ns, u->pc.sent, u->burst,
                      s->blksize, u->wake, u->tx.max, &due);
        if (n == 0)
            return stream_wait(s, 0, u->pc.from_ns + due);
    }
    n = budget_take_datagrams(s, n);
    if (!n)
        return udp_io_done(s, u->how, &u->tx, NULL);
    int k = udp_tx_send(&u->tx, n, u->seq + 1);
    if (k < 0) {
        int e = errno;
        budget_return_datagrams(s, n);
        atomic_store_explicit(&s->calls, u->tx.calls, memory_order_relaxed);
        /* a full buffer, or ICMP unreachable reported on a connected socket */
        if (e == EAGAIN || e == EWOULDBLOCK)
            return stream_wait(s, POLLOUT, 0);
        if (e == EINTR || e == ENOBUFS || e == ECONNREFUSED)
            return STEP_ON;
        atomic_store(&s->err, e);
        return udp_io_done(s, u->how, &u->tx, NULL);
    }
    budget_return_datagrams(s, n - k);
    u->seq += (uint64_t)k;
    u->pc.sent += (uint64_t)k * s->blksize;
    atomic_fetch_add_explicit(&s->bytes, (unsigned long long)k * s->blksize,
                              memory_order_relaxed);
    atomic_fetch_add_explicit(&s->blocks, (unsigned long long)k, memory_order_relaxed);
    atomic_store_explicit(&s->calls, u->tx.calls, memory_order_relaxed);
    return STEP_ON;
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

int udp_io_heads(const struct stream *s)
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
    if (udp_io_heads(s))
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

int udp_recv_step(struct stream *s)
{
    struct udp_io *u = &s->io.udp;
    if (!u->begun) {
        u->begun = 1;
        int rcvbuf = udp_recv_setup(s, &u->rb, u->how, sizeof u->how);
        rx_nap_init(&u->nap, (size_t)u->rb.max * u->rb.room, rcvbuf);
        u->flags = 0;
    }
    if (atomic_load_explicit(&s->sh->stop_recv, memory_order_relaxed)) {
        uint64_t until = mono_ns() + DRAIN_MAX_NS;
        while (mono_ns() < until) {
            int m = udp_rxb_recv(&u->rb, MSG_DONTWAIT);
            if (m < 0 && errno == EINTR)
                continue;
            if (m <= 0)
                break;
            udp_consume(s, &u->rb, m);
        }
        return udp_io_done(s, u->how, NULL, &u->rb);
    }
    int m = udp_rxb_recv(&u->rb, u->flags);
    atomic_store_explicit(&s->calls, u->rb.calls, memory_order_relaxed);
    if (m < 0) {
        int e = errno, napped = u->flags != 0;
        u->flags = 0;
        if (e == EAGAIN || e == EWOULDBLOCK) {
            if (napped) {
                rx_nap_idle(&u->nap);       /* nothing came during the nap: block */
                return STEP_ON;
            }
            return stream_wait(s, POLLIN, 0);
        }
        if (e == EINTR || e == ECONNREFUSED)
            return STEP_ON;
        atomic_store(&s->err, e);
        return udp_io_done(s, u->how, NULL, &u->rb);
    }
    uint64_t got = udp_consume(s, &u->rb, m);
    uint64_t now = mono_ns();
    uint64_t nap_ns = rx_nap_after(&u->nap, now, got, m == u->rb.max);
    u->flags = 0;
    if (nap_ns) {
        u->flags = MSG_DONTWAIT;
        return stream_wait(s, 0, now + nap_ns);
    }
    return STEP_ON;
}
