/* Data streams: one thread per stream, blocking sockets with short timeouts so
 * each loop checks the shared stop flags; counters are atomics read by the main
 * thread at interval ticks. */
#include "stream.h"
#include "clock.h"
#include "fail.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <unistd.h>

#define LOOP_TIMEOUT_MS 100
#define DRAIN_MAX_NS (300 * 1000000ull)

int stream_sockopts(int fd, const struct test_params *p, int family, const char **why)
{
    int one = 1;
    if (p->window) {
        int w = (int)p->window;
        if (setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &w, sizeof w) < 0 ||
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &w, sizeof w) < 0) {
            *why = "cannot set the socket buffer size (-w)";
            return -1;
        }
    }
    if (!p->udp) {
        if (p->mss) {
            int m = (int)p->mss;
            if (setsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &m, sizeof m) < 0) {
                *why = "cannot set the TCP MSS (-M)";
                return -1;
            }
        }
        if (p->nodelay && setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) < 0) {
            *why = "cannot set TCP_NODELAY (-N)";
            return -1;
        }
        if (p->congestion[0] &&
            setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, p->congestion,
                       (socklen_t)strlen(p->congestion)) < 0) {
            *why = "cannot set the congestion control (-C; is the module loaded?)";
            return -1;
        }
    }
    if (p->tos) {
        int t = (int)p->tos;
        int rc = family == AF_INET6
                     ? setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &t, sizeof t)
                     : setsockopt(fd, IPPROTO_IP, IP_TOS, &t, sizeof t);
        if (rc < 0) {
            *why = "cannot set the TOS (-S)";
            return -1;
        }
    }
    if (p->dont_fragment && p->udp && family == AF_INET) {
        int v = IP_PMTUDISC_DO;
        if (setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &v, sizeof v) < 0) {
            *why = "cannot set the don't-fragment bit";
            return -1;
        }
    }
    if (p->fqrate) {
        unsigned int r = p->fqrate / 8 > 0xffffffffLL ? 0xffffffffu : (unsigned int)(p->fqrate / 8);
        setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &r, sizeof r);   /* best effort */
    }
    return 0;
}

void stream_set_timeouts(int fd, int ms)
{
    struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
}

static void fill_payload(unsigned char *buf, size_t n, int repeating)
{
    if (repeating) {
        for (size_t i = 0; i < n; i++)
            buf[i] = (unsigned char)('0' + i % 10);
        return;
    }
    uint64_t x = mono_ns() | 1;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        buf[i] = (unsigned char)x;
    }
}

/* -Z: sendfile() from an unlinked temporary file holding one block */
static int zerocopy_file(const unsigned char *buf, size_t n)
{
    char path[] = "/tmp/esxperf-zc-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    unlink(path);
    size_t off = 0;
    while (off < n) {
        ssize_t w = write(fd, buf + off, n - off);
        if (w <= 0) {
            close(fd);
            return -1;
        }
        off += (size_t)w;
    }
    return fd;
}

int stream_init(struct stream *s, int id, int fd, int sender, const struct test_params *p,
                struct stream_shared *sh)
{
    memset(s, 0, sizeof *s);
    s->id = id;
    s->fd = fd;
    s->zfd = -1;
    s->udp = p->udp;
    s->sender = sender;
    s->counters64 = p->udp_counters_64bit;
    s->skip_rx_copy = p->skip_rx_copy;
    s->blksize = (size_t)p->len;
    s->bufsize = s->udp && !sender ? 65536 : s->blksize;
    if (s->bufsize < s->blksize)
        s->bufsize = s->blksize;
    s->buf = xmalloc(s->bufsize);
    fill_payload(s->buf, s->bufsize, p->repeating_payload);
    s->rate_bps = p->bandwidth > 0 ? (uint64_t)p->bandwidth : 0;
    s->burst = p->burst;
    s->pacing_ns = p->pacing_timer > 0 ? (uint64_t)p->pacing_timer * 1000u : 1000000u;
    s->sh = sh;
    udp_rx_init(&s->rx);
    pthread_mutex_init(&s->lock, NULL);
    if (p->zerocopy && sender && !s->udp && (s->zfd = zerocopy_file(s->buf, s->blksize)) < 0)
        return -1;
    stream_set_timeouts(fd, LOOP_TIMEOUT_MS);
    return 0;
}

static void *stream_main(void *arg)
{
    struct stream *s = arg;
    if (s->sender) {
        if (s->udp)
            stream_udp_send(s);
        else
            stream_tcp_send(s);
        atomic_fetch_sub(&s->sh->senders_running, 1);
    } else {
        if (s->udp)
            stream_udp_recv(s);
        else
            stream_tcp_recv(s);
    }
    atomic_store(&s->done, 1);
    return NULL;
}

int stream_start(struct stream *s)
{
    if (s->sender)
        atomic_fetch_add(&s->sh->senders_running, 1);
    int rc = pthread_create(&s->thr, NULL, stream_main, s);
    if (rc) {
        if (s->sender)
            atomic_fetch_sub(&s->sh->senders_running, 1);
        errno = rc;
        return -1;
    }
    s->started = 1;
    return 0;
}

void stream_join(struct stream *s)
{
    if (s->started) {
        pthread_join(s->thr, NULL);
        s->started = 0;
    }
}

void stream_free(struct stream *s)
{
    stream_join(s);
    if (s->fd >= 0)
        close(s->fd);
    if (s->zfd >= 0)
        close(s->zfd);
    s->fd = s->zfd = -1;
    free(s->buf);
    s->buf = NULL;
    pthread_mutex_destroy(&s->lock);
}

/* take n bytes (and one block) from the -n/-k budgets; returns how many bytes
 * may be sent (0 = budget used up) */
static size_t budget_take(struct stream *s, size_t n)
{
    struct stream_shared *sh = s->sh;
    if (sh->has_budget_blocks && atomic_fetch_sub(&sh->budget_blocks, 1) <= 0)
        return 0;
    if (sh->has_budget_bytes) {
        long long left = atomic_fetch_sub(&sh->budget_bytes, (long long)n);
        if (left <= 0)
            return 0;
        if ((unsigned long long)left < n) {
            atomic_fetch_add(&sh->budget_bytes, (long long)n - left);
            return (size_t)left;
        }
    }
    return n;
}

static void budget_return(struct stream *s, size_t unsent, int whole_block)
{
    if (s->sh->has_budget_bytes && unsent)
        atomic_fetch_add(&s->sh->budget_bytes, (long long)unsent);
    if (s->sh->has_budget_blocks && whole_block)
        atomic_fetch_add(&s->sh->budget_blocks, 1);
}

/* rate pacing: sleep while this stream is ahead of rate*elapsed (plus burst) */
static void pace(struct stream *s)
{
    if (!s->rate_bps)
        return;
    for (int spins = 0; spins < 1000 && !atomic_load(&s->sh->stop_send); spins++) {
        uint64_t now = mono_ns();
        double elapsed = (double)(now - s->sh->start_ns) / 1e9;
        double allowed = (double)s->rate_bps / 8.0 * elapsed;
        double ahead = (double)atomic_load(&s->bytes) -
                       (double)(s->burst > 1 ? s->burst - 1 : 0) * (double)s->blksize;
        if (ahead < allowed)
            return;
        /* sleep at least one pacing period, then catch up in a short burst
         * (as iperf3's pacing timer): fewer wake-ups at high packet rates */
        double wait = (ahead - allowed) / ((double)s->rate_bps / 8.0);
        uint64_t ns = (uint64_t)(wait * 1e9) + 1000;
        if (ns < s->pacing_ns)
            ns = s->pacing_ns;
        if (ns > 50000000u)
            ns = 50000000u;
        sleep_ns(ns);
    }
}

void stream_tcp_send(struct stream *s)
{
    while (!atomic_load(&s->sh->stop_send)) {
        size_t chunk = budget_take(s, s->blksize);
        if (!chunk)
            break;
        pace(s);
        ssize_t n;
        if (s->zfd >= 0) {
            off_t off = 0;
            n = sendfile(s->fd, s->zfd, &off, chunk);
        } else {
            n = send(s->fd, s->buf, chunk, MSG_NOSIGNAL);
        }
        atomic_fetch_add(&s->calls, 1);
        if (n < 0) {
            budget_return(s, chunk, 1);
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
                continue;
            atomic_store(&s->err, errno);
            break;
        }
        budget_return(s, chunk - (size_t)n, 0);
        atomic_fetch_add(&s->bytes, (unsigned long long)n);
        atomic_fetch_add(&s->blocks, 1);
    }
}

/* after stop_recv: read what is already queued, bounded in time */
static void drain(struct stream *s, int udp)
{
    uint64_t until = mono_ns() + DRAIN_MAX_NS;
    while (mono_ns() < until) {
        ssize_t n = recv(s->fd, s->buf, s->bufsize, MSG_DONTWAIT);
        atomic_fetch_add(&s->calls, 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0 && !udp)
                atomic_store(&s->eof, 1);
            return;
        }
        atomic_fetch_add(&s->bytes, (unsigned long long)n);
        atomic_fetch_add(&s->blocks, 1);
        if (udp) {
            uint32_t sec, usec;
            uint64_t seq;
            if (udp_header_get(s->buf, (size_t)n, s->counters64, &sec, &usec, &seq) == 0) {
                double now = (double)wall_us() / 1e6;
                pthread_mutex_lock(&s->lock);
                udp_rx_update(&s->rx, seq, sec + usec / 1e6, now);
                pthread_mutex_unlock(&s->lock);
            }
        }
    }
}

void stream_tcp_recv(struct stream *s)
{
    int flags = s->skip_rx_copy ? MSG_TRUNC : 0;
    for (;;) {
        if (atomic_load(&s->sh->stop_recv)) {
            drain(s, 0);
            return;
        }
        ssize_t n = recv(s->fd, s->buf, s->bufsize, flags);
        atomic_fetch_add(&s->calls, 1);
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
                continue;
            atomic_store(&s->err, errno);
            return;
        }
        if (n == 0) {
            atomic_store(&s->eof, 1);
            return;
        }
        atomic_fetch_add(&s->bytes, (unsigned long long)n);
        atomic_fetch_add(&s->blocks, 1);
    }
}

void stream_udp_send(struct stream *s)
{
    uint64_t seq = 0;
    while (!atomic_load(&s->sh->stop_send)) {
        size_t chunk = budget_take(s, s->blksize);
        if (!chunk)
            break;
        pace(s);
        if (atomic_load(&s->sh->stop_send)) {
            budget_return(s, chunk, 1);
            break;
        }
        uint64_t us = wall_us();
        udp_header_put(s->buf, (uint32_t)(us / 1000000u), (uint32_t)(us % 1000000u), seq + 1,
                       s->counters64);
        ssize_t n = send(s->fd, s->buf, s->blksize, MSG_NOSIGNAL);
        atomic_fetch_add(&s->calls, 1);
        if (n < 0) {
            budget_return(s, chunk, 1);
            /* a full buffer, or ICMP unreachable reported on a connected socket */
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ||
                errno == ENOBUFS || errno == ECONNREFUSED)
                continue;
            atomic_store(&s->err, errno);
            break;
        }
        seq++;
        atomic_fetch_add(&s->bytes, (unsigned long long)n);
        atomic_fetch_add(&s->blocks, 1);
    }
}

void stream_udp_recv(struct stream *s)
{
    for (;;) {
        if (atomic_load(&s->sh->stop_recv)) {
            drain(s, 1);
            return;
        }
        ssize_t n = recv(s->fd, s->buf, s->bufsize, 0);
        atomic_fetch_add(&s->calls, 1);
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ||
                errno == ECONNREFUSED)
                continue;
            atomic_store(&s->err, errno);
            return;
        }
        uint32_t sec, usec;
        uint64_t seq;
        if (udp_header_get(s->buf, (size_t)n, s->counters64, &sec, &usec, &seq) < 0)
            continue;   /* not one of ours (too short for the header) */
        if (n == 4 && seq == 0)
            continue;
        double now = (double)wall_us() / 1e6;
        pthread_mutex_lock(&s->lock);
        udp_rx_update(&s->rx, seq, sec + usec / 1e6, now);
        pthread_mutex_unlock(&s->lock);
        atomic_fetch_add(&s->bytes, (unsigned long long)n);
        atomic_fetch_add(&s->blocks, 1);
    }
}

void stream_rx_snapshot(struct stream *s, struct udp_rx *out)
{
    pthread_mutex_lock(&s->lock);
    *out = s->rx;
    pthread_mutex_unlock(&s->lock);
}

int stream_tcp_info(int fd, struct tcp_sample *t)
{
    struct tcp_info ti;
    socklen_t len = sizeof ti;
    memset(&ti, 0, sizeof ti);
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0 || len < 104) {
        t->retrans = t->cwnd = t->rtt = t->rttvar = t->pmtu = -1;
        return -1;
    }
    t->retrans = ti.tcpi_total_retrans;
    t->cwnd = (int64_t)ti.tcpi_snd_cwnd * ti.tcpi_snd_mss;
    t->rtt = ti.tcpi_rtt;
    t->rttvar = ti.tcpi_rttvar;
    t->pmtu = ti.tcpi_pmtu;
    return 0;
}

void stream_congestion(int fd, char *buf, size_t len)
{
    char name[32] = "";
    socklen_t n = sizeof name - 1;
    if (getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, &n) < 0)
        name[0] = '\0';
    name[sizeof name - 1] = '\0';
    snprintf(buf, len, "%s", name);
}
