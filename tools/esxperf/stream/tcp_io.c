/* The TCP steps of a data stream (tcp_io.h): one write or one read each, what
 * it moved counted; the first step sets the stream's path up. */
#include "tcp_io.h"
#include "budget.h"
#include "fallback.h"
#include "fallback_texts.h"
#include "fail.h"
#include "stream.h"
#include "tcp_query.h"
#include "tcp_sndbuf.h"

#include <errno.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <unistd.h>

/* MSG_ZEROCOPY completions: read and drop them (the payload never changes, so
 * the buffer may be reused at once); returns the calls made */
static uint64_t zc_reap(int fd)
{
    uint64_t calls = 0;
    for (int i = 0; i < 64; i++) {
        unsigned char ctl[128];
        struct msghdr m;
        memset(&m, 0, sizeof m);
        m.msg_control = ctl;
        m.msg_controllen = sizeof ctl;
        calls++;
        if (recvmsg(fd, &m, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
            break;
    }
    return calls;
}

/* the -Z choice and the path text; returns 1 for MSG_ZEROCOPY. send(MSG_ZEROCOPY)
 * first: measured on loopback (BENCHMARKS.md, "Where the CPU goes"), it cost 1.4x
 * less CPU per byte than sendfile(), which references each 4 KiB page of the file
 * apart. sendfile() where SO_ZEROCOPY is refused (ESXi; before Linux 4.14), with
 * ESXPERF_ENGINE_OFF=msgzc or ESXPERF_ZEROCOPY=sendfile; the file stays open so a
 * refusal at the first send can fall back to it (tcp_send_chunk). */
static int tcp_send_path(struct stream *s)
{
    int msgzc = 0;
    const char *zc = getenv("ESXPERF_ZEROCOPY");
    if (s->zfd >= 0 && !(s->eng_off & ENG_MSGZC) && !(zc && !strcmp(zc, "sendfile"))) {
        int one = 1;
        if (setsockopt(s->fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof one) == 0) {
            msgzc = 1;
            stream_path_add(s, "TCP send: send(MSG_ZEROCOPY) %zu bytes per call (-Z; "
                               "completions read every 16 calls)", s->blksize);
        } else {
            fallback_refused("SO_ZEROCOPY", errno);
        }
    }
    if (s->file_fd >= 0)
        stream_path_add(s, "TCP send: read() from the -F file, send() up to %zu bytes",
                        s->blksize);
    else if (!msgzc && s->zfd >= 0)
        stream_path_add(s, "TCP send: sendfile() %zu bytes per call (-Z, no copy)", s->blksize);
    else if (!msgzc)
        stream_path_add(s, "TCP send: send() %zu-byte writes%s", s->wsize,
                        s->wsize > s->blksize ? " (whole blocks)" : "");
    return msgzc;
}

/* several streams on a short path: the send buffer held (tcp_sndbuf.h), decided
 * once from the smallest RTT the kernel has seen; where there is no TCP_INFO
 * (ESXi) the kernel's own buffer stays. Returns the calls made. */
static uint64_t sndbuf_decide(struct stream *s)
{
    struct tcp_sample t;
    if (stream_tcp_info(s->fd, &t) < 0)
        return 1;
    int ask = tcp_sndbuf_hold(s->hold_streams, t.min_rtt);
    if (!ask || setsockopt(s->fd, SOL_SOCKET, SO_SNDBUF, &ask, sizeof ask) < 0)
        return 2;
    int got = 0;
    socklen_t len = sizeof got;
    if (getsockopt(s->fd, SOL_SOCKET, SO_SNDBUF, &got, &len) < 0) {
        fallback_note("getsockopt SO_SNDBUF", errno, SNDBUF_UNREAD);
        got = 0;                  /* what was asked is all that is known */
    }
    stream_path_add(s, ", send buffer held at %d KiB%s (%lld streams, smallest RTT %lld us)",
                    (got ? got : ask) / 1024, got ? "" : " asked", (long long)s->hold_streams,
                    (long long)t.min_rtt);
    return 4;
}

/* one write of chunk bytes the way the stream sends; counts the extra calls it
 * makes (the caller counts the one) */
static ssize_t tcp_send_chunk(struct stream *s, size_t chunk, int *msgzc, uint64_t *calls)
{
    ssize_t n;
    if (*msgzc) {
        n = send(s->fd, s->buf, chunk, MSG_NOSIGNAL | MSG_ZEROCOPY);
        if ((n < 0 && errno == ENOBUFS) || (*calls & 15) == 0)
            *calls += zc_reap(s->fd);
        if (n < 0 && errno == ENOBUFS)
            errno = EAGAIN;       /* completions held the socket's option memory */
        if (n < 0 && (errno == EINVAL || errno == EOPNOTSUPP || errno == ENOSYS) && s->zfd >= 0) {
            /* SO_ZEROCOPY taken but the flag refused: sendfile from now on */
            stream_path_add(s, "; send(MSG_ZEROCOPY) failed (%s): sendfile() %zu bytes per call",
                            errtext(errno), s->blksize);
            *msgzc = 0;
            errno = EINTR;        /* the step goes on and sends the chunk again */
        }
    } else if (s->zfd >= 0) {
        off_t off = 0;
        n = sendfile(s->fd, s->zfd, &off, chunk);
        if (n < 0 && (errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP)) {
            /* no sendfile to a socket here: copy from now on */
            int e = errno;
            close(s->zfd);
            s->zfd = -1;
            stream_path_add(s, "; sendfile failed (%s): send() copies", errtext(e));
            n = send(s->fd, s->buf, chunk, MSG_NOSIGNAL);
            (*calls)++;
        }
    } else {
        n = send(s->fd, s->buf, chunk, MSG_NOSIGNAL);
    }
    return n;
}

/* -F: up to chunk bytes of the file, read into buf as the last ones are sent (a
 * partial send keeps the rest for the next call); 0 with file_eof at the end */
static ssize_t file_send_chunk(struct stream *s, size_t chunk, uint64_t *calls)
{
    if (s->file_at == s->file_have) {
        size_t want = chunk < s->bufsize ? chunk : s->bufsize;
        ssize_t r = read(s->file_fd, s->buf, want);
        (*calls)++;
        if (r <= 0) {
            if (r < 0 && errno != EINTR) {
                atomic_store(&s->err, errno);
                s->file_eof = 1;
            } else if (r == 0) {
                s->file_eof = 1;
            }
            return 0;
        }
        s->file_at = 0;
        s->file_have = (size_t)r;
    }
    size_t n = s->file_have - s->file_at;
    if (n > chunk)
        n = chunk;
    ssize_t w = send(s->fd, s->buf + s->file_at, n, MSG_NOSIGNAL);
    if (w > 0)
        s->file_at += (size_t)w;
    return w;
}

/* the first step of a sender: the path, the write size, the pacer's burst */
static void tcp_send_begin(struct stream *s, struct tcp_io *t)
{
    t->begun = 1;
    t->budget = s->sh->has_budget_bytes || s->sh->has_budget_blocks;
    t->msgzc = tcp_send_path(s);
    /* paced: smaller writes at low rates, so no rate overshoots by a whole
     * block (-k counts whole blocks, so it keeps them) */
    t->want = s->sh->has_budget_blocks ? s->blksize          /* -k: a block a call */
            : s->rate_bps ? pace_chunk(s->rate_bps, s->wsize) : s->wsize;
    if (t->want < s->wsize)
        stream_path_add(s, s->rate_bps && !s->sh->has_budget_blocks ? ", paced in %zu-byte writes"
                                                                     : ", %zu-byte writes for -k", t->want);
    t->burst = budget_burst_bytes(s);
    t->hold_at = s->hold_streams > 1 ? mono_ns() + TCP_SNDBUF_AFTER_NS : UINT64_MAX;
}

/* the sender's last step: the final call count published */
static int tcp_send_end(struct stream *s, const struct tcp_io *t)
{
    atomic_store(&s->calls, t->calls);
    return STEP_DONE;
}

/* A write that moves only part of its chunk (SO_SNDTIMEO expired with the send
 * buffer full) leaves the rest pending: the next step writes it before a new
 * chunk is taken from the -n/-k budgets, and the block counts once it is whole.
 * So -k N puts exactly N x len bytes on the wire, as iperf3 does (iperf_tcp_send's
 * pending_size; iperf_send_mt counts a block only when none is pending): a TCP
 * receiver reads len-byte blocks, and a block cut short would never be read whole. */
int tcp_send_step(struct stream *s)
{
    struct tcp_io *t = &s->io.tcp;
    if (!t->begun)
        tcp_send_begin(s, t);
    if (atomic_load_explicit(&s->sh->stop_send, memory_order_relaxed))
        return tcp_send_end(s, t);
    if (!t->pending) {
        t->chunk = t->pending = t->budget ? budget_take(s, t->want) : t->want;
        if (!t->chunk)
            return tcp_send_end(s, t);
    }
    /* one write at a time: waits only while the bucket is negative */
    uint64_t due = 0;
    if (s->rate_bps)
        budget_pace_sync(s, &t->pc);
    if (s->rate_bps && !pace_step(s->rate_bps, mono_ns() - t->pc.from_ns, t->pc.sent, t->burst,
                                  t->pending, 1, 1, &due))
        return stream_wait(s, 0, t->pc.from_ns + due);
    ssize_t n = s->file_fd >= 0 ? file_send_chunk(s, t->pending, &t->calls)
                                : tcp_send_chunk(s, t->pending, &t->msgzc, &t->calls);
    t->calls++;
    if (n == 0 && s->file_fd >= 0) {
        if (!s->file_eof)
            return STEP_ON;      /* the file read was interrupted: the chunk goes on */
        if (t->budget)
            budget_return(s, t->pending, t->pending == t->chunk);
        return tcp_send_end(s, t);   /* -F: the whole file is sent */
    }
    if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return stream_wait(s, POLLOUT, 0);
        if (errno == EINTR)
            return STEP_ON;
        /* what this stream cannot send, the others still may */
        if (t->budget)
            budget_return(s, t->pending, t->pending == t->chunk);
        atomic_store(&s->err, errno);
        return tcp_send_end(s, t);
    }
    t->pending -= (size_t)n;
    t->pc.sent += (uint64_t)n;
    if (t->hold_at != UINT64_MAX && (++t->writes & 15) == 0 && mono_ns() >= t->hold_at) {
        t->calls += sndbuf_decide(s);
        t->hold_at = UINT64_MAX;
    }
    /* one relaxed add each: the session's thread reads them at interval ticks */
    atomic_fetch_add_explicit(&s->bytes, (unsigned long long)n, memory_order_relaxed);
    if (!t->pending)
        atomic_fetch_add_explicit(&s->blocks, t->chunk > s->blksize ? t->chunk / s->blksize : 1,
                                  memory_order_relaxed);
    atomic_store_explicit(&s->calls, t->calls, memory_order_relaxed);
    return STEP_ON;
}

/* -F receiver: what arrived, written whole to the file; -1 (errno in s->err) when
 * the file takes no more */
static int file_write(struct stream *s, size_t n)
{
    for (size_t at = 0; at < n;) {
        ssize_t w = write(s->file_fd, s->buf + at, n - at);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            atomic_store(&s->err, w < 0 ? errno : ENOSPC);
            return -1;
        }
        at += (size_t)w;
    }
    return 0;
}

/* after stop_recv: read what is already queued, bounded in time */
static void drain_tcp(struct stream *s, int flags)
{
    uint64_t until = mono_ns() + DRAIN_MAX_NS;
    while (mono_ns() < until) {
        ssize_t n = recv(s->fd, s->buf, s->bufsize, flags | MSG_DONTWAIT);
        atomic_fetch_add(&s->calls, 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                atomic_store(&s->eof, 1);
            return;
        }
        if (s->file_fd >= 0 && file_write(s, (size_t)n) < 0)
            return;
        atomic_fetch_add(&s->bytes, (unsigned long long)n);
        atomic_fetch_add(&s->blocks, 1);
    }
}

/* SO_RCVLOWAT = l, or half the receive buffer the socket has now when that is
 * less (it grows with the kernel's autotuning: the next step may set more), so no
 * read waits for more than the sender may put in flight; where the buffer cannot
 * be read, none (a lowat past it could hold every read to its timeout); returns
 * the lowat set (0: none) */
static int set_lowat(int fd, int l)
{
    int rcvbuf = 0;
    socklen_t len = sizeof rcvbuf;
    if (l > 1) {
        if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, &len) < 0) {
            fallback_note("getsockopt SO_RCVBUF", errno, RCVBUF_UNREAD);
            return 0;
        }
        if (rcvbuf > 0)
            l = tcp_lowat_fit(l, (uint64_t)rcvbuf / 2);
    }
    if (setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &l, sizeof l) < 0) {
        fallback_refused("SO_RCVLOWAT", errno);
        return 0;
    }
    return l;
}

/* the largest lowat for this stream: the test's (tcp_lowat_cap), its read size,
 * a quarter of a -w window */
static int lowat_cap(const struct stream *s)
{
    int cap = s->lowat_max;
    if (s->window > 0 && cap > s->window / 4)
        cap = (int)(s->window / 4);
    if (cap > (int)s->bufsize)
        cap = (int)s->bufsize;
    return cap > 1 ? cap : 0;
}

/* the first step of a receiver: MSG_TRUNC, the first SO_RCVLOWAT, the path */
static void tcp_recv_begin(struct stream *s, struct tcp_io *t)
{
    t->begun = 1;
    t->flags = 0;
    if (s->skip_rx_copy && !(s->eng_off & ENG_TRUNC) && s->file_fd < 0)
        t->flags = MSG_TRUNC;    /* not with -F: the bytes go to the file */
    /* wake for about a millisecond of data, not for every segment (tcp_lowat.h):
     * fewer wake-ups and bigger copies (the kernel still wakes early under memory
     * pressure and at FIN, and SO_RCVTIMEO returns what has come) */
    int cap = s->eng_off & ENG_LOWAT ? 0 : lowat_cap(s);
    tcp_lowat_init(&t->lw, cap, mono_ns());
    t->lowat = cap ? set_lowat(s->fd, t->lw.cur) : 0;
    if (t->lowat)
        t->lw.cur = t->lowat;
    stream_path_add(s, "TCP receive: recv(%s) %zu-byte reads, %s",
                    t->flags ? "MSG_TRUNC, no copy" : "copy", s->bufsize,
                    t->lowat ? "SO_RCVLOWAT from the rate" : "no SO_RCVLOWAT");
    if (t->lowat)
        stream_path_add(s, " (%d at first, at most %d)", t->lowat, t->lw.cap);
}

int tcp_recv_step(struct stream *s)
{
    struct tcp_io *t = &s->io.tcp;
    if (!t->begun)
        tcp_recv_begin(s, t);
    if (atomic_load_explicit(&s->sh->stop_recv, memory_order_relaxed)) {
        atomic_store(&s->calls, t->calls);
        drain_tcp(s, t->flags);
        return STEP_DONE;
    }
    ssize_t n = recv(s->fd, s->buf, s->bufsize, t->flags);
    t->calls++;
    if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return stream_wait(s, POLLIN, 0);
        if (errno == EINTR)
            return STEP_ON;
        if (t->flags && (errno == EINVAL || errno == EOPNOTSUPP)) {
            t->flags = 0;        /* no MSG_TRUNC on this stack: copy */
            stream_path_add(s, "; MSG_TRUNC refused: copy");
            return STEP_ON;
        }
        atomic_store(&s->calls, t->calls);
        atomic_store(&s->err, errno);
        return STEP_DONE;
    }
    if (n == 0) {
        atomic_store(&s->calls, t->calls);
        atomic_store(&s->eof, 1);
        return STEP_DONE;
    }
    if (s->file_fd >= 0 && file_write(s, (size_t)n) < 0) {
        atomic_store(&s->calls, t->calls);
        return STEP_DONE;
    }
    atomic_fetch_add_explicit(&s->bytes, (unsigned long long)n, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->blocks, 1, memory_order_relaxed);
    atomic_store_explicit(&s->calls, t->calls, memory_order_relaxed);
    /* cur is what the socket took: when it refused, or a receive buffer still
     * small took less, the next 10 ms window asks again */
    int l = t->lowat ? tcp_lowat_step(&t->lw, (size_t)n, mono_ns()) : 0;
    if (l) {
        t->calls += 2;
        int got = set_lowat(s->fd, l);
        if (got)
            t->lw.cur = got;
    }
    return STEP_ON;
}
