/* The request/response steps of an --rr data stream (rr_io.h): the client's
 * request, its answer and the round trip; the server's answer and its
 * turnaround; the books the session reads. */
#include "rr_io.h"
#include "budget.h"
#include "fail.h"
#include "fallback.h"
#include "proto.h"
#include "stream.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

enum { RR_IDLE, RR_SEND, RR_RECV };

int rr_stream_init(struct stream *s, const struct test_params *p, int64_t timeout_ms, int asks)
{
    struct rr_io *io = &s->io.rr;
    size_t req = (size_t)p->len, resp = p->rr_response > 0 ? (size_t)p->rr_response : req;
    memset(io, 0, sizeof *io);
    io->asks = asks;
    io->out_len = asks ? req : resp;
    io->in_len = asks ? resp : req;
    /* a UDP request bigger than we expect still fits: the datagram's whole size */
    if (s->udp && !asks && io->in_len < UDP_LEN_MAX)
        io->in_len = UDP_LEN_MAX;
    io->timeout_ns = (uint64_t)timeout_ms * NS_PER_MS;
    /* -b: transactions/s; with --rr-load it is the bulk streams' rate, and the requests
     * go at RR_LOAD_RATE */
    uint64_t rate = !asks ? 0 : p->rr_load ? RR_LOAD_RATE
                  : p->bandwidth > 0 ? (uint64_t)p->bandwidth : 0;
    io->period_ns = rate ? NS_PER_SEC / rate : 0;
    if (rate && !io->period_ns)
        io->period_ns = 1;
    io->quiet = p->rr_load;
    io->load_ns = p->rr_load ? (uint64_t)p->omit * NS_PER_SEC : 0;
    io->in = calloc(1, io->in_len);
    io->out = calloc(1, io->out_len);
    s->rrb = calloc(1, sizeof *s->rrb);
    if (!io->in || !io->out || !s->rrb) {
        rr_stream_free(s);
        errno = ENOMEM;
        return -1;
    }
    memcpy(io->out, s->buf, s->bufsize < io->out_len ? s->bufsize : io->out_len);
    return 0;
}

void rr_stream_free(struct stream *s)
{
    free(s->io.rr.in);
    free(s->io.rr.out);
    free(s->rrb);
    s->io.rr.in = s->io.rr.out = NULL;
    s->rrb = NULL;
}

/* TCP_NODELAY once; TCP_QUICKACK (the kernel clears it again) wherever an ACK can
 * be waited for: after a read that leaves a message incomplete (its sender's window
 * moves on), and on a paced client after each answer (the connection then idles,
 * and the answer's ACK would wait for the delayed-ACK timer). A whole small message's
 * ACK rides on the answer or on the next request; setting it after every read cost
 * 2-4 us a round trip on loopback (test/lib/bench-rr.sh). A host that refuses them
 * runs on, said once (-V, -J fallbacks) */
static void tcp_nodelay(struct stream *s)
{
    int one = 1;
    if (!s->udp && setsockopt(s->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) < 0)
        fallback_note("TCP_NODELAY", errno, "--rr requests may wait for Nagle's timer");
}

static void tcp_quickack(struct stream *s)
{
    int one = 1;
    if (!s->udp && setsockopt(s->fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof one) < 0)
        fallback_note("TCP_QUICKACK", errno, "--rr answers may be acknowledged late");
}

static void begin(struct stream *s)
{
    struct rr_io *io = &s->io.rr;
    io->begun = 1;
    if (io->load_ns)
        io->load_at = mono_ns() + io->load_ns;
    tcp_nodelay(s);
    stream_path_add(s, "%s %s: %zu-byte %s, %zu-byte %s, one in flight%s%s",
                    s->udp ? "UDP" : "TCP", io->asks ? "request/response" : "answers",
                    io->asks ? io->out_len : s->blksize, "requests",
                    io->asks ? io->in_len : io->out_len, "answers",
                    io->period_ns ? ", paced" : "", io->load_at ? ", idle then loaded" : "");
}

/* either stop flag ends an --rr stream: with --rr-load and -R its side may be
 * counted a sender or a receiver, whichever the bulk streams are */
static int stopped(const struct stream *s)
{
    return atomic_load_explicit(&s->sh->stop_send, memory_order_relaxed) ||
           atomic_load_explicit(&s->sh->stop_recv, memory_order_relaxed);
}

/* a failed call: wait (EAGAIN), again (EINTR), or the stream's end (its errno) */
static int io_failed(struct stream *s, short events)
{
    if (errno == EAGAIN || errno == EWOULDBLOCK)
        return s->poll_wait ? stream_wait(s, events, 0) : STEP_ON;
    if (errno == EINTR)
        return STEP_ON;
    atomic_store(&s->err, errno);
    return STEP_DONE;
}

/* the rest of the message under way out; STEP_ON when more remains or it is out
 * (phase moved on by the caller when done == out_len) */
static int send_some(struct stream *s)
{
    struct rr_io *io = &s->io.rr;
    ssize_t n = send(s->fd, io->out + io->done, io->out_len - io->done, MSG_NOSIGNAL);
    atomic_fetch_add_explicit(&s->calls, 1, memory_order_relaxed);
    if (n < 0)
        return io_failed(s, POLLOUT);
    io->done += (size_t)n;
    return STEP_ON;
}

static void record(struct stream *s, uint64_t ns)
{
    struct rr_book *b = s->rrb;
    int idle = s->io.rr.load_at && mono_ns() < s->io.rr.load_at;
    pthread_mutex_lock(&s->lock);
    rr_hist_add(idle ? &b->idle : &b->all, ns);
    rr_hist_add(&b->iv, ns);
    pthread_mutex_unlock(&s->lock);
    atomic_fetch_add_explicit(&s->blocks, 1, memory_order_relaxed);
}

/* paced: the next request at its time, never in a burst to catch up */
static void schedule_next(struct rr_io *io, uint64_t now)
{
    if (!io->period_ns)
        return;
    io->next = io->next ? io->next + io->period_ns : now + io->period_ns;
    if (io->next + io->period_ns < now)
        io->next = now;
}

/* the client's request goes out: its time, its number (UDP), the budget */
static int client_request(struct stream *s)
{
    struct rr_io *io = &s->io.rr;
    uint64_t now = mono_ns();
    if (io->period_ns && io->next > now)
        return stream_wait(s, 0, io->next);
    if (budget_take_datagrams(s, 1) <= 0)
        return STEP_DONE;
    if (!io->next)
        io->next = now;
    io->seq++;
    if (s->udp)
        memcpy(io->out, &io->seq, RR_SEQ_BYTES);
    io->t0 = mono_ns();
    io->done = 0;
    io->phase = RR_SEND;
    return STEP_ON;
}

/* the client's answer, whole: its round trip, then the next request */
static void client_answered(struct stream *s, uint64_t now)
{
    struct rr_io *io = &s->io.rr;
    record(s, now - io->t0);
    schedule_next(io, now);
    io->phase = RR_IDLE;
}

/* no answer within --rr-timeout: UDP counts the request lost and goes on; TCP
 * ends the stream (the server stopped answering) */
static int client_timeout(struct stream *s, uint64_t now)
{
    struct rr_io *io = &s->io.rr;
    if (!s->udp) {
        pthread_mutex_lock(&s->lock);
        s->rrb->stalled = 1;
        pthread_mutex_unlock(&s->lock);
        atomic_store(&s->err, ETIMEDOUT);
        return STEP_DONE;
    }
    pthread_mutex_lock(&s->lock);
    s->rrb->lost++;
    s->rrb->iv_lost++;
    pthread_mutex_unlock(&s->lock);
    schedule_next(io, now);
    io->phase = RR_IDLE;
    return STEP_ON;
}

/* one read of the answer: TCP what is left of it, UDP one datagram (one that is
 * not our request's is a late answer: counted, dropped) */
static int client_read(struct stream *s)
{
    struct rr_io *io = &s->io.rr;
    ssize_t n = recv(s->fd, io->in + io->done, io->in_len - io->done, 0);
    atomic_fetch_add_explicit(&s->calls, 1, memory_order_relaxed);
    uint64_t now = mono_ns();
    if (n < 0) {
        if ((errno == EAGAIN || errno == EWOULDBLOCK) && now - io->t0 >= io->timeout_ns)
            return client_timeout(s, now);
        return io_failed(s, POLLIN);
    }
    if (n == 0 && !s->udp) {
        atomic_store(&s->eof, 1);
        atomic_store(&s->err, ECONNRESET);
        return STEP_DONE;
    }
    if (s->udp) {
        uint64_t seq = 0;
        if ((size_t)n >= RR_SEQ_BYTES)
            memcpy(&seq, io->in, RR_SEQ_BYTES);
        if (seq != io->seq) {
            pthread_mutex_lock(&s->lock);
            s->rrb->late++;
            pthread_mutex_unlock(&s->lock);
            return now - io->t0 >= io->timeout_ns ? client_timeout(s, now) : STEP_ON;
        }
        client_answered(s, now);
        return STEP_ON;
    }
    io->done += (size_t)n;
    if (io->done < io->in_len || io->period_ns)
        tcp_quickack(s);
    if (io->done == io->in_len)
        client_answered(s, now);
    else if (now - io->t0 >= io->timeout_ns)
        return client_timeout(s, now);
    return STEP_ON;
}

int rr_client_step(struct stream *s)
{
    struct rr_io *io = &s->io.rr;
    if (!io->begun)
        begin(s);
    if (stopped(s))
        return STEP_DONE;
    if (io->phase == RR_IDLE) {
        int r = client_request(s);
        if (io->phase == RR_IDLE)
            return r;
    }
    if (io->phase == RR_SEND) {
        int r = send_some(s);
        if (io->done < io->out_len)
            return r;
        if (!io->quiet)
            atomic_fetch_add_explicit(&s->bytes, io->out_len, memory_order_relaxed);
        io->done = 0;
        io->phase = RR_RECV;
    }
    return client_read(s);
}

/* the server: one read of the request (TCP until it is whole, UDP one datagram) */
static int server_read(struct stream *s)
{
    struct rr_io *io = &s->io.rr;
    size_t want = s->udp ? io->in_len : (size_t)s->blksize - io->done;
    ssize_t n = recv(s->fd, io->in + (s->udp ? 0 : io->done), want, 0);
    atomic_fetch_add_explicit(&s->calls, 1, memory_order_relaxed);
    if (n < 0)
        return io_failed(s, POLLIN);
    if (n == 0 && !s->udp) {
        atomic_store(&s->eof, 1);
        return STEP_DONE;
    }
    if (!io->quiet)
        atomic_fetch_add_explicit(&s->bytes, (uint64_t)n, memory_order_relaxed);
    if (s->udp) {
        if ((size_t)n >= RR_SEQ_BYTES)
            memcpy(io->out, io->in, RR_SEQ_BYTES);
    } else {
        io->done += (size_t)n;
        if (io->done < s->blksize) {
            tcp_quickack(s);
            return STEP_ON;
        }
    }
    io->t0 = mono_ns();
    io->done = 0;
    io->phase = RR_SEND;
    return STEP_ON;
}

int rr_server_step(struct stream *s)
{
    struct rr_io *io = &s->io.rr;
    if (!io->begun)
        begin(s);
    if (stopped(s))
        return STEP_DONE;
    if (io->phase != RR_SEND)
        return server_read(s);
    int r = send_some(s);
    if (io->done < io->out_len)
        return r;
    record(s, mono_ns() - io->t0);
    io->done = 0;
    io->phase = RR_RECV;
    return STEP_ON;
}

void rr_book_interval(struct stream *s, struct rr_hist *into, struct rr_figs *f)
{
    struct rr_book *b = s->rrb;
    memset(f, 0, sizeof *f);
    if (!b)
        return;
    pthread_mutex_lock(&s->lock);
    f->on = 1;
    f->n = b->iv.n;
    f->lost = b->iv_lost;
    f->p50 = rr_hist_quantile(&b->iv, 0.50);
    f->p99 = rr_hist_quantile(&b->iv, 0.99);
    if (into)
        rr_hist_merge(into, &b->iv);
    rr_hist_reset(&b->iv);
    b->iv_lost = 0;
    pthread_mutex_unlock(&s->lock);
}

void rr_book_total(struct stream *s, struct rr_hist *into, struct rr_hist *idle, uint64_t *lost,
                   uint64_t *late)
{
    struct rr_book *b = s->rrb;
    if (!b)
        return;
    pthread_mutex_lock(&s->lock);
    rr_hist_merge(into, &b->all);
    if (idle)
        rr_hist_merge(idle, &b->idle);
    *lost += b->lost;
    *late += b->late;
    pthread_mutex_unlock(&s->lock);
}
